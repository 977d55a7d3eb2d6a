"""The four rotations of a tile-game observation and of its action indices.

Turning the whole board by ``k`` clockwise quarter turns (x grows east, y grows south, so
north goes to east) maps a position to an equivalent one of the rotated game: every tile
keeps its type and segments and its rotation becomes ``r + k``. On the encoder's output
(``tile_encoder``) that is:

- window cell ``(wy, wx)`` goes to ``(wx, W - 1 - wy)`` (the window turns about its centre,
  so nothing leaves it); as arrays, ``np.rot90(planes, -k, axes=(-2, -1))``;
- every plane indexed by a side moves with it: side ``s`` to ``(s + k) % 4`` (edge kinds,
  "road/city complete"), connection N-E/E-S/S-W/W-N ``i`` to ``(i + k) % 4`` and N-S/E-W
  swap for odd ``k``, follower port ``p`` (side centre) to ``(p + k) % 4`` and half-edge
  ``h`` to ``(h + 2k) % 8`` (the engine's own rotation rule, ``tiles.py``);
- the other planes (presence, cloister, pennant, labyrinth, followers by seat, last tile)
  and the global values do not change;
- placement index ``(wy * W + wx) * 4 + r`` goes to the rotated cell with rotation
  ``(r + k) % 4``; a message-8 index (a cell) goes to the rotated cell; follower codes
  name segments, whose indices never change with rotation (``tiles.py``), and the figure /
  message choices have nothing spatial, so those indices stay.

The rotated observation is the rotated game seen through the *same* window turned about
its centre; the encoder itself might centre the rotated game's window one cell apart
(its centre is rounded down), which a convolutional network barely notices.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.encoder import NUM_PLANES

ROTATIONS = 4


def _check_k(k: int) -> int:
    return int(k) % ROTATIONS


@cache
def plane_permutation(k: int) -> np.ndarray:
    """``source[c]``: the plane of the original observation that rotated plane ``c`` reads."""
    k = _check_k(k)
    dest = np.arange(NUM_PLANES)  # dest[c]: where original plane c goes
    for side in range(4):
        for kind in range(3):
            dest[TK.B_EDGE + side * 3 + kind] = TK.B_EDGE + ((side + k) % 4) * 3 + kind
        dest[TK.B_DONE + side] = TK.B_DONE + (side + k) % 4
        dest[TK.B_CONN + side] = TK.B_CONN + (side + k) % 4  # N-E, E-S, S-W, W-N
        dest[TK.B_FPORT + side] = TK.B_FPORT + (side + k) % 4  # side centres
    for i in (4, 5):  # N-S and E-W swap on odd turns
        dest[TK.B_CONN + i] = TK.B_CONN + (i if k % 2 == 0 else 9 - i)
    for half in range(8):
        dest[TK.B_FPORT + 4 + half] = TK.B_FPORT + 4 + (half + 2 * k) % 8
    source = np.empty_like(dest)
    source[dest] = np.arange(NUM_PLANES)
    source.flags.writeable = False
    return source


def rotate_planes(obs: np.ndarray, k: int) -> np.ndarray:
    """Observation(s) ``(..., C, W, W)`` of the board turned ``k`` quarter turns clockwise."""
    k = _check_k(k)
    if obs.shape[-3] != NUM_PLANES or obs.shape[-1] != obs.shape[-2]:
        raise ValueError(f"expected (..., {NUM_PLANES}, W, W) planes, got {obs.shape}")
    turned = np.rot90(obs, -k, axes=(-2, -1))
    return np.ascontiguousarray(turned[..., plane_permutation(k), :, :])


def rotate_cell(cell: int, k: int, window: int) -> int:
    """Window cell ``wy * W + wx`` after ``k`` clockwise quarter turns of the window."""
    wy, wx = divmod(int(cell), window)
    for _ in range(_check_k(k)):
        wy, wx = wx, window - 1 - wy
    return wy * window + wx


def rotate_index(index: int, k: int, window: int, messages: bool) -> int:
    """Action index ``index`` of the encoder (``window``, ``messages``) after ``k`` turns."""
    k = _check_k(k)
    index = int(index)
    placements = window * window * 4
    if index < placements:
        cell, r = divmod(index, 4)
        return rotate_cell(cell, k, window) * 4 + (r + k) % 4
    offset = index - placements
    if messages and offset >= TK.A_MSG_FOLLOWER:
        cell = offset - TK.A_MSG_FOLLOWER
        return placements + TK.A_MSG_FOLLOWER + rotate_cell(cell, k, window)
    return index


@cache
def action_permutation(k: int, window: int, messages: bool) -> np.ndarray:
    """``dest[i]``: the rotated index of every action index ``i`` (a permutation)."""
    extra = TK.A_MSG_FOLLOWER + window * window if messages else TK.N_FOLLOWER_CODES
    n = window * window * 4 + extra
    dest = np.array([rotate_index(i, k, window, messages) for i in range(n)], np.int64)
    dest.flags.writeable = False
    return dest


def rotate_actions(values: np.ndarray, k: int, window: int, messages: bool) -> np.ndarray:
    """Per-action values ``(..., A)`` (a mask, a policy target, logits) after ``k`` turns:
    the value of action ``i`` moves to ``rotate_index(i)``."""
    dest = action_permutation(_check_k(k), window, messages)
    if values.shape[-1] != len(dest):
        raise ValueError(f"expected {len(dest)} actions, got {values.shape[-1]}")
    out = np.empty_like(values)
    out[..., dest] = values
    return out


def augment(
    obs: np.ndarray,
    mask: np.ndarray,
    target: np.ndarray | int,
    k: int,
    window: int,
    messages: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | int]:
    """One sample (planes, action mask, target) turned ``k`` times; the target is an action
    index (an int) or a vector over the actions (e.g. a policy's probabilities)."""
    if isinstance(target, (int, np.integer)):
        new_target: np.ndarray | int = rotate_index(int(target), k, window, messages)
    else:
        new_target = rotate_actions(np.asarray(target), k, window, messages)
    return (
        rotate_planes(obs, k),
        rotate_actions(mask, k, window, messages),
        new_target,
    )


def rotate_batch(
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    turns: np.ndarray,
    window: int,
    messages: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch of samples, sample ``i`` turned ``turns[i]`` times (obs ``(B, C, W, W)``)."""
    obs_out, masks_out, actions_out = obs.copy(), masks.copy(), actions.copy()
    for k in range(1, ROTATIONS):
        rows = np.flatnonzero(turns % ROTATIONS == k)
        if len(rows) == 0:
            continue
        obs_out[rows] = rotate_planes(obs[rows], k)
        masks_out[rows] = rotate_actions(masks[rows], k, window, messages)
        actions_out[rows] = action_permutation(k, window, messages)[actions[rows]]
    return obs_out, masks_out, actions_out
