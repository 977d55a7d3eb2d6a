"""Per-game Numba kernels of the tile encoders for batched stepping (``envs/vector``): an
action index to its engine code, and observations written in place into preallocated
arrays. They call the same kernels as :class:`~.encoder.TileEncoder` and
:class:`~.encoder_v1.TileEncoderV1` (``kernels.encode_board``, ``encode_globals``,
``fill_mask``), so a batched observation has the bytes of the single encoder's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.tiles import CITY, MAX_SEGMENTS, ROAD

OFF, SIZE = L.OFF, L.SIZE


@njit(cache=True, nogil=True)
def index_to_code(board, ints, tiles, width, x0, y0, index):
    """Engine code of env action ``index`` (in range) in the pending decision, for the window
    at (x0, y0); -1 if ``index`` is no action of that decision (``TileEncoder.code_of``)."""
    phase = ints[L.R_PHASE]
    p0 = width * width * 4
    if phase == L.PHASE_TILE and index < p0:
        cell = index >> 2
        wy = cell // width
        wx = cell % width
        return ((y0 + wy + OFF) * SIZE + x0 + wx + OFF) * 4 + (index & 3)
    k = index - p0
    if phase == L.PHASE_FOLLOWER and 0 <= k < TK.N_FOLLOWER_CODES:
        return k
    if phase == L.PHASE_FIGURE and TK.A_FIGURE <= k < TK.A_FIGURE + 2:
        return k - TK.A_FIGURE
    if phase == L.PHASE_MESSAGE and TK.A_MESSAGE <= k < TK.A_MESSAGE + 2:
        return k - TK.A_MESSAGE
    if phase == L.PHASE_MSG8 and k >= TK.A_MSG_FOLLOWER:
        c = k - TK.A_MSG_FOLLOWER
        x = x0 + c % width
        y = y0 + c // width
        if max(abs(x), abs(y)) >= OFF:
            return -1
        slot = board[(y + OFF) * SIZE + x + OFF]
        if slot < 0:
            return -1
        for i in range(ints[L.R_NLEGAL]):
            code = ints[L.O_LEGAL + i]
            if code // MAX_SEGMENTS == slot:
                return code
    return -1


@njit(cache=True, nogil=True)
def write_mask(ints, tiles, width, x0, y0, mask):
    """The int8 mask of the pending decision into ``mask`` (all zeros once the game is
    over); returns the legal moves the window cannot express (``fill_mask``)."""
    mask[:] = 0
    if ints[L.R_PHASE] == L.PHASE_OVER:
        return 0
    return TK.fill_mask(ints, tiles, width, x0, y0, mask)


# What a board-plane buffer holds, per game (``view``, int64[VIEW_LEN]): the origin it was
# written for (x0, y0), the window cells its tiles cover (x_lo, x_hi, y_lo, y_hi; empty if
# x_lo > x_hi), whether the rest is valid (1) or must be cleared in full (0), the tiles it
# shows (slots below ``V_SEEN``), the slot its last-tile plane marks (-1: none), the seat
# it shows the followers to and the segment rows the followers it shows stand on
# (``V_NFOL`` of them from ``V_FOL`` on; a tile holds at most one follower, placed with it).
V_X0, V_Y0, V_XLO, V_XHI, V_YLO, V_YHI, V_VALID, V_SEEN, V_LAST, V_PLAYER, V_NFOL = range(11)
V_FOL = 11
VIEW_LEN = V_FOL + L.MAX_TILES
# planes a tile's cell can lose (followers recalled or seen from another seat, the last
# tile): the others, once set, stay set while the window does not move
FLUID_LO, FLUID_HI = TK.B_FOLLOWER, TK.B_FCENTRE + 1
DELTA = np.array([-SIZE, 1, SIZE, -1], np.int64)  # N E S W
# a window that moved by at most this many cells either way has its planes moved along
# (``_shift``); farther, they are written anew
SHIFT_MAX = 4


def empty_views(n: int) -> np.ndarray:
    """Views of ``n`` zeroed buffers (nothing written yet)."""
    views = np.zeros((n, VIEW_LEN), np.int64)
    views[:, V_XLO] = 1  # empty rectangle
    views[:, V_LAST] = -1
    return views


@njit(cache=True, nogil=True)
def invalidate(view):
    """The buffer is to be written in full next time (a new game in it)."""
    view[V_VALID] = 0


@njit(cache=True, nogil=True)
def _mark_done(tiles, segs, root, x0, y0, out):
    """The complete-side planes of every tile of the complete feature ``root`` in the
    window (``kernels.encode_done_sides`` on each of them)."""
    width = out.shape[1]
    m = root
    while True:
        s = m // MAX_SEGMENTS
        wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
        if 0 <= wx < width and 0 <= wy < width:
            TK.encode_done_sides(tiles, segs, s, wy, wx, out)
        m = segs[m, L.S_NEXT]
        if m == root:
            break


@njit(cache=True, nogil=True)
def _new_tile(board, tiles, segs, s, player, nplayers, x0, y0, out, view):
    """Tile ``s``, placed since the buffer was written: its planes, the cloisters it
    completes around it and the complete-side planes of the roads and cities it closes."""
    width = out.shape[1]
    wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
    if 0 <= wx < width and 0 <= wy < width:
        TK.encode_tile(board, tiles, segs, s, player, nplayers, wy, wx, out)
        view[V_XLO], view[V_XHI] = min(view[V_XLO], wx), max(view[V_XHI], wx)
        view[V_YLO], view[V_YHI] = min(view[V_YLO], wy), max(view[V_YHI], wy)
    cell = (tiles[s, 3] + OFF) * SIZE + tiles[s, 2] + OFF
    for d in TK.RING:
        ns = board[cell + d]
        if ns >= 0:
            nx, ny = tiles[ns, 2] - x0, tiles[ns, 3] - y0
            if 0 <= nx < width and 0 <= ny < width:
                TK.encode_cloister_done(board, tiles, ns, ny, nx, out)
    # a side's feature can close only through this tile: its own (merged with the
    # neighbour's) or, at a labyrinth centre, the neighbour's road
    t, r = tiles[s, 0], tiles[s, 1]
    for side in range(4):
        ns = board[cell + DELTA[side]]
        if ns < 0:
            continue
        for own in range(2):
            if own == 1:
                k = TK.PORTMAP[t, r, side]
                g = s * MAX_SEGMENTS + k
                kind = TK.SEG_KIND[t, k] if k >= 0 else -1
            else:
                nt, nr = tiles[ns, 0], tiles[ns, 1]
                k = TK.PORTMAP[nt, nr, (side + 2) % 4]
                g = ns * MAX_SEGMENTS + k
                kind = TK.SEG_KIND[nt, k] if k >= 0 else -1
            if kind != ROAD and kind != CITY:
                continue
            root = TK._root(segs, g)
            if segs[root, L.S_OPEN] == 0:
                _mark_done(tiles, segs, root, x0, y0, out)


@njit(cache=True, nogil=True)
def _follower_seg(tiles, segs, s):
    """The segment of tile ``s`` a follower stands on (-1: none). A tile holds at most one:
    a follower is placed only on the tile placed last, once."""
    base = s * MAX_SEGMENTS
    for k in range(TK.NSEG[tiles[s, 0]]):
        if segs[base + k, L.S_OWNER] >= 0:
            return k
    return -1


@njit(cache=True, nogil=True)
def _update_board(board, ints, tiles, segs, player, nplayers, x0, y0, out, view):
    """``out`` holds this window's planes of an earlier position of the game (``view``):
    bring them to the current one, touching only what can have changed: the followers
    that left (their planes cleared) or are seen by another seat (the owner plane), the
    last-tile plane, the tiles placed since (with the cloisters and features they
    complete) and a follower on the tile placed last."""
    width = out.shape[1]
    nfol = view[V_NFOL]
    last = view[V_LAST]
    if last >= 0:
        wx, wy = tiles[last, 2] - x0, tiles[last, 3] - y0
        if 0 <= wx < width and 0 <= wy < width:
            out[TK.B_LAST, wy, wx] = 0
    before = view[V_PLAYER]
    k = 0
    for j in range(nfol):
        g = view[V_FOL + j]
        s = g // MAX_SEGMENTS
        wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
        inside = 0 <= wx < width and 0 <= wy < width
        owner = segs[g, L.S_OWNER]
        if owner < 0:  # it went back to its owner (and no follower comes to that tile again)
            if inside:
                out[FLUID_LO:FLUID_HI, wy, wx] = 0
            continue
        view[V_FOL + k] = g
        k += 1
        if inside and before != player:
            out[TK.B_FOLLOWER + (owner - before) % nplayers, wy, wx] = 0
            out[TK.B_FOLLOWER + (owner - player) % nplayers, wy, wx] = 1
    seen = view[V_SEEN]
    n = ints[L.R_NSLOTS]
    for s in range(seen, n):
        _new_tile(board, tiles, segs, s, player, nplayers, x0, y0, out, view)
        f = _follower_seg(tiles, segs, s)
        if f >= 0:
            view[V_FOL + k] = s * MAX_SEGMENTS + f
            k += 1
    last = ints[L.R_LAST] if n > 0 else -1
    if 0 <= last < seen:  # a follower just placed on it
        known = False
        for j in range(k):
            known = known or view[V_FOL + j] // MAX_SEGMENTS == last
        f = -1 if known else _follower_seg(tiles, segs, last)
        if f >= 0:
            view[V_FOL + k] = last * MAX_SEGMENTS + f
            k += 1
            wx, wy = tiles[last, 2] - x0, tiles[last, 3] - y0
            if 0 <= wx < width and 0 <= wy < width:
                TK.encode_followers(tiles, segs, last, player, nplayers, wy, wx, out)
    view[V_NFOL] = k
    if last >= 0:
        wx, wy = tiles[last, 2] - x0, tiles[last, 3] - y0
        if 0 <= wx < width and 0 <= wy < width:
            out[TK.B_LAST, wy, wx] = 1
    view[V_SEEN] = n
    view[V_LAST] = last
    view[V_PLAYER] = player


@njit(cache=True, nogil=True)
def _shift(out, view, dx, dy):
    """Move the planes of the tiles' cells (the rectangle of ``view``) by (-dx, -dy) cells,
    as the window moves by (dx, dy); what leaves the window is dropped, the cells left
    behind are cleared. The rectangle becomes that of the moved cells."""
    width = out.shape[1]
    xa, xb, ya, yb = view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI]
    if xa > xb:
        return
    nxa, nxb = max(xa - dx, 0), min(xb - dx, width - 1)
    nya, nyb = max(ya - dy, 0), min(yb - dy, width - 1)
    h, w = nyb - nya + 1, nxb - nxa + 1
    for p in range(out.shape[0]):
        plane = out[p]
        if h > 0 and w > 0:
            for j in range(h):  # in the order that reads each cell before it is written
                y = nya + j if dy >= 0 else nyb - j
                for q in range(w):
                    x = nxa + q if dx >= 0 else nxb - q
                    plane[y, x] = plane[y + dy, x + dx]
        for y in range(ya, yb + 1):
            if nya <= y <= nyb and h > 0 and w > 0:
                for x in range(xa, min(nxa, xb + 1)):
                    plane[y, x] = 0
                for x in range(max(nxb + 1, xa), xb + 1):
                    plane[y, x] = 0
            else:
                for x in range(xa, xb + 1):
                    plane[y, x] = 0
    if h > 0 and w > 0:
        view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI] = nxa, nxb, nya, nyb
    else:
        view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI] = width, -1, width, -1


@njit(cache=True, nogil=True)
def write_board(board, ints, tiles, segs, player, nplayers, x0, y0, out, view):
    """The board planes (46, W, W) of seat ``player`` over ``out``, which holds the planes
    ``view`` describes. If the window moved (or the buffer is new), the cells of the old
    tiles are cleared and ``kernels.encode_board`` writes the planes anew; otherwise
    ``_update_board`` changes only what the moves since can have changed. Returns True if
    the window moved (or the buffer was new)."""
    width = out.shape[1]
    moved = view[V_VALID] == 0 or view[V_X0] != x0 or view[V_Y0] != y0
    if not moved:
        _update_board(board, ints, tiles, segs, player, nplayers, x0, y0, out, view)
        return False
    dx, dy = x0 - view[V_X0], y0 - view[V_Y0]
    if view[V_VALID] != 0 and abs(dx) <= SHIFT_MAX and abs(dy) <= SHIFT_MAX:
        # the window moved a little: move what the buffer holds along, then update it
        _shift(out, view, dx, dy)
        view[V_X0], view[V_Y0] = x0, y0
        seen = view[V_SEEN]
        _update_board(board, ints, tiles, segs, player, nplayers, x0, y0, out, view)
        for s in range(seen):  # the tiles the window now shows that it did not show
            wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
            if not (0 <= wx < width and 0 <= wy < width):
                continue
            if 0 <= wx + dx < width and 0 <= wy + dy < width:
                continue
            TK.encode_tile(board, tiles, segs, s, player, nplayers, wy, wx, out)
            view[V_XLO], view[V_XHI] = min(view[V_XLO], wx), max(view[V_XHI], wx)
            view[V_YLO], view[V_YHI] = min(view[V_YLO], wy), max(view[V_YHI], wy)
        return True
    xa, xb, ya, yb = view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI]
    if xa <= xb:
        if (xb - xa + 1) * (yb - ya + 1) * 8 > width * width:
            out[:] = 0  # (one memset beats a loop over the rectangle's rows)
        else:
            out[:, ya : yb + 1, xa : xb + 1] = 0
    TK.encode_board(board, ints, tiles, segs, player, nplayers, x0, y0, out)
    xa, xb, ya, yb = width, -1, width, -1
    n = ints[L.R_NSLOTS]
    k = 0
    for s in range(n):
        f = _follower_seg(tiles, segs, s)
        if f >= 0:
            view[V_FOL + k] = s * MAX_SEGMENTS + f
            k += 1
        wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
        if 0 <= wx < width and 0 <= wy < width:
            xa, xb, ya, yb = min(xa, wx), max(xb, wx), min(ya, wy), max(yb, wy)
    view[V_X0], view[V_Y0] = x0, y0
    view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI] = xa, xb, ya, yb
    view[V_VALID] = 1
    view[V_SEEN] = n
    view[V_LAST] = ints[L.R_LAST] if n > 0 else -1
    view[V_NFOL] = k
    view[V_PLAYER] = player
    return True


@njit(cache=True, nogil=True)
def write_v1(board, ints, tiles, segs, player, nplayers, x0, y0, out_board, out_globals, cap,
             view):  # fmt: skip
    """``carcassonne_v1``'s observation of seat ``player`` written over ``out_board``
    (46, W, W) (``write_board``) and ``out_globals`` (113,): the bytes of
    ``kernels.encode_split`` for the same origin."""
    write_board(board, ints, tiles, segs, player, nplayers, x0, y0, out_board, view)
    out_globals[:] = 0
    TK.encode_globals(ints, player, nplayers, out_globals, cap)


@njit(cache=True, nogil=True)
def write_v0(board, ints, tiles, segs, player, nplayers, x0, y0, out, view, last_globals):
    """``carcassonne_v0``'s planes (159, W, W) of seat ``player`` written over ``out``
    (``TileEncoder.encode_into``): the board planes by ``write_board``, and only the global
    planes whose value differs from ``last_globals`` (uint8 (113,), updated), every one of
    them if the buffer was new. ``last_globals`` may hold 226 values: the second half is
    then scratch for the new ones (else they are allocated)."""
    nb = TK.NUM_BOARD_PLANES
    ng = TK.NUM_GLOBALS
    fresh = view[V_VALID] == 0
    write_board(board, ints, tiles, segs, player, nplayers, x0, y0, out[:nb], view)
    if last_globals.shape[0] >= 2 * ng:
        g = last_globals[ng : 2 * ng]
        g[:] = 0
    else:
        g = np.zeros(ng, np.uint8)
    TK.encode_globals(ints, player, nplayers, g, 255)
    for k in range(TK.NUM_GLOBALS):
        if fresh or g[k] != last_globals[k]:
            out[nb + k] = g[k]
            last_globals[k] = g[k]
