"""Tile-game observation planes and action indices over a window re-centred on the board.

Observation of seat ``p``: uint8 array ``(C, W, W)`` (channels first), cell ``[:, wy, wx]``
is board position ``(x0 + wx, y0 + wy)``. The window (``W = window``, default
:data:`DEFAULT_WINDOW`) is centred on the bounding box of the placed tiles (if that ever left
no legal placement inside, on the legal placements). Seats are relative: ``j = (q - p) % n``.

- planes 0-45 (``tile_kernels.B_*``): tile present; edge kind per side (N E S W x field,
  road, city); cloister; pennant; labyrinth; road/city connections N-E E-S S-W W-N N-S E-W;
  follower owner (5 relative seats); the 12 ports (4 side centres, 8 half-edges) of the
  feature the follower stands on, and "on the cloister/labyrinth"; road/city complete per
  side; cloister complete; the tile placed last.
- planes 46-158: global features, each a constant plane (``tile_kernels.G_*``): tile to
  place (one-hot type A-Y), tiles left per type, scores, followers left, phase, seat to
  decide, seat whose turn it is, seats present, and The Messages (figure A/B points, message
  card, next message card when known, points awaiting a figure choice and their receiver).

Action index: ``(wy * W + wx) * 4 + rotation`` for a placement (``4 W^2`` indices), then
``+ code`` for the follower decision (0 none, ``k + 1`` segment ``k``; 10 indices); with The
Messages also 2 figure choices, 2 message choices and ``W^2`` message-8 follower choices
(the cell of the tile the follower stands on).

A legal move outside the window cannot be expressed: :meth:`TileEncoder.action_mask`
leaves it out and :meth:`TileEncoder.dropped_moves` counts it (the env warns and flags it).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.batch import index_to_code
from carcassonne_rl.games.carcassonne import State
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.tiles import MAX_SEGMENTS
from carcassonne_rl.games.errors import IllegalActionError

DEFAULT_WINDOW = 29
NUM_PLANES = TK.NUM_BOARD_PLANES + TK.NUM_GLOBALS


def global_values(obs: np.ndarray) -> np.ndarray:
    """The global values of observation(s) ``(..., C, W, W)`` as a vector ``(..., G)``: the
    global planes are constant, so one cell holds them all."""
    return obs[..., TK.NUM_BOARD_PLANES :, 0, 0]


def board_planes(obs: np.ndarray) -> np.ndarray:
    """The spatial planes ``(..., 46, W, W)`` of observation(s) ``(..., C, W, W)``."""
    return obs[..., : TK.NUM_BOARD_PLANES, :, :]


class TileEncoder:
    """Planes, mask and action indices of the tile game for a window of ``window`` cells."""

    def __init__(self, window: int = DEFAULT_WINDOW, messages: bool = False) -> None:
        if window < 3 or window % 2 == 0:
            raise ValueError(f"window must be an odd number >= 3, got {window}")
        self.window = window
        self.messages = messages
        self.num_placements = window * window * 4
        extra = TK.A_MSG_FOLLOWER + window * window if messages else TK.N_FOLLOWER_CODES
        self.num_actions = self.num_placements + extra
        self.observation_space = spaces.Box(0, 255, (NUM_PLANES, window, window), np.uint8)
        self.action_space = spaces.Discrete(self.num_actions)

    @classmethod
    def for_config(cls, config, window: int = DEFAULT_WINDOW) -> TileEncoder:
        return cls(window, messages="messages" in config.expansions)

    # ------------------------------------------------------------------ window
    def origin(self, state: State) -> tuple[int, int]:
        """Board position (x0, y0) of window cell (0, 0)."""
        a = state.kernel_arrays()
        x0, y0 = TK.window_origin(a.ints, a.tiles, self.window)
        return int(x0), int(y0)

    # ------------------------------------------------------------------ observation
    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh observation of ``state`` for seat ``player``."""
        out = np.zeros((NUM_PLANES, self.window, self.window), np.uint8)
        self.encode_into(out, state, player)
        return out

    def encode_into(self, out: np.ndarray, state: State, player: int) -> None:
        """Write the observation into the zeroed array ``out``."""
        a = state.kernel_arrays()
        x0, y0 = TK.window_origin(a.ints, a.tiles, self.window)
        n = state.config.players
        TK.encode_board(a.board, a.ints, a.tiles, a.segs, player, n, x0, y0, out)
        g = np.zeros(TK.NUM_GLOBALS, np.uint8)
        TK.encode_globals(a.ints, player, n, g, 255)
        out[TK.NUM_BOARD_PLANES :] = g[:, None, None]

    # ------------------------------------------------------------------ actions
    def mask_and_dropped(self, state: State) -> tuple[np.ndarray, int]:
        """(int8 mask of the pending decision, number of legal moves outside the window)."""
        mask = np.zeros(self.num_actions, np.int8)
        if state.is_over:
            return mask, 0
        a = state.kernel_arrays()
        x0, y0 = TK.window_origin(a.ints, a.tiles, self.window)
        dropped = TK.fill_mask(a.ints, a.tiles, self.window, x0, y0, mask)
        return mask, int(dropped)

    def action_mask(self, state: State) -> np.ndarray:
        """int8 mask over the action indices: the legal actions of ``state.current_player``."""
        return self.mask_and_dropped(state)[0]

    def dropped_moves(self, state: State) -> int:
        """Legal moves of the pending decision that the window cannot express (0 normally)."""
        return self.mask_and_dropped(state)[1]

    def index_of(self, state: State, code: int) -> int:
        """Env action index of engine action ``code`` of the pending decision (-1 if outside
        the window)."""
        phase = state.phase_index
        w = self.window
        p0 = self.num_placements
        code = int(code)
        if phase == L.PHASE_TILE:
            x0, y0 = self.origin(state)
            cell, r = divmod(code, 4)
            wx, wy = cell % L.SIZE - L.OFF - x0, cell // L.SIZE - L.OFF - y0
            if not (0 <= wx < w and 0 <= wy < w):
                return -1
            return (wy * w + wx) * 4 + r
        if phase == L.PHASE_FOLLOWER:
            return p0 + code
        if phase == L.PHASE_FIGURE:
            return p0 + TK.A_FIGURE + code
        if phase == L.PHASE_MESSAGE:
            return p0 + TK.A_MESSAGE + code
        if phase == L.PHASE_MSG8:
            x0, y0 = self.origin(state)
            s = code // MAX_SEGMENTS
            tiles = state.kernel_arrays().tiles
            wx, wy = int(tiles[s, 2]) - x0, int(tiles[s, 3]) - y0
            if not (0 <= wx < w and 0 <= wy < w):
                return -1
            return p0 + TK.A_MSG_FOLLOWER + wy * w + wx
        raise IllegalActionError("the game is over: no action is pending")

    def code_of(self, state: State, index: int) -> int:
        """Engine action code of env action ``index`` in the pending decision."""
        index = int(index)
        if not 0 <= index < self.num_actions:
            raise IllegalActionError(f"action index {index} out of range 0..{self.num_actions - 1}")
        a = state.kernel_arrays()
        x0, y0 = TK.window_origin(a.ints, a.tiles, self.window)
        code = index_to_code(a.board, a.ints, a.tiles, self.window, x0, y0, index)
        if code < 0:
            raise IllegalActionError(
                f"action index {index} is not a {state.phase} decision in this position"
            )
        return int(code)
