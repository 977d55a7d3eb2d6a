"""The ``carcassonne-rl`` command line."""

from __future__ import annotations

import argparse
import sys


def _positive(kind: type) -> object:
    def parse(text: str) -> object:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    return parse


def _expansions(text: str) -> tuple[str, ...]:
    names = tuple(e.strip() for e in text.split(",") if e.strip())
    unknown = [e for e in names if e not in ("messages", "labyrinth")]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown expansions {unknown}; use messages,labyrinth")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="carcassonne-rl",
        description="Carcassonne and Cardcassonne RL environments: benchmarks and tools.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser("bench", help="speed benchmarks (one JSON line per result)")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    engine = bench_sub.add_parser("engine", help="uniformly random games through the engine API")
    engine.add_argument("--game", choices=["carcassonne", "cardcassonne"], default="carcassonne")
    engine.add_argument("--seconds", type=_positive(float), default=10.0)
    engine.add_argument("--players", type=int, choices=range(2, 6), default=2)
    engine.add_argument("--seed", type=int, default=0)
    engine.add_argument(
        "--expansions",
        type=_expansions,
        default=(),
        help="tile game only: comma-separated, from messages,labyrinth",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "bench" and args.target == "engine":
        from .bench_engine import main as bench_main

        bench_main(args.game, args.seconds, args.players, args.seed, args.expansions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
