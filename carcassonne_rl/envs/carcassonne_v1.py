"""PettingZoo AEC environment of the tile game with the compact observation (``carcassonne_v1``).

Everything as :mod:`.carcassonne_v0` (players, expansions, actions, rewards, ``reset``
options, renders, window-overflow warning, the classic wrapper), except the observation:
the dict ``{"board": uint8 (46, W, W), "globals": float32 (113,), "action_mask": int8}``
(:class:`~carcassonne_rl.encoders.tile.encoder_v1.TileEncoderV1`) instead of v0's
``{"observation": uint8 (159, W, W), "action_mask": int8}``: v0's 113 constant planes become
one vector holding the true values (scores not clipped at 255). About 43 KB per observation
at the default window (v0: 134 KB).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1
from carcassonne_rl.envs import carcassonne_v0
from carcassonne_rl.envs.classic_wrapper import ClassicWrapper
from carcassonne_rl.games.carcassonne import State


class DictTileObserver(carcassonne_v0.TileObserver):
    """:class:`~.carcassonne_v0.TileObserver` for dict observations. The first request for a
    (position, seat) gets the freshly encoded arrays themselves (nothing else holds them);
    a repeated request encodes once more, caches that and hands out copies of it."""

    def observe(self, state: State, player: int) -> dict[str, np.ndarray]:
        stamp = len(state.history)
        if state is not self._state or stamp != self._stamp:
            self._cache.clear()
            self._state = state
            self._stamp = stamp
        if player not in self._cache:
            self._cache[player] = None  # handed out once: nothing kept
            return self.encoder.encode(state, player)
        obs = self._cache[player]
        if obs is None:
            obs = self._cache[player] = self.encoder.encode(state, player)
        return {"board": obs["board"].copy(), "globals": obs["globals"].copy()}


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

    def _make_observer(self) -> DictTileObserver:
        return DictTileObserver(self.encoder)


def env(**kwargs) -> ClassicWrapper:
    """The wrapped environment (illegal move ends the game with -1 for its maker)."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1.0)
