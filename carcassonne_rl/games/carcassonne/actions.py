"""Action objects of the tile game and their text notation (see docs/engine_api.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import NotationError
from .tiles import LETTERS


@dataclass(frozen=True)
class Placement:
    """Place the drawn tile ``tile`` at (x, y) with ``rotation`` clockwise quarter turns."""

    tile: str
    x: int
    y: int
    rotation: int

    def __str__(self) -> str:
        return f"{self.tile} {self.x},{self.y} r{self.rotation}"


@dataclass(frozen=True)
class FollowerPlacement:
    """Place a follower on a feature of the tile just placed (``location``), or none."""

    location: str | None

    def __str__(self) -> str:
        return self.location or "none"


Action = Placement | FollowerPlacement

_PLACEMENT = re.compile(r"^\s*(?:([A-Za-z])\s+)?(-?\d+)\s*,\s*(-?\d+)\s+r([0-3])\s*$")
_LOCATION = re.compile(
    r"^\s*(?:(road|city):(N|E|S|W)|field:(NNW|NNE|ENE|ESE|SSE|SSW|WSW|WNW)|(cloister))\s*$"
)


def looks_like_placement(text: str) -> bool:
    return _PLACEMENT.match(text) is not None


def parse_placement(text: str) -> tuple[str | None, int, int, int]:
    """``"U 1,0 r1"`` (or ``"1,0 r1"``) -> (letter or None, x, y, rotation)."""
    m = _PLACEMENT.match(text)
    if m is None:
        raise NotationError(
            f"cannot read tile placement {text!r}: expected '<letter> <x>,<y> r<0-3>', "
            "e.g. 'U 1,0 r1'"
        )
    letter = m.group(1).upper() if m.group(1) else None
    if letter is not None and letter not in LETTERS:
        raise NotationError(f"unknown tile letter {letter!r} in {text!r}")
    return letter, int(m.group(2)), int(m.group(3)), int(m.group(4))


def parse_location(text: str) -> str | None:
    """``"road:E"``, ``"field:SSE"``, ``"cloister"``, ``"none"``/``"pass"`` -> name or None."""
    t = text.strip()
    if t in ("none", "pass"):
        return None
    if _LOCATION.match(t) is None:
        raise NotationError(
            f"cannot read follower location {text!r}: expected 'none', 'cloister', "
            "'road:<N|E|S|W>', 'city:<N|E|S|W>' or 'field:<NNW|NNE|ENE|ESE|SSE|SSW|WSW|WNW>'"
        )
    return t
