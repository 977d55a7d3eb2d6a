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
``copy=True`` for fresh arrays each step). ``num_threads``: 1 (the default) steps the games
in the calling thread, ``k`` shares a step out over ``k`` threads (from ``PARALLEL_MIN``
games on); on busy cores one thread is faster (:mod:`carcassonne_rl.envs.vector.base`, which
holds what this env shares with the card game's).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.batch import empty_views
from carcassonne_rl.envs import carcassonne_v0, carcassonne_v1
from carcassonne_rl.envs.vector import kernels as VK
from carcassonne_rl.envs.vector.base import PARALLEL_MIN, BatchedVectorEnv
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.batch import TileBatch, deal_many

TILE_VECTOR_ENVS = ("carcassonne_v0", "carcassonne_v1")
_OBS_MODE = {"carcassonne_v0": 1, "carcassonne_v1": 2}

__all__ = ["PARALLEL_MIN", "TILE_VECTOR_ENVS", "TileVectorEnv"]


class TileVectorEnv(BatchedVectorEnv):
    """``num_envs`` tile games as one ``gymnasium.vector.VectorEnv`` (see the module)."""

    names = TILE_VECTOR_ENVS

    def __init__(
        self,
        name: str = "carcassonne_v1",
        num_envs: int = 1,
        observations: bool = True,
        copy: bool = False,
        num_threads: int = 1,
        **env_kwargs: Any,
    ) -> None:
        module = carcassonne_v1 if name == "carcassonne_v1" else carcassonne_v0
        super().__init__(name, num_envs, observations, copy, num_threads,
                         lambda: module.raw_env(**env_kwargs))  # fmt: skip
        raw, n = self.raw, self.num_envs
        self.window = w = raw.encoder.window
        self.batch = TileBatch(raw.config, n)
        self._obs_mode = _OBS_MODE[name] if self.observations else 0
        m = n if self.observations else 1
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
        self._scratch = np.zeros((n, 2 * TK.NUM_GLOBALS), np.uint8)  # write_v0's globals
        self._origin = np.zeros((n, 2), np.int64)
        self._views = empty_views(n)
        self._dropped = np.zeros(n, np.int64)
        c = raw.config
        self._options = (c.players, int(c.messages), int(c.figure_choice == "auto"))
        self._step_all = VK.step_parallel if self.parallel else VK.step_serial
        self._start_all = VK.start_parallel if self.parallel else VK.start_serial

    # ------------------------------------------------------------------ the compiled step
    def _step_games(self, actions: np.ndarray) -> None:
        b = self.batch
        self._step_all(
            *b.arrays, b.history, actions, self.players, self.window, self._obs_mode,
            self._score_diff, self._origin, self._mask, self._planes, self._glob,
            self._scratch, self._views, self._last_rel, self._rewards, self._term, self._trunc,
            self._illegal, self._seat, self._status, self._dropped,
        )  # fmt: skip
        if (self._status == L.ERR_LOG_FULL).any():
            raise RuntimeError("score log or record overflow (raise the limits in layout.py)")

    def _deal(self, ids: np.ndarray) -> None:
        """Deal games ``ids`` with the next seed of their generator and observe them."""
        seeds = [int(self._rngs[i].integers(0, 2**31 - 1)) for i in ids]  # as GameEnv.reset
        self.batch.seeds[ids] = seeds
        decks, ndecks, msgdecks = deal_many(self.batch.config, seeds)
        b = self.batch
        self._threads()
        # a few new deals (most steps): in the calling thread, no hand-off to the threads
        start = self._start_all if len(ids) >= PARALLEL_MIN else VK.start_serial
        start(
            *b.arrays, b.history, np.asarray(ids, np.int64), *self._options, decks, ndecks,
            msgdecks, self.window, self._obs_mode, self._origin, self._mask, self._planes,
            self._glob, self._scratch, self._views, self._last_rel, self._seat, self._dropped,
        )  # fmt: skip

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action index per game (int64 ``[N]``; one compiled call,
        from the engine's legal moves rather than a scan of the masks)."""
        rng = rng if rng is not None else np.random.default_rng()
        out = np.empty(self.num_envs, np.int64)
        VK.random_legal(self.batch.ints, self._origin, self._dropped, self._mask, self.window,
                        rng.random(self.num_envs), out)  # fmt: skip
        return out

    def _infos(self) -> dict[str, Any]:
        infos = super()._infos()
        if self._dropped.any():
            infos["window_overflow"] = self._dropped.copy()
            infos["_window_overflow"] = self._dropped > 0
            warnings.warn(
                f"{int(self._dropped.sum())} legal move(s) lie outside the {self.window}x"
                f"{self.window} window and cannot be chosen",
                stacklevel=3,
            )
        return infos
