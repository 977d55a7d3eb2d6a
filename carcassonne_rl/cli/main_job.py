"""The README's main job: self-play training of both games on a small CPU budget, then the
benchmark of each trained agent against the random and greedy baselines (arena, duplicate
deals, 95% intervals), printed as one table and saved in ``OUT/results.md``/``.json``.

Default budget: the card game by MaskablePPO, ``CARD_STEPS`` steps after a warm start that
imitates 100 greedy games (``training/ppo/warm_start.py``); the tile game by afterstate value
learning (``training/afterstate/``), ``TILE_STEPS`` positions learnt from self-play;
``--scale`` multiplies both (CI uses a tiny scale). It prints its expected remaining time
after each phase and, when its output goes to a file or a pipe, a progress line at least once
a minute (``runtime/progress.py``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from carcassonne_rl.runtime.progress import phase, watchdog
from carcassonne_rl.training.train_config import TrainConfig

from .args import UserError, positive

TILE_STEPS = 40_000
CARD_STEPS = 280_000
EVAL_DEALS = 100

# Minutes each phase took at --scale 1 and 100 deals in a fresh clone on a quiet 2-core
# machine where PettingZoo's connect_four_v3 ran 26k steps/s (11.3 min in all); a machine
# where it ran 4.9k steps/s took 24.5 min. The job prints its expected remaining time from
# these shares, rescaled by how fast this machine did the phases already done.
REFERENCE_MINUTES = {
    ("cardcassonne", "train"): 9.8,
    ("cardcassonne", "benchmark"): 0.35,
    ("carcassonne", "train"): 0.8,
    ("carcassonne", "benchmark"): 0.35,
}
REFERENCE_RANGE_MINUTES = (11, 25)


class RemainingTime:
    """The main job's expected remaining time: reference minutes per phase (scaled by the
    budget), times how much slower or faster than the reference this machine has been."""

    def __init__(self, scale: float, eval_deals: int) -> None:
        self.expected = {
            (game, part): minutes * (scale if part == "train" else eval_deals / EVAL_DEALS)
            for (game, part), minutes in REFERENCE_MINUTES.items()
        }
        self.done: list[tuple[str, str]] = []
        self.spent_s = 0.0

    def finished(self, game: str, part: str, seconds: float) -> None:
        self.done.append((game, part))
        self.spent_s += seconds

    def line(self) -> str:
        """``expected remaining: about N min`` (or the reference range before any phase)."""
        left = sum(m for k, m in self.expected.items() if k not in self.done)
        if not self.done:
            share = left / sum(REFERENCE_MINUTES.values())
            low, high = (f"{share * r:.1f}" for r in REFERENCE_RANGE_MINUTES)
            return (
                f"expected duration: about {low}-{high} min on 2 cores (the reference machines "
                "ran PettingZoo's connect_four_v3 at 26k and 4.9k steps/s)"
            )
        pace = (self.spent_s / 60) / max(1e-9, sum(self.expected[k] for k in self.done))
        return (
            f"{self.spent_s / 60:.1f} min so far; expected remaining: about "
            f"{left * pace:.1f} min (this machine at {pace:.2f}x the reference time)"
        )


def add_main_parser(sub) -> None:
    p = sub.add_parser(
        "main",
        help="train both games briefly, then benchmark vs baselines",
        description="The README's main job: train a self-play agent for each game on a small "
        "CPU budget (11-25 minutes on 2 cores, for connect_four_v3 at 26k-4.9k steps/s in "
        "`carcassonne-rl bench env`), benchmark each against the random and "
        "greedy baselines, print the table and save it in OUT/results.md.",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("runs/main"),
        help="folder of the two runs and results.md/.json (default: runs/main)",
    )
    p.add_argument(
        "--scale",
        type=positive(float),
        default=1.0,
        help=f"multiplies the training budget ({CARD_STEPS} card-game steps and {TILE_STEPS} "
        "tile-game positions) (default: 1.0)",
    )
    p.add_argument(
        "--eval-deals",
        type=positive(int),
        default=EVAL_DEALS,
        help=f"deals per baseline, each played from both seats (default: {EVAL_DEALS})",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of both runs (default: 0)")
    p.add_argument(
        "--workers",
        type=positive(int),
        default=2,
        help="processes for the benchmark games (default: 2)",
    )
    folder = p.add_mutually_exclusive_group()
    folder.add_argument(
        "--resume",
        action="store_true",
        help="continue the runs in --out (same --scale and --seed), then benchmark them",
    )
    folder.add_argument(
        "--overwrite", action="store_true", help="delete the runs in --out and start afresh"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def game_config(game: str, steps: int, scale: float, seed: int):
    """The main job's run of ``game``: ``steps`` x ``scale`` self-play steps (card game:
    a MaskablePPO ``TrainConfig``; tile game: an ``AfterstateConfig``)."""
    timesteps = max(256, int(steps * scale))
    if game == "carcassonne":
        from carcassonne_rl.training.afterstate.config import AfterstateConfig

        return AfterstateConfig(
            timesteps=timesteps,
            seed=seed,
            warm_games=max(4, round(AfterstateConfig.warm_games * min(1.0, scale))),
            games_per_iteration=48 if scale >= 0.5 else 4,
            snapshot_every=0,
            eval_every=0,
            eval_deals=2,  # the benchmark below is the real evaluation
            baselines=("greedy",),
        )
    return TrainConfig(
        game=game,
        timesteps=timesteps,
        seed=seed,
        snapshot_every=max(1, timesteps // 6),
        eval_every=max(1, timesteps // 3),
        checkpoint_every=max(1, timesteps // 3),
        eval_deals=10 if scale >= 0.5 else 1,
        warm_start_games=max(1, round(TrainConfig.warm_start_games * min(1.0, scale))),
    )


GAME_STEPS = (("cardcassonne", CARD_STEPS), ("carcassonne", TILE_STEPS))
RESULT_FILES = ("results.md", "results.json")


def prepare_main_folder(args: argparse.Namespace) -> dict[str, bool]:
    """Check ``--out`` against ``--resume``/``--overwrite``; per game, whether it resumes."""
    from carcassonne_rl.training.run_folder import check_resume_config, holds_run, prepare

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    runs = {game: out / game for game, _ in GAME_STEPS}
    existing = [str(out / f) for f in RESULT_FILES if (out / f).exists()]
    existing += [str(run) for run in runs.values() if holds_run(run)]
    if existing and not (args.resume or args.overwrite):
        raise UserError(
            f"{out} already holds a main-job run: add --resume to continue it, --overwrite "
            "to delete it and start afresh, or choose another --out"
        )
    if args.resume and not existing:
        raise UserError(f"nothing to resume in {out}: leave out --resume to start the main job")
    resumes = {}
    for game, steps in GAME_STEPS:
        run = runs[game]
        if args.resume and holds_run(run):
            check_resume_config(run, game_config(game, steps, args.scale, args.seed),
                                "--scale and --seed")  # fmt: skip
        resumes[game] = prepare(run, args.resume and holds_run(run), args.overwrite)
    if args.overwrite:
        for name in RESULT_FILES:
            (out / name).unlink(missing_ok=True)
    return resumes


def run_main(args: argparse.Namespace) -> int:
    from carcassonne_rl.arena.evaluation import evaluate_model_file, markdown_rows
    from carcassonne_rl.training.afterstate.trainer import train_afterstate
    from carcassonne_rl.training.ppo.selfplay import STATE_FILE, train

    resumes = prepare_main_folder(args)
    args.out.mkdir(parents=True, exist_ok=True)
    clock = RemainingTime(args.scale, args.eval_deals)
    phase(f"== main job: {clock.line()}")
    summary: dict = {"scale": args.scale, "seed": args.seed, "games": {}}
    tables = []
    for game, steps in GAME_STEPS:
        config = game_config(game, steps, args.scale, args.seed)
        timesteps = config.timesteps
        run = args.out / game
        verb = "resuming" if resumes[game] else "training"
        started = time.perf_counter()
        progress = not args.no_progress
        if game == "carcassonne":
            phase(f"== {verb} {game} (afterstate values): {timesteps} positions -> {run}")
            with watchdog(f"{verb} {game}", progress):
                train_afterstate(config, run, resume=resumes[game], progress=progress)
            model_file = run / "final_model.npz"
        else:
            phase(f"== {verb} {game} (MaskablePPO): {timesteps} steps -> {run}")
            with watchdog(f"{verb} {game}", progress):
                train(config, run, resume=resumes[game], progress=progress)
            model_file = run / "final_model.zip"
        train_s = json.loads((run / STATE_FILE).read_text()).get("wall_s", 0.0)
        clock.finished(game, "train", time.perf_counter() - started)
        phase(f"== {clock.line()}")
        phase(f"== benchmarking {game} vs random, greedy ({args.eval_deals} deals each)")
        started = time.perf_counter()
        with watchdog(f"benchmarking {game}", progress):
            rows = evaluate_model_file(
                model_file, game, 2, (), ("random", "greedy"),
                deals=args.eval_deals, workers=args.workers, progress=progress,
            )  # fmt: skip
        clock.finished(game, "benchmark", time.perf_counter() - started)
        if len(clock.done) < len(REFERENCE_MINUTES):
            phase(f"== {clock.line()}")
        summary["games"][game] = {"timesteps": timesteps, "train_seconds": train_s, "vs": rows}
        unit = "positions" if game == "carcassonne" else "steps"
        tables.append(f"### {game} ({timesteps} {unit}, {train_s / 60:.1f} min training)\n\n"
                      + markdown_rows(rows, "trained"))  # fmt: skip
    text = "\n\n".join(tables)
    from carcassonne_rl.training.run_files import atomic_write_text

    atomic_write_text(args.out / "results.md", text + "\n")
    atomic_write_text(args.out / "results.json", json.dumps(summary, indent=2))
    print(text)
    return 0
