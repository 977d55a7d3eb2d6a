"""Ray backend throughput on this machine, one JSON line per result.

    python benchmarks/ray_scaling.py sampling --game carcassonne --seconds 20
    python benchmarks/ray_scaling.py arena --game carcassonne --deals 10

``sampling``: RLlib env steps/s of the self-play env runners (the trainer's league env and
RLModule, default network sizes) with 1 and 2 env runners (``--runners``), sampling only
and whole ``algo.train()`` iterations (sampling + PPO update on the driver).
``arena``: games/s of the same duplicate match (greedy vs random by default) on the local
process pool (1 and 2 workers) and as Ray tasks (one game per task, and ``--chunk`` games
per task), and Ray's overhead against the pool with the same number of processes. Ray is
started on this machine (``--cpus``, default 2) unless ``--address`` names a cluster.
"""

from __future__ import annotations

import argparse
import json
import time

from carcassonne_rl.arena.match import Setup, play_game, run_jobs, schedule
from carcassonne_rl.runtime.ray_session import ray_session


def emit(**row) -> None:
    print(json.dumps(row), flush=True)


def bench_sampling(args: argparse.Namespace) -> None:
    import torch

    from carcassonne_rl.training.rllib.trainer import build_algorithm, learner_threads
    from carcassonne_rl.training.train_config import TrainConfig

    for runners in args.runners:
        config = TrainConfig(game=args.game, n_steps=args.batch, batch_size=args.batch // 2)
        algo = build_algorithm(config, runners)
        torch.set_num_threads(learner_threads(runners))  # as train_rllib does
        try:
            group = algo.env_runner_group

            def sample(runner, steps=args.batch):
                return sum(e.env_steps() for e in runner.sample(num_timesteps=steps))

            group.foreach_env_runner(sample, local_env_runner=runners == 0)  # warm-up
            steps, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < args.seconds:
                steps += sum(group.foreach_env_runner(sample, local_env_runner=runners == 0))
            wall = time.perf_counter() - t0
            emit(
                benchmark="rllib_sampling",
                game=args.game,
                env_runners=runners,
                env_steps=steps,
                seconds=round(wall, 1),
                env_steps_per_s=round(steps / wall, 1),
            )
            algo.train()  # warm-up of the learner
            before = algo.metrics.peek(("env_runners", "num_env_steps_sampled_lifetime"))
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < args.seconds:
                result = algo.train()
            wall = time.perf_counter() - t0
            steps = result["env_runners"]["num_env_steps_sampled_lifetime"] - before
            emit(
                benchmark="rllib_train",
                game=args.game,
                env_runners=runners,
                env_steps=int(steps),
                seconds=round(wall, 1),
                env_steps_per_s=round(steps / wall, 1),
            )
        finally:
            algo.stop()


def bench_arena(args: argparse.Namespace, address: str) -> None:
    from carcassonne_rl.arena.remote_games import run_remote

    jobs = schedule(Setup(args.game, 2), args.agents.split(","), args.deals, seed=0)
    play_game(jobs[0])  # compile the kernels once (cached on disk for the workers)
    common = {"game": args.game, "agents": args.agents, "games": len(jobs)}
    pool_rate = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        local = run_jobs(jobs, workers=workers, progress=False)
        wall = time.perf_counter() - t0
        pool_rate[workers] = len(jobs) / wall
        emit(
            benchmark="arena",
            backend="pool",
            workers=workers,
            **common,
            seconds=round(wall, 2),
            games_per_s=round(len(jobs) / wall, 2),
        )
    t0 = time.perf_counter()
    with ray_session(address, num_cpus=args.cpus) as ray:
        started = time.perf_counter() - t0
        cpus = int(ray.cluster_resources().get("CPU", 1))
        run_remote(play_game, jobs[: 2 * cpus])  # start the workers, compile
        for chunk in sorted({1, args.chunk}):
            t0 = time.perf_counter()
            remote = run_remote(play_game, jobs, chunk=chunk)
            wall = time.perf_counter() - t0
            same = [r.scores for r in remote] == [r.scores for r in local]
            rate = len(jobs) / wall
            emit(
                benchmark="arena",
                backend="ray",
                cpus=cpus,
                chunk=chunk,
                **common,
                seconds=round(wall, 2),
                games_per_s=round(rate, 2),
                same_scores=same,
                ray_start_s=round(started, 1),
                overhead_vs_pool=round(pool_rate[min(cpus, 2)] / rate - 1, 3),
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("part", choices=["sampling", "arena"])
    ap.add_argument("--game", choices=["carcassonne", "cardcassonne"], default="carcassonne")
    ap.add_argument("--seconds", type=float, default=20.0, help="sampling: per measurement")
    ap.add_argument("--runners", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--batch", type=int, default=256, help="sampling: env steps per runner call")
    ap.add_argument("--agents", default="greedy,random")
    ap.add_argument("--deals", type=int, default=10, help="arena: deals (x 2 seats games)")
    ap.add_argument("--chunk", type=int, default=4, help="arena: games per Ray task")
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of the Ray started here")
    ap.add_argument("--address", default="local")
    args = ap.parse_args()
    if args.part == "arena":
        bench_arena(args, args.address)
    else:
        with ray_session(args.address, num_cpus=args.cpus):
            bench_sampling(args)


if __name__ == "__main__":
    main()
