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
from carcassonne_rl.games.carcassonne.tiles import MAX_SEGMENTS

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


# What a board-plane buffer holds, per game (``view``, int64[7]): the origin it was written
# for (x0, y0), the window cells its tiles cover (x_lo, x_hi, y_lo, y_hi; empty if
# x_lo > x_hi) and whether the rest is valid (1) or must be cleared in full (0).
V_X0, V_Y0, V_XLO, V_XHI, V_YLO, V_YHI, V_VALID = range(7)
VIEW_LEN = 7
# planes a tile's cell can lose (followers recalled or seen from another seat, the last
# tile): the others, once set, stay set while the window does not move
FLUID_LO, FLUID_HI = TK.B_FOLLOWER, TK.B_FCENTRE + 1


def empty_views(n: int) -> np.ndarray:
    """Views of ``n`` zeroed buffers (nothing written yet)."""
    views = np.zeros((n, VIEW_LEN), np.int64)
    views[:, V_XLO] = 1  # empty rectangle
    return views


@njit(cache=True, nogil=True)
def invalidate(view):
    """The buffer is to be written in full next time (a new game in it)."""
    view[V_VALID] = 0


@njit(cache=True, nogil=True)
def write_board(board, ints, tiles, segs, player, nplayers, x0, y0, out, view):
    """The board planes (46, W, W) of seat ``player`` over ``out``, which holds the planes
    ``view`` describes: only the cells that can differ are cleared (the tiles' cells; all
    46 planes if the window moved, the fluid ones otherwise), then ``kernels.encode_board``
    writes the new planes. Returns True if the window moved (or the buffer was new)."""
    width = out.shape[1]
    moved = view[V_VALID] == 0 or view[V_X0] != x0 or view[V_Y0] != y0
    xa, xb, ya, yb = view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI]
    if xa <= xb:
        if moved:
            out[:, ya : yb + 1, xa : xb + 1] = 0
        else:
            out[FLUID_LO:FLUID_HI, ya : yb + 1, xa : xb + 1] = 0
            out[TK.B_LAST, ya : yb + 1, xa : xb + 1] = 0
    TK.encode_board(board, ints, tiles, segs, player, nplayers, x0, y0, out)
    xa, xb, ya, yb = width, -1, width, -1
    for s in range(ints[L.R_NSLOTS]):
        wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
        if 0 <= wx < width and 0 <= wy < width:
            xa, xb, ya, yb = min(xa, wx), max(xb, wx), min(ya, wy), max(yb, wy)
    view[V_X0], view[V_Y0] = x0, y0
    view[V_XLO], view[V_XHI], view[V_YLO], view[V_YHI] = xa, xb, ya, yb
    view[V_VALID] = 1
    return moved


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
    them if the buffer was new."""
    nb = TK.NUM_BOARD_PLANES
    fresh = view[V_VALID] == 0
    write_board(board, ints, tiles, segs, player, nplayers, x0, y0, out[:nb], view)
    g = np.zeros(TK.NUM_GLOBALS, np.uint8)
    TK.encode_globals(ints, player, nplayers, g, 255)
    for k in range(TK.NUM_GLOBALS):
        if fresh or g[k] != last_globals[k]:
            out[nb + k] = g[k]
            last_globals[k] = g[k]
