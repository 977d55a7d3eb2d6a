"""Fuzz benchmark: 10^6 random decisions per standard env configuration, with invariant checks.

One JSON line per configuration (decisions, games, crashes, invariant_breaks, decisions_per_s).
Resumable: with ``--results FILE`` each line is appended there and configurations already
in it are skipped, so a killed run continues where it stopped::

    nice -n 19 python benchmarks/fuzz.py --decisions 1000000 --results runs/fuzz/results.jsonl
    python benchmarks/fuzz.py --results runs/fuzz/results.jsonl --table   # the README table
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from carcassonne_rl.testing.fuzz import STANDARD_CONFIGS, fuzz_many, markdown_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", type=Path, default=None)
    parser.add_argument("--only", default=None, help="configurations whose name contains this")
    parser.add_argument(
        "--table", action="store_true", help="print the --results file as a Markdown table"
    )
    args = parser.parse_args(argv)
    if args.table:
        if args.results is None or not args.results.exists():
            parser.error("--table needs an existing --results file")
        rows = [json.loads(line) for line in args.results.read_text().splitlines() if line]
        print(markdown_table(rows))
        return 0
    if args.decisions <= 0:
        parser.error(f"--decisions must be > 0, got {args.decisions}")
    configs = [c for c in STANDARD_CONFIGS if args.only is None or args.only in c.name]
    rows = fuzz_many(configs, args.decisions, args.seed, args.results)
    return 0 if all(r["crashes"] == 0 and r["invariant_breaks"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
