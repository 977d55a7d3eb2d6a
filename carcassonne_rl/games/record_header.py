"""The one versioned header of a saved game of either engine, and the old headers still read.

Both engines write ``{"format": "carcassonne-rl/record", "version": 2, "game": NAME, ...}``
followed by their own fields (tile game: ``config``, ``draw_order``, ``message_order``,
``actions``; card game: ``config``, ``card_order``, ``actions``). Records saved before
version 2 carry their engine's own header and still load:

- tile game: ``{"format": "carcassonne-rl/tile-game", "version": 1, ...}``
- card game: ``{"game": "cardcassonne", "format": 1, ...}``
"""

from __future__ import annotations

from typing import Any

from .errors import SavedGameError

FORMAT = "carcassonne-rl/record"
VERSION = 2
#: per game, the header fields of its records before version 2
LEGACY_HEADERS: dict[str, dict[str, Any]] = {
    "carcassonne": {"format": "carcassonne-rl/tile-game", "version": 1},
    "cardcassonne": {"game": "cardcassonne", "format": 1},
}

__all__ = ["FORMAT", "LEGACY_HEADERS", "VERSION", "check_header", "game_of", "header"]


def header(game: str) -> dict[str, Any]:
    """The first fields of a record of ``game`` (the dict's order is the file's order)."""
    return {"format": FORMAT, "version": VERSION, "game": game}


def _legacy_game(record: dict) -> str | None:
    for game, fields in LEGACY_HEADERS.items():
        if all(k in record and _same(record[k], v) for k, v in fields.items()):
            return game
    return None


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type (``True`` is not the format ``1``)."""
    return type(a) is type(b) and a == b


def game_of(record: Any) -> str:
    """The game a record (a parsed JSON object) names; ``SavedGameError`` if it is none."""
    if not isinstance(record, dict):
        raise SavedGameError(f"a saved game must be a JSON object, got {type(record).__name__}")
    if "format" not in record:
        raise SavedGameError("saved game has no 'format' field")
    legacy = _legacy_game(record)
    if legacy is not None:
        return legacy
    for fields in LEGACY_HEADERS.values():  # an old format with another field wrong
        if _same(record["format"], fields["format"]):
            for key, value in fields.items():
                if key not in record:
                    raise SavedGameError(f"saved game has no {key!r} field")
                if not _same(record[key], value):
                    raise SavedGameError(
                        f"saved game field {key!r} is {record[key]!r:.60}, expected {value!r}"
                    )
    if not _same(record["format"], FORMAT):
        raise SavedGameError(
            f"saved game field 'format' is {record['format']!r:.60}, expected {FORMAT!r}"
        )
    for key in ("version", "game"):
        if key not in record:
            raise SavedGameError(f"saved game has no {key!r} field")
    if not _same(record["version"], VERSION):
        raise SavedGameError(
            f"saved game field 'version' is {record['version']!r:.60}; "
            f"this version of carcassonne-rl reads version {VERSION}"
        )
    return record["game"]


def check_header(record: Any, game: str) -> None:
    """``SavedGameError`` unless ``record`` has the header (new or old) of a ``game`` record."""
    found = game_of(record)
    if found != game:
        raise SavedGameError(f"saved game field 'game' is {found!r:.60}, expected {game!r}")
