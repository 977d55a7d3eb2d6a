"""Integer action codes <-> action objects, in the context of the pending decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import IllegalActionError
from . import layout as L
from .actions import (
    FORMS,
    Action,
    FigureChoice,
    FollowerPlacement,
    FollowerRecall,
    MessageChoice,
    Placement,
    parse_text,
)
from .tiles import LETTERS, MAX_SEGMENTS, SEGMENT_NAMES, SEGMENT_OF_NAME

if TYPE_CHECKING:
    from .position import Position

# The kind of action each phase expects.
EXPECTED = {
    L.PHASE_TILE: Placement,
    L.PHASE_FOLLOWER: FollowerPlacement,
    L.PHASE_FIGURE: FigureChoice,
    L.PHASE_MESSAGE: MessageChoice,
    L.PHASE_MSG8: FollowerRecall,
}


def encode_placement(x: int, y: int, rotation: int) -> int:
    return ((y + L.OFF) * L.SIZE + x + L.OFF) * 4 + rotation


def decode_placement(code: int) -> tuple[int, int, int]:
    cell, r = divmod(int(code), 4)
    y, x = divmod(cell, L.SIZE)
    return x - L.OFF, y - L.OFF, r


def code_to_action(state: Position, code: int) -> Action:
    """The action object of ``code`` in the pending decision (legal or not)."""
    phase = state._ints[L.R_PHASE]
    if phase == L.PHASE_TILE:
        x, y, r = decode_placement(code)
        return Placement(LETTERS[state._ints[L.R_TILE]], x, y, r)
    if phase == L.PHASE_FOLLOWER:
        if code == 0:
            return FollowerPlacement(None)
        t, r = state._last_tile()
        names = SEGMENT_NAMES[t][r]
        if not 1 <= code <= len(names):
            raise IllegalActionError(f"follower code {code} out of range 0..{len(names)}")
        return FollowerPlacement(names[code - 1])
    if phase == L.PHASE_FIGURE:
        if code not in (0, 1):
            raise IllegalActionError(f"figure code must be 0 (A) or 1 (B), got {code}")
        return FigureChoice("AB"[code])
    if phase == L.PHASE_MESSAGE:
        if code not in (0, 1):
            raise IllegalActionError(f"message code must be 0 (points) or 1 (carry), got {code}")
        return MessageChoice(bool(code))
    if phase == L.PHASE_MSG8:
        slot, k = divmod(int(code), MAX_SEGMENTS)
        if not 0 <= slot < state._ints[L.R_NSLOTS] or state._segs[code, L.S_KIND] < 0:
            raise IllegalActionError(f"recall code {code} names no placed feature")
        t, r, x, y = (int(v) for v in state._tiles[slot])
        return FollowerRecall(x, y, SEGMENT_NAMES[t][r][k])
    raise IllegalActionError("the game is over: no action is pending")


def text_to_code(state: Position, text: str) -> int:
    """The code of an action written in text, for the pending decision."""
    phase = state._ints[L.R_PHASE]
    if phase == L.PHASE_OVER:
        parse_text(text)  # unreadable text is still a NotationError
        raise IllegalActionError(f"the game is over: cannot apply {text!r}")
    action = parse_text(text)
    expected = EXPECTED[phase]
    if not isinstance(action, expected):
        raise IllegalActionError(
            f"{text!r} is a {type(action).__name__}, but the pending decision is "
            f"{L.PHASE_NAMES[phase]} (player {state.current_player}): write {FORMS[expected]}"
        )
    return action_to_code(state, action)


def action_to_code(state: Position, action: Action) -> int:
    """The code of an action object for the pending decision (legality is checked later)."""
    phase = state._ints[L.R_PHASE]
    if isinstance(action, Placement) and phase == L.PHASE_TILE:
        tile = LETTERS[state._ints[L.R_TILE]]
        if action.tile and action.tile != tile:
            raise IllegalActionError(f"'{action}': the tile to place is {tile}, not {action.tile}")
        if max(abs(action.x), abs(action.y)) >= L.OFF:
            raise IllegalActionError(
                f"'{action}': position ({action.x}, {action.y}) is off the board"
            )
        return encode_placement(action.x, action.y, action.rotation)
    if isinstance(action, FollowerPlacement) and phase == L.PHASE_FOLLOWER:
        if action.location is None:
            return 0
        t, r = state._last_tile()
        k = SEGMENT_OF_NAME[t][r].get(action.location)
        if k is None:
            x, y = (int(v) for v in state._tiles[state._ints[L.R_LAST], 2:4])
            raise IllegalActionError(
                f"tile {LETTERS[t]} r{r} at {x},{y} has no feature {action.location!r}; "
                f"its features: {', '.join(SEGMENT_NAMES[t][r])}"
            )
        return k + 1
    if isinstance(action, FigureChoice) and phase == L.PHASE_FIGURE:
        return "AB".index(action.figure)
    if isinstance(action, MessageChoice) and phase == L.PHASE_MESSAGE:
        return int(action.carry_out)
    if isinstance(action, FollowerRecall) and phase == L.PHASE_MSG8:
        found = state.tile_at(action.x, action.y)
        if found is None:
            raise IllegalActionError(f"'{action}': no tile at {action.x},{action.y}")
        slot = int(state._board[(action.y + L.OFF) * L.SIZE + action.x + L.OFF])
        t, r = int(state._tiles[slot, 0]), int(state._tiles[slot, 1])
        k = SEGMENT_OF_NAME[t][r].get(action.location)
        if k is None:
            raise IllegalActionError(f"'{action}': that tile has no feature {action.location!r}")
        return slot * MAX_SEGMENTS + k
    raise IllegalActionError(
        f"'{action}' is a {type(action).__name__}, but the pending decision is "
        f"{L.PHASE_NAMES[phase]}"
    )
