"""Card kinds of Cardcassonne and their text notation.

There are 24 card kinds (130 cards).  Coloured kinds are ``colour * 5 + type`` with colour
``Y R G B`` (rows 0-3) and type ``1 2 3`` (person value 1-3), ``H`` (building, "house") and
``A`` (animal): notation ``Y1``, ``R3``, ``GH``, ``BA``.  Jokers: ``DR`` dragon (20),
``FA`` fairy (21), ``AJ`` animal joker (22), ``BJ`` building joker (23).
"""

from __future__ import annotations

from ..errors import NotationError
from .rules_table import COLOUR_NAMES, COLOURS, ROW_NAMES

NUM_KINDS = 24
NUM_ROWS = 4
TOTAL_CARDS = 130

T_P1, T_P2, T_P3, T_BUILDING, T_ANIMAL = range(5)
DRAGON, FAIRY, ANIMAL_JOKER, BUILDING_JOKER = 20, 21, 22, 23

_TYPE_LETTERS = ("1", "2", "3", "H", "A")
KIND_NAMES: tuple[str, ...] = tuple(c + t for c in COLOURS for t in _TYPE_LETTERS) + (
    "DR",
    "FA",
    "AJ",
    "BJ",
)
KIND_COUNTS: tuple[int, ...] = (8, 5, 3, 5, 9) * 4 + (1, 1, 4, 4)
assert sum(KIND_COUNTS) == TOTAL_CARDS

# Per kind: colour (-1 for jokers), person value (0 if none), flags.
KIND_COLOUR: tuple[int, ...] = tuple(k // 5 if k < 20 else -1 for k in range(NUM_KINDS))
PERSON_VALUE: tuple[int, ...] = tuple(
    (k % 5) + 1 if k < 20 and k % 5 <= T_P3 else 0 for k in range(NUM_KINDS)
)
IS_ANIMAL: tuple[bool, ...] = tuple(k < 20 and k % 5 == T_ANIMAL for k in range(NUM_KINDS))
IS_BUILDING: tuple[bool, ...] = tuple(k < 20 and k % 5 == T_BUILDING for k in range(NUM_KINDS))
IS_JOKER: tuple[bool, ...] = tuple(k >= 20 for k in range(NUM_KINDS))

_KIND_BY_NAME = {n: i for i, n in enumerate(KIND_NAMES)}
_ROW_BY_NAME: dict[str, int] = {}
for _i in range(NUM_ROWS):
    for _name in (COLOURS[_i], COLOUR_NAMES[_i], ROW_NAMES[_i]):
        _ROW_BY_NAME[_name.lower()] = _i


def card_name(kind: int) -> str:
    """Notation of a card kind, e.g. ``R2``."""
    return KIND_NAMES[kind]


def parse_card(text: str) -> int:
    """Card kind from its notation (case-insensitive)."""
    k = _KIND_BY_NAME.get(text.strip().upper())
    if k is None:
        raise NotationError(f"unknown card {text!r}: expected one of {', '.join(KIND_NAMES)}")
    return k


def row_name(row: int) -> str:
    return COLOURS[row]


def parse_row(text: str) -> int:
    """Row index from ``Y R G B``, a colour name or a row name (cloister, road, field, city)."""
    r = _ROW_BY_NAME.get(text.strip().lower())
    if r is None:
        raise NotationError(
            f"unknown row {text!r}: expected Y, R, G, B (or yellow/red/green/blue, "
            "cloister/road/field/city)"
        )
    return r


def standard_deck() -> list[int]:
    """The 130 card kinds in a fixed (unshuffled) order."""
    deck: list[int] = []
    for k, n in enumerate(KIND_COUNTS):
        deck.extend([k] * n)
    return deck


def parse_card_order(order: list[str] | list[int]) -> list[int]:
    """Validate an explicit order of all 130 cards (notations or kind ints) -> kinds."""
    if len(order) != TOTAL_CARDS:
        raise NotationError(f"card_order must list {TOTAL_CARDS} cards, got {len(order)}")
    kinds = []
    for c in order:
        if isinstance(c, str):
            kinds.append(parse_card(c))
        elif isinstance(c, int) and not isinstance(c, bool) and 0 <= c < NUM_KINDS:
            kinds.append(int(c))
        else:
            raise NotationError(f"bad card {c!r} in card_order")
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    for k in range(NUM_KINDS):
        if counts[k] != KIND_COUNTS[k]:
            raise NotationError(
                f"card_order has {counts[k]} x {KIND_NAMES[k]}, the game has {KIND_COUNTS[k]}"
            )
    return kinds
