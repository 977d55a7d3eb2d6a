"""``--deals N`` (each deal played from every seat) with ``--games`` as its deprecated alias,
shared by ``arena`` and ``evaluate``."""

from __future__ import annotations

import argparse
import sys

from .args import positive

GAMES_NOTE = "note: --games is deprecated, use --deals (each deal is played from every seat)"


class _DeprecatedGames(argparse.Action):
    """``--games N``: sets ``deals`` as ``--deals N`` does, and marks the note as due."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        namespace.deals = values
        namespace.deprecated_games = True


def add_deals_argument(p: argparse.ArgumentParser, default: int, what: str) -> None:
    """``--deals`` (``what``: what one deal is, for the help) and its alias ``--games``; the
    two are exclusive."""
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--deals", type=positive(int), default=default, help=f"{what} (default: {default})"
    )
    group.add_argument(
        "--games",
        type=positive(int),
        action=_DeprecatedGames,
        dest="deals",
        default=argparse.SUPPRESS,
        metavar="DEALS",
        help="deprecated alias of --deals (it counts deals, not games)",
    )
    p.set_defaults(deprecated_games=False)


def note_deprecated_games(args: argparse.Namespace) -> None:
    """The one-line note on stderr when the command line used ``--games``."""
    if getattr(args, "deprecated_games", False):
        print(GAMES_NOTE, file=sys.stderr, flush=True)
