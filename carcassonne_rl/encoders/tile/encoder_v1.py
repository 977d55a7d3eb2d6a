"""The compact tile-game observation of ``carcassonne_v1``: board planes + a globals vector.

Observation of seat ``p``: a dict

- ``board``: uint8 ``(46, W, W)``, 0/1: the board planes of ``carcassonne_v0`` (planes 0-45,
  ``tile_kernels.B_*``), same window, same cells;
- ``globals``: float32 ``(113,)``: the values that ``carcassonne_v0`` broadcasts as constant
  planes 46-158, in the same order (``tile_kernels.G_*``, names in :data:`GLOBAL_NAMES`),
  with true values: scores, figure points and awaiting points are not clipped at 255.

Actions, masks and window are those of :class:`~.tile_encoder.TileEncoder` (this class
inherits them): an action index means the same move in both versions.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.encoder import DEFAULT_WINDOW, TileEncoder
from carcassonne_rl.games.carcassonne import State
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.tiles import LETTERS

#: upper bound of the count and point entries of ``globals`` (int16's largest value)
GLOBAL_HIGH = 32767.0
#: entries of ``globals`` that are counts or points (the rest are 0/1 flags)
VALUE_BLOCKS = (
    (TK.G_REMAIN, 25),
    (TK.G_SCORE, 5),
    (TK.G_FOLLOWERS, 5),
    (TK.G_FIG_A, 5),
    (TK.G_FIG_B, 5),
    (TK.G_AWARD, 1),
)


def _global_names() -> tuple[str, ...]:
    seats = [f"seat+{j}" for j in range(5)]
    names = [f"tile_to_place_{c}" for c in LETTERS]
    names += [f"tiles_left_{c}" for c in LETTERS]
    names += [f"score_{s}" for s in seats] + [f"followers_left_{s}" for s in seats]
    names += [f"phase_{p}" for p in L.PHASE_NAMES]
    names += [f"deciding_{s}" for s in seats] + [f"turn_of_{s}" for s in seats]
    names += [f"present_{s}" for s in seats]
    names += [f"figure_a_points_{s}" for s in seats] + [f"figure_b_points_{s}" for s in seats]
    names += [f"message_card_{k}" for k in range(1, 9)]
    names += [f"next_message_card_{k}" for k in range(1, 9)]
    names += ["awaiting_points"] + [f"awaiting_receiver_{s}" for s in seats]
    return tuple(names)


#: name of each entry of ``globals`` (``seat+j``: j seats after the observer)
GLOBAL_NAMES = _global_names()
assert len(GLOBAL_NAMES) == TK.NUM_GLOBALS


def globals_space() -> spaces.Box:
    """The Box of ``globals``: flags in [0, 1], counts and points in [0, 32767]."""
    high = np.ones(TK.NUM_GLOBALS, np.float32)
    for start, size in VALUE_BLOCKS:
        high[start : start + size] = GLOBAL_HIGH
    return spaces.Box(np.zeros(TK.NUM_GLOBALS, np.float32), high, dtype=np.float32)


class TileEncoderV1(TileEncoder):
    """``carcassonne_v1``'s observation (board planes + globals vector); actions as v0."""

    def __init__(self, window: int = DEFAULT_WINDOW, messages: bool = False) -> None:
        super().__init__(window, messages)
        # board planes are 0/1 bits: high=1 also keeps SB3 from taking them for an image
        board = spaces.Box(0, 1, (TK.NUM_BOARD_PLANES, window, window), np.uint8)
        self.observation_space = spaces.Dict({"board": board, "globals": globals_space()})

    @property
    def observation_bytes(self) -> int:
        """Bytes of one observation (board + globals; the env adds the int8 action mask)."""
        return TK.NUM_BOARD_PLANES * self.window * self.window + 4 * TK.NUM_GLOBALS

    def encode(self, state: State, player: int) -> dict[str, np.ndarray]:
        """A fresh observation of ``state`` for seat ``player``."""
        board = np.zeros((TK.NUM_BOARD_PLANES, self.window, self.window), np.uint8)
        glob = np.zeros(TK.NUM_GLOBALS, np.float32)
        a = state.kernel_arrays()
        TK.encode_split(
            a.board, a.ints, a.tiles, a.segs, player,
            state.config.players, board, glob, GLOBAL_HIGH,
        )  # fmt: skip
        return {"board": board, "globals": glob}

    def encode_into(self, out: np.ndarray, state: State, player: int) -> None:
        raise TypeError("TileEncoderV1 observations are dicts: use encode(state, player)")

    def to_planes(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """The ``carcassonne_v0`` planes ``(159, W, W)`` of a v1 observation (values clipped
        at 255, as v0 stores them), e.g. to feed a network trained on v0."""
        w = self.window
        planes = np.empty((TK.NUM_BOARD_PLANES + TK.NUM_GLOBALS, w, w), np.uint8)
        planes[: TK.NUM_BOARD_PLANES] = obs["board"]
        glob = np.minimum(obs["globals"], 255).astype(np.uint8)
        planes[TK.NUM_BOARD_PLANES :] = glob[:, None, None]
        return planes
