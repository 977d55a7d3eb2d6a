"""Numba kernels of the tile-game engine: the whole rules state lives in a few flat arrays.

Arrays of one state (``State`` in ``state.py`` owns them):

- ``board``  int8[SIZE*SIZE]: slot of the tile on each cell, -1 if empty. Cell of (x, y) is
  ``(y + OFF) * SIZE + (x + OFF)``.
- ``ints``   int32 registers (``R_*``), then the deck, discards, frontier and legal actions
  (``O_*`` offsets).
- ``tiles``  int32[MAX_TILES, 4]: type, rotation, x, y of each placed tile, by slot.
- ``segs``   int32[MAX_TILES * MAX_SEGMENTS, NSF]: union-find over tile segments; segment
  ``k`` of the tile in slot ``s`` is row ``s * MAX_SEGMENTS + k``. A root row holds the
  feature's open side count, pennants, follower counts per player and a "done" flag; every
  row holds the follower standing on it (owner) and a circular member list.
- ``events`` int32[MAX_EVENTS, 7] and ``pool`` int32[MAX_POOL]: the score log; each event
  points at a run of tile slots in the pool.

Action codes: a tile placement is ``cell * 4 + rotation``; a follower decision is ``0`` for
none and ``k + 1`` for segment ``k`` of the tile just placed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .tiles import CITY, CLOISTER, FIELD, MAX_SEGMENTS, ROAD, TABLES

OFF = 80
SIZE = 2 * OFF + 1
MAX_TILES = 80
MAX_EVENTS = 512
MAX_POOL = 4096
MAX_DECK = 96
MAX_FRONT = 512
MAX_LEGAL = 1024
MAX_PLAYERS = 5

# registers
R_NPLAYERS, R_PHASE, R_PLAYER, R_TURN, R_DECKPOS, R_DECKLEN, R_TILE, R_NSLOTS = range(8)
R_LAST, R_NFRONT, R_NLEGAL, R_NEVENTS, R_POOL, R_NDISCARD = range(8, 14)
R_SCORES = 16
R_FOLLOWERS = 24
O_DECK = 32
O_DISCARD = O_DECK + MAX_DECK
O_FRONT = O_DISCARD + MAX_DECK
O_LEGAL = O_FRONT + MAX_FRONT
INTS_LEN = O_LEGAL + MAX_LEGAL

PHASE_TILE, PHASE_FOLLOWER, PHASE_OVER = 0, 1, 2

# segment columns
S_PARENT, S_KIND, S_OPEN, S_PENNANT, S_NEXT, S_OWNER, S_DONE = range(7)
S_COUNT = 7  # follower counts per player, MAX_PLAYERS columns
NSF = S_COUNT + MAX_PLAYERS

# event columns
E_PLAYER, E_POINTS, E_KIND, E_TURN, E_FINAL, E_POOL, E_NTILES = range(7)

# status codes returned by apply_action
OK, ERR_ILLEGAL, ERR_OVER, ERR_LOG_FULL = 0, -1, -2, -3

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
RING = np.array(
    [-SIZE - 1, -SIZE, -SIZE + 1, -1, 1, SIZE - 1, SIZE, SIZE + 1], np.int64
)  # the 8 neighbours of a cell


def allocate() -> tuple[np.ndarray, ...]:
    """Fresh, empty state arrays: board, ints, tiles, segs, events, pool."""
    board = np.full(SIZE * SIZE, -1, np.int8)
    ints = np.zeros(INTS_LEN, np.int32)
    tiles = np.zeros((MAX_TILES, 4), np.int32)
    segs = np.zeros((MAX_TILES * MAX_SEGMENTS, NSF), np.int32)
    segs[:, S_KIND] = -1  # rows of unused segment indices stay kind -1, owner -1
    segs[:, S_OWNER] = -1
    events = np.zeros((MAX_EVENTS, 7), np.int32)
    pool = np.zeros(MAX_POOL, np.int32)
    return board, ints, tiles, segs, events, pool


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
    for p in range(MAX_PLAYERS):
        segs[ra, S_COUNT + p] += segs[rb, S_COUNT + p]
    na = segs[ra, S_NEXT]
    segs[ra, S_NEXT] = segs[rb, S_NEXT]
    segs[rb, S_NEXT] = na


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
    tiles[slot, 2] = cell % SIZE - OFF
    tiles[slot, 3] = cell // SIZE - OFF
    board[cell] = slot
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
            _union(segs, base + a, nbase + PORTMAP[nt, nr, o], True)
        for h in range(2):
            a = PORTMAP[t, rot, 4 + 2 * s + h]
            if a >= 0:
                _union(segs, base + a, nbase + PORTMAP[nt, nr, 4 + 2 * o + 1 - h], False)
    # frontier: drop this cell, add empty neighbours that had no other placed neighbour
    nf = ints[R_NFRONT]
    for i in range(nf):
        if ints[O_FRONT + i] == cell:
            ints[O_FRONT + i] = ints[O_FRONT + nf - 1]
            nf -= 1
            break
    for s in range(4):
        c = cell + DELTA[s]
        if board[c] >= 0:
            continue
        fresh = True
        for s2 in range(4):
            c2 = c + DELTA[s2]
            if c2 != cell and board[c2] >= 0:
                fresh = False
                break
        if fresh:
            ints[O_FRONT + nf] = c
            nf += 1
    ints[R_NFRONT] = nf


@njit(cache=True, nogil=True)
def gen_placements(board, ints, tiles):
    """Legal placements of the current tile into the legal-action list; returns the count."""
    t = ints[R_TILE]
    n = 0
    for i in range(ints[R_NFRONT]):
        c = ints[O_FRONT + i]
        con = 0
        mask = 0
        for s in range(4):
            ns = board[c + DELTA[s]]
            if ns >= 0:
                e = EDGES[tiles[ns, 0], tiles[ns, 1], (s + 2) % 4]
                con |= e << (2 * s)
                mask |= 3 << (2 * s)
        for r in range(4):
            if (EDGE_CODE[t, r] & mask) == con:
                ints[O_LEGAL + n] = c * 4 + r
                n += 1
    ints[R_NLEGAL] = n
    return n


@njit(cache=True, nogil=True)
def gen_followers(ints, tiles, segs):
    """Follower options for the tile just placed: none, and every unoccupied feature."""
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
def _feature_tiles(segs, pool, start, root):
    """Write the distinct tile slots of a feature into the pool; returns their number."""
    seen = np.zeros(MAX_TILES, np.bool_)
    n = 0
    m = root
    while True:
        slot = m // MAX_SEGMENTS
        if not seen[slot]:
            seen[slot] = True
            if start + n < MAX_POOL:
                pool[start + n] = slot
            n += 1
        m = segs[m, S_NEXT]
        if m == root:
            break
    return n


@njit(cache=True, nogil=True)
def _log(ints, events, player, points, kind, final, pool_start, ntiles):
    e = ints[R_NEVENTS]
    if e >= MAX_EVENTS:
        return False
    events[e, E_PLAYER] = player
    events[e, E_POINTS] = points
    events[e, E_KIND] = kind
    events[e, E_TURN] = ints[R_TURN]
    events[e, E_FINAL] = final
    events[e, E_POOL] = pool_start
    events[e, E_NTILES] = ntiles
    ints[R_NEVENTS] = e + 1
    ints[R_SCORES + player] += points
    return True


@njit(cache=True, nogil=True)
def _award(ints, segs, events, counts_row, points, kind, final, pool_start, ntiles):
    """Give ``points`` to every player with the most followers (ties share) and log it."""
    best = 0
    for p in range(ints[R_NPLAYERS]):
        best = max(best, segs[counts_row, S_COUNT + p])
    ok = True
    if best == 0 or points == 0:
        return ok
    for p in range(ints[R_NPLAYERS]):
        if segs[counts_row, S_COUNT + p] == best:
            ok = _log(ints, events, p, points, kind, final, pool_start, ntiles) and ok
    return ok


@njit(cache=True, nogil=True)
def _return_followers(ints, segs, root):
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
def _score_feature(ints, segs, events, pool, root, final):
    """Score a road or city (complete unless ``final``); returns False if the log is full."""
    start = ints[R_POOL]
    ntiles = _feature_tiles(segs, pool, start, root)
    ints[R_POOL] = start + ntiles
    kind = segs[root, S_KIND]
    pennants = segs[root, S_PENNANT]
    if kind == CITY:
        points = ntiles + pennants if final else 2 * (ntiles + pennants)
    else:
        points = ntiles
    return _award(ints, segs, events, root, points, kind, final, start, ntiles)


@njit(cache=True, nogil=True)
def _score_cloister(board, ints, segs, events, pool, cell, g, final):
    start = ints[R_POOL]
    n = 0
    pool[start] = board[cell]
    n = 1
    for d in RING:
        s = board[cell + d]
        if s >= 0:
            pool[start + n] = s
            n += 1
    ints[R_POOL] = start + n
    points = 9 if not final else n
    return _award(ints, segs, events, g, points, CLOISTER, final, start, n)


@njit(cache=True, nogil=True)
def score_turn(board, ints, tiles, segs, events, pool):
    """Score the features completed by the last placed tile; returns False if the log is full."""
    ok = True
    slot = ints[R_LAST]
    t = tiles[slot, 0]
    base = slot * MAX_SEGMENTS
    for k in range(NSEG[t]):
        kind = SEG_KIND[t, k]
        if kind != ROAD and kind != CITY:
            continue
        root = find(segs, base + k)
        if segs[root, S_OPEN] == 0 and segs[root, S_DONE] == 0:
            segs[root, S_DONE] = 1
            if follower_total(segs, root) > 0:
                ok = _score_feature(ints, segs, events, pool, root, 0) and ok
                _return_followers(ints, segs, root)
    cell = (tiles[slot, 3] + OFF) * SIZE + tiles[slot, 2] + OFF
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
            ok = _score_cloister(board, ints, segs, events, pool, c, g, 0) and ok
            _return_followers(ints, segs, g)
    return ok


@njit(cache=True, nogil=True)
def final_scoring(board, ints, tiles, segs, events, pool):
    """End-of-game scoring of incomplete features, cloisters and fields."""
    ok = True
    nslots = ints[R_NSLOTS]
    for slot in range(nslots):
        t = tiles[slot, 0]
        base = slot * MAX_SEGMENTS
        for k in range(NSEG[t]):
            g = base + k
            kind = segs[g, S_KIND]
            if kind == CLOISTER:
                if segs[g, S_OWNER] >= 0 and segs[g, S_DONE] == 0:
                    segs[g, S_DONE] = 1
                    cell = (tiles[slot, 3] + OFF) * SIZE + tiles[slot, 2] + OFF
                    ok = _score_cloister(board, ints, segs, events, pool, cell, g, 1) and ok
            elif kind != FIELD and segs[g, S_PARENT] == g and segs[g, S_DONE] == 0:
                segs[g, S_DONE] = 1
                if follower_total(segs, g) > 0:
                    ok = _score_feature(ints, segs, events, pool, g, 1) and ok
    stamp = np.full(MAX_TILES * MAX_SEGMENTS, -1, np.int32)
    for slot in range(nslots):
        t = tiles[slot, 0]
        base = slot * MAX_SEGMENTS
        for k in range(NSEG[t]):
            root = base + k
            if segs[root, S_KIND] != FIELD or segs[root, S_PARENT] != root:
                continue
            if follower_total(segs, root) == 0:
                continue
            cities = 0
            m = root
            while True:
                mslot = m // MAX_SEGMENTS
                bits = FIELD_CITIES[tiles[mslot, 0], m % MAX_SEGMENTS]
                c = 0
                while bits:
                    if bits & 1:
                        cr = find(segs, mslot * MAX_SEGMENTS + c)
                        if segs[cr, S_OPEN] == 0 and stamp[cr] != root:
                            stamp[cr] = root
                            cities += 1
                    bits >>= 1
                    c += 1
                m = segs[m, S_NEXT]
                if m == root:
                    break
            if cities > 0:
                start = ints[R_POOL]
                ntiles = _feature_tiles(segs, pool, start, root)
                ints[R_POOL] = start + ntiles
                ok = _award(ints, segs, events, root, 3 * cities, FIELD, 1, start, ntiles) and ok
    return ok


@njit(cache=True, nogil=True)
def draw_next(board, ints, tiles, segs, events, pool):
    """Draw tiles until one fits (discarding the others); end the game if none is left."""
    while ints[R_DECKPOS] < ints[R_DECKLEN]:
        t = ints[O_DECK + ints[R_DECKPOS]]
        ints[R_DECKPOS] += 1
        ints[R_TILE] = t
        if gen_placements(board, ints, tiles) > 0:
            ints[R_PHASE] = PHASE_TILE
            return True
        ints[O_DISCARD + ints[R_NDISCARD]] = t
        ints[R_NDISCARD] += 1
    ints[R_TILE] = -1
    ints[R_NLEGAL] = 0
    ints[R_PHASE] = PHASE_OVER
    ints[R_PLAYER] = -1
    return final_scoring(board, ints, tiles, segs, events, pool)


@njit(cache=True, nogil=True)
def start_game(board, ints, tiles, segs, events, pool, start_type):
    """Lay the start tile at (0, 0) rotation 0 and draw the first tile."""
    ints[R_TILE] = start_type
    place_tile(board, ints, tiles, segs, OFF * SIZE + OFF, 0)
    ints[R_PLAYER] = 0
    return draw_next(board, ints, tiles, segs, events, pool)


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
    if phase == PHASE_TILE:
        place_tile(board, ints, tiles, segs, code >> 2, code & 3)
        ints[R_PHASE] = PHASE_FOLLOWER
        gen_followers(ints, tiles, segs)
        return OK
    p = ints[R_PLAYER]
    if code > 0:
        g = ints[R_LAST] * MAX_SEGMENTS + code - 1
        segs[g, S_OWNER] = p
        segs[find(segs, g), S_COUNT + p] += 1
        ints[R_FOLLOWERS + p] -= 1
    ok = score_turn(board, ints, tiles, segs, events, pool)
    ints[R_TURN] += 1
    ints[R_PLAYER] = (p + 1) % ints[R_NPLAYERS]
    ok = draw_next(board, ints, tiles, segs, events, pool) and ok
    return OK if ok else ERR_LOG_FULL
