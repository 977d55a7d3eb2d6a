"""Many Cardcassonne games at once: ``N`` games held as one int32 array ``[N, GAME_LEN]`` (the
layout below), stepped by one Numba call over all of them (``prange`` over the games,
``nogil``: every core the Numba threading layer has).

It is a second implementation of the rules of :mod:`.state` (the Python engine stays the
reference; ``tests/games/cardcassonne/test_batch.py`` plays both in lockstep): the same
legal action codes, the same deals, scores, rounds and end of game. Game ``i`` dealt with
seed ``s`` is ``new_game(GameConfig(players, seed=s))``: the pile is shuffled inside the
kernel by a port of CPython's ``random.Random(s).shuffle`` (Mersenne Twister, the same
draws), so a reset costs no Python per game. Score events are not kept (the scores are);
``state(i)`` replays game ``i``'s record through the Python engine when one is needed
(rendering, records, checks).

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
from .actions import ASSIGN, FOLLOWER, KEEP, NUM_ACTIONS, PLAY_UP, SETUP_ROW, TEN
from .cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_ANIMAL,
    IS_JOKER,
    KIND_COLOUR,
    NUM_KINDS,
    PERSON_VALUE,
    TOTAL_CARDS,
    standard_deck,
)
from .config import GameConfig
from .state import State, new_game
from .table import ASSIGN_JOKER, FACE_DOWN, MISPLACED, OVER, SETUP, TURN

__all__ = ["GAME_LEN", "HISTORY_LEN", "CardBatch", "rules_params"]

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

_COLOUR = np.array([-1 if c < 0 else c for c in KIND_COLOUR], np.int64)
_PERSON = np.array(PERSON_VALUE, np.int64)
_ANIMAL = np.array(IS_ANIMAL, np.bool_)
_JOKER = np.array(IS_JOKER, np.bool_)


def rules_params(config: GameConfig) -> np.ndarray:
    """The rules table of ``config`` as the int64 array the kernels read (integer points)."""
    r = config.rules
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


# ---------------------------------------------------------------- the rules
@njit(cache=True, nogil=True)
def _append(g, r, e):
    g[O_ROWS + r * ROW_CAP + g[O_ROWLEN + r]] = e
    g[O_ROWLEN + r] += 1


@njit(cache=True, nogil=True)
def _animal_value(params, total):
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


@njit(cache=True, nogil=True)
def _start_round(g):
    n = g[F_N]
    g[F_ROUND] += 1
    pos = g[F_DECKPOS]
    d = g[F_DEALER]
    for _ in range(g[F_DEAL]):
        for j in range(1, n + 1):
            g[O_HANDS + ((d + j) % n) * NK + g[O_ORDER + pos]] += 1
            pos += 1
    g[F_DECKPOS] = pos
    for p in range(n):
        g[O_HSIZE + p] = g[F_DEAL]
        g[O_PLAYED + p] = 0
        g[O_FROW + p] = -1
    g[F_LASTF] = -1
    g[F_PHASE] = TURN
    g[F_CURRENT] = (d + 1) % n


@njit(cache=True, nogil=True)
def _run_setup(g, params):
    while g[F_SETUPDONE] < params[P_SETUP]:
        k = g[O_ORDER + g[F_SETUPDONE]]
        if _JOKER[k]:
            g[F_PHASE] = SETUP
            g[F_CURRENT] = g[F_DEALER]
            return
        _append(g, _COLOUR[k], k)
        g[F_SETUPDONE] += 1
    g[F_DECKPOS] = params[P_SETUP]
    _start_round(g)


@njit(cache=True, nogil=True)
def start_game(g, order, players, params):
    """Clear one game's array and start it with the pile ``order`` (top first)."""
    g[:] = 0
    g[F_N] = players
    g[F_DEAL] = params[P_DEALS + 2 * players]
    g[F_ROUNDS] = params[P_DEALS + 2 * players + 1]
    g[F_DEALER] = params[P_FIRST]
    g[F_CURRENT] = params[P_FIRST]
    g[F_PHASE] = SETUP
    g[F_LASTF] = -1
    g[F_SCORER] = -1
    for p in range(MAX_SEATS):
        g[O_FROW + p] = -1
    for j in range(TOTAL_CARDS):
        g[O_ORDER + j] = order[j]
    _run_setup(g, params)


@njit(cache=True, nogil=True)
def _end_round(g, params):
    """Resolve the rows: claimed cards to their followers, the rest stays."""
    n = g[F_N]
    for p in range(n):
        g[O_CLLEN + p] = 0
    for r in range(4):
        base = O_ROWS + r * ROW_CAP
        length = g[O_ROWLEN + r]
        start = 0
        for i in range(length):
            e = g[base + i]
            if e < 0:
                q = -e - 1
                for x in range(start, i):
                    e2 = g[base + x]
                    k = e2 & 31
                    mis = e2 >= FACE_DOWN and k < 20 and _COLOUR[k] != r
                    g[O_CLAIMS + q * CLAIM_CAP + g[O_CLLEN + q]] = k + 32 * int(mis)
                    g[O_CLLEN + q] += 1
                start = i + 1
        for x in range(start, length):
            g[base + x - start] = g[base + x]
        g[O_ROWLEN + r] = length - start
    g[F_CLAIMS] = 1
    g[F_DEALER] = g[F_LASTF]
    g[F_SCORER] = -1
    _next_player_scoring(g, params)


@njit(cache=True, nogil=True)
def _decision_pending(g, params):
    """Finish the scoring seat's claims up to its next decision (True if one is due)."""
    p = g[F_SCORER]
    if g[F_MQLEN] > 0:
        g[F_PHASE] = MISPLACED
        g[F_CURRENT] = p
        return True
    a = O_ANIM + p * 4
    if g[F_JSTEP] == 0:
        g[F_JSTEP] = 1
        owned = 0
        first = -1
        for s in range(4):
            if g[a + s]:
                owned += 1
                if first < 0:
                    first = s
        new = g[F_NEWJ]
        if owned == 0:
            if new:
                g[O_PJOKERS + p] += new
                g[O_SCORES + p] += params[P_LONE] * new
        else:
            todo = g[O_PJOKERS + p] + new
            g[O_PJOKERS + p] = 0
            if owned == 1 and todo:
                g[a + first] += todo
                g[O_CSP + first] += todo
                todo = 0
            g[F_JOKERS] = todo
    if g[F_JOKERS]:
        g[F_PHASE] = ASSIGN_JOKER
        g[F_CURRENT] = p
        return True
    for s in range(4):
        if g[O_CSP + s]:
            g[O_SCORES + p] += _animal_value(params, g[a + s])
    return False


@njit(cache=True, nogil=True)
def _after_scoring(g, params):
    g[F_CLAIMS] = 0
    g[F_SCORER] = -1
    g[F_MQHEAD] = 0
    g[F_MQLEN] = 0
    for s in range(4):
        g[O_CSP + s] = 0
    if g[F_ROUND] < g[F_ROUNDS]:
        _start_round(g)
        return
    for p in range(g[F_N]):
        c = O_COLL + p * NK
        c0, c1, c2, c3 = g[c + 3], g[c + 8], g[c + 13], g[c + 18]
        jokers = g[c + BUILDING_JOKER]
        if c0 + c1 + c2 + c3 + jokers:
            g[O_SCORES + p] += building_points_k(c0, c1, c2, c3, jokers, params)
    g[F_PHASE] = OVER
    g[F_CURRENT] = -1


@njit(cache=True, nogil=True)
def _next_player_scoring(g, params):
    """Score the next seat's claims; stops at the first decision."""
    n = g[F_N]
    while g[F_SCORER] + 1 < n:
        g[F_SCORER] += 1
        p = g[F_SCORER]
        for s in range(4):
            g[O_CSP + s] = 0
        g[F_MQHEAD] = 0
        g[F_MQLEN] = 0
        new_jokers = 0
        psum = 0
        pcount = 0
        for j in range(g[O_CLLEN + p]):
            x = g[O_CLAIMS + p * CLAIM_CAP + j]
            k = x & 31
            mis = x >= 32
            if _PERSON[k]:
                g[O_REMOVED + k] += 1
                if mis:
                    g[O_SCORES + p] += params[P_MISPLACED]
                else:
                    psum += _PERSON[k]
                    pcount += 1
            elif k == DRAGON or k == FAIRY:  # noqa: SIM109 - as Numba compiles it
                g[O_REMOVED + k] += 1
                g[O_SCORES + p] += params[P_DRAGON] if k == DRAGON else params[P_FAIRY]
            elif mis:
                g[O_MQ + g[F_MQLEN]] = k
                g[F_MQLEN] += 1
            elif k == ANIMAL_JOKER:
                new_jokers += 1
                g[O_COLL + p * NK + k] += 1
            else:
                g[O_COLL + p * NK + k] += 1
                if _ANIMAL[k]:
                    s = _COLOUR[k]
                    g[O_ANIM + p * 4 + s] += 1
                    g[O_CSP + s] += 1
        if pcount:
            g[O_SCORES + p] += psum * pcount
        g[F_NEWJ] = new_jokers
        g[F_JSTEP] = 0
        if _decision_pending(g, params):
            return
    _after_scoring(g, params)


@njit(cache=True, nogil=True)
def _continue_player(g, params):
    if not _decision_pending(g, params):
        _next_player_scoring(g, params)


@njit(cache=True, nogil=True)
def is_legal(g, code):
    """Whether ``code`` is a legal action of game ``g`` now."""
    if code < 0 or code >= NUM_ACTIONS:
        return False
    ph = g[F_PHASE]
    if ph == TURN:
        p = g[F_CURRENT]
        if code < FOLLOWER:
            down = code < PLAY_UP
            c = code if down else code - PLAY_UP
            k = c >> 2
            if g[O_HANDS + p * NK + k] == 0 or down != (g[O_PLAYED + p] == 0):
                return False
            return down or k >= 20 or _COLOUR[k] == (c & 3)
        return code < SETUP_ROW and g[O_FROW + p] < 0
    if ph == SETUP:
        return SETUP_ROW <= code < ASSIGN
    if ph == MISPLACED:
        return code == KEEP or code == TEN  # noqa: SIM109 - as Numba compiles it
    if ph == ASSIGN_JOKER:
        return ASSIGN <= code < KEEP and g[O_ANIM + g[F_SCORER] * 4 + code - ASSIGN] > 0
    return False


@njit(cache=True, nogil=True)
def write_mask(g, mask):
    """The int8 mask of the legal action codes of game ``g`` (all zero once it is over)."""
    mask[:] = 0
    ph = g[F_PHASE]
    if ph == TURN:
        p = g[F_CURRENT]
        if g[O_HSIZE + p]:
            down = g[O_PLAYED + p] == 0
            for k in range(NK):
                if g[O_HANDS + p * NK + k]:
                    if down:
                        for r in range(4):
                            mask[k * 4 + r] = 1
                    elif _JOKER[k]:
                        for r in range(4):
                            mask[PLAY_UP + k * 4 + r] = 1
                    else:
                        mask[PLAY_UP + k * 4 + _COLOUR[k]] = 1
        if g[O_FROW + p] < 0:
            for r in range(4):
                mask[FOLLOWER + r] = 1
    elif ph == SETUP:
        for r in range(4):
            mask[SETUP_ROW + r] = 1
    elif ph == MISPLACED:
        mask[KEEP] = 1
        mask[TEN] = 1
    elif ph == ASSIGN_JOKER:
        for s in range(4):
            if g[O_ANIM + g[F_SCORER] * 4 + s]:
                mask[ASSIGN + s] = 1


@njit(cache=True, nogil=True)
def apply_code(g, params, code):
    """Apply the legal action ``code`` to game ``g`` (``State.apply_code``; check it first
    with :func:`is_legal`)."""
    ph = g[F_PHASE]
    if ph == TURN:
        p = g[F_CURRENT]
        n = g[F_N]
        if code < FOLLOWER:
            down = code < PLAY_UP
            c = code if down else code - PLAY_UP
            k = c >> 2
            r = c & 3
            g[O_HANDS + p * NK + k] -= 1
            g[O_HSIZE + p] -= 1
            g[O_PLAYED + p] += 1
            _append(g, r, k + FACE_DOWN * (p + 1) if down else k)
        else:
            r = code - FOLLOWER
            g[O_FROW + p] = r
            _append(g, r, -(p + 1))
            g[F_LASTF] = p
        for i in range(1, n + 1):
            q = (p + i) % n
            if g[O_HSIZE + q] or g[O_FROW + q] < 0:
                g[F_CURRENT] = q
                return
        _end_round(g, params)
    elif ph == SETUP:
        _append(g, code - SETUP_ROW, g[O_ORDER + g[F_SETUPDONE]])
        g[F_SETUPDONE] += 1
        _run_setup(g, params)
    elif ph == MISPLACED:
        p = g[F_SCORER]
        k = g[O_MQ + g[F_MQHEAD]]
        g[F_MQHEAD] += 1
        g[F_MQLEN] -= 1
        if code == KEEP:
            g[O_COLL + p * NK + k] += 1
            if _ANIMAL[k]:
                s = _COLOUR[k]
                g[O_ANIM + p * 4 + s] += 1
                g[O_CSP + s] += 1
        else:
            g[O_REMOVED + k] += 1
            g[O_SCORES + p] += params[P_MISPLACED]
        _continue_player(g, params)
    elif ph == ASSIGN_JOKER:
        p = g[F_SCORER]
        s = code - ASSIGN
        g[O_ANIM + p * 4 + s] += 1
        g[O_CSP + s] += 1
        g[F_JOKERS] -= 1
        _continue_player(g, params)


@njit(cache=True, nogil=True)
def play_code(g, hist, params, code):
    """Check and apply ``code``, recorded in ``hist`` (``hist[0]``: the count); returns 0,
    1 (illegal: nothing changed) or 2 (the record is full)."""
    if not is_legal(g, code):
        return 1
    if hist[0] + 1 >= hist.shape[0]:
        return 2
    apply_code(g, params, code)
    hist[hist[0] + 1] = code
    hist[0] += 1
    return 0


@njit(cache=True, nogil=True)
def deal_game(g, hist, seed, deck, players, params):
    """Start game ``g`` shuffled by ``seed`` (as ``new_game(GameConfig(players, seed))``)."""
    order = np.empty(TOTAL_CARDS, np.int64)
    shuffle_deck(seed, deck, order)
    start_game(g, order, players, params)
    hist[0] = 0


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


STANDARD_DECK = np.array(standard_deck(), np.int64)


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
            raise RuntimeError("a game's record is full (raise batch.HISTORY_LEN)")
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
