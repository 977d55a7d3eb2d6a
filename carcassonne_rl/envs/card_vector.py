"""Vector env of the card game: ``N`` Cardcassonne games stepped by one compiled call
(docs/vector_envs.md).

``CardVectorEnv(name="cardcassonne_v0", num_envs, observations=True, copy=False,
num_threads=1, **env_kwargs)`` is a ``gymnasium.vector.VectorEnv`` over ``N`` games of
``cardcassonne_v0`` (``env_kwargs``: those of the AEC env: players, reward_mode,
render_mode, render_view). It is the AEC env's game, action for action (the batched engine
of ``games/cardcassonne/batch.py``, the observation kernel of ``encoders/card/batch.py``, the
step of :mod:`.card_vector_kernels`). ``obs["observation"]`` is float32 ``[N, 1620]``,
``obs["action_mask"]`` int8 ``[N, 206]``; ``observations=False``: the masks alone. Seeds,
``step``, ``step_some``, auto-reset, infos and ``num_threads`` (default 1, the calling
thread) are those of every vector env: :mod:`carcassonne_rl.envs.vector.base`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.encoders.card.encoder import CARD_OBS_SIZE, CardEncoder
from carcassonne_rl.envs import card_vector_kernels as VK
from carcassonne_rl.envs.cardcassonne_v0 import raw_env
from carcassonne_rl.envs.vector.base import PARALLEL_MIN, BatchedVectorEnv
from carcassonne_rl.games.cardcassonne import GameConfig
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.batch import CardBatch

__all__ = ["CARD_VECTOR_ENVS", "PARALLEL_MIN", "CardVectorEnv"]

CARD_VECTOR_ENVS = ("cardcassonne_v0",)


class CardVectorEnv(BatchedVectorEnv):
    """``num_envs`` card games as one ``gymnasium.vector.VectorEnv`` (see the module)."""

    names = CARD_VECTOR_ENVS

    def __init__(
        self,
        name: str = "cardcassonne_v0",
        num_envs: int = 1,
        observations: bool = True,
        copy: bool = False,
        num_threads: int = 1,
        **env_kwargs: Any,
    ) -> None:
        encoder = env_kwargs.get("encoder")
        if encoder is not None and type(encoder) is not CardEncoder:
            raise ValueError("the card vector env encodes CardEncoder's observation only")
        super().__init__(name, num_envs, observations, copy, num_threads,
                         lambda: raw_env(**env_kwargs))  # fmt: skip
        n = self.num_envs
        self.batch = CardBatch(GameConfig(self.players), n)  # the AEC env's: default rules
        self._vectors = np.zeros((n if self.observations else 1, CARD_OBS_SIZE), np.float32)
        self._obs = {"action_mask": self._mask}
        if self.observations:
            self._obs = {"observation": self._vectors, "action_mask": self._mask}
        self._won = np.zeros((n, self.players), np.int64)
        self._step_all = VK.step_parallel if self.parallel else VK.step_serial
        self._start_all = VK.start_parallel if self.parallel else VK.start_serial

    # ------------------------------------------------------------------ the compiled step
    def _step_games(self, actions: np.ndarray) -> None:
        b = self.batch
        self._step_all(
            b.games, b.history, b.params, actions, self.observations, self._score_diff,
            self._mask, self._vectors, self._won, self._last_rel, self._rewards, self._term,
            self._trunc, self._illegal, self._seat, self._status,
        )  # fmt: skip
        if self._status.any():  # 2: play_code found the record full
            raise RuntimeError("a game's record is full (raise batch_layout.HISTORY_LEN)")

    def _deal(self, ids: np.ndarray) -> None:
        """Deal games ``ids`` with the next seed of their generator and observe them."""
        rngs = self._rngs
        seeds = np.array([rngs[i].integers(0, 2**31 - 1) for i in ids], np.int64)  # GameEnv
        b = self.batch
        self._threads()
        b.seeds[ids] = seeds
        # a few new deals (most steps): in the calling thread, no hand-off to the threads
        start = self._start_all if len(ids) >= PARALLEL_MIN else VK.start_serial
        start(
            b.games, b.history, b.params, np.asarray(ids, np.int64), seeds, L.STANDARD_DECK,
            self.players, self.observations, self._mask, self._vectors, self._last_rel,
            self._seat,
        )  # fmt: skip
