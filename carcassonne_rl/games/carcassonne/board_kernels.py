"""Numba kernels for the board: union-find over segments, tile placement, legal moves.

A labyrinth centre never merges with the roads at its exits: each exit "arm" stays its own
union-find feature (so the follower rules of the Labyrinth see arm by arm), and the centre
and the arm only count each other in ``S_HUBLINK``. ``network`` reassembles the whole
labyrinth network (centres + arms, possibly several labyrinths) when it is scored.

The frontier (the empty cells beside a tile) keeps, with each cell, the edges its placed
neighbours show it: entry ``cell | con << FRONT_SHIFT``, ``con`` 2 bits a side as
``EDGE_CODE`` (0: no neighbour there). A placement updates the entries of its four
neighbours, and ``gen_placements`` reads a cell's fitting rotations from ``FITS[t, con]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    MAX_PLAYERS,
    MAX_TILES,
    O_DECK,
    O_DISCARD,
    O_FRONT,
    O_LEGAL,
    O_SCRATCH,
    OFF,
    R_BOX,
    R_DECKLEN,
    R_DECKPOS,
    R_FOLLOWERS,
    R_LAST,
    R_NDISCARD,
    R_NFRONT,
    R_NLEGAL,
    R_NSLOTS,
    R_PLAYER,
    R_TILE,
    S_COUNT,
    S_DONE,
    S_HUBLINK,
    S_KIND,
    S_NEXT,
    S_OPEN,
    S_OWNER,
    S_PARENT,
    S_PENNANT,
    SIZE,
)
from .tiles import CLOISTER, LABYRINTH, MAX_SEGMENTS, ROAD, TABLES

PORTMAP = TABLES["portmap"]
EDGE_CODE = TABLES["edge_code"]
EDGES = TABLES["edges"]
NSEG = TABLES["nseg"]
SEG_KIND = TABLES["seg_kind"]
SEG_OPEN = TABLES["seg_open"]
SEG_PENNANT = TABLES["seg_pennant"]
FIELD_CITIES = TABLES["field_cities"]
CLOISTER_SEG = TABLES["cloister_seg"]
DELTA = np.array([-SIZE, 1, SIZE, -1], np.int64)  # N E S W
# the scratch of the feature walks (``new_work``): the last stamp used, then a stamp per
# tile slot, per segment row and per seat
W_SEEN = 1
W_CITY = W_SEEN + MAX_TILES
W_SEATS = W_CITY + MAX_TILES * MAX_SEGMENTS
W_LEN = W_SEATS + MAX_PLAYERS
FRONT_SHIFT = 16  # a frontier entry: the cell in the low bits, its edge constraint above
FRONT_CELL = (1 << FRONT_SHIFT) - 1
assert SIZE * SIZE <= FRONT_CELL


def _fits(edge_code: np.ndarray) -> np.ndarray:
    """``FITS[t, con]``: bit ``r`` set when tile type ``t`` turned ``r`` matches the edge
    constraint ``con`` (2 bits a side, 0 where no neighbour constrains that side)."""
    out = np.zeros((edge_code.shape[0], 256), np.uint8)
    for con in range(256):
        mask = 0
        for s in range(4):
            if (con >> (2 * s)) & 3:
                mask |= 3 << (2 * s)
        for t in range(edge_code.shape[0]):
            for r in range(4):
                if (int(edge_code[t, r]) & mask) == con:
                    out[t, con] |= 1 << r
    return out


FITS = _fits(EDGE_CODE)
RING = np.array([-SIZE - 1, -SIZE, -SIZE + 1, -1, 1, SIZE - 1, SIZE, SIZE + 1], np.int64)


@njit(cache=True, nogil=True)
def cell_of(tiles, slot):
    return (tiles[slot, 3] + OFF) * SIZE + tiles[slot, 2] + OFF


@njit(cache=True, nogil=True)
def find(segs, g):
    while segs[g, S_PARENT] != g:
        p = segs[g, S_PARENT]
        segs[g, S_PARENT] = segs[p, S_PARENT]
        g = segs[g, S_PARENT]
    return g


@njit(cache=True, nogil=True)
def follower_total(segs, root):
    n = 0
    for p in range(MAX_PLAYERS):
        n += segs[root, S_COUNT + p]
    return n


@njit(cache=True, nogil=True)
def _union(segs, a, b, closes_side):
    ra = find(segs, a)
    rb = find(segs, b)
    if ra == rb:
        if closes_side:
            segs[ra, S_OPEN] -= 2
        return
    if rb < ra:
        ra, rb = rb, ra
    segs[rb, S_PARENT] = ra
    if closes_side:
        segs[ra, S_OPEN] += segs[rb, S_OPEN] - 2
    segs[ra, S_PENNANT] += segs[rb, S_PENNANT]
    segs[ra, S_HUBLINK] += segs[rb, S_HUBLINK]
    for p in range(MAX_PLAYERS):
        segs[ra, S_COUNT + p] += segs[rb, S_COUNT + p]
    na = segs[ra, S_NEXT]
    segs[ra, S_NEXT] = segs[rb, S_NEXT]
    segs[rb, S_NEXT] = na


@njit(cache=True, nogil=True)
def _link_hub(segs, a, b):
    """Join a road end to a labyrinth centre: both sides close, the features stay apart."""
    ra = find(segs, a)
    rb = find(segs, b)
    segs[ra, S_OPEN] -= 1
    segs[rb, S_OPEN] -= 1
    segs[ra, S_HUBLINK] += 1
    segs[rb, S_HUBLINK] += 1


@njit(cache=True, nogil=True)
def neighbour_count(board, cell):
    n = 0
    for d in RING:
        if board[cell + d] >= 0:
            n += 1
    return n


@njit(cache=True, nogil=True)
def place_tile(board, ints, tiles, segs, cell, rot):
    """Put the current tile on ``cell`` (assumed legal) and merge its segments."""
    t = ints[R_TILE]
    slot = ints[R_NSLOTS]
    ints[R_NSLOTS] = slot + 1
    ints[R_LAST] = slot
    tiles[slot, 0] = t
    tiles[slot, 1] = rot
    x = cell % SIZE - OFF
    y = cell // SIZE - OFF
    tiles[slot, 2] = x
    tiles[slot, 3] = y
    board[cell] = slot
    if slot == 0:
        ints[R_BOX], ints[R_BOX + 1], ints[R_BOX + 2], ints[R_BOX + 3] = x, x, y, y
    else:
        ints[R_BOX] = min(ints[R_BOX], x)
        ints[R_BOX + 1] = max(ints[R_BOX + 1], x)
        ints[R_BOX + 2] = min(ints[R_BOX + 2], y)
        ints[R_BOX + 3] = max(ints[R_BOX + 3], y)
    base = slot * MAX_SEGMENTS
    for k in range(NSEG[t]):
        g = base + k
        segs[g, :] = 0
        segs[g, S_PARENT] = g
        segs[g, S_NEXT] = g
        segs[g, S_KIND] = SEG_KIND[t, k]
        segs[g, S_OPEN] = SEG_OPEN[t, k]
        segs[g, S_PENNANT] = SEG_PENNANT[t, k]
        segs[g, S_OWNER] = -1
    for s in range(4):
        nslot = board[cell + DELTA[s]]
        if nslot < 0:
            continue
        nt = tiles[nslot, 0]
        nr = tiles[nslot, 1]
        nbase = nslot * MAX_SEGMENTS
        o = (s + 2) % 4
        a = PORTMAP[t, rot, s]
        if a >= 0:
            b = PORTMAP[nt, nr, o]
            if SEG_KIND[t, a] == LABYRINTH or SEG_KIND[nt, b] == LABYRINTH:
                _link_hub(segs, base + a, nbase + b)
            else:
                _union(segs, base + a, nbase + b, True)
        for h in range(2):
            a = PORTMAP[t, rot, 4 + 2 * s + h]
            if a >= 0:
                _union(segs, base + a, nbase + PORTMAP[nt, nr, 4 + 2 * o + 1 - h], False)
    _update_frontier(board, ints, cell, t, rot)


@njit(cache=True, nogil=True)
def _update_frontier(board, ints, cell, t, rot):
    """Drop ``cell`` (now holding tile ``t`` turned ``rot``) from the frontier; add its empty
    neighbours that were not in it yet, and give each neighbour the edge it now faces."""
    nf = ints[R_NFRONT]
    for i in range(nf):
        if ints[O_FRONT + i] & FRONT_CELL == cell:
            ints[O_FRONT + i] = ints[O_FRONT + nf - 1]
            nf -= 1
            break
    for s in range(4):
        c = cell + DELTA[s]
        if board[c] >= 0:
            continue
        con = np.int32(EDGES[t, rot, s]) << (FRONT_SHIFT + 2 * ((s + 2) % 4))
        fresh = True
        for s2 in range(4):
            c2 = c + DELTA[s2]
            if c2 != cell and board[c2] >= 0:
                fresh = False
                break
        if fresh:
            ints[O_FRONT + nf] = c | con
            nf += 1
            continue
        for j in range(nf):  # a neighbour of another tile: in the frontier already
            if ints[O_FRONT + j] & FRONT_CELL == c:
                ints[O_FRONT + j] |= con
                break
    ints[R_NFRONT] = nf


@njit(cache=True, nogil=True)
def gen_placements(board, ints, tiles):
    """Legal placements of the current tile into the legal-action list; returns the count
    (frontier order, rotations ascending)."""
    t = ints[R_TILE]
    n = 0
    for i in range(ints[R_NFRONT]):
        e = ints[O_FRONT + i]
        fit = FITS[t, e >> FRONT_SHIFT]
        if fit == 0:
            continue
        c4 = (e & FRONT_CELL) * 4
        for r in range(4):
            if (fit >> r) & 1:
                ints[O_LEGAL + n] = c4 + r
                n += 1
    ints[R_NLEGAL] = n
    return n


@njit(cache=True, nogil=True)
def draw_fitting(board, ints, tiles):
    """Draw until a tile fits (discarding the others into the discard list); True if one is
    to be placed, False if the pile ran out. The rule of docs/rules/carcassonne.md
    section 3."""
    while ints[R_DECKPOS] < ints[R_DECKLEN]:
        t = ints[O_DECK + ints[R_DECKPOS]]
        ints[R_DECKPOS] += 1
        ints[R_TILE] = t
        if gen_placements(board, ints, tiles) > 0:
            return True
        ints[O_DISCARD + ints[R_NDISCARD]] = t
        ints[R_NDISCARD] += 1
    ints[R_TILE] = -1
    return False


@njit(cache=True, nogil=True)
def gen_followers(ints, tiles, segs):
    """Follower options for the tile just placed: none, and every unoccupied feature.

    A labyrinth arm is its own feature here, so a road at an unoccupied exit may take a
    follower even when the centre or other arms are occupied (docs/rules/carcassonne.md section 5).
    """
    ints[O_LEGAL] = 0
    n = 1
    p = ints[R_PLAYER]
    if ints[R_FOLLOWERS + p] > 0:
        slot = ints[R_LAST]
        t = tiles[slot, 0]
        base = slot * MAX_SEGMENTS
        for k in range(NSEG[t]):
            if follower_total(segs, find(segs, base + k)) == 0:
                ints[O_LEGAL + n] = k + 1
                n += 1
    ints[R_NLEGAL] = n
    return n


@njit(cache=True, nogil=True)
def in_network(segs, root):
    """Whether the feature ``root`` is a labyrinth centre or a road touching one."""
    return segs[root, S_KIND] == LABYRINTH or (
        segs[root, S_KIND] == ROAD and segs[root, S_HUBLINK] > 0
    )


@njit(cache=True, nogil=True)
def network(board, tiles, segs, root, out):
    """Roots of the labyrinth network containing ``root`` into ``out``; returns their number.

    Decision (docs/rules/carcassonne.md section 5): several labyrinths joined by roads form
    one network (one feature): the search crosses every centre it meets.
    """
    out[0] = root
    n = 1
    i = 0
    while i < n:
        r = out[i]
        i += 1
        m = r
        while True:
            slot = m // MAX_SEGMENTS
            k = m % MAX_SEGMENTS
            t = tiles[slot, 0]
            rot = tiles[slot, 1]
            cell = cell_of(tiles, slot)
            for s in range(4):
                if PORTMAP[t, rot, s] != k:
                    continue
                ns = board[cell + DELTA[s]]
                if ns < 0:
                    continue
                kb = PORTMAP[tiles[ns, 0], tiles[ns, 1], (s + 2) % 4]
                if SEG_KIND[t, k] != LABYRINTH and SEG_KIND[tiles[ns, 0], kb] != LABYRINTH:
                    continue
                rr = find(segs, ns * MAX_SEGMENTS + kb)
                seen = False
                for j in range(n):
                    if out[j] == rr:
                        seen = True
                        break
                if not seen:
                    out[n] = rr
                    n += 1
            m = segs[m, S_NEXT]
            if m == r:
                break
    return n


@njit(cache=True, nogil=True)
def network_summary(segs, roots, n, counts):
    """Sum follower counts of a network into ``counts``; returns (open sides, done flag)."""
    open_sides = 0
    done = 0
    for p in range(MAX_PLAYERS):
        counts[p] = 0
    for i in range(n):
        r = roots[i]
        open_sides += segs[r, S_OPEN]
        done |= segs[r, S_DONE]
        for p in range(MAX_PLAYERS):
            counts[p] += segs[r, S_COUNT + p]
    return open_sides, done


@njit(cache=True, nogil=True)
def feature_roots(board, tiles, segs, root, out):
    """Roots making up the feature of ``root`` (its labyrinth network, if any); count."""
    if in_network(segs, root):
        return network(board, tiles, segs, root, out)
    out[0] = root
    return 1


@njit(cache=True, nogil=True)
def new_work():
    """A scratch for the walks over features of the feature kernels: one serves any number
    of calls on positions of any game, for each walk stamps its entries with a number the
    scratch has not seen (``work[0]``: the last one used), so it is never cleared."""
    work = np.full(W_LEN, -1, np.int64)
    work[0] = 0
    return work


@njit(cache=True, nogil=True)
def follower_rows(tiles, segs, lo, hi, out, n):
    """Write from ``out[n]`` the segment rows of the tiles in slots ``lo .. hi - 1`` that a
    follower stands on, in row order; returns the new count."""
    for slot in range(lo, hi):
        for k in range(NSEG[tiles[slot, 0]]):
            g = slot * MAX_SEGMENTS + k
            if segs[g, S_OWNER] >= 0:
                out[n] = g
                n += 1
    return n


@njit(cache=True, nogil=True)
def follower_list(tiles, segs, hi):
    """The segment rows that followers stand on in the slots below ``hi`` (row order): the
    ``held`` rows of :func:`held_features` for the positions that follow in the turn."""
    rows = np.empty(hi * MAX_SEGMENTS, np.int64)
    return rows[: follower_rows(tiles, segs, 0, hi, rows, 0)]


@njit(cache=True, nogil=True)
def held_features(tiles, segs, nslots, held, nheld, lo):
    """The features that followers stand on, as their root rows (a cloister: its own row),
    each once, in row order: those of the followers still on rows ``held[:nheld]`` (the
    followers on slots below ``lo``, as :func:`follower_list` lists them for an earlier
    position of the game) and of those on slots ``lo .. nslots - 1``. Does not change
    ``segs`` (no path halving)."""
    rows = np.empty(nheld + (nslots - lo) * MAX_SEGMENTS, np.int64)
    m = follower_rows(tiles, segs, lo, nslots, rows, 0)
    for i in range(nheld):
        rows[m + i] = held[i]
    m += nheld
    n = 0
    for i in range(m):
        g = rows[i]
        if segs[g, S_OWNER] < 0:
            continue
        if segs[g, S_KIND] != CLOISTER:
            while segs[g, S_PARENT] != g:
                g = segs[g, S_PARENT]
        j = n  # insert into the sorted rows[:n] (i >= n: nothing unread is written over)
        while j > 0 and rows[j - 1] > g:
            j -= 1
        if j > 0 and rows[j - 1] == g:
            continue
        for x in range(n, j, -1):
            rows[x] = rows[x - 1]
        rows[j] = g
        n += 1
    return rows[:n]


@njit(cache=True, nogil=True)
def scratch(ints):
    """(roots, counts): views of the scratch area of ``ints`` for one feature at a time."""
    roots = ints[O_SCRATCH : O_SCRATCH + MAX_TILES * MAX_SEGMENTS]
    end = O_SCRATCH + MAX_TILES * MAX_SEGMENTS
    return roots, ints[end : end + MAX_PLAYERS]
