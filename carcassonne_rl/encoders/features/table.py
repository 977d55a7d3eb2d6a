"""Feature sets of the afterstate value network, by name, and the ``table`` set for 2-5 seats.

A value network's model file names the features it reads (``meta["feature_set"]``; files
without it read ``two_player``), so every shipped or saved network keeps loading with the
features it was trained on:

- ``two_player`` (:mod:`~carcassonne_rl.encoders.features.afterstate`, 103 numbers):
  ``[own, strongest opponent, sum of the other opponents, own - strongest, globals]``,
  designed for 2 players (named ``v1`` before: model files and configs that say ``v1``
  read this set, see :func:`feature_set_name`);
- ``table`` (159 numbers): every opponent on its own, for any table of 2-5 seats:
  ``[own, 4 opponent slots, own - strongest, globals]``. The opponents fill the slots in
  order of strength (score + heuristic potential, strongest first: the leader to catch or
  to block), each slot holding the opponent's ``PLAYER_FEATURES`` numbers, a presence flag
  and how many turns after the seat's it plays (1 = next, scaled by 1/4); empty slots
  (tables under 5) are all zero.

Both are computed from :func:`.afterstate.player_features` (public information
only).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from carcassonne_rl.encoders.features.afterstate import (
    F_POTENTIAL,
    F_SCORE,
    GLOBAL_FEATURE_NAMES,
    NUM_FEATURES,
    PLAYER_FEATURE_NAMES,
    PLAYER_FEATURES,
    PLAYER_SCALE_64,
    player_features,
    seat_vector,
)

OPPONENT_SLOTS = 4
SLOT_FEATURES = PLAYER_FEATURES + 2  # + present, turns after the seat
NUM_TABLE_FEATURES = (
    PLAYER_FEATURES + OPPONENT_SLOTS * SLOT_FEATURES + PLAYER_FEATURES + len(GLOBAL_FEATURE_NAMES)
)
DEFAULT_FEATURE_SET = "two_player"
# old name -> current name of a feature set (model files and run configs keep the old one)
OLD_FEATURE_SET_NAMES = {"v1": "two_player"}


@njit(cache=True, nogil=True)
def table_vector_kernel(per_player, tiles_left, player, messages, labyrinth, scale, dst):
    """Write the ``table`` input of seat ``player`` into ``dst`` (see the module docstring)."""
    npl = per_player.shape[0]
    nf = per_player.shape[1]
    for i in range(dst.shape[0]):
        dst[i] = 0.0
    order = np.empty(npl - 1, np.int64)
    strength = np.empty(npl - 1, np.float64)
    k = 0
    for q in range(npl):
        if q != player:
            order[k] = q
            strength[k] = per_player[q, F_SCORE] + per_player[q, F_POTENTIAL]
            k += 1
    for i in range(1, npl - 1):  # insertion sort, strongest first (ties: seat order)
        j = i
        while j > 0 and strength[j] > strength[j - 1]:
            strength[j], strength[j - 1] = strength[j - 1], strength[j]
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    for i in range(nf):
        dst[i] = per_player[player, i] / scale[i]
    for slot in range(npl - 1):
        q = order[slot]
        base = nf + slot * (nf + 2)
        for i in range(nf):
            dst[base + i] = per_player[q, i] / scale[i]
        dst[base + nf] = 1.0
        dst[base + nf + 1] = ((q - player) % npl) / 4.0
    d = nf + OPPONENT_SLOTS * (nf + 2)
    strongest = order[0]
    for i in range(nf):
        dst[d + i] = (per_player[player, i] - per_player[strongest, i]) / scale[i]
    g = d + nf
    dst[g] = tiles_left / 72.0
    dst[g + 1 + npl - 2] = 1.0
    dst[g + 5] = messages
    dst[g + 6] = labyrinth


def table_vector(per_player: np.ndarray, tiles_left: float, player: int, config) -> np.ndarray:
    """The ``table`` input of seat ``player`` from :func:`player_features` output."""
    dst = np.empty(NUM_TABLE_FEATURES, np.float32)
    table_vector_kernel(per_player, tiles_left, player, float(config.messages),
                        float(config.labyrinth), PLAYER_SCALE_64, dst)  # fmt: skip
    return dst


def table_features(state, player: int) -> np.ndarray:
    """The ``table`` feature vector of ``state`` seen from seat ``player``."""
    per_player, left = player_features(state)
    return table_vector(per_player, left, player, state.config)


# name -> (length, vector from (per_player, tiles_left, player, config))
SeatVector = Callable[[np.ndarray, float, int, object], np.ndarray]
FEATURE_SETS: dict[str, tuple[int, SeatVector]] = {
    "two_player": (NUM_FEATURES, seat_vector),
    "table": (NUM_TABLE_FEATURES, table_vector),
}


def feature_set_name(name: str) -> str:
    """The current name of feature set ``name`` (an old name such as ``v1`` is mapped)."""
    return OLD_FEATURE_SET_NAMES.get(name, name)


def feature_set(name: str) -> tuple[int, SeatVector]:
    """(length, seat-vector function) of a feature set (current or old name); ``ValueError``
    if unknown."""
    current = feature_set_name(name)
    if current not in FEATURE_SETS:
        raise ValueError(f"unknown feature set {name!r}; known: {', '.join(FEATURE_SETS)}")
    return FEATURE_SETS[current]


def seat_features(state, player: int, name: str = DEFAULT_FEATURE_SET) -> np.ndarray:
    """Feature vector of set ``name`` of ``state`` seen from seat ``player``."""
    per_player, left = player_features(state)
    return feature_set(name)[1](per_player, left, player, state.config)


TABLE_FEATURE_NAMES = tuple(
    [f"own_{n}" for n in PLAYER_FEATURE_NAMES]
    + [
        f"opp{k + 1}_{n}"
        for k in range(OPPONENT_SLOTS)
        for n in (*PLAYER_FEATURE_NAMES, "present", "turns_after")
    ]
    + [f"diff_{n}" for n in PLAYER_FEATURE_NAMES]
    + list(GLOBAL_FEATURE_NAMES)
)
assert len(TABLE_FEATURE_NAMES) == NUM_TABLE_FEATURES
