"""Observation/action encoders of both games: plain classes over engine states.

- :class:`CardEncoder` (Cardcassonne): a flat vector per seat, action index = engine code.
- :class:`TileEncoder` (tile game): spatial planes over a window re-centred on the board,
  action index = placement in the window x rotation, follower location, expansion decisions.
- :class:`TileEncoderV1` (``carcassonne_v1``): the same board planes and actions, the global
  values as one vector ``{"board", "globals"}`` instead of constant planes.

Each has ``observation_space``, ``num_actions``, ``encode(state, player)`` (a fresh array),
``action_mask(state)``, ``index_of(state, code)`` and ``code_of(state, index)``.
"""

from carcassonne_rl.encoders.card.encoder import CardEncoder
from carcassonne_rl.encoders.tile.encoder import DEFAULT_WINDOW, TileEncoder
from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

__all__ = ["DEFAULT_WINDOW", "CardEncoder", "TileEncoder", "TileEncoderV1"]
