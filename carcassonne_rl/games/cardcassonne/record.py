"""Records: config + card order + actions (read back by :mod:`.replay`)::

    {"format": "carcassonne-rl/record", "version": 2, "game": "cardcassonne",
     "config": {"players": 2, "seed": 0},          # plus "rules" if not the default table
     "card_order": ["R1", "AJ", ...],               # 130 notations, top of the pile first
     "actions": ["setup G", "play R1 B down", ...]} # notations (integer codes also accepted)

``State.to_json()`` writes it; ``load_json`` reads it back, and records saved with the
card game's version 1 header (``{"game": "cardcassonne", "format": 1, ...}``) too
(:mod:`carcassonne_rl.games.record_header`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..errors import SavedGameError
from ..record_header import header
from .actions import action_text
from .cards import KIND_NAMES

if TYPE_CHECKING:
    from .table import CardTable

CONFIG_FIELDS = frozenset({"players", "seed", "rules"})


def record_of(state: CardTable) -> dict:
    """The replayable record of a game (raises for determinized states)."""
    if not state.replayable:
        raise SavedGameError("this state was made by determinize() and has no replayable record")
    return {
        **header("cardcassonne"),
        "config": state.config.to_dict(),
        "card_order": [KIND_NAMES[k] for k in state.card_order],
        "actions": [action_text(c) for c in state.history],
    }


def to_json(state: CardTable) -> str:
    return json.dumps(record_of(state))
