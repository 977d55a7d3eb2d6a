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

Auto-reset (``step``): the same-step mode of :mod:`carcassonne_rl.games.game_batch`.
``apply`` steps without resetting (a finished game stays finished).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..errors import IllegalActionError
from ..game_batch import GameBatch
from . import batch_layout as L
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

__all__ = ["GAME_LEN", "HISTORY_LEN", "CardBatch", "pack_state", "rules_params"]


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


class CardBatch(GameBatch):
    """``num_games`` Cardcassonne games of one configuration (``config``; its seed is not
    used: each game has its own), stepped together (see the module docstring). Seeds are
    0 <= seed < 2**32 (the seeds ``GameEnv.reset`` draws)."""

    def __init__(self, config: GameConfig, num_games: int) -> None:
        super().__init__(config, GameConfig, num_games, HISTORY_LEN)
        self.players = config.players
        self.params = rules_params(config)
        self.games = np.zeros((self.num_games, GAME_LEN), np.int32)

    # ------------------------------------------------------------------ dealing
    def _deal(self, ids: np.ndarray, seeds: np.ndarray) -> None:
        if seeds.min() < 0 or seeds.max() >= 2**32:
            raise ValueError("restart: the batched deal takes seeds 0 <= seed < 2**32")
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

    def _check_legal(self, codes: np.ndarray) -> None:
        masks = self.masks()
        ok = (codes >= 0) & (codes < NUM_ACTIONS)
        ok[ok] = masks[np.flatnonzero(ok), codes[ok]] != 0
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise IllegalActionError(f"game {i}: code {int(codes[i])} is not legal now")

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


def pack_state(state: State) -> np.ndarray:
    """``state`` (a Python engine state, a determinized world too) as one batched game's
    ``int32[GAME_LEN]`` (the layout of :mod:`.batch_layout`): the kernels play on from it as
    the engine plays on from ``state`` (the pile's cards from ``deck_pos`` on; the dealt
    positions of a world's order, unknown there, are -1 and never read). Score events and
    the record are not packed."""
    n = state.n
    if n > L.MAX_SEATS:
        raise ValueError(f"the batched engine seats at most {L.MAX_SEATS} players")
    g = np.zeros(GAME_LEN, np.int32)
    g[L.F_N], g[L.F_DEAL], g[L.F_ROUNDS] = n, state.deal_size, state.rounds_total
    g[L.F_DECKPOS], g[L.F_SETUPDONE], g[L.F_ROUND] = state.deck_pos, state.setup_done, state.round
    g[L.F_DEALER], g[L.F_CURRENT], g[L.F_PHASE] = state.dealer, state.current, state.phase_index
    g[L.F_LASTF], g[L.F_SCORER] = state.last_follower, state.score_player
    g[L.F_JOKERS], g[L.F_NEWJ] = state.jokers_to_assign, state.new_jokers
    g[L.F_JSTEP], g[L.F_CLAIMS] = int(state.joker_step_done), int(bool(state.claims))
    g[L.F_MQHEAD], g[L.F_MQLEN] = 0, len(state.misplaced_queue)
    g[L.O_ORDER : L.O_ORDER + len(state.card_order)] = state.card_order
    g[L.O_FROW : L.O_FROW + L.MAX_SEATS] = -1
    for q in range(n):
        g[L.O_HANDS + q * L.NK : L.O_HANDS + (q + 1) * L.NK] = state.hands[q]
        g[L.O_COLL + q * L.NK : L.O_COLL + (q + 1) * L.NK] = state.collected[q]
        g[L.O_ANIM + q * 4 : L.O_ANIM + q * 4 + 4] = state.animals[q]
    g[L.O_HSIZE : L.O_HSIZE + n] = state.hand_size
    g[L.O_PLAYED : L.O_PLAYED + n] = state.played
    g[L.O_FROW : L.O_FROW + n] = state.follower_row
    for r in range(4):
        row = state.rows[r]
        g[L.O_ROWLEN + r] = len(row)
        g[L.O_ROWS + r * L.ROW_CAP : L.O_ROWS + r * L.ROW_CAP + len(row)] = row
    g[L.O_PJOKERS : L.O_PJOKERS + n] = state.pending_jokers
    g[L.O_REMOVED : L.O_REMOVED + L.NK] = state.removed
    g[L.O_SCORES : L.O_SCORES + n] = state._scores
    for q, claims in enumerate(state.claims):
        g[L.O_CLLEN + q] = len(claims)
        for j, (k, mis) in enumerate(claims):
            g[L.O_CLAIMS + q * L.CLAIM_CAP + j] = k + 32 * int(mis)
    g[L.O_MQ : L.O_MQ + len(state.misplaced_queue)] = state.misplaced_queue
    g[L.O_CSP : L.O_CSP + 4] = [len(c) for c in state.claimed_species]
    return g
