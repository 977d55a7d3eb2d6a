"""Why an action code is illegal: the messages of ``IllegalActionError``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import layout as L
from .action_codec import code_to_action, decode_placement
from .tiles import LETTERS, SEGMENT_NAMES, SIDES, TILE_TYPES, TYPE_OF_LETTER

if TYPE_CHECKING:
    from .position import Position

_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))
_EDGE_NAMES = {"C": "city", "R": "road", "F": "field"}


def explain(state: Position, code: int) -> str:
    """A sentence naming what makes ``code`` illegal in the pending decision."""
    phase = state._ints[L.R_PHASE]
    if phase == L.PHASE_TILE:
        return _placement_problem(state, code)
    if phase == L.PHASE_FOLLOWER:
        return _follower_problem(state, code)
    try:
        action = code_to_action(state, code)
    except ValueError as err:
        return str(err)
    legal = ", ".join(str(code_to_action(state, int(c))) for c in state.legal_action_codes())
    return f"'{action}' is not legal now ({L.PHASE_NAMES[phase]}); legal: {legal}"


def _placement_problem(state: Position, code: int) -> str:
    tile = LETTERS[state._ints[L.R_TILE]]
    if code < 0 or code >= L.SIZE * L.SIZE * 4:
        return f"placement code {code} is out of range"
    x, y, r = decode_placement(code)
    where = f"tile {tile} at {x},{y} r{r}"
    if max(abs(x), abs(y)) >= L.OFF - 1:
        return f"{where}: off the board"
    here = state.tile_at(x, y)
    if here is not None:
        return f"{where}: the cell is already occupied by {here[0]}"
    edges = TILE_TYPES[TYPE_OF_LETTER[tile]].edges
    for s, (dx, dy) in enumerate(_STEPS):
        other = state.tile_at(x + dx, y + dy)
        if other is None:
            continue
        mine = edges[(s - r) % 4]
        letter, orot = other
        theirs = TILE_TYPES[TYPE_OF_LETTER[letter]].edges[((s + 2) % 4 - orot) % 4]
        if mine != theirs:
            return (
                f"{where}: its {SIDES[s]} side is {_EDGE_NAMES[mine]} but the neighbouring "
                f"{letter} at {x + dx},{y + dy} shows {_EDGE_NAMES[theirs]} there"
            )
    if all(state.tile_at(x + dx, y + dy) is None for dx, dy in _STEPS):
        return f"{where}: does not touch any placed tile edge to edge"
    return f"{where}: not a legal placement"


def _follower_problem(state: Position, code: int) -> str:
    t, r = state._last_tile()
    names = SEGMENT_NAMES[t][r]
    p = state.current_player
    if not 0 <= code <= len(names):
        return f"follower code {code} out of range 0..{len(names)}"
    if state.followers_left[p] == 0:
        return f"player {p} has no follower left to place on {names[code - 1]}"
    return f"{names[code - 1]}: a follower already stands on that feature"
