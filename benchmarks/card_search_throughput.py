"""The card search (``card-search-v1`` by default) on its compiled rollouts against the Python
rollouts (``batched=False``, the reference), old and new in the same run, one JSON line per
table size.

    python benchmarks/card_search_throughput.py [--games 2] [--players 2,3] [--spec SPEC]

Seat 0 of each game is the search, the others ``pretrained``; at every decision of seat 0
both paths (two agents of the same seed) decide on the same state, each timed in CPU
seconds of this process (``time.process_time``: one thread each way, so the ratio does not
depend on what else the machine runs), and the reference's move is played. A row: CPU ms
per searched decision (a turn with two or more options) of each path, their ratio, and how
many of the decisions were identical (all of them: the same worlds, the same tie-breaks).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any


def emit(**row: Any) -> None:
    print(json.dumps(row), flush=True)


def machine() -> str:
    return f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"


def play(spec: str, players: int, seed: int) -> dict[str, float]:
    """One game; the CPU and wall seconds of each path over the searched decisions."""
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.games.cardcassonne import GameConfig, new_game

    state = new_game(GameConfig(players, seed))
    new = make_agent(spec, "cardcassonne", seed=seed)
    old = make_agent(spec, "cardcassonne", seed=seed)
    old.batched = False
    others = [make_agent("pretrained", "cardcassonne", seed=seed + q) for q in range(players)]
    out = dict.fromkeys(("decisions", "same", "old_cpu", "new_cpu", "old_wall", "new_wall"), 0.0)
    while not state.is_over:
        p = state.current_player
        if p != 0:
            state.apply_code(others[p].act(state, p))
            continue
        searched = state.phase == "turn" and len(state.legal_codes()) > 1
        c0, w0 = time.process_time(), time.perf_counter()
        a = old.act(state, p)
        c1, w1 = time.process_time(), time.perf_counter()
        b = new.act(state, p)
        c2, w2 = time.process_time(), time.perf_counter()
        if searched:
            out["decisions"] += 1
            out["same"] += a == b
            out["old_cpu"] += c1 - c0
            out["new_cpu"] += c2 - c1
            out["old_wall"] += w1 - w0
            out["new_wall"] += w2 - w1
        state.apply_code(a)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2, help="games per table size")
    p.add_argument("--players", default="2,3", help="comma-separated table sizes")
    p.add_argument("--spec", default="card-search-v1", help="the card search measured")
    args = p.parse_args()
    play(args.spec, 2, 999)  # compile (or load the cached kernels) and load the network
    for players in (int(n) for n in args.players.split(",")):
        total: dict[str, float] = {}
        for seed in range(args.games):
            for k, v in play(args.spec, players, seed).items():
                total[k] = total.get(k, 0.0) + v
        n = total["decisions"]
        emit(bench="card_search", agent=args.spec, players=players, games=args.games,
             decisions=int(n), identical_decisions=int(total["same"]),
             old_cpu_ms_per_decision=round(1000 * total["old_cpu"] / n, 2),
             new_cpu_ms_per_decision=round(1000 * total["new_cpu"] / n, 2),
             ratio=round(total["old_cpu"] / total["new_cpu"], 2),
             wall_ratio=round(total["old_wall"] / total["new_wall"], 2),
             machine=machine())  # fmt: skip


if __name__ == "__main__":
    main()
