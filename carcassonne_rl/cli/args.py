"""Argument types shared by the ``carcassonne-rl`` sub-commands."""

from __future__ import annotations

import argparse
import zipfile
from collections.abc import Callable

from carcassonne_rl.games import registry
from carcassonne_rl.games.carcassonne.config import EXPANSIONS
from carcassonne_rl.runtime.errors import UserError

__all__ = [
    "UserError",
    "add_table_arguments",
    "add_validation_argument",
    "agent_specs",
    "check_expansions",
    "expansions",
    "fraction",
    "non_negative_float",
    "non_negative_int",
    "positive",
]


def positive(kind: type) -> Callable[[str], object]:
    """An argparse type: ``kind(text)`` that must be > 0."""

    def parse(text: str) -> object:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    return parse


def fraction(text: str) -> float:
    """A share in [0, 1)."""
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def add_validation_argument(p: argparse.ArgumentParser) -> None:
    """``--validation``: the share of a fit's games held out for its per-epoch report."""
    p.add_argument(
        "--validation",
        type=fraction,
        default=0.1,
        help="share of the games held out for the report (default: 0.1)",
    )


def add_table_arguments(
    p: argparse.ArgumentParser,
    expansions_help: str = "tile game only: comma-separated, from messages,labyrinth "
    "(default: none)",
) -> None:
    """``--players`` (the seats, 2 by default) and ``--expansions`` (none by default)."""
    p.add_argument(
        "--players", type=int, choices=registry.PLAYER_COUNTS, default=2, help="seats (default: 2)"
    )
    p.add_argument("--expansions", type=expansions, default=(), help=expansions_help)


def non_negative_int(text: str) -> int:
    """An integer >= 0 of any size (a seed, a seat, milliseconds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (a weight)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def check_expansions(game: str, expansions: tuple[str, ...]) -> None:
    """``--expansions`` checked for ``game`` by the game registry (a ``UserError``)."""
    try:
        registry.check_expansions(game, expansions)
    except ValueError as err:
        raise UserError(f"--expansions: {err}") from None


def expansions(text: str) -> tuple[str, ...]:
    """``"messages,labyrinth"`` -> ``("messages", "labyrinth")``, checked."""
    names = tuple(e.strip() for e in text.split(",") if e.strip())
    unknown = [e for e in names if e not in EXPANSIONS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown expansions {unknown}; choose from {','.join(EXPANSIONS)}"
        )
    return names


def agent_specs(
    text: str, game: str, option: str, expansions: tuple[str, ...] | None = None
) -> list[str]:
    """Comma-separated agent specs (split outside parentheses), each checked by building it
    (``UserError`` if bad); with ``expansions``, also that each agent plays that expansion
    set (an agent may say it does not with ``check_expansions(expansions)``)."""
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.agents.spec import split_specs

    try:
        specs = split_specs(text)
    except ValueError as err:
        raise UserError(f"{option}: {err}") from None
    if not specs:
        raise UserError(f"{option} names no agent")
    for spec in specs:
        try:
            agent = make_agent(spec, game)
            check = getattr(agent, "check_expansions", None)
            if expansions is not None and check is not None:
                check(tuple(expansions))
        except (ValueError, OSError, KeyError, zipfile.BadZipFile) as err:
            raise UserError(f"{option}: {err}") from None
    return specs
