"""Action objects of the tile game and their text notation (see docs/engine_api.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import NotationError
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


@dataclass(frozen=True)
class FigureChoice:
    """The Messages: the receiver of points moves figure ``"A"`` or ``"B"``."""

    figure: str

    def __str__(self) -> str:
        return f"figure:{self.figure}"


@dataclass(frozen=True)
class MessageChoice:
    """The Messages: carry out the message card drawn, or take 2 points instead."""

    carry_out: bool

    def __str__(self) -> str:
        return "message:carry" if self.carry_out else "message:points"


@dataclass(frozen=True)
class FollowerRecall:
    """Message 8: the player's follower at (x, y) on ``location`` is scored and taken back."""

    x: int
    y: int
    location: str

    def __str__(self) -> str:
        return f"recall {self.x},{self.y} {self.location}"


Action = Placement | FollowerPlacement | FigureChoice | MessageChoice | FollowerRecall

_PLACEMENT = re.compile(r"^\s*(?:([A-Za-z])\s+)?(-?\d+)\s*,\s*(-?\d+)\s+r([0-3])\s*$")
_LOC = r"(?:(?:road|city):(?:N|E|S|W)|field:(?:NNW|NNE|ENE|ESE|SSE|SSW|WSW|WNW)|cloister|labyrinth)"
_LOCATION = re.compile(rf"^\s*({_LOC}|none|pass)\s*$")
_FIGURE = re.compile(r"^\s*figure:([AB])\s*$")
_MESSAGE = re.compile(r"^\s*message:(carry|points)\s*$")
_RECALL = re.compile(rf"^\s*recall\s+(-?\d+)\s*,\s*(-?\d+)\s+({_LOC})\s*$")

# What the text of each kind of action looks like, for error messages.
FORMS = {
    Placement: "'<letter> <x>,<y> r<0-3>' (e.g. 'U 1,0 r1')",
    FollowerPlacement: "'none', 'cloister', 'labyrinth', 'road:<N|E|S|W>', 'city:<N|E|S|W>' "
    "or 'field:<NNW|NNE|ENE|ESE|SSE|SSW|WSW|WNW>'",
    FigureChoice: "'figure:A' or 'figure:B'",
    MessageChoice: "'message:carry' or 'message:points'",
    FollowerRecall: "'recall <x>,<y> <location>' (e.g. 'recall 1,0 road:E')",
}


def parse_text(text: str) -> Action:
    """Read any action from its text; the pending decision is checked by the state."""
    if not isinstance(text, str):
        raise NotationError(f"action text must be a string, got {text!r}")
    if m := _PLACEMENT.match(text):
        letter = m.group(1).upper() if m.group(1) else ""
        if letter and letter not in LETTERS:
            raise NotationError(f"unknown tile letter {letter!r} in {text!r}")
        return Placement(letter, int(m.group(2)), int(m.group(3)), int(m.group(4)))
    if m := _LOCATION.match(text):
        loc = m.group(1)
        return FollowerPlacement(None if loc in ("none", "pass") else loc)
    if m := _FIGURE.match(text):
        return FigureChoice(m.group(1))
    if m := _MESSAGE.match(text):
        return MessageChoice(m.group(1) == "carry")
    if m := _RECALL.match(text):
        return FollowerRecall(int(m.group(1)), int(m.group(2)), m.group(3))
    forms = "; ".join(FORMS.values())
    raise NotationError(f"cannot read action {text!r}; actions are written {forms}")
