"""Check or rewrite the golden playthroughs in this folder.

    python tests/golden/regenerate.py            # check: print the first difference per file
    python tests/golden/regenerate.py --confirm  # rewrite every file (deliberate!)

Rewrite only when an env's behaviour changed on purpose, and then give that env a new
version name (``carcassonne_v1`` ...): see the versioning rule in docs/envs.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from carcassonne_rl.testing.golden import STANDARD_SPECS, first_difference, write_all

FOLDER = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--confirm", action="store_true", help="rewrite the golden files")
    args = parser.parse_args(argv)
    if args.confirm:
        for old in FOLDER.glob("*.json"):
            old.unlink()
        paths = write_all(FOLDER)
        print(f"wrote {len(paths)} golden files to {FOLDER}")
        return 0
    changed = 0
    for spec in STANDARD_SPECS:
        path = FOLDER / spec.file_name
        if not path.exists():
            print(f"{path.name}: missing")
            changed += 1
            continue
        problem = first_difference(json.loads(path.read_text()))
        if problem:
            print(f"{path.name}: {problem}")
            changed += 1
    print(f"{changed} of {len(STANDARD_SPECS)} golden files differ")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
