"""``carcassonne-rl distill``: the observation-only tile ``features`` policy, fitted to a
teacher's option values (:mod:`carcassonne_rl.training.distill`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from carcassonne_rl.games.registry import PLAYER_COUNTS
from carcassonne_rl.runtime.progress import Counter

from .args import UserError, add_validation_argument
from .args import non_negative_int as _non_negative_int
from .args import positive as _positive


def add_distill_parser(sub) -> None:
    p = sub.add_parser(
        "distill",
        help="fit the observation-only tile policy (features net) to a teacher's values",
        description=(
            "Plays the teacher in every seat of base games (--players; the ones missing from "
            "DEMOS; resumable; --workers processes or tasks on the Ray cluster at --address), "
            "computes the option features of every decision from its "
            "carcassonne_v1 observation, fits the placement and follower heads to "
            "softmax(teacher value / temperature) and writes a numpy policy file "
            "(policy:OUT.npz). One JSON line per epoch: training loss, and on the held-out "
            "games agreement with the teacher's best option and the value given up."
        ),
    )
    p.add_argument("demos", type=Path, help="folder of demonstration games (game_*.npz)")
    p.add_argument("--out", type=Path, required=True, help="the .npz policy file to write")
    p.add_argument(
        "--games",
        type=_non_negative_int,
        default=1500,
        help="teacher games to have in DEMOS (played if missing; default: 1500)",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=PLAYER_COUNTS,
        default=2,
        help="seats of the teacher's games (default: 2)",
    )
    p.add_argument(
        "--teacher",
        default="pretrained",
        help="agent whose values are learnt (default: pretrained)",
    )
    p.add_argument(
        "--epochs", type=_positive(int), default=20, help="passes over the data (default: 20)"
    )
    p.add_argument(
        "--temperature",
        type=_positive(float),
        default=0.01,
        help="targets: softmax(teacher value / T) over the legal options (default: 0.01)",
    )
    p.add_argument(
        "--hidden", type=_positive(int), default=128, help="units per layer (default: 128)"
    )
    p.add_argument(
        "--layers", type=_positive(int), default=2, help="hidden layers per head (default: 2)"
    )
    p.add_argument(
        "--learning-rate", type=_positive(float), default=1e-3, help="Adam (default: 0.001)"
    )
    p.add_argument(
        "--batch-size", type=_positive(int), default=256, help="decisions (default: 256)"
    )
    p.add_argument(
        "--workers",
        type=_positive(int),
        default=1,
        help="processes playing the teacher's games (default: 1)",
    )
    p.add_argument("--address", default=None,
                   help="play the teacher's games on this Ray cluster (default: RAY_ADDRESS, "
                        "else --workers processes)")  # fmt: skip
    add_validation_argument(p)
    p.add_argument("--seed", type=int, default=19, help="deals and initial weights (default: 19)")
    p.add_argument("--no-progress", action="store_true", help="no line per 50 games played")


def run_distill(args: argparse.Namespace) -> int:
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.runtime.ray_session import ClusterError, resolve_address
    from carcassonne_rl.training.distill.demos import demo_files, load_demos, play_demos
    from carcassonne_rl.training.distill.fit import fit
    from carcassonne_rl.training.obs_policy.heads import heads_to_numpy

    if args.out.suffix != ".npz":
        raise UserError(f"--out must name a .npz file, got {args.out}")
    if args.games:
        try:
            teacher = make_agent(args.teacher, "carcassonne", seed=0)
        except ValueError as exc:
            raise UserError(f"--teacher: {exc}") from None
        if not hasattr(teacher, "decision_values"):
            raise UserError(f"--teacher {args.teacher!r} does not value its options "
                            "(pretrained does)")  # fmt: skip

        counter = Counter("demonstrations", "game", enabled=not args.no_progress)

        def progress(done: int) -> None:
            counter(done, args.games)

        try:
            play_demos(args.demos, args.games, args.seed, args.teacher, progress, args.players,
                       workers=args.workers, address=resolve_address(args.address))  # fmt: skip
        except (ValueError, ClusterError) as exc:
            raise UserError(str(exc)) from None
    try:
        files = demo_files([args.demos])
        data = load_demos(files)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    model, report = fit(
        data, args.epochs, temperature=args.temperature, hidden=args.hidden,
        layers=args.layers, learning_rate=args.learning_rate, batch_size=args.batch_size,
        validation=args.validation, seed=args.seed,
        on_epoch=lambda epoch, r: print(json.dumps(r), flush=True),
    )  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    heads_to_numpy(model, _window(files[0]), source=f"distill of {len(files)} games").save(args.out)
    print(f"features policy of {len(files)} games -> {args.out}")
    return 0


def _window(path: Path) -> int:
    import numpy as np

    with np.load(path) as z:
        return int(z["obs_board"].shape[-1])
