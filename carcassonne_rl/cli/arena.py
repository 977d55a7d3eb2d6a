"""``carcassonne-rl arena``: play a match and write its report.

Example: ``carcassonne-rl arena --game carcassonne --agents random,greedy,mcts:1000 --deals 20``
plays 20 deals per lineup, each from every seat (40 games a lineup at 2 players), and writes
its report into a new folder ``runs/arena/carcassonne-DATE-TIME`` (or ``--out``).
``carcassonne-rl arena --agents pretrained --opponents greedy --players 4`` plays the agent
against 3 copies of the opponent (a versus match), reported with its fair share. A match
cut short goes on with the same command plus ``--resume``
(:mod:`carcassonne_rl.arena.game_log`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from carcassonne_rl.agents.registry import families_help
from carcassonne_rl.arena.match import GameResult, Setup, entry_labels, schedule
from carcassonne_rl.arena.report import markdown_table, summarize, write_report
from carcassonne_rl.games.registry import GAMES
from carcassonne_rl.runtime.progress import count

from .args import UserError, add_table_arguments, agent_specs, non_negative_int, positive
from .deals import add_deals_argument, note_deprecated_games
from .run_folder import cluster_address, open_log, play_pending, run_folder, stand_alone

ARENA_RUNS = Path("runs/arena")


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--game",
        choices=GAMES,
        default="carcassonne",
        help="game to play (default: carcassonne)",
    )
    p.add_argument(
        "--agents",
        required=True,
        help="comma-separated " + families_help() + "; e.g. --agents "
        "'greedy,search(candidates=3, samples=2)'",
    )
    p.add_argument(
        "--opponents",
        default=None,
        help="comma-separated agent specs: a versus match, each of --agents against "
        "PLAYERS-1 copies of each opponent, all on the same deals (default: --agents play "
        "each other)",
    )
    add_deals_argument(
        p,
        10,
        "deals per lineup, each played from every seat (once per seat rotation; once "
        "in all with --no-duplicate)",
    )
    add_table_arguments(p, "tile game: comma-separated, from messages,labyrinth (default: none)")
    dup = p.add_mutually_exclusive_group()
    dup.add_argument(
        "--duplicate",
        dest="duplicate",
        action="store_true",
        default=True,
        help="play each deal from every seat rotation (the default)",
    )
    dup.add_argument(
        "--no-duplicate", dest="duplicate", action="store_false", help="each deal once"
    )
    p.add_argument(
        "--workers",
        type=positive(int),
        default=os.cpu_count() or 1,
        help="processes playing games (default: the CPU cores)",
    )
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        help="seed of the deals: the same seed plays the same deals again (default: a fresh "
        "128-bit seed, written to the report and printed)",
    )
    p.add_argument(
        "--address",
        default=None,
        help="play the games on this Ray cluster (default: RAY_ADDRESS, else --workers processes)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="report folder: arena.md, arena.json, games.csv, ratings.png (default: a new "
        f"folder {ARENA_RUNS}/GAME-DATE-TIME); an existing report needs --overwrite",
    )
    again = p.add_mutually_exclusive_group()
    again.add_argument(
        "--overwrite", action="store_true", help="write the report over the one in --out"
    )
    again.add_argument(
        "--resume",
        action="store_true",
        help="go on with the match cut short in --out: the same command, plus --resume, plays "
        "only the games its log (games.jsonl) lacks (--seed may be left out: the match's is "
        "used)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help="bootstrap samples for the Elo intervals (default: 200)",
    )
    p.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no progress bar or progress lines",
    )
    p.add_argument(
        "--save-games",
        action="store_true",
        help="write every game's record (JSON, for `carcassonne-rl replay`) to OUT/games/",
    )


def add_arena_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``arena`` sub-command on an ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "arena",
        help="play agents against each other and rate them",
        description="Play every lineup of the agents, then write a report (win rates, Elo "
        "with intervals, per-game CSV) and print its table.",
    )
    _add_arguments(p)
    p.set_defaults(func=run_arena)
    return p


def run_arena(args: argparse.Namespace) -> int:
    note_deprecated_games(args)
    if args.bootstrap < 0:
        raise UserError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    try:
        setup = Setup(args.game, args.players, args.expansions)
    except ValueError as err:
        raise UserError(str(err)) from None
    exps = tuple(args.expansions)  # fail early on a bad spec, or one that cannot play them
    specs = agent_specs(args.agents, args.game, "--agents", exps)
    opponents = []
    if args.opponents:
        opponents = agent_specs(args.opponents, args.game, "--opponents", exps)
    if not opponents and len(specs) < 2:
        raise UserError("--agents names one agent: name another, or its --opponents")
    out = run_folder(args.out, ARENA_RUNS, args.game, args.overwrite, args.resume)
    address = cluster_address(args.address)
    seed, log = open_log(out, args.seed, args.resume, lambda seed: {
        "game": args.game, "players": args.players, "expansions": list(exps),
        "agents": specs, "opponents": opponents, "deals_per_lineup": args.deals,
        "duplicate": args.duplicate, "seed": seed, "save_games": args.save_games,
    })  # fmt: skip
    jobs = schedule(setup, specs, args.deals, args.duplicate, seed, args.save_games, opponents)
    played = play_pending(log, jobs, args, address, "--resume")
    if played is None:
        return 130
    resumed, seconds = played
    results = log.results(jobs)
    labels = entry_labels(specs + opponents)
    versus = [(labels[a], labels[len(specs) + o]) for a in range(len(specs))
              for o in range(len(opponents))]  # fmt: skip
    extra = {
        "agents": specs,
        "opponents": opponents,
        "deals_per_lineup": args.deals,
        "duplicate": args.duplicate,
        "seed": seed,
        "seconds": seconds,  # this invocation's
        "games_resumed": resumed,
    }
    summary = summarize(results, labels, setup, extra, args.bootstrap, versus)
    paths = write_report(summary, results, out)
    if args.save_games:
        paths["games"] = save_game_records(results, out / "games")
    print(markdown_table(summary))
    print(played_line(len(jobs), args.deals, len({j.lineup for j in jobs}), args.duplicate,
                      args.players))  # fmt: skip
    print(f"deal seed: {seed} (--seed {seed} plays these deals again)")
    print("written: " + ", ".join(str(p) for p in paths.values()))
    return 0


def played_line(games: int, deals: int, lineups: int, duplicate: bool, players: int) -> str:
    """``"40 games: 20 deals per lineup x 2 seat rotations, 1 lineup"``."""
    each = f"x {count(players, 'seat rotation')}" if duplicate else "(each deal once)"
    per_lineup = f"{count(deals, 'deal')} per lineup {each}"
    return f"{count(games, 'game')}: {per_lineup}, {count(lineups, 'lineup')}"


def save_game_records(results: list[GameResult], folder: Path) -> Path:
    """One JSON record per game: ``game-<n>-deal<deal>-rot<rotation>.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, res in enumerate(results):
        name = f"game-{i:04d}-deal{res.deal}-rot{res.rotation}.json"
        (folder / name).write_text(res.record or "")
    return folder


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry: ``python -m carcassonne_rl.cli.arena --agents ...``."""
    return stand_alone("arena", __doc__, _add_arguments, run_arena, argv)


if __name__ == "__main__":
    sys.exit(main())
