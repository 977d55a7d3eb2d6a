"""The board of a ``carcassonne_v1`` observation rebuilt from its planes (numba).

Roads and cities are joined side to side from the edge and connection planes (union-find
over tile sides), followers placed from the follower and port planes. Every tile's type and
turn is read back from its planes (:data:`SIGNATURES`: the planes 1..21 that the encoder
writes for each type and turn), which gives its field segments, the cities they border, and
the fields joined half-edge to half-edge. Nothing but the planes and the printed tile set is
read. Used by the option features (``obs_features.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.encoders.tile.kernels import (
    B_CONN,
    B_EDGE,
    B_FCENTRE,
    B_FOLLOWER,
    B_FPORT,
    B_LAST,
    B_PENNANT,
    B_PRESENT,
    CONN_PAIRS,
    EDGES,
    NSEG,
    NUM_BOARD_PLANES,
    PORTMAP,
    SEG_KIND,
    write_tile_planes,
)
from carcassonne_rl.games.carcassonne.tiles import FIELD, TABLES

FIELD_CITIES = TABLES["field_cities"]
NUM_TILE_TYPES = EDGES.shape[0]
DY = np.array([-1, 0, 1, 0], np.int64)  # sides N E S W
DX = np.array([0, 1, 0, -1], np.int64)
RING_DY = np.array([-1, -1, -1, 0, 0, 1, 1, 1], np.int64)
RING_DX = np.array([-1, 0, 1, -1, 1, -1, 0, 1], np.int64)
SIGNATURE_PLANES = 21  # board planes 1..21: edges (12), cloister, pennant, labyrinth, links (6)


def _signatures() -> np.ndarray:
    """Board planes 1..21 of every tile type and turn, as the encoder writes them."""
    sig = np.zeros((NUM_TILE_TYPES, 4, SIGNATURE_PLANES), np.uint8)
    for t in range(NUM_TILE_TYPES):
        for r in range(4):
            planes = np.zeros((NUM_BOARD_PLANES, 1, 1), np.uint8)
            write_tile_planes(t, r, planes, 0, 0)
            sig[t, r] = planes[1 : 1 + SIGNATURE_PLANES, 0, 0]
    return sig


SIGNATURES = _signatures()


@njit(cache=True, nogil=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True, nogil=True)
def _side_kind(board, wy, wx, side):
    """Edge kind on ``side`` of the tile at (wy, wx): 1 field, 2 road, 3 city."""
    for k in range(3):
        if board[B_EDGE + side * 3 + k, wy, wx]:
            return k + 1
    return 0


@njit(cache=True, nogil=True)
def follower_owner(board, wy, wx):
    for o in range(5):
        if board[B_FOLLOWER + o, wy, wx]:
            return o
    return -1


@njit(cache=True, nogil=True)
def components(board):
    """Roads and cities of the board planes: node ``(wy * W + wx) * 4 + side``; returns
    ``(root, kind, size, ends, pennants, followers)``, the last four indexed by root
    (``followers[root, relative seat]``)."""
    w = board.shape[1]
    n = w * w * 4
    parent = np.arange(n)
    kind = np.zeros(n, np.int64)
    for wy in range(w):
        for wx in range(w):
            if not board[B_PRESENT, wy, wx]:
                continue
            base = (wy * w + wx) * 4
            for side in range(4):
                k = _side_kind(board, wy, wx, side)
                if k >= 2:
                    kind[base + side] = k
            for i in range(6):
                a, b = base + CONN_PAIRS[i, 0], base + CONN_PAIRS[i, 1]
                if board[B_CONN + i, wy, wx] and kind[a] >= 2 and kind[a] == kind[b]:
                    parent[_find(parent, a)] = _find(parent, b)
            for side in (1, 2):  # east and south neighbours
                ny, nx = wy + DY[side], wx + DX[side]
                if ny < w and nx < w and board[B_PRESENT, ny, nx] and kind[base + side] >= 2:
                    other = (ny * w + nx) * 4 + (side + 2) % 4
                    if _side_kind(board, ny, nx, (side + 2) % 4) == kind[base + side]:
                        parent[_find(parent, base + side)] = _find(parent, other)
    root = np.empty(n, np.int64)
    for i in range(n):
        root[i] = _find(parent, i)
    size = np.zeros(n, np.int64)
    ends = np.zeros(n, np.int64)
    pennants = np.zeros(n, np.int64)
    followers = np.zeros((n, 5), np.int64)
    seen = np.empty(4, np.int64)
    for wy in range(w):
        for wx in range(w):
            if not board[B_PRESENT, wy, wx]:
                continue
            base = (wy * w + wx) * 4
            owner = follower_owner(board, wy, wx)
            on_side = owner >= 0 and not board[B_FCENTRE, wy, wx]
            m = 0
            counted = 0
            for side in range(4):
                if kind[base + side] < 2:
                    continue
                ny, nx = wy + DY[side], wx + DX[side]
                if ny < 0 or nx < 0 or ny >= w or nx >= w or not board[B_PRESENT, ny, nx]:
                    ends[root[base + side]] += 1
                g = root[base + side]
                new = True
                for j in range(m):
                    if seen[j] == g:
                        new = False
                if new:
                    seen[m] = g
                    m += 1
                    size[g] += 1
                    if kind[base + side] == 3 and board[B_PENNANT, wy, wx]:
                        pennants[g] += 1
                if on_side and board[B_FPORT + side, wy, wx] and counted == 0:
                    followers[g, owner] += 1
                    counted = 1
    return root, kind, size, ends, pennants, followers


@njit(cache=True, nogil=True)
def cell_tiles(board, signatures):
    """Tile type and turn of every cell (type -1: empty), read from its planes."""
    w = board.shape[1]
    types = np.full(w * w, -1, np.int64)
    turns = np.zeros(w * w, np.int64)
    for wy in range(w):
        for wx in range(w):
            if board[B_PRESENT, wy, wx]:
                t, r = _match(board, wy, wx, signatures)
                types[wy * w + wx] = t
                turns[wy * w + wx] = r
    return types, turns


@njit(cache=True, nogil=True)
def _match(board, wy, wx, signatures):
    for t in range(signatures.shape[0]):
        for r in range(4):
            same = True
            for p in range(SIGNATURE_PLANES):
                if signatures[t, r, p] != board[1 + p, wy, wx]:
                    same = False
                    break
            if same:
                return t, r
    return -1, 0


@njit(cache=True, nogil=True)
def field_half(types, turns, cell, half):
    """Field segment on ``half`` (0..7) of the tile on ``cell``, -1 if none."""
    t = types[cell]
    if t < 0:
        return -1
    k = PORTMAP[t, turns[cell], 4 + half]
    if k < 0 or SEG_KIND[t, k] != FIELD:
        return -1
    return k


@njit(cache=True, nogil=True)
def facing_half(half):
    """The neighbour's half-edge that touches ``half`` across their common side."""
    side = half // 2
    return 2 * ((side + 2) % 4) + 1 - half % 2


@njit(cache=True, nogil=True)
def fields(board, comp, types, turns):
    """Fields of the board: node ``(wy * W + wx) * 8 + half``; returns ``(root, farmers,
    done_cities, open_cities)``, the last three indexed by root: farmers per relative seat
    and the completed and incomplete cities the field borders."""
    croot, ckind, csize, cends, cpen, cfol = comp
    w = board.shape[1]
    n = w * w * 8
    parent = np.arange(n)
    for cell in range(w * w):
        if types[cell] < 0:
            continue
        wy, wx = cell // w, cell % w
        for h in range(8):
            k = field_half(types, turns, cell, h)
            if k < 0:
                continue
            for h2 in range(h + 1, 8):
                if field_half(types, turns, cell, h2) == k:
                    parent[_find(parent, cell * 8 + h)] = _find(parent, cell * 8 + h2)
                    break
            side = h // 2
            if side in (1, 2):
                ny, nx = wy + DY[side], wx + DX[side]
                if ny < w and nx < w and types[ny * w + nx] >= 0:
                    f = facing_half(h)
                    if field_half(types, turns, ny * w + nx, f) >= 0:
                        a, b = _find(parent, cell * 8 + h), _find(parent, (ny * w + nx) * 8 + f)
                        parent[a] = b
    root = np.empty(n, np.int64)
    for i in range(n):
        root[i] = _find(parent, i)
    farmers = np.zeros((n, 5), np.int64)
    done_cities = np.zeros(n, np.int64)
    open_cities = np.zeros(n, np.int64)
    keys = np.empty(w * w * 16, np.int64)
    m = 0
    for cell in range(w * w):
        t = types[cell]
        if t < 0:
            continue
        r = turns[cell]
        wy, wx = cell // w, cell % w
        owner = follower_owner(board, wy, wx)
        for k in range(NSEG[t]):
            if SEG_KIND[t, k] != FIELD:
                continue
            first = -1
            for h in range(8):
                if PORTMAP[t, r, 4 + h] == k:
                    first = h
                    break
            if first < 0:
                continue
            g = root[cell * 8 + first]
            if owner >= 0 and board[B_FPORT + 4 + first, wy, wx]:
                farmers[g, owner] += 1
            bits = FIELD_CITIES[t, k]
            for c in range(NSEG[t]):
                if not (bits >> c) & 1:
                    continue
                for side in range(4):
                    if PORTMAP[t, r, side] == c:
                        keys[m] = g * (w * w * 4) + croot[cell * 4 + side]
                        m += 1
                        break
    pairs = np.unique(keys[:m])
    for key in pairs:
        g, c = key // (w * w * 4), key % (w * w * 4)
        if cends[c] == 0:
            done_cities[g] += 1
        else:
            open_cities[g] += 1
    return root, farmers, done_cities, open_cities


@njit(cache=True, nogil=True)
def last_cell(board):
    """``(wy, wx)`` of the tile placed last, ``(-1, -1)`` if none is marked."""
    w = board.shape[1]
    for wy in range(w):
        for wx in range(w):
            if board[B_LAST, wy, wx]:
                return wy, wx
    return -1, -1


@njit(cache=True, nogil=True)
def last_tile(board, signatures):
    """``(wy, wx, type, turn)`` of the tile placed last: the first tile type and turn whose
    planes match (turns of a symmetric tile look alike); type -1 if none is marked."""
    wy, wx = last_cell(board)
    if wy < 0:
        return -1, -1, -1, 0
    t, r = _match(board, wy, wx, signatures)
    return wy, wx, t, r
