"""The Carcassonne tile game (2010 base rules): a fast, cloneable rules engine.

See ``docs/engine_api.md`` for the interface and the text notation, and
``../shared/rules/carcassonne.md`` for the rules it implements.
"""

from .actions import Action, FollowerPlacement, Placement
from .config import GameConfig
from .errors import IllegalActionError, NotationError, SavedGameError
from .record import load_json, replay, to_record
from .state import PlacedFollower, ScoreEvent, State, decode_placement, encode_placement, new_game
from .tiles import LETTERS, TILE_TYPES

__all__ = [
    "Action",
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
    "decode_placement",
    "encode_placement",
    "load_json",
    "new_game",
    "replay",
    "to_record",
]
