"""Per-option features of one ``carcassonne_v1`` observation, for the tile ``features`` policy.

Everything here is computed from the observation dict alone (``board`` planes, ``globals``
and ``action_mask``) and the printed tile set: the roads and cities of the board are
rebuilt from the edge and connection planes (union-find over tile sides), the followers
from the follower and port planes. Each legal option then gets a short vector:

- a placement (tile phase): for the tile to place, turned and put on that cell, what each of
  its roads and cities joins, completes, scores and leaves open, for the deciding seat and
  for the strongest other seat, plus the cloisters around the cell (:data:`PLACE_FEATURES`);
- a follower option (follower phase): the feature of the tile placed last that the follower
  would stand on (:data:`FOLLOW_FEATURES`).

The fields are rebuilt too: every tile's type and turn is read back from its planes
(:func:`cell_tiles`), which gives its field segments and the cities they border.

A component that leaves the observation's window counts the sides it leaves by as open.
Every vector ends with the same context (:data:`CONTEXT_FEATURES`). The features are
invariant under quarter turns of the board (the action index turns with it), with one
exception the observation itself imposes: a follower code names a segment of the tile
placed last, and a tile that looks the same turned (the crossroads, a straight road, ...)
does not show which way it was turned. The turn taken is the first whose free segments are
exactly the legal codes; when several fit, the segment named by a code may be its twin.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.agents.tile.obs_policy.board import (
    DX,
    DY,
    FIELD_CITIES,
    NUM_TILE_TYPES,
    RING_DX,
    RING_DY,
    SIGNATURE_PLANES,
    SIGNATURES,
    cell_tiles,
    components,
    facing_half,
    field_half,
    fields,
    follower_owner,
    last_cell,
)
from carcassonne_rl.encoders.tile.kernels import (
    B_CLOISTER,
    B_FCENTRE,
    B_PRESENT,
    EDGES,
    G_FOLLOWERS,
    G_PRESENT,
    G_REMAIN,
    G_SCORE,
    G_TILE,
    N_FOLLOWER_CODES,
    NSEG,
    PORTMAP,
    SEG_KIND,
    SEG_PENNANT,
)
from carcassonne_rl.games.carcassonne.tiles import CITY, CLOISTER, FIELD, LABYRINTH, ROAD

_KIND_STATS = (
    "my_done_points", "their_done_points", "free_done_points", "free_open_size",
    "free_open_ends", "my_open_size", "their_open_size", "shared", "joined", "my_open_ends",
    "their_open_ends",
)  # fmt: skip
PLACE_FEATURES = (
    tuple(f"city_{name}" for name in _KIND_STATS)
    + tuple(f"road_{name}" for name in _KIND_STATS)
    + ("has_cloister", "cloister_ring", "my_cloisters_near", "their_cloisters_near",
       "my_cloisters_done", "their_cloisters_done", "neighbours", "new_open_ends",
       "farm_my_cities", "farm_their_cities", "farm_free_done", "farm_free_open", "farm_shared")
)  # fmt: skip
FOLLOW_FEATURES = (
    "none", "city", "road", "cloister", "field", "size", "open_ends", "done_points",
    "pennants", "cloister_ring", "field_done_cities", "field_open_cities", "farmers_mine",
    "farmers_theirs",
)  # fmt: skip
CONTEXT_FEATURES = ("score_lead", "my_followers", "their_followers", "tiles_left")
NUM_PLACE = len(PLACE_FEATURES) + len(CONTEXT_FEATURES)
NUM_FOLLOW = len(FOLLOW_FEATURES) + len(CONTEXT_FEATURES)
_KS = len(_KIND_STATS)


@njit(cache=True, nogil=True)
def _context(glob, out, at):
    lead = glob[G_SCORE]
    best = -1e9
    theirs = 0.0
    for j in range(1, 5):
        if glob[G_PRESENT + j] > 0:
            best = max(best, glob[G_SCORE + j])
            theirs = max(theirs, glob[G_FOLLOWERS + j])
    left = 0.0
    for t in range(NUM_TILE_TYPES):
        left += glob[G_REMAIN + t]
    out[at] = (lead - best) / 50.0
    out[at + 1] = glob[G_FOLLOWERS] / 7.0
    out[at + 2] = theirs / 7.0
    out[at + 3] = left / 72.0


@njit(cache=True, nogil=True)
def _points(kind, size, pennants):
    return 2.0 * (size + pennants) if kind == 3 else float(size)


@njit(cache=True, nogil=True)
def _first_time(roots, m, g):
    """Whether component ``g`` is not among ``roots[:m]``; if so it is written at ``m``."""
    for j in range(m):
        if roots[j] == g:
            return False
    roots[m] = g
    return True


@njit(cache=True, nogil=True)
def _place_row(board, comp, fld, types, turns, t, r, wy, wx, out):
    root, kind, size, ends, pennants, followers = comp
    w = board.shape[1]
    roots = np.empty(8, np.int64)
    seg_done = np.zeros(NSEG[t], np.int64)
    new_open = 0
    for k in range(NSEG[t]):
        sk = SEG_KIND[t, k]
        if sk == CITY:
            at, ek = 0, 3
        elif sk == ROAD:
            at, ek = _KS, 2
        else:
            continue
        m = 0
        s_size, s_ends, s_pen = 1, 0, int(SEG_PENNANT[t, k])
        mine, best = 0, 0
        per = np.zeros(5, np.int64)
        for side in range(4):
            if PORTMAP[t, r, side] != k or EDGES[t, r, side] != ek:
                continue
            ny, nx = wy + DY[side], wx + DX[side]
            if ny < 0 or nx < 0 or ny >= w or nx >= w or not board[B_PRESENT, ny, nx]:
                s_ends += 1
                new_open += 1
                continue
            g = root[(ny * w + nx) * 4 + (side + 2) % 4]
            s_ends -= 1  # the neighbour's end facing this cell closes
            if _first_time(roots, m, g):
                m += 1
                s_size += size[g]
                s_ends += ends[g]
                s_pen += pennants[g]
                for o in range(5):
                    per[o] += followers[g, o]
        mine = per[0]
        for o in range(1, 5):
            best = max(best, per[o])
        pts = _points(ek, s_size, s_pen)
        value = s_size + (s_pen if ek == 3 else 0)
        seg_done[k] = 1 if s_ends <= 0 else 0
        if s_ends <= 0:
            if mine > 0 and mine >= best:
                out[at] += pts
            if best > 0 and best >= mine:
                out[at + 1] += pts
            if mine == 0 and best == 0:
                out[at + 2] = max(out[at + 2], pts)
        else:
            if mine == 0 and best == 0 and value > out[at + 3]:
                out[at + 3] = value
                out[at + 4] = s_ends
            if mine > best:
                out[at + 5] += value
                out[at + 9] += s_ends
            if best > mine:
                out[at + 6] += value
                out[at + 10] += s_ends
        if mine > 0 and mine == best:
            out[at + 7] += 1
        out[at + 8] += m
    base = 2 * _KS
    has_cloister = False
    for k in range(NSEG[t]):
        if SEG_KIND[t, k] == CLOISTER:
            has_cloister = True
    ring = 0
    for i in range(8):
        ry, rx = wy + RING_DY[i], wx + RING_DX[i]
        if ry < 0 or rx < 0 or ry >= w or rx >= w or not board[B_PRESENT, ry, rx]:
            continue
        ring += 1
        if not (board[B_CLOISTER, ry, rx] and board[B_FCENTRE, ry, rx]):
            continue
        full = 1  # this cell fills one place of its ring
        for j in range(8):
            qy, qx = ry + RING_DY[j], rx + RING_DX[j]
            if 0 <= qy < w and 0 <= qx < w and board[B_PRESENT, qy, qx]:
                full += 1
        mine = follower_owner(board, ry, rx) == 0
        out[base + (2 if mine else 3)] += 1
        if full == 8:
            out[base + (4 if mine else 5)] += 1
    out[base] = 1.0 if has_cloister else 0.0
    out[base + 1] = ring / 8.0 if has_cloister else 0.0
    near = 0
    for side in range(4):
        ny, nx = wy + DY[side], wx + DX[side]
        if 0 <= ny < w and 0 <= nx < w and board[B_PRESENT, ny, nx]:
            near += 1
    out[base + 6] = near / 4.0
    out[base + 7] = new_open
    _farm_features(board, fld, types, turns, t, r, wy, wx, seg_done, roots, out, base + 8)


@njit(cache=True, nogil=True)
def _farm_features(board, fld, types, turns, t, r, wy, wx, seg_done, roots, out, at):
    froot, farmers, done_cities, open_cities = fld
    w = board.shape[1]
    for k in range(NSEG[t]):
        if SEG_KIND[t, k] != FIELD:
            continue
        m = 0
        per = np.zeros(5, np.int64)
        done, unfinished = 0, 0
        for h in range(8):
            if PORTMAP[t, r, 4 + h] != k:
                continue
            side = h // 2
            ny, nx = wy + DY[side], wx + DX[side]
            if ny < 0 or nx < 0 or ny >= w or nx >= w:
                continue
            f = facing_half(h)
            if field_half(types, turns, ny * w + nx, f) < 0:
                continue
            g = froot[(ny * w + nx) * 8 + f]
            if _first_time(roots, m, g):
                m += 1
                done += done_cities[g]
                unfinished += open_cities[g]
                for o in range(5):
                    per[o] += farmers[g, o]
        bits = FIELD_CITIES[t, k]
        for c in range(NSEG[t]):
            if (bits >> c) & 1:
                if seg_done[c]:
                    done += 1
                else:
                    unfinished += 1
        mine, best = per[0], 0
        for o in range(1, 5):
            best = max(best, per[o])
        if mine > 0 and mine >= best:
            out[at] += done / 4.0
        if best > 0 and best >= mine:
            out[at + 1] += done / 4.0
        if mine == 0 and best == 0 and done / 4.0 >= out[at + 2]:
            out[at + 2] = done / 4.0
            out[at + 3] = unfinished / 4.0
        if mine > 0 and mine == best:
            out[at + 4] += 1


@njit(cache=True, nogil=True)
def place_features(board, glob, indices):
    """One row of :data:`PLACE_FEATURES` + context per placement action index
    (``(wy * W + wx) * 4 + rotation``) of the tile in the globals."""
    comp = components(board)
    types, turns = cell_tiles(board, SIGNATURES)
    fld = fields(board, comp, types, turns)
    t = 0
    for i in range(NUM_TILE_TYPES):
        if glob[G_TILE + i] > 0:
            t = i
    w = board.shape[1]
    nf = len(PLACE_FEATURES)
    out = np.zeros((len(indices), NUM_PLACE), np.float32)
    for row in range(len(indices)):
        a = indices[row]
        cell, r = a // 4, a % 4
        _place_row(board, comp, fld, types, turns, t, r, cell // w, cell % w, out[row])
        for j in range(2 * _KS):
            if j % _KS in (0, 1, 2, 3, 5, 6):
                out[row, j] /= 10.0
            elif j % _KS in (4, 9, 10):
                out[row, j] /= 4.0
        _context(glob, out[row], nf)
    return out


@njit(cache=True, nogil=True)
def _turn_of_last(t, r0, cell, codes, root, followers, froot, farmers, signatures):
    """The turn of the last tile among those its planes allow (a symmetric tile looks the
    same turned, but its segment numbers move): the first whose free segments are the
    legal follower ``codes``; ``r0`` if none is."""
    for r in range(4):
        same = True
        for p in range(SIGNATURE_PLANES):
            if signatures[t, r, p] != signatures[t, r0, p]:
                same = False
                break
        if not same:
            continue
        fits = True
        for k in range(NSEG[t]):
            taken = 0
            sk = SEG_KIND[t, k]
            for port in range(12):
                if PORTMAP[t, r, port] != k:
                    continue
                if port < 4 and sk in (CITY, ROAD):
                    taken = followers[root[cell * 4 + port]].sum()
                elif port >= 4 and sk == FIELD:
                    taken = farmers[froot[cell * 8 + port - 4]].sum()
                break
            legal = False
            for c in codes:
                if c == k + 1:
                    legal = True
            if legal != (taken == 0):
                fits = False
                break
        if fits:
            return r
    return r0


@njit(cache=True, nogil=True)
def follow_features(board, glob, codes, signatures):
    """One row of :data:`FOLLOW_FEATURES` + context per follower code (0: none, ``k + 1``:
    segment ``k`` of the tile placed last)."""
    comp = components(board)
    root, kind, size, ends, pennants, followers = comp
    types, turns = cell_tiles(board, signatures)
    froot, farmers, done_cities, open_cities = fields(board, comp, types, turns)
    w = board.shape[1]
    wy, wx = last_cell(board)
    t = types[wy * w + wx] if wy >= 0 else -1
    r = turns[wy * w + wx] if wy >= 0 else 0
    if t >= 0:
        r = _turn_of_last(t, r, wy * w + wx, codes, root, followers, froot, farmers, signatures)
    nf = len(FOLLOW_FEATURES)
    out = np.zeros((len(codes), NUM_FOLLOW), np.float32)
    for row in range(len(codes)):
        code = codes[row]
        o = out[row]
        _context(glob, o, nf)
        if code == 0 or t < 0:
            o[0] = 1.0
            continue
        k = code - 1
        sk = SEG_KIND[t, k]
        if sk in (CITY, ROAD):
            o[1 if sk == CITY else 2] = 1.0
            for side in range(4):
                if PORTMAP[t, r, side] == k:
                    g = root[(wy * w + wx) * 4 + side]
                    o[5] = size[g] / 10.0
                    o[6] = ends[g] / 4.0
                    o[8] = pennants[g] / 4.0
                    if ends[g] == 0:
                        o[7] = _points(kind[g], size[g], pennants[g]) / 10.0
                    break
        elif sk in (CLOISTER, LABYRINTH):
            o[3] = 1.0
            ring = 0
            for i in range(8):
                ry, rx = wy + RING_DY[i], wx + RING_DX[i]
                if 0 <= ry < w and 0 <= rx < w and board[B_PRESENT, ry, rx]:
                    ring += 1
            o[9] = ring / 8.0
        elif sk == FIELD:
            o[4] = 1.0
            for h in range(8):
                if PORTMAP[t, r, 4 + h] == k:
                    g = froot[(wy * w + wx) * 8 + h]
                    o[10] = done_cities[g] / 4.0
                    o[11] = open_cities[g] / 4.0
                    o[12] = farmers[g, 0]
                    best = 0
                    for q in range(1, 5):
                        best = max(best, farmers[g, q])
                    o[13] = best
                    break
    return out


def option_features(
    board: np.ndarray, glob: np.ndarray, indices: np.ndarray
) -> tuple[str, np.ndarray]:
    """``("place" | "follow", rows)`` for the legal action ``indices`` of one observation
    (all placements or all follower options: an observation is in one phase)."""
    w = board.shape[1]
    first = w * w * 4
    indices = np.asarray(indices, np.int64)
    glob = np.asarray(glob, np.float32)
    if len(indices) and indices[0] < first:
        return "place", place_features(board, glob, indices)
    codes = indices - first
    if len(codes) and codes.max() >= N_FOLLOWER_CODES:
        raise ValueError("the features policy decides placements and followers only")
    return "follow", follow_features(board, glob, codes, SIGNATURES)
