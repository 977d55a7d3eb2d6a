"""Loading a record (:mod:`.record`): the game rebuilt by replaying its actions."""

from __future__ import annotations

import json

from ..errors import SavedGameError
from ..record_header import check_header
from .actions import parse_action_code
from .config import GameConfig
from .record import CONFIG_FIELDS
from .rules_table import RulesTable
from .state import State, new_game


def _field(d: dict, name: str, kind: type, where: str = "record"):
    if name not in d:
        raise SavedGameError(f"{where} has no field {name!r}")
    v = d[name]
    if not isinstance(v, kind) or isinstance(v, bool):
        raise SavedGameError(f"{where} field {name!r} must be {kind.__name__}, got {v!r:.60}")
    return v


def replay(record: dict | str) -> State:
    """A state rebuilt from a record (dict or JSON text) by replaying its actions."""
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except RecursionError:
            raise SavedGameError("saved game is not valid JSON: nested too deeply") from None
        except ValueError as e:  # bad JSON, or an int too long to read
            raise SavedGameError(f"saved game is not valid JSON: {e}") from None
    check_header(record, "cardcassonne")  # version 2, or the card game's version 1
    cfg = _field(record, "config", dict)
    unknown = sorted(set(cfg) - CONFIG_FIELDS)
    if unknown:
        raise SavedGameError(f"field 'config' has unknown fields {unknown}")
    players = _field(cfg, "players", int, "config")
    seed = _field(cfg, "seed", int, "config")
    try:
        rules = RulesTable.from_dict(cfg["rules"]) if "rules" in cfg else None
        config = GameConfig(players, seed, rules) if rules else GameConfig(players, seed)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise SavedGameError(f"field 'config' is invalid: {e}") from None
    order = _field(record, "card_order", list)
    try:
        state = new_game(config, order)
    except ValueError as e:
        raise SavedGameError(f"field 'card_order' is invalid: {e}") from None
    actions = _field(record, "actions", list)
    for i, a in enumerate(actions):
        try:
            if isinstance(a, str):
                code = parse_action_code(a)
            elif isinstance(a, int) and not isinstance(a, bool):
                code = a
            else:
                raise SavedGameError(f"must be a notation string, got {a!r}")
            state.apply_code(code)
        except ValueError as e:
            raise SavedGameError(f"field 'actions'[{i}] ({a!r}): {e}") from None
    return state


def load_json(text: str) -> State:
    """Load a game saved with ``state.to_json()``."""
    if not isinstance(text, str):
        raise SavedGameError(f"load_json expects JSON text, got {type(text).__name__}")
    return replay(text)
