"""Diagnostic: how much of the other seats' true hands the worlds hold, at any table size.

``hand_overlap.py`` at 2-5 players, reading the round's moves from the view's turn log (as
``evidence=turns`` does). On recorded games (``record_selfplay.py``, any agent in the seats), at
each of seat 0's turn decisions with another seat's move this round to read: ``M`` worlds
drawn uniformly from seat 0's view, each weighted by the model's likelihood of the other
seats' moves at each temperature ``T`` (``MODEL``: ``heuristic``, the default, or ``policy``,
the search's base network, as ``infer=`` names them); per temperature, the mean overlap (cards
in common, multiset) of the worlds' other hands with the true ones, all other seats together,
uniform and importance-weighted, the mean log-likelihood of the moves read in the true state,
and the effective sample size of the weights. One JSON line per temperature.

``python benchmarks/card_inference/hand_overlap_tables.py FOLDER GAMES M T[,T...] [MODEL]``
"""

import json
import random
import sys
from pathlib import Path

import numpy as np

from carcassonne_rl.agents.card.inference import (
    ess,
    heuristic_values,
    log_likelihood,
    policy_values,
    tempered,
    turn_moves,
)
from carcassonne_rl.agents.pretrained import make_card_search
from carcassonne_rl.games.cardcassonne import determinize, load_json, new_game, view

folder, games, M = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
temps = [float(x) for x in sys.argv[4].split(",")]
records = [p.read_text() for p in sorted(folder.glob("game*.json"))][:games]
if not records:
    raise SystemExit(f"no game records (game*.json) in {folder}")
model = sys.argv[5] if len(sys.argv) > 5 else "heuristic"
if model not in ("heuristic", "policy"):
    raise SystemExit(f"MODEL: heuristic or policy, got {model!r}")
values = (
    heuristic_values()
    if model == "heuristic"
    else policy_values(make_card_search(["search"], 0).base)
)


def overlap(a, b) -> int:
    return sum(min(x, y) for x, y in zip(a, b, strict=True))


def others_overlap(w, s, me: int) -> int:
    return sum(overlap(w.hands[q], s.hands[q]) for q in range(s.n) if q != me)


stats = {t: {"uni": [], "w": [], "ess": [], "ll": []} for t in temps}
held = []
rng = random.Random(0)
for rec in records:
    g = load_json(rec)
    s = new_game(g.config, g.card_order)
    for code in g.history:
        if s.phase == "turn" and s.current_player == 0:
            v = view(s, 0)
            moves = turn_moves(v)
            if any(m.seat != 0 for m in moves) and sum(s.hand_size[1:]):
                pool = [determinize(v, 0, rng) for _ in range(M)]
                ov = np.array([others_overlap(w, s, 0) for w in pool], float)
                held.append(sum(s.hand_size[1:]))
                for t in temps:
                    lw = np.array([log_likelihood(w, moves, 0, values, t) for w in pool])
                    w, _ = tempered(lw, 0.0)
                    st = stats[t]
                    st["uni"].append(ov.mean())
                    st["w"].append(float(w @ ov))
                    st["ess"].append(ess(w))
                    n = sum(m.seat != 0 for m in moves)
                    st["ll"].append(log_likelihood(s, moves, 0, values, t) / n)
        s.apply_code(code)
for t, st in stats.items():
    uni, wt = np.array(st["uni"]), np.array(st["w"])
    d = wt - uni
    print(json.dumps({
        "folder": str(folder), "model": model, "T": t, "decisions": len(uni),
        "others_hands": round(float(np.mean(held)), 2),
        "overlap_uniform": round(float(uni.mean()), 3),
        "overlap_inferred": round(float(wt.mean()), 3),
        "gain": round(float(d.mean()), 3),
        "gain_ci95": round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), 3),
        "true_state_log_lik_per_move": round(float(np.mean(st["ll"])), 3),
        "ess_of_M": round(float(np.mean(st["ess"])), 2), "M": M,
    }))  # fmt: skip
