"""PettingZoo AEC environment of the tile game with the compact observation (``carcassonne_v1``).

Everything as :mod:`.carcassonne_v0` (players, expansions, actions, rewards, ``reset``
options, renders, window-overflow warning, the classic wrapper), except the observation:
the dict ``{"board": uint8 (46, W, W), "globals": float32 (113,), "action_mask": int8}``
(:class:`~carcassonne_rl.encoders.tile.encoder_v1.TileEncoderV1`) instead of v0's
``{"observation": uint8 (159, W, W), "action_mask": int8}``: v0's 113 constant planes become
one vector holding the true values (scores not clipped at 255). About 43 KB per observation
at the default window (v0: 134 KB). ``state()`` and ``state_space`` are v0's (seat 0's
v0 planes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.encoders.tile.cache import DictTileObservationCache
from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1
from carcassonne_rl.envs import carcassonne_v0
from carcassonne_rl.envs.classic_wrapper import ClassicWrapper


class raw_env(carcassonne_v0.raw_env):  # noqa: N801 - PettingZoo naming
    """The tile game with the v1 observation (see the module docstring and
    :class:`~.carcassonne_v0.raw_env` for the arguments and ``reset`` options)."""

    metadata = {**carcassonne_v0.raw_env.metadata, "name": "carcassonne_v1"}
    ENCODER = TileEncoderV1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        encoder = kwargs.get("encoder", args[5] if len(args) > 5 else None)
        if encoder is not None and not isinstance(encoder, TileEncoderV1):
            raise ValueError(
                f"carcassonne_v1 needs a TileEncoderV1 encoder, got {type(encoder).__name__} "
                "(carcassonne_v0 takes a TileEncoder)"
            )
        super().__init__(*args, **kwargs)

    def _make_observer(self) -> DictTileObservationCache:
        return DictTileObservationCache(self.encoder)

    def _global_state(self) -> np.ndarray:
        """As ``carcassonne_v0``: seat 0's v0 planes (globals clipped at 255)."""
        return self.encoder.to_planes(self.encoder.encode(self._state, 0))


def env(**kwargs) -> ClassicWrapper:
    """The wrapped environment (illegal move ends the game with -1 for its maker)."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1.0)
