"""Numba kernels for scoring: feature values, majorities, the score log, awards.

Under The Messages, points received during play are not credited at once: they wait in the
award queue until their receiver picks the figure that moves (``resolve_award``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board_kernels import (
    CLOISTER_SEG,
    FIELD_CITIES,
    NSEG,
    RING,
    SEG_KIND,
    cell_of,
    feature_roots,
    find,
    follower_total,
    neighbour_count,
    network_summary,
    scratch,
)
from .layout import (
    AQ_FIELDS,
    E_CARD,
    E_FIGURE,
    E_FINAL,
    E_KIND,
    E_NTILES,
    E_PLAYER,
    E_POINTS,
    E_POOL,
    E_TURN,
    MAX_AWARDS,
    MAX_EVENTS,
    MAX_PLAYERS,
    MAX_POOL,
    MAX_TILES,
    O_AWARDS,
    R_ACTIVE,
    R_AQ_HEAD,
    R_AQ_LEN,
    R_FIG_A,
    R_FIG_B,
    R_FOLLOWERS,
    R_LAST,
    R_MESSAGES,
    R_NEVENTS,
    R_NPLAYERS,
    R_NSLOTS,
    R_POOL,
    R_SCORES,
    R_STEPDARK,
    R_TURN,
    S_COUNT,
    S_DONE,
    S_HUBLINK,
    S_KIND,
    S_NEXT,
    S_OPEN,
    S_OWNER,
    S_PARENT,
    S_PENNANT,
)
from .tiles import CITY, CLOISTER, FIELD, LABYRINTH, MAX_SEGMENTS, ROAD


@njit(cache=True, nogil=True)
def log_event(ints, events, player, points, kind, final, pool_start, ntiles, figure, card):
    """Credit ``points`` to ``player``'s total and log it; False if a log is full."""
    e = ints[R_NEVENTS]
    if e >= MAX_EVENTS or pool_start + ntiles > MAX_POOL:
        return False
    events[e, E_PLAYER] = player
    events[e, E_POINTS] = points
    events[e, E_KIND] = kind
    events[e, E_TURN] = ints[R_TURN]
    events[e, E_FINAL] = final
    events[e, E_POOL] = pool_start
    events[e, E_NTILES] = ntiles
    events[e, E_FIGURE] = figure
    events[e, E_CARD] = card
    ints[R_NEVENTS] = e + 1
    ints[R_SCORES + player] += points
    return True


@njit(cache=True, nogil=True)
def give(ints, events, player, points, kind, final, pool_start, ntiles, card):
    """A player receives points: credited now, or queued for a figure choice (Messages)."""
    if points <= 0:
        return True
    if ints[R_MESSAGES] == 0 or final:
        return log_event(ints, events, player, points, kind, final, pool_start, ntiles, -1, card)
    i = ints[R_AQ_LEN]
    if i >= MAX_AWARDS:
        return False
    b = O_AWARDS + i * AQ_FIELDS
    ints[b] = player
    ints[b + 1] = points
    ints[b + 2] = kind
    ints[b + 3] = pool_start
    ints[b + 4] = ntiles
    ints[b + 5] = card
    ints[R_AQ_LEN] = i + 1
    return True


@njit(cache=True, nogil=True)
def auto_figure(ints, player, points):
    """Decision (docs/rules/carcassonne.md section 4): the automatic figure choice (config
    ``figure_choice="auto"``).

    The player whose turn it is moves a figure that lands on a multiple of 5 (a message) if
    one does; otherwise the figure with the lower total moves (figure A on a tie).
    """
    a = ints[R_FIG_A + player]
    b = ints[R_FIG_B + player]
    if player == ints[R_ACTIVE]:
        if (a + points) % 5 == 0:
            return 0
        if (b + points) % 5 == 0:
            return 1
    return 0 if a <= b else 1


@njit(cache=True, nogil=True)
def resolve_award(ints, events, figure):
    """Move ``figure`` (0 = A, 1 = B) of the receiver of the award at the queue head."""
    b = O_AWARDS + ints[R_AQ_HEAD] * AQ_FIELDS
    player = ints[b]
    points = ints[b + 1]
    ints[R_AQ_HEAD] += 1
    reg = (R_FIG_A if figure == 0 else R_FIG_B) + player
    ints[reg] += points
    if player == ints[R_ACTIVE] and ints[reg] % 5 == 0:
        ints[R_STEPDARK] = 1
    return log_event(ints, events, player, points, ints[b + 2], 0, ints[b + 3], ints[b + 4],
                     figure, ints[b + 5])  # fmt: skip


@njit(cache=True, nogil=True)
def _distinct_tiles(segs, pool, start, roots, n):
    """Write the distinct tile slots of the features ``roots[:n]`` into the pool."""
    seen = np.zeros(MAX_TILES, np.bool_)
    count = 0
    for i in range(n):
        r = roots[i]
        m = r
        while True:
            slot = m // MAX_SEGMENTS
            if not seen[slot]:
                seen[slot] = True
                if start + count < MAX_POOL:
                    pool[start + count] = slot
                count += 1
            m = segs[m, S_NEXT]
            if m == r:
                break
    return count


@njit(cache=True, nogil=True)
def _field_cities(tiles, segs, root, found):
    """Number of completed cities bordering the field ``root`` (``found``: scratch list)."""
    cities = 0
    m = root
    while True:
        mslot = m // MAX_SEGMENTS
        bits = FIELD_CITIES[tiles[mslot, 0], m % MAX_SEGMENTS]
        c = 0
        while bits:
            if bits & 1:
                cr = find(segs, mslot * MAX_SEGMENTS + c)
                if segs[cr, S_OPEN] == 0:
                    seen = False
                    for i in range(cities):
                        if found[i] == cr:
                            seen = True
                            break
                    if not seen:
                        found[cities] = cr
                        cities += 1
            bits >>= 1
            c += 1
        m = segs[m, S_NEXT]
        if m == root:
            break
    return cities


@njit(cache=True, nogil=True)
def feature_value(board, tiles, segs, pool, start, roots, n, complete):
    """(points, tiles written to the pool, event kind) of a feature, complete or at game end.

    Decision (docs/rules/carcassonne.md section 5): an open labyrinth network at the end
    scores 1 per tile, without the 2 points per follower."""
    r0 = roots[0]
    kind = segs[r0, S_KIND]
    if kind == CLOISTER:
        cell = cell_of(tiles, r0 // MAX_SEGMENTS)
        ntiles = 0
        for i in range(9):
            c = cell if i == 8 else cell + RING[i]
            if board[c] >= 0:
                if start + ntiles < MAX_POOL:
                    pool[start + ntiles] = board[c]
                ntiles += 1
        return (9 if complete else ntiles), ntiles, CLOISTER
    ntiles = _distinct_tiles(segs, pool, start, roots, n)
    if kind == FIELD:
        return 3 * _field_cities(tiles, segs, r0, roots[1:]), ntiles, FIELD  # roots[1:] unused
    if kind == LABYRINTH or (kind == ROAD and segs[r0, S_HUBLINK] > 0):
        followers = 0
        for i in range(n):
            for p in range(MAX_PLAYERS):
                followers += segs[roots[i], S_COUNT + p]
        return (ntiles + 2 * followers if complete else ntiles), ntiles, LABYRINTH
    if kind == CITY:
        pennants = segs[r0, S_PENNANT]
        return (2 * (ntiles + pennants) if complete else ntiles + pennants), ntiles, CITY
    return ntiles, ntiles, ROAD


@njit(cache=True, nogil=True)
def award_majority(board, ints, tiles, segs, events, pool, roots, n, counts, complete, final):
    """Score a feature for every player with the most followers on it (ties share)."""
    start = ints[R_POOL]
    points, ntiles, kind = feature_value(board, tiles, segs, pool, start, roots, n, complete)
    ints[R_POOL] = start + ntiles
    best = 0
    for p in range(ints[R_NPLAYERS]):
        best = max(best, counts[p])
    ok = True
    if best == 0:
        return ok
    for p in range(ints[R_NPLAYERS]):
        if counts[p] == best:
            ok = give(ints, events, p, points, kind, final, start, ntiles, 0) and ok
    return ok


@njit(cache=True, nogil=True)
def return_followers(ints, segs, root):
    """Every follower on the feature ``root`` goes back to its owner's supply."""
    m = root
    while True:
        o = segs[m, S_OWNER]
        if o >= 0:
            ints[R_FOLLOWERS + o] += 1
            segs[m, S_OWNER] = -1
        m = segs[m, S_NEXT]
        if m == root:
            break
    for p in range(MAX_PLAYERS):
        segs[root, S_COUNT + p] = 0


@njit(cache=True, nogil=True)
def score_turn(board, ints, tiles, segs, events, pool):
    """Score the features completed by the last placed tile; False if a log is full."""
    ok = True
    slot = ints[R_LAST]
    t = tiles[slot, 0]
    base = slot * MAX_SEGMENTS
    for k in range(NSEG[t]):
        kind = SEG_KIND[t, k]
        if kind != ROAD and kind != CITY and kind != LABYRINTH:
            continue
        root = find(segs, base + k)
        if segs[root, S_DONE] or segs[root, S_OPEN] != 0:
            continue  # (an open part means an open labyrinth network, too)
        roots, counts = scratch(ints)  # views made only on the rare completing turns
        n = feature_roots(board, tiles, segs, root, roots)
        open_sides, _ = network_summary(segs, roots, n, counts)
        if open_sides != 0:
            continue
        for i in range(n):
            segs[roots[i], S_DONE] = 1
        if counts.sum() > 0:
            ok = (
                award_majority(board, ints, tiles, segs, events, pool, roots, n, counts, 1, 0)
                and ok
            )
            for i in range(n):
                return_followers(ints, segs, roots[i])
    cell = cell_of(tiles, slot)
    for i in range(9):
        c = cell if i == 8 else cell + RING[i]
        s = board[c]
        if s < 0:
            continue
        k = CLOISTER_SEG[tiles[s, 0]]
        if k < 0:
            continue
        g = s * MAX_SEGMENTS + k
        if segs[g, S_OWNER] >= 0 and segs[g, S_DONE] == 0 and neighbour_count(board, c) == 8:
            segs[g, S_DONE] = 1
            roots, counts = scratch(ints)
            roots[0] = g
            network_summary(segs, roots, 1, counts)
            ok = (
                award_majority(board, ints, tiles, segs, events, pool, roots, 1, counts, 1, 0)
                and ok
            )
            return_followers(ints, segs, g)
    return ok


@njit(cache=True, nogil=True)
def final_scoring(board, ints, tiles, segs, events, pool):
    """End-of-game scoring: incomplete roads, cities, labyrinth networks, cloisters; fields."""
    ok = True
    nslots = ints[R_NSLOTS]
    roots, counts = scratch(ints)
    for field_pass in range(2):
        for g in range(nslots * MAX_SEGMENTS):
            kind = segs[g, S_KIND]
            if kind < 0 or segs[g, S_PARENT] != g or segs[g, S_DONE]:
                continue
            if (kind == FIELD) != (field_pass == 1) or follower_total(segs, g) == 0:
                continue  # (a network is scored from any of its roots holding followers)
            n = feature_roots(board, tiles, segs, g, roots)
            network_summary(segs, roots, n, counts)
            for i in range(n):
                segs[roots[i], S_DONE] = 1
            if counts.sum() > 0:
                ok = (
                    award_majority(board, ints, tiles, segs, events, pool, roots, n, counts, 0, 1)
                    and ok
                )
    return ok
