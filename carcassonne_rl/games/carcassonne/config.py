"""Configuration of a tile game and the deck and message stack it is dealt from."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .tiles import BOX_COUNTS, LABYRINTH_TILE, LETTERS, START_TILE

EXPANSIONS = ("messages", "labyrinth")
PLAYER_COUNTS = (2, 3, 4, 5)
FIGURE_CHOICES = ("player", "auto")


@dataclass(frozen=True)
class GameConfig:
    """A tile-game configuration.

    - ``players``: 2 to 5.
    - ``seed``: seed of the tile shuffle and of the message stack (``None``: fresh entropy).
    - ``expansions``: any of ``"messages"`` (The Messages) and ``"labyrinth"`` (the Labyrinth).
    - ``labyrinth_tiles``: labyrinth tiles shuffled in when the Labyrinth is on (default 2,
      as in the box; docs/rules/carcassonne.md section 5).
    - ``figure_choice``: under The Messages, ``"player"`` (default, the faithful game: the
      receiver of points chooses the figure that moves, an action) or ``"auto"`` (the engine
      chooses by the rule documented in ``scoring_kernels.auto_figure``).
    """

    players: int = 2
    seed: int | None = None
    expansions: tuple[str, ...] = field(default=())
    labyrinth_tiles: int = 2
    figure_choice: str = "player"

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"players must be an int from 2 to 5, got {self.players!r}")
        if self.players not in PLAYER_COUNTS:
            raise ValueError(f"players must be from 2 to 5, got {self.players}")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0
        ):
            raise ValueError(f"seed must be a non-negative int or None, got {self.seed!r}")
        expansions = self.expansions
        if isinstance(expansions, str):
            expansions = tuple(e for e in expansions.split(",") if e)
        expansions = tuple(expansions)
        unknown = [e for e in expansions if e not in EXPANSIONS]
        if unknown:
            raise ValueError(f"unknown expansions {unknown}; available: {', '.join(EXPANSIONS)}")
        # canonical: sorted, no duplicates (so equal configs compare and hash equal)
        object.__setattr__(self, "expansions", tuple(e for e in EXPANSIONS if e in expansions))
        if (
            isinstance(self.labyrinth_tiles, bool)
            or not isinstance(self.labyrinth_tiles, int)
            or not 0 <= self.labyrinth_tiles <= 8
        ):
            raise ValueError(
                f"labyrinth_tiles must be an int from 0 to 8, got {self.labyrinth_tiles!r}"
            )
        if self.figure_choice not in FIGURE_CHOICES:
            raise ValueError(
                f"figure_choice must be one of {FIGURE_CHOICES}, got {self.figure_choice!r}"
            )

    @property
    def messages(self) -> bool:
        return "messages" in self.expansions

    @property
    def labyrinth(self) -> bool:
        return "labyrinth" in self.expansions

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "seed": self.seed,
            "expansions": list(self.expansions),
            "labyrinth_tiles": self.labyrinth_tiles,
            "figure_choice": self.figure_choice,
        }

    @classmethod
    def from_dict(cls, data: dict) -> GameConfig:
        unknown = set(data) - {"players", "seed", "expansions", "labyrinth_tiles", "figure_choice"}
        if unknown:
            raise ValueError(f"unknown config fields {sorted(unknown)}")
        data = dict(data)
        if "expansions" in data:
            if not isinstance(data["expansions"], (list, tuple)):
                raise ValueError("config 'expansions' must be a list of names")
            data["expansions"] = tuple(data["expansions"])
        return cls(**data)


def draw_pile_counts(config: GameConfig) -> dict[str, int]:
    """Tiles of the draw pile: the box less the start tile, plus the labyrinths if enabled."""
    return dict(_pile_counts(config.labyrinth_tiles if config.labyrinth else 0))


@lru_cache(maxsize=16)
def _pile_counts(labyrinth_tiles: int) -> tuple[tuple[str, int], ...]:
    counts = dict(BOX_COUNTS)
    counts[START_TILE] -= 1
    counts[LABYRINTH_TILE] = labyrinth_tiles
    return tuple(counts.items())


@lru_cache(maxsize=16)
def _pile_letters(labyrinth_tiles: int) -> np.ndarray:
    letters = "".join(c * n for c, n in _pile_counts(labyrinth_tiles))
    return np.frombuffer(letters.encode(), np.uint8)


def shuffled_deck(config: GameConfig) -> tuple[str, str]:
    """(draw pile, message stack) shuffled reproducibly by ``config.seed``."""
    rng = np.random.default_rng(config.seed)
    letters = _pile_letters(config.labyrinth_tiles if config.labyrinth else 0)
    pile = letters[rng.permutation(len(letters))].tobytes().decode()
    messages = "".join(str(m) for m in rng.permutation(8) + 1) if config.messages else "12345678"
    return pile, messages


def check_draw_order(config: GameConfig, draw_order: str) -> str:
    """Validate a fixed draw order (tile letters after the start tile); returns it upper-cased."""
    if not isinstance(draw_order, str):
        raise ValueError(
            f"draw_order must be a string of tile letters, got {type(draw_order).__name__}"
        )
    order = draw_order.replace(" ", "").upper()
    bad = sorted({c for c in order if c not in LETTERS})
    if bad:
        raise ValueError(f"draw_order has unknown tile letters {bad}; tiles are {LETTERS}")
    if LABYRINTH_TILE in order and not config.labyrinth:
        raise ValueError(
            f"draw_order has the labyrinth tile {LABYRINTH_TILE!r}, but the Labyrinth is not "
            "on: add 'labyrinth' to the config's expansions"
        )
    limits = draw_pile_counts(config)
    over = {c: n for c, n in Counter(order).items() if n > limits[c]}
    if over:
        detail = ", ".join(f"{c} x{n} (the game has {limits[c]})" for c, n in sorted(over.items()))
        raise ValueError(f"draw_order uses more tiles than the game holds: {detail}")
    return order


def fill_draw_pile(config: GameConfig, order: str) -> str:
    """``order`` (already checked) followed by the rest of the draw pile, in the order of
    the shuffle of ``config.seed`` (so a scripted opening can go on to a full game)."""
    left = Counter(order)
    rest = []
    for letter in shuffled_deck(config)[0]:
        if left[letter]:
            left[letter] -= 1
        else:
            rest.append(letter)
    return order + "".join(rest)


def check_message_order(config: GameConfig, message_order: str) -> str:
    """Validate a message stack order: the digits 1-8, each once, top card first."""
    if not config.messages:
        raise ValueError(
            "message_order is given, but The Messages are not on: add 'messages' to the "
            "config's expansions"
        )
    if not isinstance(message_order, str) or sorted(message_order) != list("12345678"):
        raise ValueError(
            f"message_order must list the cards 1-8 once each (e.g. '31852467'), "
            f"got {message_order!r}"
        )
    return message_order
