"""Many tile games at once: ``N`` games held as stacked arrays ``[N, ...]`` (the layout of
``layout.py`` with a leading game axis), stepped by one Numba call over all of them
(``prange`` over the games, ``nogil``: every core the Numba threading layer has;
``numba.set_num_threads`` limits them).

The games are the single engine's games, action for action: each step calls the same
kernel (``kernels.apply_action``) on game ``i``'s rows, and game ``i`` dealt with seed
``s`` is ``new_game(GameConfig(..., seed=s))`` (the same shuffle code deals it). ``state(i)``
is a :class:`~carcassonne_rl.games.carcassonne.state.State` copy of game ``i`` (its record
included), for rendering, records and checks.

Auto-reset (``step``): the same-step mode of :mod:`carcassonne_rl.games.game_batch`.
``apply`` steps without resetting (a finished game stays finished).
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit, prange

from ..errors import IllegalActionError
from ..game_batch import GameBatch
from . import layout as L
from .config import GameConfig, shuffled_deck
from .kernels import apply_action, setup_game
from .state import State
from .tiles import LETTERS, MAX_SEGMENTS, START_TILE, TYPE_OF_LETTER

__all__ = ["HISTORY_LEN", "TileBatch", "deal_arrays"]

# OpenMP's threads otherwise spin while they wait: on a machine busier than its cores (other
# processes, or the caller's own threads) a parallel step then costs a scheduler slice, tens
# of milliseconds. Set before Numba's OpenMP pool starts; a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: actions recorded per game (a game of 5 players with both expansions takes a few hundred)
HISTORY_LEN = 4096
_TYPE_OF_BYTE = np.full(256, -1, np.int32)
for _c in LETTERS:
    _TYPE_OF_BYTE[ord(_c)] = TYPE_OF_LETTER[_c]
START_TYPE = TYPE_OF_LETTER[START_TILE]


def deal_arrays(config: GameConfig, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(draw pile as tile types, message stack as cards 1-8) of ``config`` dealt by ``seed``:
    ``shuffled_deck`` of the config with that seed, as ``new_game`` deals it."""
    pile, messages = shuffled_deck(GameConfig(**{**config.to_dict(), "seed": int(seed)}))
    deck = _TYPE_OF_BYTE[np.frombuffer(pile.encode(), np.uint8)]
    return deck, np.frombuffer(messages.encode(), np.uint8).astype(np.int32) - ord("0")


@njit(cache=True, nogil=True)
def clear_game(board, ints, tiles, segs):
    """Return one game's arrays to the empty state of ``layout.allocate`` (events and pool
    are read only below their counters, so they need nothing)."""
    nslots = ints[L.R_NSLOTS]
    for s in range(nslots):
        board[(tiles[s, 3] + L.OFF) * L.SIZE + tiles[s, 2] + L.OFF] = -1
        tiles[s, :] = 0
    for g in range(nslots * MAX_SEGMENTS):
        segs[g, :] = 0
        segs[g, L.S_KIND] = -1
        segs[g, L.S_OWNER] = -1
    ints[:] = 0


@njit(cache=True, nogil=True)
def restart_game(board, ints, tiles, segs, events, pool, players, messages, autofig, deck, ndeck,
                 msgdeck):  # fmt: skip
    """Clear one game and set it up with the pile ``deck[:ndeck]`` (``kernels.setup_game``)."""
    clear_game(board, ints, tiles, segs)
    setup_game(board, ints, tiles, segs, events, pool, players, messages, autofig,
               deck[:ndeck], msgdeck, START_TYPE)  # fmt: skip


@njit(cache=True, nogil=True)
def play_code(board, ints, tiles, segs, events, pool, hist, code):
    """``kernels.apply_action`` on one game, the code recorded in ``hist`` (``hist[0]``: the
    count); returns its status (``ERR_LOG_FULL`` too when the record is full)."""
    status = apply_action(board, ints, tiles, segs, events, pool, code)
    if status == L.OK or status == L.ERR_LOG_FULL:
        n = hist[0]
        if n + 1 >= hist.shape[0]:
            return L.ERR_LOG_FULL
        hist[n + 1] = code
        hist[0] = n + 1
    return status


@njit(cache=True, nogil=True)
def is_legal(ints, code):
    if ints[L.R_PHASE] == L.PHASE_OVER:
        return False
    for k in range(ints[L.R_NLEGAL]):  # noqa: SIM110 - a loop Numba compiles
        if ints[L.O_LEGAL + k] == code:
            return True
    return False


@njit(cache=True, nogil=True, parallel=True)
def _check_all(ints, codes, status):
    for i in prange(ints.shape[0]):
        if ints[i, L.R_PHASE] == L.PHASE_OVER:
            status[i] = L.ERR_OVER
        else:
            status[i] = L.OK if is_legal(ints[i], codes[i]) else L.ERR_ILLEGAL


@njit(cache=True, nogil=True, parallel=True)
def _apply_all(board, ints, tiles, segs, events, pool, hist, codes, status, done):
    for i in prange(ints.shape[0]):
        status[i] = play_code(board[i], ints[i], tiles[i], segs[i], events[i], pool[i], hist[i],
                              codes[i])  # fmt: skip
        done[i] = ints[i, L.R_PHASE] == L.PHASE_OVER


@njit(cache=True, nogil=True, parallel=True)
def _restart_all(board, ints, tiles, segs, events, pool, hist, ids, players, messages, autofig,
                 decks, ndecks, msgdecks):  # fmt: skip
    for j in prange(ids.shape[0]):
        i = ids[j]
        restart_game(board[i], ints[i], tiles[i], segs[i], events[i], pool[i], players, messages,
                     autofig, decks[j], ndecks[j], msgdecks[j])  # fmt: skip
        hist[i, 0] = 0


class TileBatch(GameBatch):
    """``num_games`` tile games of one configuration (``config``; its seed is not used: each
    game has its own), stepped together (see the module docstring)."""

    def __init__(self, config: GameConfig, num_games: int) -> None:
        super().__init__(config, GameConfig, num_games, HISTORY_LEN)
        n = self.num_games
        self.board = np.full((n, L.SIZE * L.SIZE), -1, np.int8)
        self.ints = np.zeros((n, L.INTS_LEN), np.int32)
        self.tiles = np.zeros((n, L.MAX_TILES, 4), np.int32)
        self.segs = np.zeros((n, L.MAX_TILES * MAX_SEGMENTS, L.NSF), np.int32)
        self.segs[:, :, L.S_KIND] = -1
        self.segs[:, :, L.S_OWNER] = -1
        self.events = np.zeros((n, L.MAX_EVENTS, L.NEF), np.int32)
        self.pool = np.zeros((n, L.MAX_POOL), np.int32)
        self._options = (config.players, int(config.messages), int(config.figure_choice == "auto"))

    # ------------------------------------------------------------------ dealing
    def _deal(self, ids: np.ndarray, seeds: np.ndarray) -> None:
        decks = np.zeros((len(ids), L.MAX_DECK), np.int32)
        ndecks = np.zeros(len(ids), np.int64)
        msgdecks = np.zeros((len(ids), L.NUM_MESSAGES), np.int32)
        for j, s in enumerate(seeds):
            deck, msgs = deal_arrays(self.config, int(s))
            decks[j, : len(deck)] = deck
            ndecks[j] = len(deck)
            msgdecks[j] = msgs
        _restart_all(*self.arrays, self.history, ids, *self._options, decks, ndecks, msgdecks)

    # ------------------------------------------------------------------ stepping
    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """board, ints, tiles, segs, events, pool: ``[N, ...]`` (row ``i``: game ``i``'s
        ``kernel_arrays()``)."""
        return self.board, self.ints, self.tiles, self.segs, self.events, self.pool

    def apply(self, codes: np.ndarray) -> np.ndarray:
        """Apply ``codes[i]`` (engine action codes) to game ``i``, in one call; returns the
        status per game (``layout.OK``, ``ERR_ILLEGAL`` or ``ERR_OVER``: that game is
        unchanged). ``done`` tells which games are over afterwards. No reset."""
        codes = self._codes(codes)
        _apply_all(*self.arrays, self.history, codes, self.status, self.done)
        if (self.status == L.ERR_LOG_FULL).any():
            raise RuntimeError("score log or record overflow (raise the limits in layout.py)")
        return self.status

    def _check_legal(self, codes: np.ndarray) -> None:
        _check_all(self.ints, codes, self.status)
        bad = np.flatnonzero(self.status)
        if len(bad):
            i = int(bad[0])
            raise IllegalActionError(
                f"game {i}: code {int(codes[i])} is not legal in {self.state(i)!r}"
            )

    # ------------------------------------------------------------------ reading
    def legal_codes(self, i: int) -> np.ndarray:
        """Game ``i``'s legal action codes (a copy)."""
        ints = self.ints[i]
        return ints[L.O_LEGAL : L.O_LEGAL + ints[L.R_NLEGAL]].copy()

    @property
    def current_players(self) -> np.ndarray:
        """The seat deciding in each game (-1 where the game is over)."""
        return self.ints[:, L.R_PLAYER]

    @property
    def scores(self) -> np.ndarray:
        """``[N, players]`` scores (with The Messages: both figures summed)."""
        return self.ints[:, L.R_SCORES : L.R_SCORES + self.config.players].astype(np.int64)

    def state(self, i: int) -> State:
        """Game ``i`` as a :class:`State` (copies of its arrays; its record replays it)."""
        i = int(i)
        st = State.__new__(State)
        st.config = GameConfig(**{**self.config.to_dict(), "seed": int(self.seeds[i])})
        st.history = self.history[i, 1 : 1 + self.history[i, 0]].tolist()
        st._board = self.board[i].copy()
        st._ints = self.ints[i].copy()
        st._tiles = self.tiles[i].copy()
        st._segs = self.segs[i].copy()
        st._events = self.events[i].copy()
        st._pool = self.pool[i].copy()
        st._arrays = None
        return st
