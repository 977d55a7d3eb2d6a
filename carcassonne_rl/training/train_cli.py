"""``carcassonne-rl train`` and ``carcassonne-rl evaluate``."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path

from .cli_args import expansions as _expansions
from .cli_args import positive
from .train_config import TrainConfig

_positive_int = positive(int)


def add_train_parser(sub) -> None:
    p = sub.add_parser("train", help="self-play training with MaskablePPO")
    p.add_argument("--game", choices=["carcassonne", "cardcassonne"], default="carcassonne")
    p.add_argument("--players", type=int, choices=range(2, 6), default=2)
    p.add_argument("--expansions", type=_expansions, default=())
    p.add_argument("--timesteps", type=_positive_int, default=TrainConfig.timesteps)
    p.add_argument("--out", required=True, help="run folder, e.g. runs/NAME")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--envs", type=_positive_int, default=None, help="parallel envs (cores)")
    p.add_argument("--eval-every", type=int, default=TrainConfig.eval_every)
    p.add_argument("--eval-deals", type=_positive_int, default=TrainConfig.eval_deals)
    p.add_argument("--snapshot-every", type=int, default=TrainConfig.snapshot_every)
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="any other TrainConfig field, e.g. --set channels=16 --set warm_start_games=0",
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--no-progress", action="store_true")
    add_ray_arguments(p)


def add_ray_arguments(p: argparse.ArgumentParser) -> None:
    """``--backend rllib`` with its Ray options (see ``ray_backend/``)."""
    p.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO on this machine; rllib: RLlib PPO on Ray (pip install -e .[ray])",
    )
    p.add_argument(
        "--address",
        default=None,
        help="rllib: Ray cluster (HOST:PORT, auto, local; default RAY_ADDRESS, else local)",
    )
    p.add_argument(
        "--num-env-runners",
        type=int,
        default=None,
        help="rllib: env-runner actors sampling games, 1 CPU each (default 1; 0: sample in "
        "the trainer process)",
    )


def add_evaluate_parser(sub) -> None:
    p = sub.add_parser("evaluate", help="arena games of a trained run vs baselines")
    p.add_argument("run", help="run folder (holds final_model.zip) or a model .zip")
    p.add_argument("--games", type=_positive_int, default=100, help="deals (x seats games)")
    p.add_argument("--opponents", default="random,greedy")
    p.add_argument("--workers", type=_positive_int, default=1)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--address",
        default=None,
        help="play the games on this Ray cluster (default: RAY_ADDRESS, else local processes)",
    )


def run_train(args: argparse.Namespace) -> int:
    from .selfplay import train

    kwargs = dict(
        game=args.game,
        players=args.players,
        expansions=args.expansions,
        timesteps=args.timesteps,
        seed=args.seed,
        eval_every=args.eval_every,
        eval_deals=args.eval_deals,
        snapshot_every=args.snapshot_every,
    )
    if args.envs:
        kwargs["n_envs"] = args.envs
    kwargs.update(parse_overrides(args.set))
    config = TrainConfig(**kwargs)
    if args.resume:
        config = TrainConfig.load(Path(args.out) / "config.json")
        config.timesteps = args.timesteps
    if args.backend == "rllib":
        return _run_train_rllib(args, config)
    if args.address or args.num_env_runners is not None:
        raise SystemExit("error: --address and --num-env-runners need --backend rllib")
    train(config, args.out, resume=args.resume, progress=not args.no_progress)
    print(f"run saved in {args.out} (final_model.zip, eval_history.json, plots/training.png)")
    return 0


def _run_train_rllib(args: argparse.Namespace, config: TrainConfig) -> int:
    from .ray_backend.cluster import ClusterError, resolve_address

    if args.resume:
        raise SystemExit("error: --resume is not supported by --backend rllib yet")
    runners = 1 if args.num_env_runners is None else args.num_env_runners
    if runners < 0:
        raise SystemExit(f"error: --num-env-runners must be >= 0, got {runners}")
    try:
        from .ray_backend.trainer import train_rllib

        address = resolve_address(args.address)
        final = train_rllib(config, args.out, address, runners, not args.no_progress)
    except (ClusterError, FileExistsError) as err:
        raise SystemExit(f"error: {err}") from None
    except ImportError as err:  # ray_backend.trainer imports Ray
        msg = f'Ray is not installed ({err.name} is missing): pip install -e ".[ray]"'
        raise SystemExit(f"error: {msg}") from None
    print(f"run saved in {args.out} ({final.name}, eval_history.json, plots/training.png)")
    return 0


def parse_overrides(items: list[str]) -> dict:
    """``["channels=16", "learning_rate=1e-3"]`` -> typed TrainConfig field values."""
    types = {f.name: f.type for f in fields(TrainConfig)}
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or name not in types:
            known = ", ".join(sorted(types))
            raise SystemExit(f"--set {item!r}: expected FIELD=VALUE with FIELD one of: {known}")
        kind = str(types[name])
        try:
            if kind.startswith("tuple"):
                out[name] = tuple(v for v in text.split(",") if v)
            elif kind.startswith("int"):
                out[name] = None if text == "None" else int(text)
            elif kind == "float":
                out[name] = float(text)
            else:
                out[name] = text
        except ValueError:
            raise SystemExit(f"--set {item!r}: {text!r} is not a valid {kind}") from None
    return out


def model_and_config(run: str | Path) -> tuple[Path, dict]:
    """The model file of a run folder (or a model path) and the run's config dict."""
    run = Path(run)
    model = run / "final_model.zip" if run.is_dir() else run
    if run.is_dir() and not model.exists() and (run / "final_model.pt2").exists():
        model = run / "final_model.pt2"  # a run of the rllib backend
    if not model.exists():
        raise FileNotFoundError(f"no model at {model}")
    for folder in (model.parent, model.parent.parent):
        if (folder / "config.json").exists():
            return model, json.loads((folder / "config.json").read_text())
    raise FileNotFoundError(f"no config.json next to {model}")


def run_evaluate(args: argparse.Namespace) -> int:
    from .evaluation import evaluate_model_file, markdown_rows

    model, cfg = model_and_config(args.run)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    from .ray_backend.cluster import ClusterError, resolve_address

    try:
        rows = evaluate_model_file(
            model, cfg["game"], cfg["players"], cfg.get("expansions", ()), opponents,
            deals=args.games, workers=args.workers, seed=args.seed,
            address=resolve_address(args.address),
        )  # fmt: skip
    except ClusterError as err:
        raise SystemExit(f"error: {err}") from None
    table = markdown_rows(rows, f"{cfg['game']} policy")
    folder = model.parent
    (folder / "evaluation.json").write_text(json.dumps(rows, indent=2))
    (folder / "evaluation.md").write_text(table + "\n")
    print(table)
    return 0
