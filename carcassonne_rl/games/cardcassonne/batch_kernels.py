"""The rules of Cardcassonne as Numba kernels over one batched game's array (the layout of
:mod:`.batch_layout`): a second implementation of
:mod:`~carcassonne_rl.games.cardcassonne.state`, action for action (the Python engine stays
the reference; ``tests/games/cardcassonne/test_batch.py`` plays both in lockstep). Score
events are not kept, the scores are."""

from __future__ import annotations

import numpy as np
from numba import njit

from .actions import ASSIGN, FOLLOWER, KEEP, NUM_ACTIONS, PLAY_UP, SETUP_ROW, TEN
from .batch_layout import (
    ANIMAL_OF,
    CLAIM_CAP,
    COLOUR_OF,
    F_CLAIMS,
    F_CURRENT,
    F_DEAL,
    F_DEALER,
    F_DECKPOS,
    F_JOKERS,
    F_JSTEP,
    F_LASTF,
    F_MQHEAD,
    F_MQLEN,
    F_N,
    F_NEWJ,
    F_PHASE,
    F_ROUND,
    F_ROUNDS,
    F_SCORER,
    F_SETUPDONE,
    JOKER_OF,
    MAX_SEATS,
    NK,
    O_ANIM,
    O_CLAIMS,
    O_CLLEN,
    O_COLL,
    O_CSP,
    O_FROW,
    O_HANDS,
    O_HSIZE,
    O_MQ,
    O_ORDER,
    O_PJOKERS,
    O_PLAYED,
    O_REMOVED,
    O_ROWLEN,
    O_ROWS,
    O_SCORES,
    P_DEALS,
    P_DRAGON,
    P_FAIRY,
    P_FIRST,
    P_LONE,
    P_MISPLACED,
    P_SETUP,
    PERSON_OF,
    ROW_CAP,
    animal_value,
    building_points_k,
    shuffle_deck,
)
from .cards import ANIMAL_JOKER, BUILDING_JOKER, DRAGON, FAIRY, TOTAL_CARDS
from .table import ASSIGN_JOKER, FACE_DOWN, MISPLACED, OVER, SETUP, TURN


# ---------------------------------------------------------------- the rules
@njit(cache=True, nogil=True)
def _append(g, r, e):
    g[O_ROWS + r * ROW_CAP + g[O_ROWLEN + r]] = e
    g[O_ROWLEN + r] += 1


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
        if JOKER_OF[k]:
            g[F_PHASE] = SETUP
            g[F_CURRENT] = g[F_DEALER]
            return
        _append(g, COLOUR_OF[k], k)
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
                    mis = e2 >= FACE_DOWN and k < 20 and COLOUR_OF[k] != r
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
            g[O_SCORES + p] += animal_value(params, g[a + s])
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
            if PERSON_OF[k]:
                g[O_REMOVED + k] += 1
                if mis:
                    g[O_SCORES + p] += params[P_MISPLACED]
                else:
                    psum += PERSON_OF[k]
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
                if ANIMAL_OF[k]:
                    s = COLOUR_OF[k]
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
            return down or k >= 20 or COLOUR_OF[k] == (c & 3)
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
                    elif JOKER_OF[k]:
                        for r in range(4):
                            mask[PLAY_UP + k * 4 + r] = 1
                    else:
                        mask[PLAY_UP + k * 4 + COLOUR_OF[k]] = 1
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
            if ANIMAL_OF[k]:
                s = COLOUR_OF[k]
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
