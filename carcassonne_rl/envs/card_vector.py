"""Vector env of the card game: ``N`` Cardcassonne games stepped by one compiled call
(docs/vector_envs.md).

``CardVectorEnv(name="cardcassonne_v0", num_envs, observations=True, copy=False,
**env_kwargs)`` is a ``gymnasium.vector.VectorEnv`` over ``N`` games of ``cardcassonne_v0``
(``env_kwargs``: those of the AEC env: players, reward_mode, render_mode, render_view). It is
the AEC env's game, action for action (the batched engine of
``games/cardcassonne/batch.py``, the observation kernel of ``encoders/card/batch.py``, the
step of :mod:`.card_vector_kernels`):

- ``reset(seed=s)`` deals game ``i`` as the AEC env's ``reset(seed=s + i)`` (a list of
  seeds: one per game); later deals of game ``i`` follow as that AEC env's next
  ``reset()`` would. Returns ``(obs, infos)``.
- ``obs``: the AEC observation dict with a leading axis ``N`` (``obs["observation"]``
  float32 ``[N, 1620]``, ``obs["action_mask"]`` int8 ``[N, 206]``), each game seen by its
  acting seat ``infos["seat"][i]``. ``observations=False``: the masks alone
  (``{"action_mask": ...}``), nothing else encoded.
- ``step(actions)``: an int array ``[N]`` of action indices; returns ``(obs, rewards
  [N, players] (every seat's reward of that step, as the AEC env's ``rewards``),
  terminations, truncations, infos)``. A masked-out action ends that game as the classic
  wrapper does (-1 for its maker; terminated and truncated; ``infos["illegal_action"]``).
- Auto-reset: ``SAME_STEP`` (``metadata["autoreset_mode"]``): a game that ends is dealt
  again inside that step, so every returned observation has a seat to move and a non-empty
  mask. The last observation of the ended game is ``infos["final_obs"][i]`` (the position
  seen by the seat after the one that moved last, or by seat 0 after an illegal move, as
  the AEC env's ``last()`` shows it: an all-zero mask, except after an illegal move of seat
  0), its final scores ``infos["final_info"]["scores"][i]``.

``num_threads``: the threads of the compiled step (default: Numba's, one per core, the
games shared out by ``prange`` from ``PARALLEL_MIN`` games on); 1 steps the games one after
the other in the calling thread, with no hand-off, which is best where the cores are busy
with other work: each step waits for every thread, and on busy cores that wait can cost far
more than it gains (``benchmarks/card_vector.py`` measures both; Numba's ``omp`` threading
layer spins while it waits, ``NUMBA_THREADING_LAYER=workqueue`` does not). The kernels
release the GIL.

The observation arrays are the env's own buffers, overwritten by the next ``step`` (pass
``copy=True`` for fresh arrays each step).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from carcassonne_rl.encoders.card.encoder import CARD_OBS_SIZE, CardEncoder
from carcassonne_rl.envs import card_vector_kernels as VK
from carcassonne_rl.envs.cardcassonne_v0 import raw_env
from carcassonne_rl.games.cardcassonne import NUM_ACTIONS, GameConfig, State
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.batch import CardBatch

__all__ = ["CARD_VECTOR_ENVS", "CardVectorEnv"]

CARD_VECTOR_ENVS = ("cardcassonne_v0",)
#: fewer games than this are stepped in the calling thread whatever ``num_threads`` says (a
#: step of so few is shorter than handing it out to the threads)
PARALLEL_MIN = 64


class CardVectorEnv(VectorEnv):
    """``num_envs`` card games as one ``gymnasium.vector.VectorEnv`` (see the module)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        name: str = "cardcassonne_v0",
        num_envs: int = 1,
        observations: bool = True,
        copy: bool = False,
        num_threads: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        if name not in CARD_VECTOR_ENVS:
            raise ValueError(f"CardVectorEnv plays {' or '.join(CARD_VECTOR_ENVS)}, not {name!r}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs}")
        if num_threads is not None and (
            isinstance(num_threads, bool)
            or not isinstance(num_threads, (int, np.integer))
            or not 1 <= num_threads <= numba.config.NUMBA_NUM_THREADS
        ):
            raise ValueError(
                f"num_threads must be an int from 1 to {numba.config.NUMBA_NUM_THREADS}, "
                f"got {num_threads!r}"
            )
        self.num_threads = num_threads
        encoder = env_kwargs.get("encoder")
        if encoder is not None and type(encoder) is not CardEncoder:
            raise ValueError("the card vector env encodes CardEncoder's observation only")
        self.raw = raw = raw_env(**env_kwargs)  # checks the arguments; spaces, renders
        self.name = name
        self.num_envs = n = int(num_envs)
        self.observations = bool(observations)
        self.copy = bool(copy)
        self.render_mode = raw.render_mode
        self.metadata = {**self.metadata, "name": f"{name}_vector"}
        self.players = raw.players
        self.encoder = raw.encoder
        self.num_actions = NUM_ACTIONS
        self._score_diff = raw.reward_mode == "score_diff"
        self.single_observation_space = raw.observation_space("player_0")
        self.single_action_space = raw.action_space("player_0")
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.batch = CardBatch(GameConfig(self.players), n)  # the AEC env's: default rules
        self._mask = np.zeros((n, NUM_ACTIONS), np.int8)
        self._vectors = np.zeros((n if self.observations else 1, CARD_OBS_SIZE), np.float32)
        self._obs = {"action_mask": self._mask}
        if self.observations:
            self._obs = {"observation": self._vectors, "action_mask": self._mask}
        self._won = np.zeros((n, self.players), np.int64)
        self._last_rel = np.zeros((n, self.players), np.float64)
        self._rewards = np.zeros((n, self.players), np.float64)
        self._term = np.zeros(n, np.bool_)
        self._trunc = np.zeros(n, np.bool_)
        self._illegal = np.zeros(n, np.int64)
        self._seat = np.zeros(n, np.int64)
        self._status = np.zeros(n, np.int32)
        self._all = np.ones(n, np.bool_)
        self._rngs: list[np.random.Generator] | None = None
        #: whether a step is shared out over Numba's threads (else: the calling thread alone)
        self.parallel = not (num_threads == 1 or numba.config.NUMBA_NUM_THREADS == 1
                             or n < PARALLEL_MIN)  # fmt: skip
        self._step_all = VK.step_parallel if self.parallel else VK.step_serial
        self._start_all = VK.start_parallel if self.parallel else VK.start_serial

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        """Deal every game (game ``i`` as the AEC env's ``reset(seed=seed + i)``)."""
        if options is not None:
            raise ValueError("reset options are not supported by the vector env (use the AEC env)")
        n = self.num_envs
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != n:
                raise ValueError(f"reset: {len(seed)} seeds for {n} games")
            self._rngs = [seeding.np_random(None if s is None else int(s))[0] for s in seed]
        elif seed is not None:
            self._rngs = [seeding.np_random(int(seed) + i)[0] for i in range(n)]
        elif self._rngs is None:
            self._rngs = [seeding.np_random(None)[0] for _ in range(n)]
        self._deal(np.arange(n))
        return self._out(), self._infos()

    def step(self, actions):
        """Step every game with its action index (see the module docstring)."""
        return self.step_some(actions, waiting=False)

    def step_some(self, actions, waiting: bool = True):
        """:meth:`step`, where an action of -1 (``waiting``) leaves that game as it is (its
        observation stays, its reward is 0): for callers that step only some games."""
        if self._rngs is None:
            raise RuntimeError("step() before reset()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an int array of shape ({self.num_envs},), got "
                f"{actions.dtype} {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        bad = VK.first_out_of_range(actions, -1 if waiting else 0, self.num_actions)
        if bad >= 0:
            raise ValueError(
                f"action {int(actions[bad])} of game {bad} is out of the action space "
                f"0..{self.num_actions - 1}"
            )
        b = self._threads()
        self._step_all(
            b.games, b.history, b.params, actions, self.observations, self._score_diff,
            self._mask, self._vectors, self._won, self._last_rel, self._rewards, self._term,
            self._trunc, self._illegal, self._seat, self._status,
        )  # fmt: skip
        if self._status.any():  # 2: play_code found the record full
            raise RuntimeError("a game's record is full (raise batch_layout.HISTORY_LEN)")
        rewards, term, trunc = self._rewards.copy(), self._term.copy(), self._trunc.copy()
        infos = self._infos()
        if term.any():
            ended = np.flatnonzero(term)
            infos.update(self._final(ended))
            if self._illegal[ended].max() >= 0:  # only an ended game can have an illegal move
                infos["illegal_action"] = self._illegal.copy()
                infos["_illegal_action"] = self._illegal >= 0
            self._deal(ended)
            infos["seat"] = self._seat.copy()  # the new games' first seats
        return self._out(), rewards, term, trunc, infos

    def _final(self, ended: np.ndarray) -> dict[str, Any]:
        """``final_obs`` / ``final_info`` of the games that ended in this step."""
        n = self.num_envs
        final_obs = np.full(n, None, dtype=object)
        for i in ended:
            final_obs[i] = {k: v[i if len(v) > 1 else 0].copy() for k, v in self._obs.items()}
        flag = np.zeros(n, np.bool_)
        flag[ended] = True
        scores = np.zeros((n, self.players), np.int64)
        scores[ended] = self.batch.scores[ended]
        seat = np.where(flag, self._seat, 0)
        final_info = {"scores": scores, "_scores": flag, "seat": seat, "_seat": flag}
        return {"final_obs": final_obs, "_final_obs": flag, "final_info": final_info,
                "_final_info": flag}  # fmt: skip

    def _deal(self, ids: np.ndarray) -> None:
        """Deal games ``ids`` with the next seed of their generator and observe them."""
        rngs = self._rngs
        seeds = np.array([rngs[i].integers(0, 2**31 - 1) for i in ids], np.int64)  # GameEnv
        b = self._threads()
        b.seeds[ids] = seeds
        self._start_all(
            b.games, b.history, b.params, np.asarray(ids, np.int64), seeds, L.STANDARD_DECK,
            self.players, self.observations, self._mask, self._vectors, self._last_rel,
            self._seat,
        )  # fmt: skip

    def _threads(self) -> CardBatch:
        """Numba's thread count set for the next compiled call; returns the batch."""
        if self.num_threads is not None and self.num_threads > 1:
            numba.set_num_threads(self.num_threads)
        return self.batch

    def _out(self) -> dict[str, np.ndarray]:
        if self.copy:
            return {k: v.copy() for k, v in self._obs.items()}
        return dict(self._obs)

    def _infos(self) -> dict[str, Any]:
        return {"seat": self._seat.copy(), "_seat": self._all.copy()}

    # ------------------------------------------------------------------ one game
    def game_state(self, index: int = 0) -> State:
        """Game ``index`` as an engine :class:`State` (its deal replayed with its record)."""
        return self.batch.state(self._index(index))

    @property
    def seats(self) -> np.ndarray:
        """The acting seat of each game's current observation (the env's own array)."""
        return self._seat

    @property
    def observation_bytes(self) -> int:
        """Bytes of one game's observation as a step returns it (mask included)."""
        return int(sum(v[0].nbytes for v in self._obs.values()))

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action index per game (int64 ``[N]``; one compiled call)."""
        rng = rng if rng is not None else np.random.default_rng()
        out = np.empty(self.num_envs, np.int64)
        VK.random_legal(self._mask, rng.random(self.num_envs), out)
        return out

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool masks of the acting seats (sb3-contrib's convention)."""
        return self._mask.astype(bool)

    def render(self, index: int = 0) -> str | np.ndarray | None:
        """Game ``index`` drawn by the env's ``render_mode`` (``ansi`` text, ``rgb_array``)."""
        self.raw.game_state = self.game_state(index)
        return self.raw.render()

    def _index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"game index must be an int, got {index!r}")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"game index {index} out of range 0..{self.num_envs - 1}")
        return int(index)

    def close_extras(self, **kwargs: Any) -> None:
        raw = getattr(self, "raw", None)  # None if __init__ raised before making it
        if raw is not None:
            raw.close()
