"""Numba kernels of the tile-game encoder: planes, window and action mask in one pass each.

They read (never write) the engine's state arrays (``games/carcassonne/layout.py``); the work
is proportional to the tiles placed (at most 80), never to the cells of the window.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.tiles import CLOISTER, LABYRINTH, MAX_SEGMENTS, TABLES

OFF, SIZE = L.OFF, L.SIZE
PORTMAP = TABLES["portmap"]
EDGES = TABLES["edges"]
NSEG = TABLES["nseg"]
SEG_KIND = TABLES["seg_kind"]
SEG_PENNANT = TABLES["seg_pennant"]
RING = np.array([-SIZE - 1, -SIZE, -SIZE + 1, -1, 1, SIZE - 1, SIZE, SIZE + 1], np.int64)
# side pairs whose road/city connectivity is encoded: N-E, E-S, S-W, W-N, N-S, E-W
CONN_PAIRS = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]], np.int64)

# board planes
B_PRESENT = 0
B_EDGE = 1  # + side * 3 + (edge kind - 1): field, road, city
B_CLOISTER, B_PENNANT, B_LABYRINTH = 13, 14, 15
B_CONN = 16  # 6 side pairs
B_FOLLOWER = 22  # + relative owner (5)
B_FPORT = 27  # + port (12): the ports of the segment the follower stands on
B_FCENTRE = 39  # follower on a cloister or a labyrinth
B_DONE = 40  # + side: the road/city on that side is complete
B_CDONE = 44  # the cloister is complete
B_LAST = 45  # the tile placed last
NUM_BOARD_PLANES = 46

# action index blocks (after W*W*4 placements)
N_FOLLOWER_CODES = MAX_SEGMENTS + 1
A_FIGURE = N_FOLLOWER_CODES
A_MESSAGE = A_FIGURE + 2
A_MSG_FOLLOWER = A_MESSAGE + 2


@njit(cache=True, nogil=True)
def _root(segs, g):
    while segs[g, L.S_PARENT] != g:
        g = segs[g, L.S_PARENT]
    return g


@njit(cache=True, nogil=True)
def window_origin(ints, tiles, width):
    """(x0, y0) of the window: centred on the bounding box of the placed tiles; if that
    leaves no legal placement inside, centred on the legal placements instead (the box
    is the engine's, ``layout.R_BOX``)."""
    h = width // 2
    x0 = (ints[L.R_BOX] + ints[L.R_BOX + 1]) // 2 - h
    y0 = (ints[L.R_BOX + 2] + ints[L.R_BOX + 3]) // 2 - h
    nl = ints[L.R_NLEGAL]
    if ints[L.R_PHASE] != L.PHASE_TILE or nl == 0:
        return x0, y0
    lx, hx, ly, hy = 1 << 20, -(1 << 20), 1 << 20, -(1 << 20)
    for i in range(nl):
        cell = ints[L.O_LEGAL + i] >> 2
        x = cell % SIZE - OFF
        y = cell // SIZE - OFF
        if x0 <= x < x0 + width and y0 <= y < y0 + width:
            return x0, y0
        lx, hx, ly, hy = min(lx, x), max(hx, x), min(ly, y), max(hy, y)
    return (lx + hx) // 2 - h, (ly + hy) // 2 - h


@njit(cache=True, nogil=True)
def write_tile_planes(t, r, out, wy, wx):
    """The planes of tile type ``t`` turned ``r`` that depend on the tile alone (present,
    edges, connections, cloister, labyrinth, pennant) at cell (wy, wx) of ``out``."""
    out[B_PRESENT, wy, wx] = 1
    for side in range(4):
        out[B_EDGE + side * 3 + EDGES[t, r, side] - 1, wy, wx] = 1
    for i in range(6):
        ka = PORTMAP[t, r, CONN_PAIRS[i, 0]]
        if ka >= 0 and ka == PORTMAP[t, r, CONN_PAIRS[i, 1]]:
            out[B_CONN + i, wy, wx] = 1
    for k in range(NSEG[t]):
        kind = SEG_KIND[t, k]
        if kind == CLOISTER:
            out[B_CLOISTER, wy, wx] = 1
        elif kind == LABYRINTH:
            out[B_LABYRINTH, wy, wx] = 1
        if SEG_PENNANT[t, k]:
            out[B_PENNANT, wy, wx] = 1


@njit(cache=True, nogil=True)
def encode_followers(tiles, segs, s, player, nplayers, wy, wx, out):
    """The follower planes (owner, ports, centre) of the tile in slot ``s`` at cell (wy, wx)
    of ``out``, seen by seat ``player``; returns whether a follower stands on it."""
    t, r = tiles[s, 0], tiles[s, 1]
    base = s * MAX_SEGMENTS
    any_owner = False
    for k in range(NSEG[t]):
        owner = segs[base + k, L.S_OWNER]
        if owner >= 0:
            any_owner = True
            out[B_FOLLOWER + (owner - player) % nplayers, wy, wx] = 1
            for port in range(12):
                if PORTMAP[t, r, port] == k:
                    out[B_FPORT + port, wy, wx] = 1
            if SEG_KIND[t, k] in (CLOISTER, LABYRINTH):
                out[B_FCENTRE, wy, wx] = 1
    return any_owner


@njit(cache=True, nogil=True)
def encode_cloister_done(board, tiles, s, wy, wx, out):
    """Set the cloister-complete plane of the tile in slot ``s`` at cell (wy, wx) if it has
    a cloister with all 8 neighbours."""
    t = tiles[s, 0]
    for k in range(NSEG[t]):
        if SEG_KIND[t, k] == CLOISTER:
            if out[B_CDONE, wy, wx] != 0:
                return
            cell = (tiles[s, 3] + OFF) * SIZE + tiles[s, 2] + OFF
            full = 0
            for d in RING:
                if board[cell + d] >= 0:
                    full += 1
            if full == 8:
                out[B_CDONE, wy, wx] = 1
            return


@njit(cache=True, nogil=True)
def encode_done_sides(tiles, segs, s, wy, wx, out):
    """Set the complete-side planes of the tile in slot ``s`` at cell (wy, wx): each side
    whose road or city is complete (no open side left)."""
    t, r = tiles[s, 0], tiles[s, 1]
    base = s * MAX_SEGMENTS
    for side in range(4):
        k = PORTMAP[t, r, side]
        if (
            k >= 0
            and SEG_KIND[t, k] != LABYRINTH
            and EDGES[t, r, side] >= 2
            and out[B_DONE + side, wy, wx] == 0
            and segs[_root(segs, base + k), L.S_OPEN] == 0
        ):
            out[B_DONE + side, wy, wx] = 1


@njit(cache=True, nogil=True)
def encode_tile(board, tiles, segs, s, player, nplayers, wy, wx, out):
    """Every plane of the tile in slot ``s`` at cell (wy, wx) of ``out`` (``encode_board``
    for one tile; what is already set there is not computed again)."""
    if out[B_PRESENT, wy, wx] == 0:
        write_tile_planes(tiles[s, 0], tiles[s, 1], out, wy, wx)
    encode_cloister_done(board, tiles, s, wy, wx, out)
    encode_followers(tiles, segs, s, player, nplayers, wy, wx, out)
    encode_done_sides(tiles, segs, s, wy, wx, out)


@njit(cache=True, nogil=True)
def encode_board(board, ints, tiles, segs, player, nplayers, x0, y0, out):
    """Write the board planes of the window at (x0, y0) into the zeroed ``out`` (C, W, W).

    ``out`` may instead hold this window's planes of an earlier position of the game, with
    the follower planes and the last-tile plane cleared (``encoders/tile/batch``): what is
    already set there never changes (a tile, a completed feature or cloister), so it is not
    computed again."""
    width = out.shape[1]
    n = ints[L.R_NSLOTS]
    for s in range(n):
        wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
        if wx < 0 or wy < 0 or wx >= width or wy >= width:
            continue
        encode_tile(board, tiles, segs, s, player, nplayers, wy, wx, out)
    if n > 0:
        s = ints[L.R_LAST]
        wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
        if 0 <= wx < width and 0 <= wy < width:
            out[B_LAST, wy, wx] = 1


@njit(cache=True, nogil=True)
def fill_mask(ints, tiles, width, x0, y0, mask):
    """Set the mask entries of the legal actions; returns how many could not be expressed."""
    phase = ints[L.R_PHASE]
    nl = ints[L.R_NLEGAL]
    p0 = width * width * 4
    dropped = 0
    for i in range(nl):
        code = ints[L.O_LEGAL + i]
        if phase == L.PHASE_TILE:
            cell = code >> 2
            wx = cell % SIZE - OFF - x0
            wy = cell // SIZE - OFF - y0
            if 0 <= wx < width and 0 <= wy < width:
                mask[(wy * width + wx) * 4 + (code & 3)] = 1
            else:
                dropped += 1
        elif phase == L.PHASE_FOLLOWER:
            mask[p0 + code] = 1
        elif phase == L.PHASE_FIGURE:
            mask[p0 + A_FIGURE + code] = 1
        elif phase == L.PHASE_MESSAGE:
            mask[p0 + A_MESSAGE + code] = 1
        elif phase == L.PHASE_MSG8:
            s = code // MAX_SEGMENTS
            wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
            if 0 <= wx < width and 0 <= wy < width:
                mask[p0 + A_MSG_FOLLOWER + wy * width + wx] = 1
            else:
                dropped += 1
    return dropped


# global features (broadcast as constant planes after the board planes)
G_TILE = 0  # one-hot type of the tile to place (25)
G_REMAIN = 25  # tiles of each type left in the draw pile (25)
G_SCORE = 50  # score per relative seat (5, clipped at ``cap``: 255 in v0's uint8 planes)
G_FOLLOWERS = 55  # followers in supply per relative seat (5)
G_PHASE = 60  # phase one-hot (6, layout.PHASE_NAMES order)
G_CURRENT = 66  # relative seat deciding now (5)
G_ACTIVE = 71  # relative seat whose turn it is (5)
G_PRESENT = 76  # seat exists (5)
G_FIG_A = 81  # The Messages: points of figure A per relative seat (5, clipped)
G_FIG_B = 86  # figure B (5)
G_CARD = 91  # message card being decided or carried out (8)
G_NEXT = 99  # next message card when known (8)
G_AWARD = 107  # points awaiting a figure choice (clipped)
G_RECEIVER = 108  # their receiver (5)
NUM_GLOBALS = 113


@njit(cache=True, nogil=True)
def encode_globals(ints, player, nplayers, g, cap=255):
    """Write the global features of seat ``player``'s view into the zeroed ``g``; points
    (scores, figures, awards) are clipped at ``cap`` (255 for uint8 ``g``)."""
    phase = ints[L.R_PHASE]
    if phase == L.PHASE_TILE:
        g[G_TILE + ints[L.R_TILE]] = 1
    for i in range(ints[L.R_DECKPOS], ints[L.R_DECKLEN]):
        g[G_REMAIN + ints[L.O_DECK + i]] += 1
    for q in range(nplayers):
        j = (q - player) % nplayers
        g[G_SCORE + j] = min(ints[L.R_SCORES + q], cap)
        g[G_FOLLOWERS + j] = ints[L.R_FOLLOWERS + q]
        g[G_PRESENT + j] = 1
        g[G_FIG_A + j] = min(ints[L.R_FIG_A + q], cap)
        g[G_FIG_B + j] = min(ints[L.R_FIG_B + q], cap)
    g[G_PHASE + phase] = 1
    if phase != L.PHASE_OVER:
        g[G_CURRENT + (ints[L.R_PLAYER] - player) % nplayers] = 1
        g[G_ACTIVE + (ints[L.R_ACTIVE] - player) % nplayers] = 1
    card = ints[L.R_CARD]
    if card > 0:
        g[G_CARD + card - 1] = 1
    pos = ints[L.R_MSGPOS]
    if ints[L.R_MESSAGES] and pos >= L.NUM_MESSAGES:
        g[G_NEXT + ints[L.O_MSGDECK + pos % L.NUM_MESSAGES] - 1] = 1
    if phase == L.PHASE_FIGURE:
        b = L.O_AWARDS + ints[L.R_AQ_HEAD] * L.AQ_FIELDS
        g[G_AWARD] = min(ints[b + 1], cap)
        g[G_RECEIVER + (ints[b] - player) % nplayers] = 1


@njit(cache=True, nogil=True)
def encode_split(board, ints, tiles, segs, player, nplayers, out_board, out_globals, cap):
    """``carcassonne_v1`` in one call: the window, the board planes into the zeroed
    ``out_board`` (46, W, W) and the globals into the zeroed ``out_globals`` (points
    clipped at ``cap``)."""
    x0, y0 = window_origin(ints, tiles, out_board.shape[1])
    encode_board(board, ints, tiles, segs, player, nplayers, x0, y0, out_board)
    encode_globals(ints, player, nplayers, out_globals, cap)
