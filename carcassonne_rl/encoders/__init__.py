"""Observation/action encoders of both games: plain classes over engine states.

- :class:`CardEncoder` (Cardcassonne): a flat vector per seat, action index = engine code.
- :class:`TileEncoder` (tile game): spatial planes over a window re-centred on the board,
  action index = placement in the window x rotation, follower location, expansion decisions.

Each has ``observation_space``, ``num_actions``, ``encode(state, player)`` (a fresh array),
``action_mask(state)``, ``index_of(state, code)`` and ``code_of(state, index)``.
"""

from .card_encoder import CardEncoder
from .tile_encoder import DEFAULT_WINDOW, TileEncoder

__all__ = ["DEFAULT_WINDOW", "CardEncoder", "TileEncoder"]
