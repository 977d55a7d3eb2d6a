"""Both games by name: the one list of game names, each game's seats, expansions, config
class and engine, a new game by name, the setup checks and the loader of a saved record.

Every room above takes its game choices and checks from here::

    from carcassonne_rl.games import registry

    registry.GAMES                                   # ("carcassonne", "cardcassonne")
    registry.check_setup("carcassonne", 3, ("messages",))   # ValueError if not a setup
    state = registry.new_game("cardcassonne", players=3, seed=7)
    state = registry.load_record(text)               # a saved game of either game
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import carcassonne, cardcassonne
from .carcassonne.config import PLAYER_COUNTS as TILE_PLAYER_COUNTS
from .errors import SavedGameError
from .record_header import game_of

GAMES = ("carcassonne", "cardcassonne")


@dataclass(frozen=True)
class GameSpec:
    """What the rooms above need to know of one game."""

    name: str
    engine: ModuleType  # new_game, GameConfig, replay, load_json, State
    players: tuple[int, ...]  # the seat counts it is played with
    expansions: tuple[str, ...]  # the expansion switches of its config (none: ())

    @property
    def config_class(self) -> type:
        return self.engine.GameConfig


SPECS: dict[str, GameSpec] = {
    "carcassonne": GameSpec("carcassonne", carcassonne, TILE_PLAYER_COUNTS, carcassonne.EXPANSIONS),
    "cardcassonne": GameSpec("cardcassonne", cardcassonne, cardcassonne.RULES.player_counts, ()),
}
#: every seat count some game is played with (e.g. a command line's ``--players`` choices)
PLAYER_COUNTS = tuple(sorted({n for spec in SPECS.values() for n in spec.players}))
#: the games that have expansions
EXPANSION_GAMES = tuple(name for name in GAMES if SPECS[name].expansions)

__all__ = [
    "EXPANSION_GAMES",
    "GAMES",
    "PLAYER_COUNTS",
    "SPECS",
    "GameSpec",
    "check_expansions",
    "check_game",
    "check_players",
    "check_setup",
    "game_spec",
    "load_record",
    "new_game",
]


def check_game(name: Any) -> str:
    """``name`` if it names a game, else ``ValueError``."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; expected one of {', '.join(GAMES)}")
    return name


def game_spec(name: str) -> GameSpec:
    """The :class:`GameSpec` of game ``name`` (``ValueError`` if there is none)."""
    return SPECS[check_game(name)]


def _span(counts: tuple[int, ...]) -> str:
    lo, hi = min(counts), max(counts)
    return f"{lo}-{hi}" if counts == tuple(range(lo, hi + 1)) else ", ".join(map(str, counts))


def check_players(name: str | None, players: Any) -> int:
    """``players`` if game ``name`` is played with that many seats (``None``: any game),
    else ``ValueError``."""
    counts = PLAYER_COUNTS if name is None else game_spec(name).players
    if isinstance(players, bool) or not isinstance(players, int) or players not in counts:
        raise ValueError(f"players must be {_span(counts)}, got {players!r}")
    return players


def check_expansions(name: str, expansions: Any) -> tuple[str, ...]:
    """The expansion names (a sequence, or one comma-separated string) if game ``name``
    has them all, else ``ValueError``."""
    spec = game_spec(name)
    if isinstance(expansions, str):
        expansions = [e for e in expansions.split(",") if e]
    names = tuple(expansions)
    if names and not spec.expansions:
        raise ValueError("expansions exist only for the tile game (carcassonne)")
    unknown = [e for e in names if e not in spec.expansions]
    if unknown:
        raise ValueError(f"unknown expansions {unknown}; available: {', '.join(spec.expansions)}")
    return names


def check_setup(name: str, players: Any, expansions: Any = ()) -> None:
    """``ValueError`` (one message) unless ``name``, ``players``, ``expansions`` is a setup
    of a game."""
    check_game(name)
    check_players(name, players)
    check_expansions(name, expansions)


def new_game(name: str, players: int = 2, seed: int | None = None, expansions: Any = ()) -> Any:
    """A fresh game of ``name``, dealt by ``seed`` (``None``: the engine's default, a fresh
    shuffle in the tile game, seed 0 in the card game), as the engine's own
    ``new_game(GameConfig(...))``."""
    check_players(check_game(name), players)
    names = check_expansions(name, expansions)
    spec = SPECS[name]
    kwargs: dict[str, Any] = {"players": players}
    if seed is not None:
        kwargs["seed"] = seed
    if spec.expansions:
        kwargs["expansions"] = names
    return spec.engine.new_game(spec.config_class(**kwargs))


def load_record(record: str | dict) -> Any:
    """The game a saved record (JSON text or its parsed dict) of either game replays to:
    the engine's state after its last action. Reads the record header of
    :mod:`carcassonne_rl.games.record_header` and the games' old headers; every problem
    raises ``SavedGameError`` (a ``ValueError``)."""
    if isinstance(record, (str, bytes, bytearray)):
        try:
            record = json.loads(record)
        except RecursionError:
            raise SavedGameError("saved game is not valid JSON: nested too deeply") from None
        except ValueError as err:  # bad JSON, or an int too long to read
            raise SavedGameError(f"saved game is not valid JSON: {err}") from None
    game = game_of(record)
    if not isinstance(game, str) or game not in GAMES:
        raise SavedGameError(
            f"saved game field 'game' is {game!r:.60}; expected one of {', '.join(GAMES)}"
        )
    return SPECS[game].engine.replay(record)
