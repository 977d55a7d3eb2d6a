"""``carcassonne-rl leaderboard``: a round robin of agents, rated on one Elo scale.

Example: ``carcassonne-rl leaderboard --game cardcassonne --deals 10 --seed 1`` plays the card
game's shipped agents against each other on 10 duplicate deals and writes
``leaderboard.md``, ``leaderboard.json``, ``leaderboard.png`` and ``games.csv`` into a new
folder ``runs/leaderboard/cardcassonne-2p-DATE-TIME`` (or ``--out``). A run cut short goes on
with the same command plus ``--out DIR --resume``. The schedule, the pairwise results and
the rating fit: :mod:`carcassonne_rl.arena.leaderboard`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import zipfile
from pathlib import Path

from carcassonne_rl.arena.leaderboard import (
    BOOTSTRAP_SAMPLES,
    count,
    fit,
    leaderboard_jobs,
    resolved_agents,
)
from carcassonne_rl.arena.leaderboard import markdown as leaderboard_markdown
from carcassonne_rl.arena.leaderboard import plot as leaderboard_plot
from carcassonne_rl.arena.match import Setup
from carcassonne_rl.arena.report import write_csv
from carcassonne_rl.games.registry import GAMES, PLAYER_COUNTS

from .args import UserError, non_negative_int, positive
from .run_folder import cluster_address, open_log, play_pending, run_folder, stand_alone

LEADERBOARD_RUNS = Path("runs/leaderboard")

#: each game's shipped agents by their pinned names and the baselines, the default ``--agents``
DEFAULT_AGENTS = {
    "carcassonne": ("random", "greedy", "heuristic", "tile-obs-v1", "tile-net-v4",
                    "tile-net-v8", "tile-search-v3", "tile-search-v4"),
    "cardcassonne": ("random", "greedy", "heuristic", "card-net-v1", "card-net-v4",
                     "card-search-v1", "card-search-v2", "card-search-v3",
                     "mcts(sims=1000)"),
}  # fmt: skip


def checked_specs(specs: list[str], game: str, players: int) -> list[str]:
    """Each spec built once for ``game`` (``UserError`` naming the bad one), none twice."""
    from carcassonne_rl.agents import make_agent

    if len(specs) < 2:
        raise UserError(f"--agents names {len(specs)} agent(s): a leaderboard needs at least 2")
    twice = sorted({s for s in specs if specs.count(s) > 1})
    if twice:
        raise UserError(f"--agents names {', '.join(twice)} twice")
    for spec in specs:
        try:
            make_agent(spec, game)
        except (ValueError, OSError, KeyError, zipfile.BadZipFile) as err:
            raise UserError(f"--agents: {err}") from None
    return specs


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=GAMES, default="carcassonne",
                   help="game to play (default: carcassonne)")  # fmt: skip
    p.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2,
                   help="seats (default: 2); at 3-5 every agent plays against PLAYERS-1 "
                   "copies of every other")  # fmt: skip
    p.add_argument(
        "--agents",
        default=None,
        help="comma-separated agent specs (commas inside parentheses do not split; quote "
        "specs with parentheses for the shell); default: the game's shipped agents, "
        + "; ".join(f"{g}: {','.join(a)}" for g, a in DEFAULT_AGENTS.items()),
    )
    p.add_argument("--deals", type=positive(int), default=10,
                   help="deals every pair of agents plays, each from every seat (default: 10); "
                   "the games cost deals x pairs x seats, most of it in the searching agents "
                   "(the *-search-v* ones and mcts), so a quick table leaves them out")  # fmt: skip
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="seed of the deals: the same seed plays the same games (default: a "
                   "fresh 128-bit seed, written to the report and printed)")  # fmt: skip
    p.add_argument("--workers", type=positive(int), default=os.cpu_count() or 1,
                   help="processes playing games (default: the CPU cores)")  # fmt: skip
    p.add_argument("--address", default=None,
                   help="play the games on this Ray cluster (default: RAY_ADDRESS, else "
                   "--workers processes)")  # fmt: skip
    p.add_argument("--out", type=Path, default=None,
                   help="report folder: leaderboard.md, leaderboard.json, leaderboard.png, "
                   f"games.csv (default: a new folder {LEADERBOARD_RUNS}/GAME-Np-DATE-TIME); "
                   "an existing report needs --overwrite")  # fmt: skip
    again = p.add_mutually_exclusive_group()
    again.add_argument("--overwrite", action="store_true",
                       help="write the report over the one in --out")  # fmt: skip
    again.add_argument("--resume", action="store_true",
                       help="go on with the run cut short in --out: the same command plus "
                       "--resume plays only the games its log (games.jsonl) lacks (--seed "
                       "may be left out)")  # fmt: skip
    p.add_argument("--bootstrap", type=positive(int), default=BOOTSTRAP_SAMPLES,
                   help=f"bootstrap samples for the intervals (default: {BOOTSTRAP_SAMPLES})"
                   )  # fmt: skip
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar or progress lines")  # fmt: skip


def add_leaderboard_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``leaderboard`` sub-command on an ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "leaderboard",
        help="a round robin of agents rated on one Elo scale (table and picture)",
        description="Play every pair of agents on the same duplicate deals from every seat, "
        "fit Bradley-Terry ratings on the Elo scale (greedy at 0) with bootstrap intervals, "
        "and write a table, a picture and the games.",
    )
    _add_arguments(p)
    p.set_defaults(func=run_leaderboard)
    return p


def regenerate_command(game: str, players: int, specs: list[str], deals: int, seed: int) -> str:
    """The command line that plays the same games again."""
    agents = shlex.quote(",".join(specs))
    return (f"carcassonne-rl leaderboard --game {game} --players {players} --agents {agents} "
            f"--deals {deals} --seed {seed}")  # fmt: skip


def run_leaderboard(args: argparse.Namespace) -> int:
    try:
        setup = Setup(args.game, args.players)
    except ValueError as err:
        raise UserError(str(err)) from None
    text = args.agents if args.agents is not None else ",".join(DEFAULT_AGENTS[args.game])
    from carcassonne_rl.agents.spec import split_specs

    try:
        specs = split_specs(text)
    except ValueError as err:
        raise UserError(f"--agents: {err}") from None
    specs = checked_specs(specs, args.game, args.players)
    name = f"{args.game}-{args.players}p"
    out = run_folder(args.out, LEADERBOARD_RUNS, name, args.overwrite, args.resume)
    address = cluster_address(args.address)
    seed, log = open_log(out, args.seed, args.resume, lambda seed: {
        "leaderboard": True, "game": args.game, "players": args.players, "agents": specs,
        "deals": args.deals, "seed": seed,
    })  # fmt: skip
    jobs = leaderboard_jobs(setup, specs, args.deals, seed)
    played = play_pending(log, jobs, args, address, "--out and --resume", desc="leaderboard")
    if played is None:
        return 130
    resumed, seconds = played
    results = log.results(jobs)
    command = regenerate_command(args.game, args.players, specs, args.deals, seed)
    board = fit(results, specs, args.players, args.bootstrap)
    title = f"{args.game} leaderboard, {args.players} players"
    data = {
        "game": args.game,
        "command": command,
        "agents": specs,
        "deals_per_pair": args.deals,
        "seed": seed,
        "seconds": seconds,  # this invocation's
        "games_resumed": resumed,
        "workers": args.workers,
        "ray": bool(address),
        **board,
        "resolved": resolved_agents(specs, args.game),
    }
    paths = {
        "markdown": out / "leaderboard.md",
        "json": out / "leaderboard.json",
        "plot": out / "leaderboard.png",
        "csv": out / "games.csv",
    }
    text = leaderboard_markdown(data, title, command)
    paths["markdown"].write_text(text)
    paths["json"].write_text(json.dumps(data, indent=1) + "\n")
    write_csv(results, paths["csv"], data["resolved"])
    sizes = f"{count(data['deals'], 'deal')}, {count(data['games'], 'game')}"
    leaderboard_plot(data, f"{title}, {sizes}", paths["plot"])
    print(text, end="")
    print("written: " + ", ".join(str(p) for p in paths.values()))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry: ``python -m carcassonne_rl.cli.leaderboard --game ...``."""
    return stand_alone("leaderboard", __doc__, _add_arguments, run_leaderboard, argv)


if __name__ == "__main__":
    sys.exit(main())
