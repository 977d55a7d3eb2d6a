"""Memory layout of a tile-game state: a few flat arrays shared by all Numba kernels.

- ``board``  int8[SIZE*SIZE]: slot of the tile on each cell, -1 if empty. The cell of (x, y)
  is ``(y + OFF) * SIZE + (x + OFF)``.
- ``ints``   int32 registers (``R_*``), then the message stack, the award queue, the deck,
  the discards, the frontier of open cells, the legal actions and a scratch area for the
  kernels (``O_*`` offsets; the scratch spares an allocation per turn).
- ``tiles``  int32[MAX_TILES, 4]: type, rotation, x, y of each placed tile, by slot.
- ``segs``   int32[MAX_TILES * MAX_SEGMENTS, NSF]: union-find over tile segments; segment
  ``k`` of the tile in slot ``s`` is row ``s * MAX_SEGMENTS + k``. A root row holds the
  feature's open side count, pennants, follower counts per player, links to labyrinth
  centres and a "done" flag; every row holds the follower standing on it (owner) and a
  circular member list.
- ``events`` int32[MAX_EVENTS, NEF] and ``pool`` int32[MAX_POOL]: the score log; each event
  points at a run of tile slots in the pool.

Action codes, by phase:

- ``place_tile``: ``cell * 4 + rotation``;
- ``place_follower``: ``0`` for none, ``k + 1`` for segment ``k`` of the tile just placed;
- ``choose_figure`` (The Messages): ``0`` figure A, ``1`` figure B;
- ``message``: ``0`` take 2 points, ``1`` carry out the message;
- ``message_follower`` (message 8): the segment row of the chosen follower.
"""

from __future__ import annotations

import numpy as np

from .jit_cache import ensure_fresh_cache
from .tiles import MAX_SEGMENTS

ensure_fresh_cache()  # every kernel module imports this one before it compiles

OFF = 80
SIZE = 2 * OFF + 1
MAX_TILES = 80
MAX_EVENTS = 1024
MAX_POOL = 8192
MAX_DECK = 96
MAX_FRONT = 512
MAX_LEGAL = 1024
MAX_PLAYERS = 5
MAX_AWARDS = 64
NUM_MESSAGES = 8

# registers
R_NPLAYERS, R_PHASE, R_PLAYER, R_TURN, R_DECKPOS, R_DECKLEN, R_TILE, R_NSLOTS = range(8)
R_LAST, R_NFRONT, R_NLEGAL, R_NEVENTS, R_POOL, R_NDISCARD, R_ACTIVE, R_MESSAGES = range(8, 16)
R_AUTOFIG, R_STEPDARK, R_AQ_HEAD, R_AQ_LEN, R_MSGPOS, R_CARD = range(16, 22)
R_SCORES = 24  # total per player (figure A + figure B with The Messages)
R_FOLLOWERS = 32
R_FIG_A = 40
R_FIG_B = 48
R_BOX = 56  # bounding box of the placed tiles: x_lo, x_hi, y_lo, y_hi
O_MSGDECK = 64
AQ_FIELDS = 6  # player, points, kind, pool start, tiles, message card
O_AWARDS = O_MSGDECK + NUM_MESSAGES
O_DECK = O_AWARDS + MAX_AWARDS * AQ_FIELDS
O_DISCARD = O_DECK + MAX_DECK
O_FRONT = O_DISCARD + MAX_DECK
O_LEGAL = O_FRONT + MAX_FRONT
O_SCRATCH = O_LEGAL + MAX_LEGAL  # kernel scratch: feature roots, then follower counts
INTS_LEN = O_SCRATCH + MAX_TILES * MAX_SEGMENTS + MAX_PLAYERS

PHASE_TILE, PHASE_FOLLOWER, PHASE_OVER, PHASE_FIGURE, PHASE_MESSAGE, PHASE_MSG8 = range(6)
PHASE_NAMES = (
    "place_tile",
    "place_follower",
    "game_over",
    "choose_figure",
    "message",
    "message_follower",
)

# segment columns
S_PARENT, S_KIND, S_OPEN, S_PENNANT, S_NEXT, S_OWNER, S_DONE, S_HUBLINK = range(8)
S_COUNT = 8  # follower counts per player, MAX_PLAYERS columns
NSF = S_COUNT + MAX_PLAYERS

# event columns
E_PLAYER, E_POINTS, E_KIND, E_TURN, E_FINAL, E_POOL, E_NTILES, E_FIGURE, E_CARD = range(9)
NEF = 9

# status codes returned by apply_action
OK, ERR_ILLEGAL, ERR_OVER, ERR_LOG_FULL = 0, -1, -2, -3


def allocate() -> tuple[np.ndarray, ...]:
    """Fresh, empty state arrays: board, ints, tiles, segs, events, pool."""
    board = np.full(SIZE * SIZE, -1, np.int8)
    ints = np.zeros(INTS_LEN, np.int32)
    tiles = np.zeros((MAX_TILES, 4), np.int32)
    segs = np.zeros((MAX_TILES * MAX_SEGMENTS, NSF), np.int32)
    segs[:, S_KIND] = -1  # rows of unused segment indices stay kind -1, owner -1
    segs[:, S_OWNER] = -1
    events = np.empty((MAX_EVENTS, NEF), np.int32)  # rows past R_NEVENTS are never read
    pool = np.empty(MAX_POOL, np.int32)  # likewise past R_POOL
    return board, ints, tiles, segs, events, pool
