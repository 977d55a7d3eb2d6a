"""Turn flow of the tile game: the one kernel the Python API calls per action.

A turn: place the drawn tile, decide on a follower, then a *scoring step* scores what the
tile completed. Under The Messages, every award of a step waits for its receiver's figure
choice; if a figure of the player whose turn it is landed on a multiple of 5 during the
step, that player gets one message (take 2 points or carry it out), whose points form the
next step, and so on. When a step ends without a message, the turn ends. Without The
Messages, steps credit points at once and the turn ends right after scoring.
"""

from __future__ import annotations

from numba import njit

from .board_kernels import draw_fitting, find, gen_followers, place_tile
from .layout import (
    AQ_FIELDS,
    ERR_ILLEGAL,
    ERR_LOG_FULL,
    ERR_OVER,
    NUM_MESSAGES,
    O_AWARDS,
    O_DECK,
    O_LEGAL,
    O_MSGDECK,
    OFF,
    OK,
    PHASE_FIGURE,
    PHASE_FOLLOWER,
    PHASE_MESSAGE,
    PHASE_MSG8,
    PHASE_OVER,
    PHASE_TILE,
    R_ACTIVE,
    R_AQ_HEAD,
    R_AQ_LEN,
    R_AUTOFIG,
    R_CARD,
    R_DECKLEN,
    R_FOLLOWERS,
    R_LAST,
    R_MESSAGES,
    R_MSGPOS,
    R_NLEGAL,
    R_NPLAYERS,
    R_PHASE,
    R_PLAYER,
    R_POOL,
    R_STEPDARK,
    R_TILE,
    R_TURN,
    S_COUNT,
    S_OWNER,
    SIZE,
)
from .message_kernels import draw_extra, gen_recall, message_points, recall_follower
from .scoring_kernels import auto_figure, final_scoring, give, resolve_award, score_turn
from .tiles import MAX_SEGMENTS, MESSAGE


@njit(cache=True, nogil=True)
def draw_next(board, ints, tiles, segs, events, pool):
    """Draw tiles until one fits (discarding the others); end the game if none is left."""
    if draw_fitting(board, ints, tiles):
        ints[R_PHASE] = PHASE_TILE
        return True
    ints[R_NLEGAL] = 0
    ints[R_PHASE] = PHASE_OVER
    ints[R_PLAYER] = -1
    return final_scoring(board, ints, tiles, segs, events, pool)


@njit(cache=True, nogil=True)
def end_turn(board, ints, tiles, segs, events, pool):
    """Pass the turn to the next seat and draw its tile (or end the game)."""
    ints[R_TURN] += 1
    ints[R_ACTIVE] = (ints[R_ACTIVE] + 1) % ints[R_NPLAYERS]
    ints[R_PLAYER] = ints[R_ACTIVE]
    return draw_next(board, ints, tiles, segs, events, pool)


@njit(cache=True, nogil=True)
def _two_options(ints, phase, player):
    ints[R_PHASE] = phase
    ints[R_PLAYER] = player
    ints[O_LEGAL] = 0
    ints[O_LEGAL + 1] = 1
    ints[R_NLEGAL] = 2


@njit(cache=True, nogil=True)
def advance(board, ints, tiles, segs, events, pool):
    """Continue the turn after a resolved decision: figure choices, a message, or next turn."""
    ok = True
    while ints[R_AQ_HEAD] < ints[R_AQ_LEN]:
        if ints[R_AUTOFIG] == 0:
            player = ints[O_AWARDS + ints[R_AQ_HEAD] * AQ_FIELDS]
            _two_options(ints, PHASE_FIGURE, player)
            return ok
        b = O_AWARDS + ints[R_AQ_HEAD] * AQ_FIELDS
        ok = resolve_award(ints, events, auto_figure(ints, ints[b], ints[b + 1])) and ok
    ints[R_AQ_HEAD] = 0
    ints[R_AQ_LEN] = 0
    if ints[R_STEPDARK]:
        ints[R_STEPDARK] = 0
        ints[R_CARD] = ints[O_MSGDECK + ints[R_MSGPOS] % NUM_MESSAGES]
        ints[R_MSGPOS] += 1
        _two_options(ints, PHASE_MESSAGE, ints[R_ACTIVE])
        return ok
    ints[R_CARD] = 0
    return end_turn(board, ints, tiles, segs, events, pool) and ok


@njit(cache=True, nogil=True)
def start_game(board, ints, tiles, segs, events, pool, start_type):
    """Lay the start tile at (0, 0) rotation 0 and draw the first tile."""
    ints[R_TILE] = start_type
    place_tile(board, ints, tiles, segs, OFF * SIZE + OFF, 0)
    ints[R_PLAYER] = 0
    ints[R_ACTIVE] = 0
    return draw_next(board, ints, tiles, segs, events, pool)


@njit(cache=True, nogil=True)
def setup_game(board, ints, tiles, segs, events, pool, players, messages, autofig, deck, msgdeck,
               start_type):  # fmt: skip
    """Set up a game on empty arrays (``layout.allocate``): seats, options, the draw pile
    ``deck`` (tile types, first drawn first), the message stack ``msgdeck`` (cards 1-8, top
    first), 7 followers a seat; then the start tile and the first draw (``start_game``)."""
    ints[R_NPLAYERS] = players
    ints[R_MESSAGES] = messages
    ints[R_AUTOFIG] = autofig
    ints[R_DECKLEN] = len(deck)
    for k in range(len(deck)):
        ints[O_DECK + k] = deck[k]
    for k in range(NUM_MESSAGES):
        ints[O_MSGDECK + k] = msgdeck[k]
    for p in range(players):
        ints[R_FOLLOWERS + p] = 7
    return start_game(board, ints, tiles, segs, events, pool, start_type)


@njit(cache=True, nogil=True)
def _carry_out(board, ints, tiles, segs, events, pool, card):
    """The active player carries out message ``card``; returns (awaiting a decision, ok)."""
    if card == 7:
        if draw_extra(board, ints, tiles):
            return True, True
        return False, True
    if card == 8:
        if gen_recall(ints, segs) > 0:
            ints[R_PHASE] = PHASE_MSG8
            ints[R_PLAYER] = ints[R_ACTIVE]
            return True, True
        return False, True
    return False, message_points(board, ints, tiles, segs, events, pool, card)


@njit(cache=True, nogil=True)
def apply_action(board, ints, tiles, segs, events, pool, code):
    """Apply one action code of the pending decision; returns a status code (OK = 0)."""
    phase = ints[R_PHASE]
    if phase == PHASE_OVER:
        return ERR_OVER
    found = False
    for i in range(ints[R_NLEGAL]):
        if ints[O_LEGAL + i] == code:
            found = True
            break
    if not found:
        return ERR_ILLEGAL
    ok = True
    if phase == PHASE_TILE:
        place_tile(board, ints, tiles, segs, code >> 2, code & 3)
        ints[R_PHASE] = PHASE_FOLLOWER
        gen_followers(ints, tiles, segs)
        return OK
    if phase == PHASE_FOLLOWER:
        p = ints[R_PLAYER]
        if code > 0:
            g = ints[R_LAST] * MAX_SEGMENTS + code - 1
            segs[g, S_OWNER] = p
            segs[find(segs, g), S_COUNT + p] += 1
            ints[R_FOLLOWERS + p] -= 1
        ok = score_turn(board, ints, tiles, segs, events, pool)
        if ints[R_MESSAGES] == 0:  # base game fast path: the turn ends here
            ok = end_turn(board, ints, tiles, segs, events, pool) and ok
            return OK if ok else ERR_LOG_FULL
    elif phase == PHASE_FIGURE:
        ok = resolve_award(ints, events, code)
    elif phase == PHASE_MESSAGE:
        card = ints[R_CARD]
        if code == 0:
            ok = give(ints, events, ints[R_ACTIVE], 2, MESSAGE, 0, ints[R_POOL], 0, card)
        else:
            waiting, ok = _carry_out(board, ints, tiles, segs, events, pool, card)
            if waiting:
                return OK if ok else ERR_LOG_FULL
    else:  # PHASE_MSG8
        ok = recall_follower(board, ints, tiles, segs, events, pool, code)
    ok = advance(board, ints, tiles, segs, events, pool) and ok
    return OK if ok else ERR_LOG_FULL
