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


@njit(cache=True, nogil=True)
def write_v1(board, ints, tiles, segs, player, nplayers, x0, y0, out_board, out_globals, cap):
    """``carcassonne_v1``'s observation of seat ``player`` written over ``out_board``
    (46, W, W) and ``out_globals`` (113,) (``kernels.encode_split`` for a known origin)."""
    out_board[:] = 0
    out_globals[:] = 0
    TK.encode_board(board, ints, tiles, segs, player, nplayers, x0, y0, out_board)
    TK.encode_globals(ints, player, nplayers, out_globals, cap)


@njit(cache=True, nogil=True)
def write_v0(board, ints, tiles, segs, player, nplayers, x0, y0, out, scratch):
    """``carcassonne_v0``'s planes (159, W, W) of seat ``player`` written over ``out``
    (``TileEncoder.encode_into``); ``scratch``: a uint8 (113,) work array."""
    nb = TK.NUM_BOARD_PLANES
    out[:nb] = 0
    TK.encode_board(board, ints, tiles, segs, player, nplayers, x0, y0, out)
    scratch[:] = 0
    TK.encode_globals(ints, player, nplayers, scratch, 255)
    for k in range(TK.NUM_GLOBALS):
        out[nb + k] = scratch[k]


def empty_scratch() -> np.ndarray:
    return np.zeros(TK.NUM_GLOBALS, np.uint8)
