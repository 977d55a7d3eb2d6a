"""The README's main job: self-play training of both games on a small CPU budget, then the
benchmark of each trained agent against the random and greedy baselines (arena, duplicate
deals, 95% intervals), printed as one table and saved in ``OUT/results.md``/``.json``.

Default budget (about 11 minutes on 2 CPU cores): ``TILE_STEPS`` steps of the tile game and
``CARD_STEPS`` of the card game, each after a warm start that imitates 100 greedy games
(``warm_start.py``); ``--scale`` multiplies the steps (CI uses a tiny scale).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from .train_config import TrainConfig

TILE_STEPS = 40_000
CARD_STEPS = 60_000
EVAL_DEALS = 100


def add_main_parser(sub) -> None:
    p = sub.add_parser("main", help="train both games briefly, then benchmark vs baselines")
    p.add_argument("--out", type=Path, default=Path("runs/main"))
    p.add_argument("--scale", type=float, default=1.0, help="multiplies the training budget")
    p.add_argument("--eval-deals", type=int, default=EVAL_DEALS, help="deals per opponent")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2, help="processes for the benchmark games")
    p.add_argument("--no-progress", action="store_true")


def run_main(args: argparse.Namespace) -> int:
    from .evaluation import evaluate_model_file, markdown_rows
    from .selfplay import train

    if args.scale <= 0 or args.eval_deals <= 0:
        raise SystemExit("--scale and --eval-deals must be > 0")
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict = {"scale": args.scale, "seed": args.seed, "games": {}}
    tables = []
    for game, steps in (("cardcassonne", CARD_STEPS), ("carcassonne", TILE_STEPS)):
        timesteps = max(256, int(steps * args.scale))
        config = TrainConfig(
            game=game,
            timesteps=timesteps,
            seed=args.seed,
            snapshot_every=max(1, timesteps // 6),
            eval_every=max(1, timesteps // 3),
            checkpoint_every=max(1, timesteps // 3),
            eval_deals=10 if args.scale >= 0.5 else 1,
            warm_start_games=max(1, round(TrainConfig.warm_start_games * min(1.0, args.scale))),
        )
        run = args.out / game
        print(f"== training {game}: {timesteps} steps -> {run}", flush=True)
        t0 = time.time()
        train(config, run, resume=(run / "trainer_state.json").exists(),
              progress=not args.no_progress)  # fmt: skip
        train_s = time.time() - t0
        print(
            f"== benchmarking {game} vs random, greedy ({args.eval_deals} deals each)", flush=True
        )
        rows = evaluate_model_file(
            run / "final_model.zip", game, 2, (), ("random", "greedy"),
            deals=args.eval_deals, workers=args.workers, progress=not args.no_progress,
        )  # fmt: skip
        summary["games"][game] = {"timesteps": timesteps, "train_seconds": train_s, "vs": rows}
        tables.append(f"### {game} ({timesteps} steps, {train_s / 60:.1f} min)\n\n"
                      + markdown_rows(rows, "trained"))  # fmt: skip
    text = "\n\n".join(tables)
    from .run_files import atomic_write_text

    atomic_write_text(args.out / "results.md", text + "\n")
    atomic_write_text(args.out / "results.json", json.dumps(summary, indent=2))
    print(text)
    return 0
