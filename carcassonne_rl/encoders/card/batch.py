"""The card observation of :mod:`~carcassonne_rl.encoders.card.encoder` as a Numba kernel
over a batched game's array (``games/cardcassonne/batch.py``): ``write_obs`` writes the same
float32 bytes as ``CardEncoder.encode_into`` writes for the same position and seat."""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.encoders.card.encoder import (
    G_CLAIMS,
    G_DECK,
    G_JOKERS,
    G_MISPLACED,
    G_PENDING,
    G_PHASE,
    G_PLAYERS,
    G_REMOVED,
    G_ROUND,
    G_ROUNDS,
    G_SCORER,
    NK,
    O_GLOBAL,
    O_HAND,
    O_ROWS,
    O_SEATS,
    ROW_LEN,
    S_ANIMALS,
    S_BUILDINGS,
    S_COLLECTED,
    S_CURRENT,
    S_DEALER,
    S_FPLACED,
    S_FROW,
    S_HAND,
    S_LASTF,
    S_PJOKERS,
    S_PLAYED,
    S_PRESENT,
    S_SCORE,
    SCORE_SCALE,
    SEAT_LEN,
    SEG_LEN,
)
from carcassonne_rl.games.cardcassonne import batch_layout as B
from carcassonne_rl.games.cardcassonne.cards import TOTAL_CARDS
from carcassonne_rl.games.cardcassonne.table import FACE_DOWN, MISPLACED, SETUP

__all__ = ["write_obs"]


@njit(cache=True, nogil=True)
def write_obs(g, p, params, v):
    """Seat ``p``'s observation of game ``g`` over the float32 vector ``v``."""
    v[:] = 0.0
    n = g[B.F_N]
    for k in range(NK):
        v[O_HAND + k] = g[B.O_HANDS + p * NK + k]
    own_lo = FACE_DOWN * (p + 1)
    owners = np.empty(B.MAX_SEATS + 1, np.int64)
    for r in range(4):
        start = B.O_ROWS + r * B.ROW_CAP
        length = g[B.O_ROWLEN + r]
        nf = 0
        for i in range(length):
            e = g[start + i]
            if e < 0:
                owners[nf] = -e - 1
                nf += 1
        fi = 0
        seg = 1 + (owners[0] - p + n) % n if nf > 0 else 0
        base = O_ROWS + r * ROW_LEN + seg * SEG_LEN
        for i in range(length):
            e = g[start + i]
            if e < 0:
                fi += 1
                seg = 1 + (owners[fi] - p + n) % n if fi < nf else 0
                base = O_ROWS + r * ROW_LEN + seg * SEG_LEN
            elif e < FACE_DOWN:
                v[base + e] += 1
            elif own_lo <= e < own_lo + FACE_DOWN:
                k = e - own_lo
                v[base + k] += 1
                v[base + NK + 1 + k] += 1
            else:
                v[base + NK] += 1
    gl = O_GLOBAL
    scorer = g[B.F_SCORER]
    for q in range(n):
        j = (q - p + n) % n
        o = O_SEATS + j * SEAT_LEN
        for k in range(NK):
            v[o + S_COLLECTED + k] = g[B.O_COLL + q * NK + k]
        for s in range(4):
            v[o + S_ANIMALS + s] = g[B.O_ANIM + q * 4 + s]
        v[o + S_PJOKERS] = g[B.O_PJOKERS + q]
        v[o + S_SCORE] = g[B.O_SCORES + q] / SCORE_SCALE
        v[o + S_HAND] = g[B.O_HSIZE + q]
        v[o + S_PLAYED] = g[B.O_PLAYED + q]
        fr = g[B.O_FROW + q]
        if fr >= 0:
            v[o + S_FROW + fr] = 1
            v[o + S_FPLACED] = 1
        v[o + S_BUILDINGS] = B.building_count(g, q, params)
        v[o + S_DEALER] = q == g[B.F_DEALER]
        v[o + S_LASTF] = q == g[B.F_LASTF]
        v[o + S_CURRENT] = q == g[B.F_CURRENT]
        v[o + S_PRESENT] = 1
        if q > scorer and g[B.F_CLAIMS]:
            c = B.O_CLAIMS + q * B.CLAIM_CAP
            for x in range(g[B.O_CLLEN + q]):
                v[gl + G_CLAIMS + j * NK + (g[c + x] & 31)] += 1
    ph = g[B.F_PHASE]
    v[gl + G_ROUND] = g[B.F_ROUND]
    v[gl + G_ROUNDS] = g[B.F_ROUNDS]
    if ph == SETUP or g[B.F_ROUND] == 0:
        deck = TOTAL_CARDS - g[B.F_SETUPDONE]
    else:
        deck = TOTAL_CARDS - g[B.F_DECKPOS]
    v[gl + G_DECK] = deck / 130.0
    for k in range(NK):
        v[gl + G_REMOVED + k] = g[B.O_REMOVED + k]
    v[gl + G_PHASE + ph] = 1
    if ph == SETUP:
        v[gl + G_PENDING + g[B.O_ORDER + g[B.F_SETUPDONE]]] = 1
    elif ph == MISPLACED:
        v[gl + G_PENDING + g[B.O_MQ + g[B.F_MQHEAD]]] = 1
    if scorer >= 0:
        v[gl + G_SCORER + (scorer - p + n) % n] = 1
    v[gl + G_JOKERS] = g[B.F_JOKERS]
    head = g[B.F_MQHEAD]
    for x in range(head, head + g[B.F_MQLEN]):
        v[gl + G_MISPLACED + g[B.O_MQ + x]] += 1
    v[gl + G_PLAYERS + n - 2] = 1
