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

import functools
import os

import numpy as np
from numba import njit, prange

from ..errors import IllegalActionError
from ..game_batch import GameBatch
from . import layout as L
from .config import GameConfig, draw_pile_counts, shuffled_deck
from .kernels import apply_action, setup_game
from .state import State
from .tiles import LETTERS, MAX_SEGMENTS, START_TILE, TYPE_OF_LETTER

__all__ = ["HISTORY_LEN", "TileBatch", "deal_arrays", "deal_many"]

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


# NumPy's SeedSequence (pool of 4 words) and PCG64 (XSL-RR 128/64), as
# ``np.random.default_rng(seed)`` seeds and draws them, for ``deal_many``'s compiled shuffle
_U32 = np.uint64(0xFFFFFFFF)
_INIT_A, _MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
_INIT_B, _MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
_PCG_HI, _PCG_LO = np.uint64(2549297995355413924), np.uint64(4865540595714422341)
_SH16, _SH32, _SH58, _ONE, _ZERO = (np.uint64(16), np.uint64(32), np.uint64(58), np.uint64(1),
                                    np.uint64(0))  # fmt: skip


@njit(cache=True, nogil=True)
def _hashmix(value, hc):
    """SeedSequence's hashmix on uint32 values held in uint64; returns (value, hash const)."""
    value = value ^ hc
    hc = (hc * _MULT_A) & _U32
    value = (value * hc) & _U32
    return value ^ (value >> _SH16), hc


@njit(cache=True, nogil=True)
def _mix(x, y):
    r = ((_MIX_L * x) - (_MIX_R * y)) & _U32
    return r ^ (r >> _SH16)


@njit(cache=True, nogil=True)
def _mul64(a, b):
    """The 128-bit product of two uint64 as (high, low)."""
    a0, a1 = a & _U32, a >> _SH32
    b0, b1 = b & _U32, b >> _SH32
    p00, p01, p10 = a0 * b0, a0 * b1, a1 * b0
    mid = (p00 >> _SH32) + (p01 & _U32) + (p10 & _U32)
    return a1 * b1 + (p01 >> _SH32) + (p10 >> _SH32) + (mid >> _SH32), (p00 & _U32) | (mid << _SH32)


@njit(cache=True, nogil=True)
def _pcg_step(st):
    """state = state * multiplier + increment (mod 2**128); ``st``: hi, lo, inc hi, inc lo."""
    hi, lo = _mul64(st[1], _PCG_LO)
    hi = hi + st[0] * _PCG_LO + st[1] * _PCG_HI
    lo2 = lo + st[3]
    st[0] = hi + st[2] + (_ONE if lo2 < lo else _ZERO)
    st[1] = lo2


@njit(cache=True, nogil=True)
def _seed_pcg(seed, st):
    """PCG64 state of ``np.random.default_rng(seed)`` (0 <= seed < 2**32) into ``st``
    (hi, lo, inc hi, inc lo, uint32 buffered (1) or not (0), the buffered uint32)."""
    pool = np.zeros(4, np.uint64)
    hc = _INIT_A
    for i in range(4):
        pool[i], hc = _hashmix(np.uint64(seed) if i == 0 else _ZERO, hc)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                h, hc = _hashmix(pool[i_src], hc)
                pool[i_dst] = _mix(pool[i_dst], h)
    hb = _INIT_B
    words = np.zeros(8, np.uint64)
    for i in range(8):
        v = pool[i % 4] ^ hb
        hb = (hb * _MULT_B) & _U32
        v = (v * hb) & _U32
        words[i] = v ^ (v >> _SH16)
    val0 = words[0] | (words[1] << _SH32)
    val1 = words[2] | (words[3] << _SH32)
    inc0 = words[4] | (words[5] << _SH32)
    inc1 = words[6] | (words[7] << _SH32)
    st[0], st[1] = _ZERO, _ZERO  # pcg_setseq_128_srandom_r
    st[2] = (inc0 << _ONE) | (inc1 >> np.uint64(63))
    st[3] = (inc1 << _ONE) | _ONE
    _pcg_step(st)
    lo = st[1] + val1
    st[0] = st[0] + val0 + (_ONE if lo < st[1] else _ZERO)
    st[1] = lo
    _pcg_step(st)
    st[4], st[5] = _ZERO, _ZERO


@njit(cache=True, nogil=True)
def _next32(st):
    if st[4] != _ZERO:
        st[4] = _ZERO
        return st[5]
    _pcg_step(st)
    hi, lo = st[0], st[1]
    rot = hi >> _SH58
    x = hi ^ lo
    out = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    st[4], st[5] = _ONE, out >> _SH32
    return out & _U32


@njit(cache=True, nogil=True)
def _permute(st, values, out):
    """``out[:] = values[rng.permutation(len(values))]`` (``Generator.shuffle`` of an arange:
    Fisher-Yates from the end, ``random_interval`` by masked rejection on uint32 draws)."""
    n = values.shape[0]
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):
        mask = np.uint64(i)
        for sh in (1, 2, 4, 8, 16):
            mask |= mask >> np.uint64(sh)
        while True:
            j = _next32(st) & mask
            if j <= np.uint64(i):
                break
        k = int(j)
        perm[i], perm[k] = perm[k], perm[i]
    for i in range(n):
        out[i] = values[perm[i]]


@njit(cache=True, nogil=True)
def _deal_all(seeds, types, messages, decks, msgdecks):
    """Decks (tile types) and message stacks of ``shuffled_deck`` for ``seeds`` (< 2**32)."""
    st = np.zeros(6, np.uint64)
    cards = np.arange(1, 9).astype(np.int32)
    for j in range(seeds.shape[0]):
        _seed_pcg(seeds[j], st)
        _permute(st, types, decks[j])
        if messages:
            _permute(st, cards, msgdecks[j])
        else:
            msgdecks[j, :] = cards


@functools.lru_cache(maxsize=64)
def _pile_types(config: GameConfig) -> np.ndarray:
    """The tile types of ``config``'s draw pile in ``shuffled_deck``'s order before the
    shuffle (read-only: one array per configuration)."""
    letters = "".join(c * n for c, n in draw_pile_counts(config).items())
    types = _TYPE_OF_BYTE[np.frombuffer(letters.encode(), np.uint8)]
    types.flags.writeable = False
    return types


def deal_many(config: GameConfig, seeds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(decks ``[k, MAX_DECK]``, deck lengths ``[k]``, message stacks ``[k, 8]``) of
    ``deal_arrays(config, s)`` for each of ``seeds``, in one compiled call (seeds from 0 to
    2**32 - 1; others go through ``deal_arrays``)."""
    seeds = [int(s) for s in seeds]
    types = _pile_types(config)
    k = len(seeds)
    decks = np.zeros((k, L.MAX_DECK), np.int32)
    msgdecks = np.zeros((k, L.NUM_MESSAGES), np.int32)
    ndecks = np.full(k, len(types), np.int64)
    if all(0 <= s < 2**32 for s in seeds):
        _deal_all(np.array(seeds, np.int64), types, bool(config.messages), decks, msgdecks)
        return decks, ndecks, msgdecks
    for j, s in enumerate(seeds):
        deck, msgs = deal_arrays(config, s)
        decks[j, : len(deck)] = deck
        ndecks[j] = len(deck)
        msgdecks[j] = msgs
    return decks, ndecks, msgdecks


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
        decks, ndecks, msgdecks = deal_many(self.config, seeds)
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
