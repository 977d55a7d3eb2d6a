"""Game records: JSON save/load and replay (config + draw order + actions in text notation)."""

from __future__ import annotations

import json
from typing import Any

from ..errors import SavedGameError
from ..record_header import check_header
from .config import GameConfig
from .state import NO_MESSAGES_ORDER, State, new_game, to_record

__all__ = ["load_json", "replay", "to_json", "to_record"]


def to_json(state: State, indent: int | None = None) -> str:
    return json.dumps(to_record(state), indent=indent)


def replay(record: dict[str, Any]) -> State:
    """Rebuild a game from a record (header: :mod:`carcassonne_rl.games.record_header`,
    version 2 or the tile game's version 1); every problem raises ``SavedGameError``."""
    check_header(record, "carcassonne")
    for key in ("config", "draw_order", "message_order", "actions"):
        if key not in record:
            raise SavedGameError(f"saved game has no {key!r} field")
    cfg = record["config"]
    if not isinstance(cfg, dict):
        raise SavedGameError("saved game 'config' must be an object")
    try:
        config = GameConfig.from_dict(cfg)
        message_order = record["message_order"]
        if not config.messages and message_order == NO_MESSAGES_ORDER:
            message_order = None  # what the record of a game without The Messages holds
        state = new_game(config, record["draw_order"], message_order)
    except (TypeError, ValueError) as err:
        raise SavedGameError(
            f"saved game 'config'/'draw_order'/'message_order' invalid: {err}"
        ) from err
    actions = record["actions"]
    if not isinstance(actions, list):
        raise SavedGameError("saved game 'actions' must be a list of strings")
    for i, text in enumerate(actions):
        if not isinstance(text, str):
            raise SavedGameError(f"saved game action #{i} is not a string: {text!r}")
        try:
            state.apply(text)
        except ValueError as err:
            raise SavedGameError(f"saved game action #{i} {text!r} does not replay: {err}") from err
    return state


def load_json(text: str) -> State:
    """Load a game saved with ``State.to_json``."""
    try:
        record = json.loads(text)
    except RecursionError:
        raise SavedGameError("saved game is not valid JSON: nested too deeply") from None
    except (TypeError, ValueError) as err:  # ValueError: bad JSON, or an int too long to read
        raise SavedGameError(f"saved game is not valid JSON: {err}") from err
    return replay(record)
