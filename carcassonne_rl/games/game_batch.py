"""What a batch of ``N`` games of either game keeps besides its arrays: the per-game
bookkeeping (records, seeds, statuses, ends, final scores), the seed sequences of
``reset``, and the same-step auto-reset of ``step`` (each game's batch:
``games.carcassonne.batch.TileBatch``, ``games.cardcassonne.batch.CardBatch``).

Auto-reset (``step``): a game that ends in a step is dealt again in that step: ``done[i]`` is
set, its final scores are in ``final_scores[i]``, and it starts anew with the next seed of its
sequence ``seed + i``, ``seed + i + N``, ``seed + i + 2N``, ... (``reset(seed)``) or of the
seeds given to ``restart``. ``apply`` steps without resetting.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np


class GameBatch(ABC):
    """The bookkeeping of ``num_games`` games of one configuration; a game's batch deals
    (:meth:`_deal`), checks codes (:meth:`_check_legal`) and applies them (:meth:`apply`)."""

    def __init__(self, config: Any, config_type: type, num_games: int, history_len: int) -> None:
        if not isinstance(config, config_type):
            raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)):
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        if num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games}")
        n = self.num_games = int(num_games)
        self.config = config
        self.history = np.zeros((n, history_len + 1), np.int32)  # [:, 0]: count
        self.seeds = np.zeros(n, np.int64)  # the seed each game was dealt with
        self.status = np.zeros(n, np.int32)
        self.done = np.zeros(n, np.bool_)
        self.final_scores = np.zeros((n, config.players), np.int64)
        self._next_seed = np.arange(n, dtype=np.int64)

    # ------------------------------------------------------------------ dealing
    def reset(self, seed: int = 0) -> None:
        """Deal every game: game ``i`` with seed ``seed + i`` (later deals: see ``step``)."""
        n = self.num_games
        self._next_seed = int(seed) + np.arange(n, dtype=np.int64)
        self.restart(np.arange(n), self._next_seed.copy())
        self._next_seed += n

    def restart(self, ids: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal games ``ids`` again, game ``ids[j]`` with seed ``seeds[j]``."""
        ids = np.asarray(ids, np.int64).reshape(-1)
        seeds = np.asarray(seeds, np.int64).reshape(-1)
        if len(ids) != len(seeds):
            raise ValueError(f"restart: {len(ids)} games but {len(seeds)} seeds")
        if len(ids) == 0:
            return
        self._deal(ids, seeds)
        self.seeds[ids] = seeds

    @abstractmethod
    def _deal(self, ids: np.ndarray, seeds: np.ndarray) -> None:
        """Deal games ``ids`` with ``seeds`` (as many; ``ValueError`` before any is dealt)."""

    # ------------------------------------------------------------------ stepping
    @abstractmethod
    def apply(self, codes: np.ndarray) -> np.ndarray:
        """Apply ``codes[i]`` to game ``i`` without resetting; returns the status per game."""

    @abstractmethod
    def _check_legal(self, codes: np.ndarray) -> None:
        """``IllegalActionError`` naming the first game where ``codes[i]`` is not legal."""

    def step(self, codes: np.ndarray) -> np.ndarray:
        """Apply ``codes[i]`` to game ``i`` (every code must be legal: ``IllegalActionError``
        naming the first game where it is not, no game changed), then deal the games that
        ended again (same-step auto-reset, see the module docstring); returns ``done``."""
        codes = self._codes(codes)
        self._check_legal(codes)
        self.apply(codes)
        ended = np.flatnonzero(self.done)
        if len(ended):
            self.final_scores[ended] = self.scores[ended]
            seeds = self._next_seed[ended]
            self._next_seed[ended] += self.num_games
            self.restart(ended, seeds)
        return self.done

    def _codes(self, codes) -> np.ndarray:
        codes = np.asarray(codes)
        if codes.shape != (self.num_games,) or codes.dtype.kind not in "iu":
            raise ValueError(
                f"codes must be an int array of shape ({self.num_games},), got "
                f"{codes.dtype} {codes.shape}"
            )
        return codes.astype(np.int64, copy=False)

    @property
    @abstractmethod
    def scores(self) -> np.ndarray:
        """``[N, players]`` scores."""
