"""The ``carcassonne-rl`` command line: main job, training, evaluation, arena, benchmarks,
play and replay."""

from __future__ import annotations

import argparse
import os
import sys

from carcassonne_rl.envs.registry import ENVS
from carcassonne_rl.games.registry import GAMES, PLAYER_COUNTS

from .args import UserError, add_table_arguments, check_expansions
from .args import expansions as _expansions
from .args import positive as _positive


def _add_bench_parser(sub) -> None:
    bench = sub.add_parser("bench", help="speed benchmarks (one JSON line per result)")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    engine = bench_sub.add_parser("engine", help="uniformly random games through the engine API")
    engine.add_argument(
        "--game",
        choices=GAMES,
        default="carcassonne",
        help="game to play (default: carcassonne)",
    )
    engine.add_argument(
        "--seconds", type=_positive(float), default=10.0, help="duration (default: 10)"
    )
    engine.add_argument(
        "--players", type=int, choices=PLAYER_COUNTS, default=2, help="seats (default: 2)"
    )
    engine.add_argument("--seed", type=int, default=0, help="seed of the deals (default: 0)")
    engine.add_argument(
        "--expansions",
        type=_expansions,
        default=(),
        help="tile game only: comma-separated, from messages,labyrinth (default: none)",
    )
    env = bench_sub.add_parser("env", help="env steps/s against PettingZoo's connect_four_v3")
    env.add_argument(
        "--env",
        choices=ENVS,
        required=True,
        help="env to time (carcassonne_v1 is also compared with carcassonne_v0, same run)",
    )
    env.add_argument(
        "--seconds", type=_positive(float), default=5.0, help="duration per env (default: 5)"
    )
    add_table_arguments(env)
    _add_bench_vec_parser(bench_sub)


def _add_bench_vec_parser(bench_sub) -> None:
    vec = bench_sub.add_parser(
        "vec", help="vector env steps/s for several N, beside the AEC envs and connect_four_v3"
    )
    vec.add_argument(
        "--env",
        choices=(*ENVS, "all"),
        default="all",
        help="vector env to time (default: all)",
    )
    vec.add_argument(
        "--sizes",
        type=_sizes,
        default=(1, 16, 256, 1024),
        help="comma-separated numbers of games (default: 1,16,256,1024)",
    )
    vec.add_argument(
        "--seconds", type=_positive(float), default=2.0, help="duration per result (default: 2)"
    )
    add_table_arguments(
        vec, "tile game only: comma-separated, from messages,labyrinth (default: none)"
    )
    vec.add_argument(
        "--threads",
        type=_positive(int),
        default=None,
        help="threads of the compiled step (default: 1, the calling thread)",
    )


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(v) for v in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(
            f"expected positive ints separated by commas, got {text!r}"
        )
    return sizes


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``carcassonne-rl`` and all its sub-commands (parsing runs nothing)."""
    from .agents import add_agents_parser
    from .arena import add_arena_parser
    from .distill import add_distill_parser
    from .expert_iteration import add_expert_iteration_parser
    from .expert_loop import add_expert_loop_parser
    from .export import add_export_parser
    from .fuzz import add_fuzz_parser
    from .leaderboard import add_leaderboard_parser
    from .main_job import add_main_parser
    from .play import add_play_parser, add_replay_parser
    from .probe import add_probe_parser
    from .train import add_evaluate_parser, add_train_parser

    parser = argparse.ArgumentParser(
        prog="carcassonne-rl",
        description="Carcassonne and Cardcassonne RL environments: training, arena, benchmarks.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add_main_parser(sub)
    add_train_parser(sub)
    add_evaluate_parser(sub)
    add_arena_parser(sub)
    add_leaderboard_parser(sub)
    add_probe_parser(sub)
    add_export_parser(sub)
    add_distill_parser(sub)
    add_expert_iteration_parser(sub)
    add_expert_loop_parser(sub)
    _add_bench_parser(sub)
    add_play_parser(sub)
    add_replay_parser(sub)
    add_fuzz_parser(sub)
    add_agents_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a sub-command; a user error (``UserError``) is one line on stderr, exit status 2."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except UserError as err:
        print(f"carcassonne-rl {args.command}: error: {err}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:  # an optional extra is not installed: name it
        from .extras import missing_extra

        message = missing_extra(err)
        if message is None:
            raise
        print(f"carcassonne-rl {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the output's reader went away (e.g. `| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "bench" and args.target == "vec":
        from carcassonne_rl.testing.bench_vec import VEC_ENVS
        from carcassonne_rl.testing.bench_vec import main as bench_vec_main

        envs = VEC_ENVS if args.env == "all" else (args.env,)
        bench_vec_main(
            envs, args.sizes, args.seconds, args.players, threads=args.threads,
            expansions=args.expansions,
        )  # fmt: skip
        return 0
    if args.command == "bench":
        game = args.game if args.target == "engine" else args.env.rpartition("_v")[0]
        check_expansions(game, args.expansions)
    if args.command == "bench" and args.target == "engine":
        from carcassonne_rl.testing.bench_engine import main as bench_main

        bench_main(args.game, args.seconds, args.players, args.seed, args.expansions)
        return 0
    if args.command == "bench" and args.target == "env":
        from carcassonne_rl.testing.bench_env import main as bench_env_main

        kwargs = {"expansions": args.expansions} if args.env.startswith("carcassonne_") else {}
        bench_env_main(args.env, args.seconds, args.players, **kwargs)
        return 0
    if args.command == "fuzz":
        from .fuzz import run_fuzz

        return run_fuzz(args)
    if args.command == "agents":
        from .agents import run_agents

        return run_agents(args)
    if args.command == "arena":
        from .arena import run_arena

        return run_arena(args)
    if args.command == "leaderboard":
        from .leaderboard import run_leaderboard

        return run_leaderboard(args)
    if args.command == "probe":
        from .probe import run_probe

        return run_probe(args)
    if args.command == "train":
        from .train import run_train

        return run_train(args)
    if args.command == "evaluate":
        from .train import run_evaluate

        return run_evaluate(args)
    if args.command == "distill":
        from .distill import run_distill

        return run_distill(args)
    if args.command == "expert-iteration":
        from .expert_iteration import run_expert_iteration

        return run_expert_iteration(args)
    if args.command == "expert-loop":
        from .expert_loop import run_expert_loop

        return run_expert_loop(args)
    if args.command == "export":
        from .export import run_export

        return run_export(args)
    if args.command in ("play", "replay"):
        from .play import run_play, run_replay

        return run_play(args) if args.command == "play" else run_replay(args)
    if args.command == "main":
        from .main_job import run_main

        return run_main(args)
    raise AssertionError(args.command)  # argparse rejects anything else


if __name__ == "__main__":
    sys.exit(main())
