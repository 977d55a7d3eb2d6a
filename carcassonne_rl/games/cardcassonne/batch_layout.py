"""The layout of one batched Cardcassonne game (an int32 array of ``GAME_LEN``), the rules
table as the numbers the kernels read (``rules_params``), the card tables as arrays, and a
port of CPython's ``random.Random(seed).shuffle`` (the Mersenne Twister) that deals a game in
a kernel exactly as ``new_game`` shuffles it, and the scoring helpers (animal values, the
best building sets, the winners). Read by :mod:`.batch_kernels`."""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import (
    BUILDING_JOKER,
    IS_ANIMAL,
    IS_JOKER,
    KIND_COLOUR,
    NUM_KINDS,
    PERSON_VALUE,
    TOTAL_CARDS,
    standard_deck,
)
from .config import GameConfig
from .jit_cache import ensure_fresh_cache

ensure_fresh_cache()  # every card kernel module imports this one before it compiles

NK = NUM_KINDS
MAX_SEATS = 5
#: entries a row can hold (every card and a follower per seat)
ROW_CAP = TOTAL_CARDS + MAX_SEATS + 3
#: cards one seat can claim in a round
CLAIM_CAP = TOTAL_CARDS
#: actions recorded per game (a game takes at most a few hundred)
HISTORY_LEN = 1024

# ---------------------------------------------------------------- the layout of one game
F_N, F_DEAL, F_ROUNDS, F_DECKPOS, F_SETUPDONE, F_ROUND, F_DEALER, F_CURRENT = range(8)
F_PHASE, F_LASTF, F_SCORER, F_JOKERS, F_NEWJ, F_JSTEP, F_CLAIMS, F_MQHEAD = range(8, 16)
F_MQLEN = 16
O_ORDER = 32
O_HANDS = O_ORDER + TOTAL_CARDS  # [seat * NK + kind]
O_HSIZE = O_HANDS + MAX_SEATS * NK
O_PLAYED = O_HSIZE + MAX_SEATS
O_FROW = O_PLAYED + MAX_SEATS
O_ROWLEN = O_FROW + MAX_SEATS
O_ROWS = O_ROWLEN + 4  # [row * ROW_CAP + entry], entries as State.rows
O_COLL = O_ROWS + 4 * ROW_CAP  # [seat * NK + kind]
O_ANIM = O_COLL + MAX_SEATS * NK  # [seat * 4 + species]
O_PJOKERS = O_ANIM + MAX_SEATS * 4
O_REMOVED = O_PJOKERS + MAX_SEATS
O_SCORES = O_REMOVED + NK
O_CLLEN = O_SCORES + MAX_SEATS
O_CLAIMS = O_CLLEN + MAX_SEATS  # [seat * CLAIM_CAP + j]: kind + 32 * misplaced
O_MQ = O_CLAIMS + MAX_SEATS * CLAIM_CAP  # misplaced queue (from F_MQHEAD, F_MQLEN long)
O_CSP = O_MQ + TOTAL_CARDS  # cards (and jokers) of each species claimed this round
GAME_LEN = O_CSP + 4

# ---------------------------------------------------------------- the rules as numbers
P_SETUP, P_DRAGON, P_FAIRY, P_MISPLACED, P_LONE, P_FIRST, P_TIEBJ, P_NANIMAL = range(8)
P_ANIMAL = 8  # animal_points, P_NANIMAL of them
P_BSET = 24  # building_set_points (4)
P_DEALS = 28  # per player count n: cards per round at P_DEALS + 2n, rounds at + 2n + 1
PARAMS_LEN = 40

COLOUR_OF = np.array([-1 if c < 0 else c for c in KIND_COLOUR], np.int64)
PERSON_OF = np.array(PERSON_VALUE, np.int64)
ANIMAL_OF = np.array(IS_ANIMAL, np.bool_)
JOKER_OF = np.array(IS_JOKER, np.bool_)


def rules_params(config: GameConfig) -> np.ndarray:
    """The rules table of ``config`` as the int64 array the kernels read (integer points)."""
    r = config.rules
    if config.players > MAX_SEATS:
        raise ValueError(f"the batched engine seats at most {MAX_SEATS} players")
    ints = (
        r.setup_cards,
        r.dragon_points,
        r.fairy_points,
        r.misplaced_points,
        r.lone_animal_joker_points,
        *r.animal_points,
        *r.building_set_points,
    )
    if any(type(x) is not int for x in ints):
        raise ValueError("the batched engine plays rules tables with integer points only")
    if not 1 <= len(r.animal_points) <= P_BSET - P_ANIMAL or len(r.building_set_points) != 4:
        raise ValueError("the batched engine needs 1-16 animal points and 4 building set values")
    p = np.zeros(PARAMS_LEN, np.int64)
    p[P_SETUP], p[P_DRAGON], p[P_FAIRY] = r.setup_cards, r.dragon_points, r.fairy_points
    p[P_MISPLACED], p[P_LONE] = r.misplaced_points, r.lone_animal_joker_points
    p[P_FIRST] = r.first_dealer % config.players
    p[P_TIEBJ] = int(bool(r.tie_break_counts_building_jokers))
    p[P_NANIMAL] = len(r.animal_points)
    p[P_ANIMAL : P_ANIMAL + len(r.animal_points)] = r.animal_points
    p[P_BSET : P_BSET + 4] = r.building_set_points
    per_round, rounds = r.deal(config.players)
    p[P_DEALS + 2 * config.players] = per_round
    p[P_DEALS + 2 * config.players + 1] = rounds
    return p


# ---------------------------------------------------------------- CPython's random.shuffle
@njit(cache=True, nogil=True)
def _mt_seed(mt, seed):
    """``random.Random(seed)`` for 0 <= seed < 2**32 (``init_by_array`` of one word)."""
    m = 0xFFFFFFFF
    mt[0] = 19650218
    for i in range(1, 624):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & m
    i, j = 1, 0
    for _ in range(624):
        mt[i] = ((mt[i] ^ (((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525) & m)) + seed + j) & m
        i += 1
        j = 0  # one key word
        if i >= 624:
            mt[0] = mt[623]
            i = 1
    for _ in range(623):
        mt[i] = ((mt[i] ^ (((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941) & m)) - i) & m
        i += 1
        if i >= 624:
            mt[0] = mt[623]
            i = 1
    mt[0] = 0x80000000
    mt[624] = 624  # the index of the next word


@njit(cache=True, nogil=True)
def _mt_next(mt):
    """The next 32-bit word (``genrand_uint32``)."""
    if mt[624] >= 624:
        for k in range(624):
            y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
            v = mt[(k + 397) % 624] ^ (y >> 1)
            if y & 1:
                v ^= 0x9908B0DF
            mt[k] = v
        mt[624] = 0
    y = mt[mt[624]]
    mt[624] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & 0xFFFFFFFF


@njit(cache=True, nogil=True)
def shuffle_deck(seed, deck, out):
    """``out`` = ``deck`` shuffled as ``random.Random(seed).shuffle`` shuffles a list."""
    mt = np.empty(625, np.int64)
    _mt_seed(mt, seed)
    out[:] = deck
    for i in range(out.shape[0] - 1, 0, -1):
        n = i + 1
        k = 0
        while (n >> k) > 0:
            k += 1  # n.bit_length()
        r = _mt_next(mt) >> (32 - k)
        while r >= n:
            r = _mt_next(mt) >> (32 - k)
        t = out[i]
        out[i] = out[r]
        out[r] = t


# ---------------------------------------------------------------- scoring helpers
@njit(cache=True, nogil=True)
def animal_value(params, total):
    if total <= 0:
        return 0
    return params[P_ANIMAL + min(total, params[P_NANIMAL]) - 1]


@njit(cache=True, nogil=True)
def _sets_value(c0, c1, c2, c3, params):
    top = max(max(c0, c1), max(c2, c3))
    total = 0
    for t in range(1, top + 1):
        size = int(c0 >= t) + int(c1 >= t) + int(c2 >= t) + int(c3 >= t)
        total += params[P_BSET + size - 1]
    return total


@njit(cache=True, nogil=True)
def building_points_k(c0, c1, c2, c3, jokers, params):
    """``scoring.building_points``: the best of every way to give the jokers colours."""
    best = 0
    for a in range(jokers + 1):
        for b in range(jokers - a + 1):
            for c in range(jokers - a - b + 1):
                d = jokers - a - b - c
                best = max(best, _sets_value(c0 + a, c1 + b, c2 + c, c3 + d, params))
    return best


@njit(cache=True, nogil=True)
def building_count(g, p, params):
    """``CardTable.building_count``."""
    b = 0
    for c in range(4):
        b += g[O_COLL + p * NK + c * 5 + 3]
    if params[P_TIEBJ]:
        b += g[O_COLL + p * NK + BUILDING_JOKER]
    return b


@njit(cache=True, nogil=True)
def winners_mask(g, params, out):
    """``out[p]`` = 1 for the seats sharing the win (the game is over)."""
    n = g[F_N]
    best = g[O_SCORES]
    for p in range(1, n):
        best = max(best, g[O_SCORES + p])
    tied = 0
    most = -1
    for p in range(n):
        if g[O_SCORES + p] == best:
            tied += 1
            most = max(most, building_count(g, p, params))
    for p in range(n):
        out[p] = 0
        if g[O_SCORES + p] == best and (tied == 1 or building_count(g, p, params) == most):
            out[p] = 1


STANDARD_DECK = np.array(standard_deck(), np.int64)
