"""Training throughput of the tile-game trainers, one JSON line each.

    python benchmarks/training_throughput.py --seconds 60 [--workers 2] [--device cuda]

- ``afterstate``: self-play decisions per second of ``train --algo afterstate`` at its
  default settings (``workers`` processes, ``games_in_flight`` games each, the network
  valuing every option of all of them in one batch), and the positions learnt per second
  including the learner's updates;
- ``afterstate_tables``: the same for multi-player self-play with the ``table`` features,
  one line per table (3, 4 and 5 seats, then the mix ``2,3,4,5`` dealt in turn), the seats
  drawn as in training (greedy seats in half of the games);
- ``ppo``: MaskablePPO env steps per second of ``train --algo ppo`` at its default settings
  (``n_envs`` = cores, opponents from the pool), learner updates included.

Both start from an untrained network (the per-decision cost does not depend on the weights)
and measure after a first iteration (compilation and process start-up excluded).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time


def afterstate(
    seconds: float, workers: int, tables: tuple[str, ...] = (), device: str = "cpu"
) -> dict:
    from carcassonne_rl.agents.common.device_net import process_pool
    from carcassonne_rl.training.afterstate.trainer import (
        AfterstateConfig,
        Learner,
        _self_play,
        export,
    )

    extra = {"feature_set": "table", "tables": tables} if tables else {}
    config = AfterstateConfig(workers=workers, device=device, **extra)
    learner = Learner(config)
    state = {"games": 0}
    with process_pool(workers, device) as pool:
        _self_play(config, export(learner.model, config), state, pool)  # warm-up
        decisions = positions = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            state["games"] += config.games_per_iteration
            results = _self_play(config, export(learner.model, config), state, pool)
            decisions += sum(r["decisions"] for r in results)
            n = sum(len(r["y"]) for r in results)
            positions += n
            for r in results:
                learner.add(r["x"], r["y"])
            learner.fit(n)
        wall = time.perf_counter() - t0
    return {
        "bench": "train_throughput",
        "algo": "afterstate",
        **({"tables": ",".join(tables), "feature_set": "table"} if tables else {}),
        "workers": workers,
        "device": device,
        "games_in_flight": config.games_in_flight,
        "decisions_per_s": round(decisions / wall, 1),
        "positions_per_s": round(positions / wall, 1),
        "seconds": round(wall, 1),
    }


def ppo(seconds: float, workers: int) -> dict:
    from carcassonne_rl.training.ppo.selfplay import make_vec_env, new_model
    from carcassonne_rl.training.train_config import TrainConfig

    config = TrainConfig(game="carcassonne", n_envs=workers, warm_start_games=0)
    env = make_vec_env(config)
    try:
        model = new_model(config, env, None)
        model.learn(config.n_steps * workers)  # warm-up: one rollout + update
        steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            model.learn(config.n_steps * workers, reset_num_timesteps=False)
            steps += config.n_steps * workers
        wall = time.perf_counter() - t0
    finally:
        env.close()
    return {
        "bench": "train_throughput",
        "algo": "ppo",
        "workers": workers,
        "env_steps_per_s": round(steps / wall, 1),
        "seconds": round(wall, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", choices=["afterstate", "afterstate_tables", "ppo"], nargs="*",
                    default=["afterstate", "afterstate_tables", "ppo"])  # fmt: skip
    ap.add_argument("--device", default="cpu", help="afterstate: the torch device (cpu, cuda, ...)")
    args = ap.parse_args()
    runs = []
    for name in args.only:
        if name == "afterstate_tables":
            runs += [(afterstate, (t,)) for t in (("3",), ("4",), ("5",), ("2", "3", "4", "5"))]
        else:
            runs.append((afterstate if name == "afterstate" else ppo, ()))
    for fn, extra in runs:
        kwargs = {"device": args.device} if fn is afterstate else {}
        row = fn(args.seconds, args.workers, *extra, **kwargs)
        row.update({"cpus": os.cpu_count(), "machine": platform.machine()})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
