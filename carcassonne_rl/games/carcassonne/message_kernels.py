"""Numba kernels for The Messages (docs/rules/carcassonne.md section 4): what each card gives.

Cards, as numbered in the seed: 1-3 score the player's "smallest" road / city / cloister at
its end-of-game value (majority not needed, followers stay); 4: 2 points per pennant in
every city holding one of the player's followers; 5 / 6: 2 points per own follower in a
city / on a field; 7: place one more tile (``draw_extra``); 8: choose one of the player's
followers, score its feature alone at end-of-game value if the player has a majority there
(ties count), and take the follower back (``recall_follower``).

Decision (docs/rules/carcassonne.md): among several "smallest" features the first found (lowest
segment row) is scored, the value being the same; a card that finds nothing gives nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board_kernels import draw_fitting, feature_roots, find, network_summary, scratch
from .layout import (
    MAX_TILES,
    O_LEGAL,
    PHASE_TILE,
    R_ACTIVE,
    R_FOLLOWERS,
    R_NLEGAL,
    R_NSLOTS,
    R_PHASE,
    R_PLAYER,
    R_POOL,
    S_COUNT,
    S_KIND,
    S_OWNER,
    S_PENNANT,
)
from .scoring_kernels import feature_value, give
from .tiles import CITY, CLOISTER, FIELD, LABYRINTH, MAX_SEGMENTS, MESSAGE, ROAD


@njit(cache=True, nogil=True)
def _root_of(segs, g):
    return g if segs[g, S_KIND] == CLOISTER else find(segs, g)


@njit(cache=True, nogil=True)
def _end_value(board, ints, tiles, segs, pool, g, roots):
    """End-of-game value of the feature under the follower on row ``g`` (tiles -> pool)."""
    n = feature_roots(board, tiles, segs, _root_of(segs, g), roots)
    start = ints[R_POOL]
    points, ntiles, _ = feature_value(board, tiles, segs, pool, start, roots, n, 0)
    return points, start, ntiles


@njit(cache=True, nogil=True)
def message_points(board, ints, tiles, segs, events, pool, card):
    """Carry out message 1-6 for the player whose turn it is; False if a log is full."""
    p = ints[R_ACTIVE]
    rows = ints[R_NSLOTS] * MAX_SEGMENTS
    roots, _ = scratch(ints)
    if card <= 3:
        want = ROAD if card == 1 else (CITY if card == 2 else CLOISTER)
        best_g = -1
        best = 0
        for g in range(rows):
            if segs[g, S_OWNER] != p:
                continue
            kind = segs[g, S_KIND]
            if kind == LABYRINTH:
                kind = ROAD
            if kind != want:
                continue
            points, _, _ = _end_value(board, ints, tiles, segs, pool, g, roots)
            if best_g < 0 or points < best:
                best_g = g
                best = points
        if best_g < 0:
            return True
        points, start, ntiles = _end_value(board, ints, tiles, segs, pool, best_g, roots)
        ints[R_POOL] = start + ntiles
        return give(ints, events, p, points, MESSAGE, 0, start, ntiles, card)
    points = 0
    if card == 4:
        seen = np.zeros(MAX_TILES * MAX_SEGMENTS, np.bool_)
        for g in range(rows):
            if segs[g, S_OWNER] == p and segs[g, S_KIND] == CITY:
                r = find(segs, g)
                if not seen[r]:
                    seen[r] = True
                    points += 2 * segs[r, S_PENNANT]
    else:
        want = CITY if card == 5 else FIELD
        for g in range(rows):
            if segs[g, S_OWNER] == p and segs[g, S_KIND] == want:
                points += 2
    return give(ints, events, p, points, MESSAGE, 0, ints[R_POOL], 0, card)


@njit(cache=True, nogil=True)
def draw_extra(board, ints, tiles):
    """Message 7: draw until a tile fits (discarding the others). True if one is to be placed."""
    if draw_fitting(board, ints, tiles):
        ints[R_PHASE] = PHASE_TILE
        ints[R_PLAYER] = ints[R_ACTIVE]
        return True
    return False


@njit(cache=True, nogil=True)
def gen_recall(ints, segs):
    """Message 8 options: the segment rows of the active player's placed followers."""
    p = ints[R_ACTIVE]
    n = 0
    for g in range(ints[R_NSLOTS] * MAX_SEGMENTS):
        if segs[g, S_OWNER] == p:
            ints[O_LEGAL + n] = g
            n += 1
    ints[R_NLEGAL] = n
    return n


@njit(cache=True, nogil=True)
def recall_follower(board, ints, tiles, segs, events, pool, g):
    """Message 8 on the follower at row ``g``: score alone with a majority, then take it back."""
    p = ints[R_ACTIVE]
    roots, counts = scratch(ints)
    root = _root_of(segs, g)
    n = feature_roots(board, tiles, segs, root, roots)
    network_summary(segs, roots, n, counts)
    ok = True
    if counts[p] == counts.max():
        points, start, ntiles = _end_value(board, ints, tiles, segs, pool, g, roots)
        ints[R_POOL] = start + ntiles
        ok = give(ints, events, p, points, MESSAGE, 0, start, ntiles, 8)
    segs[g, S_OWNER] = -1
    segs[root, S_COUNT + p] -= 1
    ints[R_FOLLOWERS + p] += 1
    return ok
