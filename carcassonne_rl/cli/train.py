"""``carcassonne-rl train`` and ``carcassonne-rl evaluate``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path

from carcassonne_rl.agents.registry import families_help
from carcassonne_rl.games.registry import GAMES, PLAYER_COUNTS
from carcassonne_rl.runtime.progress import watchdog
from carcassonne_rl.training.run_folder import model_and_config
from carcassonne_rl.training.train_config import TrainConfig

from .args import UserError, agent_specs, positive
from .args import expansions as _expansions
from .deals import add_deals_argument, note_deprecated_games

_positive_int = positive(int)


# options of ``train`` that set a TrainConfig field (None = not given on the command line)
CONFIG_OPTIONS = ("game", "players", "expansions", "seed", "eval_every", "eval_deals",
                  "snapshot_every")  # fmt: skip


# AfterstateConfig.timesteps, for the help without importing the learner (a test checks it)
AFTERSTATE_POSITIONS = 200_000
TIMESTEPS_NOTE = (
    "note: --timesteps is deprecated for --algo afterstate, use --positions (it counts the "
    "positions learnt from)"
)


def _default(text: str, value: object) -> str:
    return f"{text} (default: {value})"


def budget(args: argparse.Namespace, afterstate: bool) -> int | None:
    """The run's ``timesteps`` from ``--timesteps`` (PPO: env steps) or ``--positions``
    (the afterstate learner); ``None`` if neither is given. ``--timesteps`` with
    ``--algo afterstate`` is a deprecated alias of ``--positions`` (one note on stderr);
    ``--positions`` for PPO is a ``UserError``."""
    if not afterstate:
        if args.positions is not None:
            raise UserError(
                "--positions is the budget of --algo afterstate; PPO (--algo ppo, --backend "
                "rllib) counts env steps: give --timesteps"
            )
        return args.timesteps
    if args.timesteps is not None:
        if args.positions is not None:
            raise UserError("--timesteps and --positions both given: --algo afterstate takes "
                            "--positions alone")  # fmt: skip
        print(TIMESTEPS_NOTE, file=sys.stderr, flush=True)
        return args.timesteps
    return args.positions


def add_train_parser(sub) -> None:
    p = sub.add_parser(
        "train",
        help="self-play training (MaskablePPO, or afterstate values)",
        description="Self-play training into a run folder: MaskablePPO after a warm start "
        "(--algo ppo), or afterstate values learnt from self-play (--algo afterstate, either "
        "game). "
        "A folder that already holds a run needs --resume or --overwrite.",
    )
    p.add_argument(
        "--game",
        choices=GAMES,
        default=None,
        help=_default("game to train", TrainConfig.game),
    )
    p.add_argument(
        "--players",
        type=int,
        choices=PLAYER_COUNTS,
        default=None,
        help=_default("seats per game", TrainConfig.players),
    )
    p.add_argument(
        "--expansions",
        type=_expansions,
        default=None,
        help="tile game: comma-separated, from messages,labyrinth (default: none)",
    )
    p.add_argument(
        "--timesteps",
        type=_positive_int,
        default=None,
        help=_default(
            "--algo ppo and --backend rllib: the budget in env steps of self-play, all envs "
            "together (with --resume: the new total)",
            TrainConfig.timesteps,
        ),
    )
    p.add_argument(
        "--positions",
        type=_positive_int,
        default=None,
        help=_default(
            "--algo afterstate: the budget in positions learnt from, the turns recorded in "
            "self-play (with --resume: the new total)",
            AFTERSTATE_POSITIONS,
        ),
    )
    p.add_argument("--out", required=True, help="run folder, e.g. runs/NAME")
    p.add_argument("--seed", type=int, default=None, help=_default("run seed", TrainConfig.seed))
    p.add_argument(
        "--envs",
        type=_positive_int,
        default=None,
        help="parallel envs, one process each (default: the CPU cores, at most 8)",
    )
    p.add_argument(
        "--device",
        default=None,
        help=_default(
            "torch device of the learner: auto (a GPU if there is one), cpu, cuda, "
            "cuda:N, mps (may change on --resume); --algo afterstate: its self-play's "
            "network evaluations too, default cpu",
            TrainConfig.device,
        ),
    )
    p.add_argument(
        "--eval-every",
        type=int,
        default=None,
        help=_default(
            "steps (--algo afterstate: positions) between evaluations vs the baselines, 0 = never",
            TrainConfig.eval_every,
        ),
    )
    p.add_argument(
        "--eval-deals",
        type=_positive_int,
        default=None,
        help=_default("deals per evaluation, each played from every seat", TrainConfig.eval_deals),
    )
    p.add_argument(
        "--snapshot-every",
        type=int,
        default=None,
        help=_default(
            "steps (--algo afterstate: positions) between snapshots for the opponent pool",
            TrainConfig.snapshot_every,
        ),
    )
    p.add_argument(
        "--algo",
        choices=["ppo", "afterstate"],
        default=None,
        help="ppo: MaskablePPO (both games; its budget: --timesteps); afterstate: afterstate "
        "values learnt by self-play (both games; its budget: --positions) (default: ppo)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="any other config field (TrainConfig, or AfterstateConfig with --algo "
        "afterstate), e.g. --set channels=16 --set warm_start_games=0",
    )
    folder = p.add_mutually_exclusive_group()
    folder.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out with its settings (only --timesteps or --positions, "
        "--envs, --device may change)",
    )
    folder.add_argument(
        "--overwrite", action="store_true", help="delete the run in --out and start afresh"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    add_ray_arguments(p)


def add_ray_arguments(p: argparse.ArgumentParser) -> None:
    """``--backend rllib`` with its Ray options (see :mod:`carcassonne_rl.training.rllib`)."""
    p.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO on this machine; rllib: RLlib PPO on Ray (pip install -e .[ray])",
    )
    p.add_argument(
        "--address",
        default=None,
        help="rllib, or --algo afterstate: Ray cluster (HOST:PORT, auto, local; default "
        "RAY_ADDRESS; afterstate: else local processes) that plays the self-play games",
    )
    p.add_argument(
        "--num-env-runners",
        type=int,
        default=None,
        help="rllib: env-runner actors sampling games, 1 CPU each (default 1; 0: sample in "
        "the trainer process)",
    )


def add_evaluate_parser(sub) -> None:
    p = sub.add_parser(
        "evaluate",
        help="arena games of a trained run vs baselines",
        description="Play a trained model against baseline agents (each deal from every "
        "seat); writes evaluation.md/.json next to the model.",
    )
    p.add_argument("run", help="run folder (holds final_model.zip/.npz) or a model file")
    add_deals_argument(p, 100, "deals per opponent, each played from every seat")
    p.add_argument(
        "--opponents",
        default="random,greedy",
        help="comma-separated " + families_help() + " (default: random,greedy)",
    )
    p.add_argument(
        "--workers", type=_positive_int, default=1, help="processes playing games (default: 1)"
    )
    p.add_argument("--seed", type=int, default=7, help="seed of the deals (default: 7)")
    p.add_argument(
        "--address",
        default=None,
        help="play the games on this Ray cluster (default: RAY_ADDRESS, else local processes)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def train_config(args: argparse.Namespace, base: dict, config_class: type = TrainConfig):
    """``base`` settings with the options given on the command line applied, checked."""
    kwargs = dict(base)
    for name in CONFIG_OPTIONS:
        value = getattr(args, name)
        if value is not None:
            kwargs[name] = value
    steps = budget(args, config_class is not TrainConfig)
    if steps is not None:
        kwargs["timesteps"] = steps
    if args.envs is not None:
        kwargs["n_envs" if config_class is TrainConfig else "workers"] = args.envs
    if args.device is not None:
        kwargs["device"] = args.device
    kwargs.update(parse_overrides(args.set, config_class))
    try:
        config = config_class(**kwargs)
        if config_class is not TrainConfig:  # the afterstate learner: is the device here?
            from carcassonne_rl.agents.common.device_net import resolve_device

            resolve_device(config.device)
    except (TypeError, ValueError) as err:
        raise UserError(f"bad training settings: {err}") from None
    return config


def run_train(args: argparse.Namespace) -> int:
    from carcassonne_rl.training.run_folder import (
        check_resume_config,
        final_evaluation,
        prepare,
        saved_config,
    )

    out = Path(args.out)
    resume = prepare(out, args.resume, args.overwrite, "--out")
    if resume:
        saved = saved_config(out)
        algo = getattr(saved, "algo", "ppo")
        if args.algo is not None and args.algo != algo:
            raise UserError(f"{out} holds a --algo {algo} run, not --algo {args.algo}")
        config = train_config(args, saved.to_dict(), type(saved))
        check_resume_config(out, config, "options (leave them out or repeat them)")
    else:
        algo = args.algo or "ppo"
        config_class: type = TrainConfig
        if algo == "afterstate":
            from carcassonne_rl.training.afterstate.config import AfterstateConfig

            config_class = AfterstateConfig
        config = train_config(args, {}, config_class)
    if args.backend == "rllib":
        if algo != "ppo":
            raise UserError("--backend rllib trains with PPO: leave out --algo afterstate")
        if args.device is not None:
            raise UserError("--device is for --backend sb3 (Ray places the rllib learner)")
        return _run_train_rllib(args, config)
    if args.num_env_runners is not None or (args.address and algo != "afterstate"):
        raise UserError("--num-env-runners needs --backend rllib; --address needs --backend "
                        "rllib or --algo afterstate")  # fmt: skip
    if algo == "afterstate":
        from carcassonne_rl.runtime.ray_session import ClusterError, resolve_address
        from carcassonne_rl.training.afterstate.trainer import train_afterstate

        try:
            with watchdog("training", not args.no_progress):
                train_afterstate(config, out, resume=resume, progress=not args.no_progress,
                                 address=resolve_address(args.address))  # fmt: skip
        except ClusterError as err:
            raise UserError(str(err)) from None
        model = "final_model.npz"
    else:
        from carcassonne_rl.training.ppo.selfplay import train

        with watchdog("training", not args.no_progress):
            train(config, out, resume=resume, progress=not args.no_progress)
        model = "final_model.zip"
    final = final_evaluation(out)
    if final is not None:
        from carcassonne_rl.arena.evaluation import markdown_rows

        steps, rows = final
        print(f"final evaluation at {steps} steps ({config.eval_deals} deals, every seat):")
        print(markdown_rows(rows, f"{config.game} {algo}"))
    print(f"run saved in {out} ({model}, eval_history.json, plots/training.png)")
    return 0


def _run_train_rllib(args: argparse.Namespace, config: TrainConfig) -> int:
    from carcassonne_rl.runtime.ray_session import ClusterError, resolve_address

    if args.resume:
        raise UserError("--resume is not supported by --backend rllib yet")
    runners = 1 if args.num_env_runners is None else args.num_env_runners
    if runners < 0:
        raise UserError(f"--num-env-runners must be >= 0, got {runners}")
    try:
        from carcassonne_rl.training.rllib.trainer import train_rllib

        address = resolve_address(args.address)
        final = train_rllib(config, args.out, address, runners, not args.no_progress)
    except (ClusterError, FileExistsError) as err:
        raise UserError(str(err)) from None
    except ImportError as err:  # training.rllib.trainer imports Ray
        raise UserError(
            f'Ray is not installed ({err.name} is missing): pip install -e ".[ray]"'
        ) from None
    print(f"run saved in {args.out} ({final.name}, eval_history.json, plots/training.png)")
    return 0


def parse_overrides(items: list[str], config_class: type = TrainConfig) -> dict:
    """``["channels=16", "learning_rate=1e-3"]`` -> typed config field values."""
    types = {f.name: f.type for f in fields(config_class)}
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or name not in types:
            known = ", ".join(sorted(types))
            raise UserError(f"--set {item!r}: expected FIELD=VALUE with FIELD one of: {known}")
        kind = str(types[name])
        try:
            if kind.startswith("tuple"):
                out[name] = tuple(v for v in text.split(",") if v)
            elif kind.startswith("int"):
                out[name] = None if text == "None" else int(text)
            elif kind.startswith("float"):
                out[name] = None if text == "None" else float(text)
            elif kind.endswith("| None"):
                out[name] = None if text == "None" else text
            else:
                out[name] = text
        except ValueError:
            raise UserError(f"--set {item!r}: {text!r} is not a valid {kind}") from None
    return out


def run_evaluate(args: argparse.Namespace) -> int:
    from carcassonne_rl.arena.evaluation import evaluate_model_file, markdown_rows

    note_deprecated_games(args)
    model, cfg = model_and_config(args.run)
    opponents = agent_specs(args.opponents, cfg["game"], "--opponents")
    from carcassonne_rl.runtime.ray_session import ClusterError, resolve_address

    try:
        rows = evaluate_model_file(
            model, cfg["game"], cfg.get("players", 2), cfg.get("expansions", ()), opponents,
            deals=args.deals, workers=args.workers, seed=args.seed,
            progress=not args.no_progress, address=resolve_address(args.address),
        )  # fmt: skip
    except ClusterError as err:
        raise UserError(str(err)) from None
    table = markdown_rows(rows, f"{cfg['game']} policy")
    folder = model.parent
    from carcassonne_rl.training.run_files import atomic_write_json, atomic_write_text

    atomic_write_json(folder / "evaluation.json", rows)
    atomic_write_text(folder / "evaluation.md", table + "\n")
    print(table)
    return 0
