"""Many Cardcassonne games at once: ``N`` games held as one int32 array ``[N, GAME_LEN]``
(the layout of :mod:`.batch_layout`), stepped by one Numba call over all of them (the rules
of :mod:`.batch_kernels`; ``prange`` over the games, ``nogil``).

The kernels are a second implementation of the rules of
:mod:`~carcassonne_rl.games.cardcassonne.state` (the Python engine stays the reference;
``tests/games/cardcassonne/test_batch.py`` plays both in lockstep): the same legal action
codes, the same deals, scores, rounds and end of game. Game ``i`` dealt with seed ``s`` is
``new_game(GameConfig(players, seed=s))``: the pile is shuffled inside the kernel by a port
of CPython's ``random.Random(s).shuffle`` (Mersenne Twister, the same draws), so a reset
costs no Python per game. Score events are not kept (the scores are); ``state(i)`` replays
game ``i``'s record through the Python engine when one is needed (rendering, records,
checks).

Auto-reset (``step``): the same-step mode. A game that ends in a step is dealt again in
that step: ``done[i]`` is set, its final scores are in ``final_scores[i]``, and it starts
anew with the next seed of its sequence ``seed + i``, ``seed + i + N``, ``seed + i + 2N``,
... (``reset(seed)``) or of the seeds given to ``restart``. ``apply`` steps without
resetting (a finished game stays finished).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit, prange

from ..errors import IllegalActionError
from .actions import NUM_ACTIONS
from .batch_kernels import deal_game, play_code, write_mask
from .batch_layout import (
    F_CURRENT,
    F_PHASE,
    GAME_LEN,
    HISTORY_LEN,
    O_SCORES,
    STANDARD_DECK,
    rules_params,
)
from .config import GameConfig
from .state import State, new_game
from .table import OVER

__all__ = ["GAME_LEN", "HISTORY_LEN", "CardBatch", "rules_params"]


@njit(cache=True, nogil=True, parallel=True)
def _restart_all(games, hist, ids, seeds, deck, players, params):
    for j in prange(ids.shape[0]):
        i = ids[j]
        deal_game(games[i], hist[i], seeds[j], deck, players, params)


@njit(cache=True, nogil=True, parallel=True)
def _apply_all(games, hist, params, codes, status, done):
    for i in prange(games.shape[0]):
        status[i] = play_code(games[i], hist[i], params, codes[i])
        done[i] = games[i, F_PHASE] == OVER


@njit(cache=True, nogil=True, parallel=True)
def _masks_all(games, masks):
    for i in prange(games.shape[0]):
        write_mask(games[i], masks[i])


class CardBatch:
    """``num_games`` Cardcassonne games of one configuration (``config``; its seed is not
    used: each game has its own), stepped together (see the module docstring)."""

    def __init__(self, config: GameConfig, num_games: int) -> None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)):
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        if num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games}")
        n = self.num_games = int(num_games)
        self.config = config
        self.players = config.players
        self.params = rules_params(config)
        self.games = np.zeros((n, GAME_LEN), np.int32)
        self.history = np.zeros((n, HISTORY_LEN + 1), np.int32)  # [:, 0]: count
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
        """Deal games ``ids`` again, game ``ids[j]`` with seed ``seeds[j]`` (0 <= seed < 2**32:
        the seeds ``GameEnv.reset`` draws)."""
        ids = np.asarray(ids, np.int64).reshape(-1)
        seeds = np.asarray(seeds, np.int64).reshape(-1)
        if len(ids) != len(seeds):
            raise ValueError(f"restart: {len(ids)} games but {len(seeds)} seeds")
        if len(seeds) and (seeds.min() < 0 or seeds.max() >= 2**32):
            raise ValueError("restart: the batched deal takes seeds 0 <= seed < 2**32")
        if len(ids) == 0:
            return
        self.seeds[ids] = seeds
        _restart_all(self.games, self.history, ids, seeds, STANDARD_DECK, self.players,
                     self.params)  # fmt: skip

    # ------------------------------------------------------------------ stepping
    def apply(self, codes: np.ndarray) -> np.ndarray:
        """Apply ``codes[i]`` (engine action codes) to game ``i``, in one call; returns the
        status per game (0 applied, 1 illegal or the game over: that game is unchanged).
        ``done`` tells which games are over afterwards. No reset."""
        codes = self._codes(codes)
        _apply_all(self.games, self.history, self.params, codes, self.status, self.done)
        if (self.status == 2).any():
            raise RuntimeError("a game's record is full (raise batch_layout.HISTORY_LEN)")
        return self.status

    def step(self, codes: np.ndarray) -> np.ndarray:
        """Apply ``codes[i]`` to game ``i`` (every code must be legal: ``IllegalActionError``
        naming the first game where it is not, no game changed), then deal the games that
        ended again (same-step auto-reset, see the module docstring); returns ``done``."""
        codes = self._codes(codes)
        masks = self.masks()
        ok = (codes >= 0) & (codes < NUM_ACTIONS)
        ok[ok] = masks[np.flatnonzero(ok), codes[ok]] != 0
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise IllegalActionError(f"game {i}: code {int(codes[i])} is not legal now")
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

    # ------------------------------------------------------------------ reading
    def masks(self) -> np.ndarray:
        """``[N, 206]`` int8 masks of the legal action codes (a fresh array)."""
        out = np.zeros((self.num_games, NUM_ACTIONS), np.int8)
        _masks_all(self.games, out)
        return out

    def legal_codes(self, i: int) -> np.ndarray:
        """Game ``i``'s legal action codes, sorted (int32)."""
        mask = np.zeros(NUM_ACTIONS, np.int8)
        write_mask(self.games[int(i)], mask)
        return np.flatnonzero(mask).astype(np.int32)

    @property
    def current_players(self) -> np.ndarray:
        """The seat deciding in each game (-1 where the game is over)."""
        return self.games[:, F_CURRENT].astype(np.int64)

    @property
    def phases(self) -> np.ndarray:
        """Each game's phase index (``table.PHASE_NAMES``)."""
        return self.games[:, F_PHASE].astype(np.int64)

    @property
    def scores(self) -> np.ndarray:
        """``[N, players]`` scores."""
        return self.games[:, O_SCORES : O_SCORES + self.players].astype(np.int64)

    def record(self, i: int) -> list[int]:
        """Game ``i``'s action codes so far."""
        i = int(i)
        return self.history[i, 1 : 1 + self.history[i, 0]].tolist()

    def state(self, i: int) -> State:
        """Game ``i`` as a Python engine :class:`State`: its deal replayed with its record."""
        i = int(i)
        state = new_game(GameConfig(self.players, seed=int(self.seeds[i]), rules=self.config.rules))
        for code in self.record(i):
            state.apply_code(code)
        return state
