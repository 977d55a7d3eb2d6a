"""OpenSpiel's search bots against our agents: duplicate matches, one JSON line per match.

    nice -n 10 python benchmarks/openspiel_strength.py --deals 1 --only tile_mcts_greedy

``openspiel:mcts:1000`` is OpenSpiel's ``MCTSBot`` (random rollouts, 1,000 simulations, UCT
c = 2) on ``python_carcassonne``; ``openspiel:ismcts:1000`` its ``ISMCTSBot`` (same budget) on
``python_cardcassonne``; their rollouts are played on our engine
(``carcassonne_rl.openspiel.bots.EngineRolloutEvaluator``). Every finished game is also
written to stderr as a JSON line. Each line: the match, games, the OpenSpiel bot's win rate with its
95% CI, mean margin and ms per decision of each side (``carcassonne_rl.arena.ratings``).
Needs the ``openspiel`` extra. A 2-player game with 1,000 simulations per decision takes one
to two minutes of one core: keep ``--deals`` small and say how many games.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import carcassonne_rl.openspiel  # noqa: F401  (registers the openspiel:... agent specs)
from carcassonne_rl.arena.match import Setup, entry_labels, run_jobs, schedule
from carcassonne_rl.arena.ratings import entry_stats

MATCHES = {
    "tile_mcts_greedy": (Setup("carcassonne"), ["openspiel:mcts:1000", "greedy"]),
    "tile_mcts_pretrained": (Setup("carcassonne"), ["openspiel:mcts:1000", "pretrained"]),
    "card_ismcts_greedy": (Setup("cardcassonne"), ["openspiel:ismcts:1000", "greedy"]),
    # the PPO policy (card-net-v1), the opponent of the measured rows
    "card_ismcts_pretrained": (
        Setup("cardcassonne"),
        ["openspiel:ismcts:1000", "policy:cardcassonne_2p.npz"],
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", default=list(MATCHES), choices=list(MATCHES))
    ap.add_argument("--deals", type=int, default=1, help="deals per match (x2 seatings)")
    ap.add_argument("--sims", type=int, default=1000, help="simulations of the OpenSpiel bot")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for name in args.only:
        setup, specs = MATCHES[name]
        specs = [specs[0].rsplit(":", 1)[0] + f":{args.sims}", specs[1]]
        t0 = time.perf_counter()
        jobs = schedule(setup, specs, args.deals, duplicate=True, seed=args.seed)
        results = run_jobs(
            jobs,
            workers=args.workers,
            progress=False,
            on_result=lambda r: print(json.dumps(r.to_dict()), file=sys.stderr, flush=True),
        )
        stats = entry_stats(results, entry_labels(specs))
        a, b = specs
        print(
            json.dumps(
                {
                    "match": name,
                    "game": setup.game,
                    "agents": specs,
                    "games": len(results),
                    "scores": [r.scores for r in results],
                    "seats": [r.seats for r in results],
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
