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
    p.add_argument("--blend", type=float, metavar="W",
                   help="tile value networks: mark the file to be played averaged with the "
                   "heuristic, the network's share W in (0, 1), as pretrained plays its "
                   "table networks (policy: and the search over it then do)")  # fmt: skip


def run_export(args: argparse.Namespace) -> int:
    from carcassonne_rl.agents.pretrained import shipped_or_given
    from carcassonne_rl.training.export import check_blend, export_run, set_blend

    run = str(shipped_or_given(args.run))  # a shipped model by its file name too
    try:
        if args.blend is not None:
            check_blend(args.blend)  # before anything is written
        done = export_run(run, args.out, average=args.average, ensemble=args.ensemble)
        if args.blend is not None:
            try:
                done += "; " + set_blend(args.out, args.blend)
            except ValueError:
                args.out.unlink()  # nothing half done
                raise
        print(done)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"export: {exc}") from None
    return 0
