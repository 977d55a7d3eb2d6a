"""Expert iteration's costs on this machine, one JSON line per result.

    python benchmarks/teacher_throughput.py --games 4 --workers 1,2
    python benchmarks/teacher_throughput.py --games 8 --address HEAD_IP:6379
    python benchmarks/teacher_throughput.py --games 16 --workers 16 --devices cpu,cuda \
        --players 5 --teacher pretrained:search=3:2@carcassonne_table_expert.npz

``teacher``: teacher placements per second (the search's tile placements recorded, per
second of wall time; and CPU seconds per placement, this process's and its pool's: not
with ``--address``) playing ``--games`` teacher games with each process count of
``--workers`` (a process pool; with ``--address``, Ray tasks on that cluster instead, once).
Every count plays the same games in a fresh folder, at tables of ``--players``, once per
torch device of ``--devices`` (``cpu``: the numpy network; a GPU: the searches' network
evaluations there, the same games to float32 tolerance). ``fit``: the learner's cost, the
fit toward the search's values on the games of the first measurement (``--epochs``), in
rows and placements per second, on each device. ``gate``: seconds per game of two networks
head to head (the gate plays ``2 x deals`` of them). The projection in
docs/research/2026-11-27-expert-loop-throughput.md is made of these.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from carcassonne_rl.training.expert_iteration.positions import (
    collect,
    load_positions,
    play_teacher_game,
    teacher_deal,
)


def emit(**row) -> None:
    print(json.dumps(row), flush=True)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished child processes (the pool's)."""
    me, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def machine() -> str:
    return f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} when started"


def bench_teacher(args: argparse.Namespace, root: Path) -> Path:
    play_teacher_game(args.teacher, teacher_deal(999, 0), 0, placements=2,
                      players=args.players)  # compile, load  # fmt: skip
    first = None
    runs = [("ray", 0, "cpu")] if args.address else [
        ("pool", w, d) for d in args.devices for w in args.workers]  # fmt: skip
    for backend, workers, device in runs:
        folder = root / f"{backend}_{workers}_{device}"
        t0, cpu0 = time.perf_counter(), cpu_seconds()
        collect(folder, args.games, args.teacher, args.seed, max(1, workers),
                address=args.address, placements=args.placements, tables=(args.players,),
                device=device)  # fmt: skip
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
        placements = len(set(load_positions(folder)["decision"].tolist()))
        emit(benchmark="teacher", teacher=args.teacher, backend=backend, workers=workers,
             device=device, players=args.players,
             games=args.games, placements=placements, seconds=round(wall, 1),
             placements_per_s=round(placements / wall, 2),
             seconds_per_placement=round(wall / placements, 3),
             cpu_seconds_per_placement=round(cpu / placements, 3), machine=machine())  # fmt: skip
        first = first or folder
    return first


def bench_fit(args: argparse.Namespace, folder: Path, device: str) -> None:
    from carcassonne_rl.agents.pretrained import pretrained_path
    from carcassonne_rl.training.expert_iteration.finetune import finetune
    from carcassonne_rl.training.expert_iteration.positions import default_network

    data = load_positions(folder)
    placements = len(set(data["decision"].tolist()))
    init = default_network((args.players,)) or pretrained_path("carcassonne")
    finetune(data, init, 0, device=device)  # torch's import, the network's build
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    _, report = finetune(data, init, args.epochs, learning_rate=3e-4, validation=0.1,
                         device=device)  # fmt: skip
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    emit(benchmark="fit", device=device, epochs=args.epochs, rows=report["train_rows"],
         placements=placements,
         seconds=round(wall, 2), rows_per_s=round(report["train_rows"] * args.epochs / wall, 1),
         placements_per_s=round(placements / wall, 1), cpu_seconds=round(cpu, 2),
         machine=machine())  # fmt: skip


def bench_gate(args: argparse.Namespace) -> None:
    from carcassonne_rl.agents.pretrained import model_dir
    from carcassonne_rl.arena.match import Setup, play_game, schedule, warm_up

    expert = f"policy:{model_dir() / 'carcassonne_2p_expert.npz'}"
    jobs = schedule(Setup(), [expert, "pretrained"], args.gate_deals, seed=1_000)
    for spec in (expert, "pretrained"):
        warm_up(spec, Setup())
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    for job in jobs:
        play_game(job)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    emit(benchmark="gate", games=len(jobs), seconds=round(wall, 2),
         seconds_per_game=round(wall / len(jobs), 3),
         cpu_seconds_per_game=round(cpu / len(jobs), 3), machine=machine())  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--teacher", default="pretrained:search=3:2")
    p.add_argument("--games", type=int, default=4, help="teacher games per measurement")
    p.add_argument("--placements", type=int, default=None, help="shortened games")
    p.add_argument("--workers", type=lambda t: [int(w) for w in t.split(",")], default=[1, 2])
    p.add_argument("--address", default=None, help="a Ray cluster instead of the pool")
    p.add_argument("--epochs", type=int, default=4, help="the fit's epochs")
    p.add_argument("--gate-deals", type=int, default=5, help="deals of the gate measurement")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=2, help="the teacher games' table")
    p.add_argument("--devices", type=lambda t: t.split(","), default=["cpu"],
                   help="torch devices of the evaluations and the fit (cpu,cuda)")  # fmt: skip
    p.add_argument("--no-gate", action="store_true", help="leave the gate measurement out")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = bench_teacher(args, Path(tmp))
        for device in ["cpu"] if args.address else args.devices:
            bench_fit(args, folder, device)
    if not args.no_gate:
        bench_gate(args)


if __name__ == "__main__":
    main()
