"""The tile-game state: a position (:mod:`.position`) and the decision pending in it.

``new_game`` starts one; ``State`` applies actions (codes, objects or text notation) and
writes its record (``to_record`` / ``to_json``; loading is
:mod:`carcassonne_rl.games.carcassonne.record`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..errors import IllegalActionError
from ..record_header import header
from . import layout as L
from .action_codec import action_to_code, code_to_action, text_to_code
from .actions import (
    Action,
    FigureChoice,
    FollowerPlacement,
    FollowerRecall,
    MessageChoice,
    Placement,
)
from .config import (
    GameConfig,
    check_draw_order,
    check_message_order,
    fill_draw_pile,
    shuffled_deck,
)
from .illegal import explain
from .kernels import apply_action
from .position import PlacedFollower, Position, ScoreEvent

__all__ = ["PlacedFollower", "ScoreEvent", "State", "new_game", "to_record"]

NO_MESSAGES_ORDER = "12345678"

_ACTION_TYPES = (Placement, FollowerPlacement, FigureChoice, MessageChoice, FollowerRecall)


def new_game(
    config: GameConfig | None = None,
    draw_order: str | None = None,
    message_order: str | None = None,
    fill_pile: bool = False,
) -> State:
    """A new game: the start tile D at (0, 0) r0, seat 0 to place the first drawn tile.

    - ``draw_order``: the tiles drawn after the start tile, first drawn first (letters A-X,
      and Y for the labyrinth tile when the Labyrinth is on; spaces are ignored). The game
      ends after the last of them, unless ``fill_pile``.
    - ``fill_pile``: after the listed tiles, the rest of the draw pile follows in the order
      of the shuffle of ``config.seed`` (a scripted opening that goes on to a full game).
    - ``message_order``: the message stack (The Messages only), digits 1-8, top card first.

    Whatever is not fixed is shuffled by ``config.seed``. Bad input raises ``ValueError``.
    """
    config = config or GameConfig()
    if not isinstance(config, GameConfig):
        raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
    if not isinstance(fill_pile, bool):
        raise ValueError(f"fill_pile must be True or False, got {fill_pile!r}")
    deck, messages = shuffled_deck(config)
    if draw_order is not None:
        deck = check_draw_order(config, draw_order)
        if fill_pile:
            deck = fill_draw_pile(config, deck)
    elif fill_pile:
        raise ValueError("fill_pile needs a draw_order (without one the whole pile is shuffled)")
    if message_order is not None:
        messages = check_message_order(config, message_order)
    return State._start(config, deck, messages)


class State(Position):
    """A tile-game position and the decision pending in it (see docs/engine_api.md)."""

    __slots__ = ()

    def clone(self) -> State:
        return super().clone()  # type: ignore[return-value]

    def legal_actions(self) -> list[Action]:
        return [code_to_action(self, int(c)) for c in self.legal_action_codes()]

    def apply_code(self, code: int) -> None:
        status = apply_action(
            self._board, self._ints, self._tiles, self._segs, self._events, self._pool, code
        )
        if status:
            self._raise_for(int(code), status)
        self.history.append(int(code))

    def apply(self, action: Action | str | int) -> None:
        """Apply an action object, its text notation or its integer code."""
        if isinstance(action, str):
            code = text_to_code(self, action)
        elif isinstance(action, _ACTION_TYPES):
            code = action_to_code(self, action)
        elif isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            code = int(action)
        else:
            raise IllegalActionError(f"not an action: {action!r}")
        self.apply_code(code)

    def code_to_action(self, code: int) -> Action:
        """Interpret ``code`` in the pending decision."""
        return code_to_action(self, int(code))

    def action_to_code(self, action: Action) -> int:
        return action_to_code(self, action)

    def action_to_string(self, action: Action | int) -> str:
        if isinstance(action, (int, np.integer)):
            action = code_to_action(self, int(action))
        return str(action)

    def parse_action(self, text: str) -> int:
        """Text notation of an action of the pending decision -> its code."""
        return text_to_code(self, text)

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(to_record(self), indent=indent)

    def _raise_for(self, code: int, status: int) -> None:
        if status == L.ERR_OVER:
            raise IllegalActionError("the game is over: no action is pending")
        if status == L.ERR_LOG_FULL:
            raise RuntimeError("score log overflow (raise MAX_EVENTS / MAX_POOL in layout.py)")
        raise IllegalActionError(explain(self, code))


def to_record(state: State) -> dict[str, Any]:
    """The record of a game so far: enough to rebuild it exactly with ``record.replay``."""
    messages = state.message_order if state.config.messages else None
    replayed = new_game(state.config, state.draw_order, messages)
    actions = []
    for code in state.history:
        actions.append(replayed.action_to_string(code))
        replayed.apply_code(code)
    return {
        **header("carcassonne"),
        "config": state.config.to_dict(),
        "draw_order": state.draw_order,
        "message_order": messages or NO_MESSAGES_ORDER,
        "actions": actions,
    }
