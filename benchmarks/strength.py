"""Strength benchmarks: duplicate matches between baseline agents, one JSON line per match.

    python benchmarks/strength.py --only tile_greedy_random card_greedy_random --deals 30

Each line: the match, games played, the first agent's win rate with its 95% CI, mean
margin and ms per decision of each agent (from ``carcassonne_rl.arena.ratings``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from carcassonne_rl.arena.match import Setup, entry_labels, run_jobs, schedule
from carcassonne_rl.arena.ratings import entry_stats

MATCHES = {
    "tile_greedy_random": (Setup("carcassonne"), ["greedy", "random"]),
    "tile_mcts1000_greedy": (Setup("carcassonne"), ["mcts:1000", "greedy"]),
    "card_greedy_random": (Setup("cardcassonne"), ["greedy", "random"]),
    "card_mcts1000_greedy": (Setup("cardcassonne"), ["mcts:1000", "greedy"]),
    "tile_messages_greedy_random": (Setup("carcassonne", 2, ("messages",)), ["greedy", "random"]),
    "tile_labyrinth_greedy_random": (
        Setup("carcassonne", 2, ("labyrinth",)),
        ["greedy", "random"],
    ),
    "tile_both_mcts200_greedy": (
        Setup("carcassonne", 2, ("messages", "labyrinth")),
        ["mcts:200", "greedy"],
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", default=list(MATCHES), choices=list(MATCHES))
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for name in args.only:
        setup, specs = MATCHES[name]
        t0 = time.perf_counter()
        jobs = schedule(setup, specs, args.deals, duplicate=True, seed=args.seed)
        results = run_jobs(jobs, workers=args.workers, progress=False)
        stats = entry_stats(results, entry_labels(specs))
        a, b = specs
        print(
            json.dumps(
                {
                    "match": name,
                    "game": setup.game,
                    "expansions": list(setup.expansions),
                    "agents": specs,
                    "games": len(results),
                    "win_rate": round(stats[a]["win_rate"], 4),
                    "win_rate_ci95": [round(x, 4) for x in stats[a]["win_rate_ci95"]],
                    "mean_margin": round(stats[a]["mean_margin"], 2),
                    "ms_per_decision": {s: round(stats[s]["ms_per_decision"], 2) for s in (a, b)},
                    "seconds": round(time.perf_counter() - t0, 1),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
