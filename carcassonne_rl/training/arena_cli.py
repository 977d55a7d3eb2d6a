"""``carcassonne-rl arena``: play a match and write its report.

Example: ``carcassonne-rl arena --game carcassonne --agents random,greedy,mcts:1000 --games 20``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .arena import Setup, entry_labels, run_jobs, schedule
from .arena_report import markdown_table, summarize, write_report


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=["carcassonne", "cardcassonne"], default="carcassonne")
    p.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent specs: random, greedy, mcts[:sims[:seconds]]",
    )
    p.add_argument(
        "--games",
        type=int,
        default=10,
        help="deals per lineup (with --duplicate, each deal is played once per seat rotation)",
    )
    p.add_argument("--players", type=int, choices=range(2, 6), default=2)
    p.add_argument(
        "--expansions", default="", help="tile game: comma-separated, e.g. messages,labyrinth"
    )
    dup = p.add_mutually_exclusive_group()
    dup.add_argument("--duplicate", dest="duplicate", action="store_true", default=True)
    dup.add_argument("--no-duplicate", dest="duplicate", action="store_false")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--address",
        default=None,
        help="play the games on this Ray cluster (default: RAY_ADDRESS, else --workers processes)",
    )
    p.add_argument("--out", type=Path, default=Path("arena_out"))
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap samples for Elo CIs")
    p.add_argument("--no-progress", dest="progress", action="store_false")


def add_arena_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``arena`` sub-command on an ``add_subparsers()`` object."""
    p = subparsers.add_parser("arena", help="play agents against each other and rate them")
    _add_arguments(p)
    p.set_defaults(func=run_arena)
    return p


def run_arena(args: argparse.Namespace) -> int:
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    exps = tuple(e.strip() for e in args.expansions.split(",") if e.strip())
    setup = Setup(args.game, args.players, exps)
    from carcassonne_rl.agents import make_agent

    for s in specs:  # fail early on a bad spec
        make_agent(s, args.game)
    if args.games <= 0:
        raise SystemExit("--games must be > 0")
    jobs = schedule(setup, specs, args.games, args.duplicate, args.seed)
    t0 = time.perf_counter()
    from .ray_backend.cluster import ClusterError, resolve_address

    try:
        address = resolve_address(args.address)
        results = run_jobs(jobs, workers=args.workers, progress=args.progress, address=address)
    except ClusterError as err:
        raise SystemExit(f"error: {err}") from None
    extra = {
        "agents": specs,
        "deals_per_lineup": args.games,
        "duplicate": args.duplicate,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    summary = summarize(results, entry_labels(specs), setup, extra, args.bootstrap)
    paths = write_report(summary, results, args.out)
    print(markdown_table(summary))
    print("written: " + ", ".join(str(p) for p in paths.values()))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry: ``python -m carcassonne_rl.training.arena_cli --agents ...``."""
    p = argparse.ArgumentParser(prog="carcassonne-rl arena", description=__doc__)
    _add_arguments(p)
    return run_arena(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
