"""Action objects, the integer action-code space and the text notation.

Action codes (fixed, ``NUM_ACTIONS = 206`` for every player count):

=========  ===========================================  =========================
codes      meaning                                      notation
=========  ===========================================  =========================
0-95       play card kind ``k`` face down to row ``r``   ``play R1 G down``
           (code = ``k * 4 + r``)
96-191     play card kind ``k`` face up to row ``r``     ``play R1 R up``
           (code = ``96 + k * 4 + r``)
192-195    place the big follower on row ``r``           ``follower G``
196-199    setup: put the turned-up joker on row ``r``   ``setup G``
200-203    assign the animal joker to species ``s``      ``assign sheep``
204        keep the misplaced animal/building card       ``keep``
205        take 10 points for it (card removed)          ``ten``
=========  ===========================================  =========================

Rows ``r`` and species ``s`` use the colour order Y R G B (species: chickens, sheep, pigs,
horses).  Card kinds are listed in :mod:`.cards`.  Parsing is case-insensitive and also
accepts: the leading ``play`` omitted (``R1 G down``), ``fd``/``fu`` for down/up, row and
colour names, singular species names or colour letters after ``assign``, ``10`` for ``ten``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NotationError
from .cards import KIND_NAMES, NUM_KINDS, card_name, parse_card, parse_row, row_name
from .rules_table import COLOURS, RULES

PLAY_DOWN = 0
PLAY_UP = 96
FOLLOWER = 192
SETUP_ROW = 196
ASSIGN = 200
KEEP = 204
TEN = 205
NUM_ACTIONS = 206


@dataclass(frozen=True)
class Action:
    """One action; ``code`` identifies it, the other fields describe it."""

    code: int
    verb: str  # "play", "follower", "setup", "assign", "keep", "ten"
    card: int | None = None
    row: int | None = None
    face_down: bool | None = None
    species: int | None = None

    def __str__(self) -> str:
        return action_text(self.code)


def _make(code: int) -> Action:
    if code < FOLLOWER:
        down = code < PLAY_UP
        c = code if down else code - PLAY_UP
        return Action(code, "play", card=c >> 2, row=c & 3, face_down=down)
    if code < SETUP_ROW:
        return Action(code, "follower", row=code - FOLLOWER)
    if code < ASSIGN:
        return Action(code, "setup", row=code - SETUP_ROW)
    if code < KEEP:
        return Action(code, "assign", species=code - ASSIGN)
    return Action(code, "keep" if code == KEEP else "ten")


ACTIONS: tuple[Action, ...] = tuple(_make(c) for c in range(NUM_ACTIONS))


def action_text(code: int) -> str:
    """Canonical notation of an action code."""
    if not 0 <= code < NUM_ACTIONS:
        raise NotationError(f"action code {code} out of range 0..{NUM_ACTIONS - 1}")
    a = ACTIONS[code]
    if a.verb == "play":
        face = "down" if a.face_down else "up"
        return f"play {card_name(a.card)} {row_name(a.row)} {face}"
    if a.verb in ("follower", "setup"):
        return f"{a.verb} {row_name(a.row)}"
    if a.verb == "assign":
        return f"assign {RULES.species_by_colour[a.species]}"
    return a.verb


_SPECIES: dict[str, int] = {}
for _i, _name in enumerate(RULES.species_by_colour):
    _SPECIES[_name] = _i
    _SPECIES[COLOURS[_i].lower()] = _i
_SPECIES.update({"chicken": 0, "pig": 2, "horse": 3})


def parse_species(text: str) -> int:
    s = _SPECIES.get(text.strip().lower())
    if s is None:
        raise NotationError(
            f"unknown species {text!r}: expected one of {', '.join(RULES.species_by_colour)}"
        )
    return s


def parse_action_code(text: str) -> int:
    """Action code of a notation string (state-independent)."""
    if not isinstance(text, str):
        raise NotationError(f"action notation must be a string, got {type(text).__name__}")
    words = text.strip().split()
    if not words:
        raise NotationError("empty action text")
    verb = words[0].lower()
    try:
        if verb in ("keep",) and len(words) == 1:
            return KEEP
        if verb in ("ten", "10") and len(words) == 1:
            return TEN
        if verb in ("follower", "setup") and len(words) == 2:
            base = FOLLOWER if verb == "follower" else SETUP_ROW
            return base + parse_row(words[1])
        if verb == "assign" and len(words) == 2:
            return ASSIGN + parse_species(words[1])
        if verb == "play":
            words = words[1:]
        if len(words) == 3:
            words[2] = words[2].lower()
        if len(words) == 3:
            kind = parse_card(words[0])
            row = parse_row(words[1])
            face = words[2]
            if face in ("down", "fd", "d"):
                return PLAY_DOWN + kind * 4 + row
            if face in ("up", "fu", "u"):
                return PLAY_UP + kind * 4 + row
            raise NotationError(f"face must be 'down' or 'up', got {words[2]!r}")
    except NotationError as e:
        raise NotationError(f"cannot parse action {text!r}: {e}") from None
    raise NotationError(
        f"cannot parse action {text!r}: expected 'play <card> <row> down|up', "
        "'follower <row>', 'setup <row>', 'assign <species>', 'keep' or 'ten'"
    )


assert len(KIND_NAMES) == NUM_KINDS
