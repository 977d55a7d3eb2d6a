"""``carcassonne-rl export RUN OUT.npz``: a trained run's network as a tensors-only file
(see :mod:`carcassonne_rl.training.export`)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_export_parser(sub) -> None:
    p = sub.add_parser("export", help="a trained run's network as a tensors-only .npz file")
    p.add_argument("run", help="run folder (final_model.zip or final_model.npz) or model file")
    p.add_argument("out", type=Path, help="the .npz file to write")
    p.add_argument("--average", action="store_true",
                   help="afterstate runs: the weight-by-weight mean of the run's snapshots "
                   "(snapshots/step_*.npz) and final network")  # fmt: skip
    p.add_argument("--ensemble", nargs="+", metavar="MODEL",
                   help="afterstate networks (run folders or .npz files) whose outputs are "
                   "averaged with RUN's, packed as one wider network")  # fmt: skip


def run_export(args: argparse.Namespace) -> int:
    from carcassonne_rl.training.export import export_run

    try:
        print(export_run(args.run, args.out, average=args.average, ensemble=args.ensemble))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"export: {exc}") from None
    return 0
