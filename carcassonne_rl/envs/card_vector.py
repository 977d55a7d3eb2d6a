"""Vector env of the card game: ``N`` Cardcassonne games stepped by one compiled call
(docs/vector_envs.md).

``CardVectorEnv(name="cardcassonne_v0", num_envs, observations=True, copy=False,
**env_kwargs)`` is a ``gymnasium.vector.VectorEnv`` over ``N`` games of ``cardcassonne_v0``
(``env_kwargs``: those of the AEC env: players, reward_mode, render_mode, render_view). It is
the AEC env's game, action for action (the batched engine of
``games/cardcassonne/batch.py``, the observation kernel of ``encoders/card/batch.py``):

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
from numba import njit, prange

from carcassonne_rl.encoders.card.batch import write_obs
from carcassonne_rl.encoders.card.encoder import CARD_OBS_SIZE, CardEncoder
from carcassonne_rl.envs.cardcassonne_v0 import raw_env
from carcassonne_rl.games.cardcassonne import NUM_ACTIONS, GameConfig, State
from carcassonne_rl.games.cardcassonne import batch_kernels as K
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.batch import CardBatch
from carcassonne_rl.games.cardcassonne.table import OVER

__all__ = ["CARD_VECTOR_ENVS", "CardVectorEnv"]

CARD_VECTOR_ENVS = ("cardcassonne_v0",)
SCORE_SCALE = 100.0  # game_env.SCORE_SCALE
#: fewer games than this are stepped in the calling thread whatever ``num_threads`` says (a
#: step of so few is shorter than handing it out to the threads)
PARALLEL_MIN = 64


@njit(cache=True, nogil=True)
def _step_game(i, games, hist, params, actions, observe, score_diff, mask, obs, won, last_rel,
               rewards, term, trunc, illegal, seat, status):  # fmt: skip
    """Step game ``i`` with action ``actions[i]`` (in range), as the wrapped AEC env does."""
    g = games[i]
    n = g[L.F_N]
    actor = g[L.F_CURRENT]
    a = actions[i]
    rewards[i, :] = 0.0
    illegal[i] = -1
    status[i] = 0
    if a < 0:  # a waiting game (step_some): left as it is
        term[i] = False
        trunc[i] = False
        return
    oi = i if obs.shape[0] > 1 else i - i  # (i - i: 0 of the index's type)
    if mask[i, a] == 0:  # the classic wrapper: the game ends, -1 for the actor
        rewards[i, actor] = -1.0
        term[i] = True
        trunc[i] = True
        illegal[i] = a
        seat[i] = 0  # PettingZoo's _deads_step_first: the first agent
        if actor != 0:
            mask[i, :] = 0
        if observe:
            write_obs(g, 0, params, obs[oi])
        return
    status[i] = K.play_code(g, hist[i], params, a)
    if score_diff:
        total = 0.0
        for q in range(n):
            total += float(g[L.O_SCORES + q])
        for q in range(n):
            s = float(g[L.O_SCORES + q])
            rel = s - (total - s) / (n - 1)  # GameEnv._relative_scores
            rewards[i, q] += (rel - last_rel[i, q]) / SCORE_SCALE
            last_rel[i, q] = rel
    over = g[L.F_PHASE] == OVER
    term[i] = over
    trunc[i] = False
    if over:
        L.winners_mask(g, params, won[i])
        nwin = 0
        for q in range(n):
            nwin += won[i, q]
        for q in range(n):
            if won[i, q] == 0:
                rewards[i, q] += -1.0
            elif nwin == 1:
                rewards[i, q] += 1.0
        nxt = (actor + 1) % n
    else:
        nxt = g[L.F_CURRENT]
    seat[i] = nxt
    K.write_mask(g, mask[i])
    if observe:
        write_obs(g, nxt, params, obs[oi])


@njit(cache=True, nogil=True)
def _start_game(j, games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel,
                seat):  # fmt: skip
    """Deal game ``ids[j]`` anew (shuffled by ``seeds[j]``) and observe it."""
    i = ids[j]
    g = games[i]
    K.deal_game(g, hist[i], seeds[j], deck, players, params)
    last_rel[i, :] = 0.0
    seat[i] = g[L.F_CURRENT]
    K.write_mask(g, mask[i])
    if observe:
        write_obs(g, seat[i], params, obs[i if obs.shape[0] > 1 else i - i])


@njit(cache=True, nogil=True)
def _step_serial(
    games,
    hist,
    params,
    actions,
    observe,
    score_diff,
    mask,
    obs,
    won,
    last_rel,
    rewards,
    term,
    trunc,
    illegal,
    seat,
    status,
):
    """``_step_game`` for every game, one after the other (no thread hand-off)."""
    for i in range(games.shape[0]):
        _step_game(
            i,
            games,
            hist,
            params,
            actions,
            observe,
            score_diff,
            mask,
            obs,
            won,
            last_rel,
            rewards,
            term,
            trunc,
            illegal,
            seat,
            status,
        )


@njit(cache=True, nogil=True, parallel=True)
def _step_parallel(
    games,
    hist,
    params,
    actions,
    observe,
    score_diff,
    mask,
    obs,
    won,
    last_rel,
    rewards,
    term,
    trunc,
    illegal,
    seat,
    status,
):
    """``_step_game`` for every game, shared out over Numba's threads (``prange``)."""
    for i in prange(games.shape[0]):
        _step_game(
            i,
            games,
            hist,
            params,
            actions,
            observe,
            score_diff,
            mask,
            obs,
            won,
            last_rel,
            rewards,
            term,
            trunc,
            illegal,
            seat,
            status,
        )


@njit(cache=True, nogil=True)
def _start_serial(
    games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
):
    for j in range(ids.shape[0]):
        _start_game(
            j, games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
        )


@njit(cache=True, nogil=True, parallel=True)
def _start_parallel(
    games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
):
    for j in prange(ids.shape[0]):
        _start_game(
            j, games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
        )


@njit(cache=True, nogil=True)
def _first_out_of_range(actions, low, num_actions):
    """The first game whose action is not in ``low..num_actions-1``, else -1."""
    for i in range(actions.shape[0]):
        if actions[i] < low or actions[i] >= num_actions:
            return i
    return -1


@njit(cache=True, nogil=True)
def random_legal(mask, u, out):
    """``out[i]``: the legal action of rank ``floor(u[i] * legal count)`` in ``mask[i]`` (a
    uniformly random legal action for uniform ``u``; -1 where none is legal)."""
    for i in range(mask.shape[0]):
        row = mask[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a] != 0
        out[i] = -1
        if count == 0:
            continue
        k = min(int(u[i] * count), count - 1)
        for a in range(row.shape[0]):
            if row[a] != 0:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


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
        self._step_all = _step_parallel if self.parallel else _step_serial
        self._start_all = _start_parallel if self.parallel else _start_serial

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
        bad = _first_out_of_range(actions, -1 if waiting else 0, self.num_actions)
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
        random_legal(self._mask, rng.random(self.num_envs), out)
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
