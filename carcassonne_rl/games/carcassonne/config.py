"""Configuration of a tile game and the deck it is dealt from."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

import numpy as np

from .tiles import BOX_COUNTS, LETTERS, START_TILE


@dataclass(frozen=True)
class GameConfig:
    """Players (2-5) and the seed of the tile shuffle (``None``: fresh entropy)."""

    players: int = 2
    seed: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"players must be an int from 2 to 5, got {self.players!r}")
        if not 2 <= self.players <= 5:
            raise ValueError(f"players must be from 2 to 5, got {self.players}")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0
        ):
            raise ValueError(f"seed must be a non-negative int or None, got {self.seed!r}")

    def to_dict(self) -> dict:
        return asdict(self)


def draw_pile_counts() -> dict[str, int]:
    """Tiles of the draw pile: the box less the start tile."""
    counts = dict(BOX_COUNTS)
    counts[START_TILE] -= 1
    return counts


def shuffled_deck(seed: int | None) -> str:
    """The 71 tiles after the start tile, shuffled reproducibly by ``seed``."""
    letters = "".join(letter * n for letter, n in draw_pile_counts().items())
    order = np.random.default_rng(seed).permutation(len(letters))
    return "".join(letters[i] for i in order)


def check_draw_order(draw_order: str) -> str:
    """Validate a fixed draw order (tile letters after the start tile); returns it upper-cased."""
    if not isinstance(draw_order, str):
        raise ValueError(f"draw_order must be a string of tile letters, got {type(draw_order)}")
    order = draw_order.replace(" ", "").upper()
    bad = sorted({c for c in order if c not in LETTERS})
    if bad:
        raise ValueError(f"draw_order has unknown tile letters {bad}; tiles are {LETTERS}")
    limits = draw_pile_counts()
    over = {c: n for c, n in Counter(order).items() if n > limits[c]}
    if over:
        detail = ", ".join(f"{c} x{n} (the box has {limits[c]})" for c, n in sorted(over.items()))
        raise ValueError(f"draw_order uses more tiles than the box holds: {detail}")
    return order
