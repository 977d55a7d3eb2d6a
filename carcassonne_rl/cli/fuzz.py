"""``carcassonne-rl fuzz``: random play with invariant checks
(:mod:`carcassonne_rl.testing.fuzz`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from carcassonne_rl.games.registry import GAMES, PLAYER_COUNTS

from .args import check_expansions
from .args import expansions as _expansions
from .args import positive as _positive


def add_fuzz_parser(sub) -> None:
    fuzz = sub.add_parser(
        "fuzz",
        help="random play through the env, checking invariants after every action",
        description=(
            "Plays uniformly random legal games through the PettingZoo env until DECISIONS "
            "actions and checks, after every action, the mask against the engine's legal "
            "set, the agent to move, tile/card/follower conservation and scores; sampled: "
            "clone() and to_json()/load_json() round trips and refused illegal actions. "
            "Prints one JSON line per configuration."
        ),
    )
    fuzz.add_argument(
        "--game",
        choices=[*GAMES, "carcassonne_v1"],
        default="carcassonne",
        help="carcassonne_v1: the tile game through the carcassonne_v1 env (compact "
        "observation); default: carcassonne (carcassonne_v0)",
    )
    fuzz.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2)
    fuzz.add_argument(
        "--expansions",
        type=_expansions,
        default=(),
        help="tile game only: comma-separated, from messages,labyrinth",
    )
    fuzz.add_argument("--decisions", type=_positive(int), default=10_000)
    fuzz.add_argument("--seed", type=int, default=0)
    fuzz.add_argument(
        "--all",
        action="store_true",
        help="every standard configuration (both games, 2-5 players, each expansion set) "
        "instead of --game/--players/--expansions",
    )
    fuzz.add_argument(
        "--results",
        type=Path,
        default=None,
        help="append each configuration's JSON line to this file and skip configurations "
        "already there (resumable)",
    )


def run_fuzz(args: argparse.Namespace) -> int:
    """Exit status 0 when every configuration had no crash and no invariant break."""
    from carcassonne_rl.testing.fuzz import STANDARD_CONFIGS, FuzzConfig, fuzz_many

    if args.all:
        configs = STANDARD_CONFIGS
    else:
        game, _, version = args.game.partition("_")
        check_expansions(game, args.expansions)
        configs = (FuzzConfig(game, args.players, tuple(args.expansions), version or "v0"),)
    rows = fuzz_many(configs, args.decisions, args.seed, args.results)
    return 0 if all(r["crashes"] == 0 and r["invariant_breaks"] == 0 for r in rows) else 1
