"""Diagnostic: the oracle regret of the plain and the inference search's choices.

On recorded card-search-v1 self-play games, at seat 0's turn decisions where the inference
has the other seat's moves to read: card-search-v1, search(infer=heuristic) (same seed), and
an oracle, the cheating search (the TRUE hidden cards, the pile reshuffled) with 32 worlds over
the same 3 candidates; regret = the oracle's best value - its value of the agent's choice."""

import json
import sys
from pathlib import Path

import numpy as np

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.probes import CheatingCardSearchAgent
from carcassonne_rl.games.cardcassonne import load_json, new_game

folder, first, games = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
spec = sys.argv[4] if len(sys.argv) > 4 else "search(infer=heuristic)"
records = [p.read_text() for p in sorted(folder.glob("*.json"))][first : first + games]
ra, rb, agree = [], [], 0
for gi, rec in enumerate(records):
    g = load_json(rec)
    s = new_game(g.config, g.card_order)
    plain = make_agent("card-search-v1", "cardcassonne", 7 + gi)
    inf = make_agent(spec, "cardcassonne", 7 + gi)
    oracle = CheatingCardSearchAgent(make_agent("search(worlds=32)", "cardcassonne", 99), 99)
    for code in g.history:
        if s.current_player == 0:
            a = plain.act(s, 0)
            b = inf.act(s, 0)
            if (
                s.phase == "turn"
                and inf.last_inference.get("evidence")
                and len(plain.last_values) > 1
            ):
                oracle.act(s, 0)
                ov = oracle.last_values
                best = max(ov.values())
                ra.append(best - ov[a])
                rb.append(best - ov[b])
                agree += a == b
        s.apply_code(code)
ra, rb = np.array(ra), np.array(rb)
d = rb - ra
print(
    json.dumps(
        {
            "spec": spec,
            "decisions": len(ra),
            "same_choice": agree,
            "regret_plain": round(float(ra.mean()), 3),
            "regret_inference": round(float(rb.mean()), 3),
            "diff": round(float(d.mean()), 3),
            "diff_ci95": round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), 3),
        }
    )
)
