"""Vector envs of the tile game: ``N`` games stepped by one compiled call (docs/vector_envs.md).

``TileVectorEnv(name, num_envs, observations=True, copy=False, **env_kwargs)`` is a
``gymnasium.vector.VectorEnv`` over ``N`` games of ``carcassonne_v0`` or
``carcassonne_v1`` (``env_kwargs``: those of the AEC env: players, expansions,
reward_mode, render_mode, window, labyrinth_tiles, figure_choice). It is the AEC env's game,
action for action:

- ``reset(seed=s)`` deals game ``i`` as the AEC env's ``reset(seed=s + i)`` (a list of
  seeds: one per game); later deals of game ``i`` follow as that AEC env's next
  ``reset()`` would. Returns ``(obs, infos)``.
- ``obs``: the AEC observation dict with a leading axis ``N``, each game seen by its acting
  seat ``infos["seat"][i]`` (``obs["action_mask"]`` is ``[N, A]``). ``observations=False``:
  the masks alone (``{"action_mask": ...}``), the board never encoded.
- ``step(actions)``: an int array ``[N]`` of action indices; returns ``(obs, rewards
  [N, players] (every seat's reward of that step, as the AEC env's ``rewards``),
  terminations, truncations, infos)``. A masked-out action ends that game as the classic
  wrapper does (-1 for its maker; terminated and truncated; ``infos["illegal_action"]``).
- Auto-reset: ``SAME_STEP`` (``metadata["autoreset_mode"]``): a game that ends is dealt
  again inside that step, so every returned observation has a seat to move and a non-empty
  mask. The last observation of the ended game is ``infos["final_obs"][i]`` (the position
  seen by the seat after the one that moved last, or by seat 0 after an illegal move, as
  the AEC env's ``last()`` shows it: an all-zero mask, except after an illegal move of seat
  0), its final scores
  ``infos["final_info"]["scores"][i]``.

The observation arrays are the env's own buffers, overwritten by the next ``step`` (pass
``copy=True`` for fresh arrays each step). ``num_threads``: the threads of the compiled
step (default: Numba's, one per core); 1 is best where the cores are busy with other work.
"""

from __future__ import annotations

import warnings
from typing import Any

import numba
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.batch import empty_views
from carcassonne_rl.envs import carcassonne_v0, carcassonne_v1
from carcassonne_rl.envs.vector import kernels as VK
from carcassonne_rl.games.carcassonne import State
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.batch import TileBatch, deal_arrays

TILE_VECTOR_ENVS = ("carcassonne_v0", "carcassonne_v1")
_OBS_MODE = {"carcassonne_v0": 1, "carcassonne_v1": 2}

__all__ = ["TILE_VECTOR_ENVS", "TileVectorEnv"]


class TileVectorEnv(VectorEnv):
    """``num_envs`` tile games as one ``gymnasium.vector.VectorEnv`` (see the module)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        name: str = "carcassonne_v1",
        num_envs: int = 1,
        observations: bool = True,
        copy: bool = False,
        num_threads: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        if name not in TILE_VECTOR_ENVS:
            raise ValueError(f"TileVectorEnv plays {' or '.join(TILE_VECTOR_ENVS)}, not {name!r}")
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
        module = carcassonne_v1 if name == "carcassonne_v1" else carcassonne_v0
        self.raw = raw = module.raw_env(**env_kwargs)  # checks the arguments; spaces, renders
        self.name = name
        self.num_envs = n = int(num_envs)
        self.observations = bool(observations)
        self.copy = bool(copy)
        self.render_mode = raw.render_mode
        self.metadata = {**self.metadata, "name": f"{name}_vector"}
        self.players = raw.players
        self.encoder = raw.encoder
        self.window = w = raw.encoder.window
        self.num_actions = raw.num_actions
        self._score_diff = raw.reward_mode == "score_diff"
        self.single_observation_space = raw.observation_space("player_0")
        self.single_action_space = raw.action_space("player_0")
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.batch = TileBatch(raw.config, n)
        self._obs_mode = _OBS_MODE[name] if self.observations else 0
        m = n if self.observations else 1
        self._mask = np.zeros((n, self.num_actions), np.int8)
        if name == "carcassonne_v1":
            self._planes = np.zeros((m, TK.NUM_BOARD_PLANES, w, w), np.uint8)
            self._glob = np.zeros((m, TK.NUM_GLOBALS), np.float32)
            parts = {"board": self._planes, "globals": self._glob}
        else:
            planes = TK.NUM_BOARD_PLANES + TK.NUM_GLOBALS
            self._planes = np.zeros((m, planes, w, w), np.uint8)
            self._glob = np.zeros((1, TK.NUM_GLOBALS), np.float32)
            parts = {"observation": self._planes}
        self._obs = {**(parts if self.observations else {}), "action_mask": self._mask}
        self._scratch = np.zeros((n, TK.NUM_GLOBALS), np.uint8)
        self._origin = np.zeros((n, 2), np.int64)
        self._views = empty_views(n)
        self._last_rel = np.zeros((n, self.players), np.float64)
        self._rewards = np.zeros((n, self.players), np.float64)
        self._term = np.zeros(n, np.bool_)
        self._trunc = np.zeros(n, np.bool_)
        self._illegal = np.zeros(n, np.int64)
        self._seat = np.zeros(n, np.int64)
        self._status = np.zeros(n, np.int32)
        self._dropped = np.zeros(n, np.int64)
        self._rngs: list[np.random.Generator] | None = None
        c = raw.config
        self._options = (c.players, int(c.messages), int(c.figure_choice == "auto"))

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
        low = -1 if waiting else 0
        if len(actions) and (actions.min() < low or actions.max() >= self.num_actions):
            bad = int(np.flatnonzero((actions < low) | (actions >= self.num_actions))[0])
            raise ValueError(
                f"action {int(actions[bad])} of game {bad} is out of the action space "
                f"0..{self.num_actions - 1}"
            )
        b = self.batch
        self._threads()
        VK.step_all(
            *b.arrays, b.history, actions, self.players, self.window, self._obs_mode,
            self._score_diff, self._origin, self._mask, self._planes, self._glob,
            self._scratch, self._views, self._last_rel, self._rewards, self._term, self._trunc,
            self._illegal, self._seat, self._status, self._dropped,
        )  # fmt: skip
        if (self._status == L.ERR_LOG_FULL).any():
            raise RuntimeError("score log or record overflow (raise the limits in layout.py)")
        ended = np.flatnonzero(self._term)
        infos: dict[str, Any] = {}
        if len(ended):
            infos = self._final(ended)
        if (self._illegal >= 0).any():
            infos["illegal_action"] = self._illegal.copy()
            infos["_illegal_action"] = self._illegal >= 0
        rewards, term, trunc = self._rewards.copy(), self._term.copy(), self._trunc.copy()
        if len(ended):
            self._deal(ended)
        return self._out(), rewards, term, trunc, {**infos, **self._infos()}

    def _final(self, ended: np.ndarray) -> dict[str, Any]:
        """``final_obs`` / ``final_info`` of the games that ended in this step."""
        n = self.num_envs
        final_obs = np.full(n, None, dtype=object)
        for i in ended:
            final_obs[i] = {k: v[i].copy() for k, v in self._obs.items()}
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
        k = len(ids)
        decks = np.zeros((k, L.MAX_DECK), np.int32)
        ndecks = np.zeros(k, np.int64)
        msgdecks = np.zeros((k, L.NUM_MESSAGES), np.int32)
        config = self.batch.config
        for j, i in enumerate(ids):
            seed = int(self._rngs[i].integers(0, 2**31 - 1))  # as GameEnv.reset draws it
            deck, msgs = deal_arrays(config, seed)
            decks[j, : len(deck)] = deck
            ndecks[j] = len(deck)
            msgdecks[j] = msgs
            self.batch.seeds[i] = seed
        b = self.batch
        self._threads()
        VK.start_all(
            *b.arrays, b.history, np.asarray(ids, np.int64), *self._options, decks, ndecks,
            msgdecks, self.window, self._obs_mode, self._origin, self._mask, self._planes,
            self._glob, self._scratch, self._views, self._last_rel, self._seat, self._dropped,
        )  # fmt: skip

    def _threads(self) -> None:
        if self.num_threads is not None:
            numba.set_num_threads(self.num_threads)

    def _out(self) -> dict[str, np.ndarray]:
        if self.copy:
            return {k: v.copy() for k, v in self._obs.items()}
        return dict(self._obs)

    def _infos(self) -> dict[str, Any]:
        n = self.num_envs
        infos: dict[str, Any] = {"seat": self._seat.copy(), "_seat": np.ones(n, np.bool_)}
        if self._dropped.any():
            infos["window_overflow"] = self._dropped.copy()
            infos["_window_overflow"] = self._dropped > 0
            warnings.warn(
                f"{int(self._dropped.sum())} legal move(s) lie outside the {self.window}x"
                f"{self.window} window and cannot be chosen",
                stacklevel=3,
            )
        return infos

    # ------------------------------------------------------------------ one game
    def game_state(self, index: int = 0) -> State:
        """Game ``index`` as an engine :class:`State` (a copy; its record replays it)."""
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
        self._threads()
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
        raw = getattr(self, "raw", None)  # (absent if __init__ refused its arguments)
        if raw is not None:
            raw.close()
