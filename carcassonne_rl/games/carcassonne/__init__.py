"""The Carcassonne tile game (2010 base rules, The Messages, the Labyrinth): a fast engine.

See ``docs/engine_api.md`` for the interface and the text notation, and
``docs/rules/carcassonne.md`` for the rules it implements (and every decision taken).
"""

from ..errors import IllegalActionError, NotationError, SavedGameError
from .action_codec import decode_placement, encode_placement
from .actions import (
    Action,
    FigureChoice,
    FollowerPlacement,
    FollowerRecall,
    MessageChoice,
    Placement,
)
from .config import EXPANSIONS, GameConfig
from .record import load_json, replay, to_record
from .state import PlacedFollower, ScoreEvent, State, new_game
from .tiles import LETTERS, TILE_TYPES
from .views import TileView, tile_view

__all__ = [
    "Action",
    "EXPANSIONS",
    "FigureChoice",
    "FollowerRecall",
    "MessageChoice",
    "FollowerPlacement",
    "GameConfig",
    "IllegalActionError",
    "LETTERS",
    "NotationError",
    "PlacedFollower",
    "Placement",
    "SavedGameError",
    "ScoreEvent",
    "State",
    "TILE_TYPES",
    "TileView",
    "decode_placement",
    "encode_placement",
    "load_json",
    "new_game",
    "replay",
    "tile_view",
    "to_record",
]
