"""Tile-game observations of one game, encoded once per (position, seat) and handed out as
copies (the role :class:`~carcassonne_rl.encoders.card.cache.CardObservationCache` plays for
the card game).

The cache is keyed by the state object itself and its history length, so another state put
in its place (or an action applied to it directly) is always encoded afresh.
"""

from __future__ import annotations

import numpy as np

from carcassonne_rl.encoders.tile.encoder import TileEncoder
from carcassonne_rl.games.carcassonne import State


class TileObservationCache:
    """``carcassonne_v0``'s observation planes of one game, per seat, for the position."""

    def __init__(self, encoder: TileEncoder) -> None:
        self.encoder = encoder
        self._state: State | None = None
        self._stamp = -1
        self._cache: dict[int, np.ndarray] = {}

    def reset(self, state: State) -> None:
        self._state = None
        self._cache.clear()

    def observe(self, state: State, player: int) -> np.ndarray:
        stamp = len(state.history)
        if state is not self._state or stamp != self._stamp:
            self._cache.clear()
            self._state = state
            self._stamp = stamp
        obs = self._cache.get(player)
        if obs is None:
            obs = self._cache[player] = self.encoder.encode(state, player)
        return obs.copy()

    def after_action(self, state: State, actor: int, code: int) -> None:
        pass


class DictTileObservationCache(TileObservationCache):
    """:class:`TileObservationCache` for ``carcassonne_v1``'s dict observations. The first
    request for a (position, seat) gets the freshly encoded arrays themselves (nothing else
    holds them); a repeated request encodes once more, caches that and hands out copies."""

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
