"""Diagnostic: how much of the other seat's true hand the worlds hold, uniform vs inferred.

On recorded card-search-v1 self-play games (2 players), at each of seat 0's turn decisions
with the other seat's moves this round to read: M worlds drawn uniformly from seat 0's view,
each weighted by the inference likelihood; the mean overlap (cards in common, multiset) of a
world's opponent hand (plus this round's face-down card of the opponent) with the true one,
uniform vs weighted (the exact importance-weighted mean). One JSON line per model.

``python benchmarks/card_inference/hand_overlap.py FOLDER GAMES M [T,...] [K]``: the
heuristic at the temperatures ``T`` instead of both fitted models, and with ``K`` the
heuristic with the choice among its ``K`` best too (``top=K``, ``TOP_TEMPERATURE``)."""

import json
import random
import sys
from pathlib import Path

import numpy as np

from carcassonne_rl.agents.card.inference import (
    TEMPERATURE,
    TOP_EPS,
    TOP_TEMPERATURE,
    RoundLog,
    ess,
    heuristic_values,
    log_likelihood,
    policy_values,
    tempered,
)
from carcassonne_rl.agents.pretrained import make_card_search
from carcassonne_rl.games.cardcassonne import determinize, load_json, new_game, view

folder, games, M = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
records = [p.read_text() for p in sorted(folder.glob("*.json"))][:games]
search = make_card_search(["search"], 0)
models = {"policy": (policy_values(search.base), TEMPERATURE["policy"], 0),
          "heuristic": (heuristic_values(), TEMPERATURE["heuristic"], 0)}  # fmt: skip


def held(s, q):
    h = list(s.hands[q])
    for r in s.rows:
        for e in r:
            if e >= 32 and (e >> 5) - 1 == q:
                pass
    return h


def overlap(a, b):
    return sum(min(x, y) for x, y in zip(a, b, strict=True))


def downs(s, q, r0):
    """Kinds of seat q's face-down cards in the rows (this round's last ones first)."""
    return sorted(e & 31 for row in s.rows for e in row if e >= 32 and (e >> 5) - 1 == q)


def down_overlap(w, s):
    a, b = [0] * 32, [0] * 32
    for k in downs(w, 1, 0):
        a[k] += 1
    for k in downs(s, 1, 0):
        b[k] += 1
    return overlap(a, b)


temps = [float(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 and sys.argv[4] else None
if temps:
    models = {f"heuristic@{t}": (heuristic_values(), t, 0) for t in temps}
if len(sys.argv) > 5:  # and the heuristic with the choice among its K best
    k = int(sys.argv[5])
    models[f"heuristic-top{k}"] = (heuristic_values(), TOP_TEMPERATURE["heuristic"], k)
stats = {m: {"uni": [], "w": [], "ess": [], "size": [], "du": [], "dw": []} for m in models}
rng = random.Random(0)
for rec in records:
    g = load_json(rec)
    s = new_game(g.config, g.card_order)
    log = RoundLog()
    for code in g.history:
        if s.current_player == 0:
            v = view(s, 0)
            log.observe(v)
            if s.phase == "turn" and any(m.seat == 1 for m in log.moves) and s.hand_size[1]:
                pool = [determinize(v, 0, rng) for _ in range(M)]
                ov = np.array([overlap(w.hands[1], s.hands[1]) for w in pool], float)
                dv = np.array([down_overlap(w, s) for w in pool], float)
                for name, (values, t, k) in models.items():
                    lw = np.array(
                        [log_likelihood(w, log.moves, 0, values, t, k, TOP_EPS) for w in pool]
                    )
                    w, _ = tempered(lw, 0.0)
                    st = stats[name]
                    st["uni"].append(ov.mean())
                    st["w"].append(float(w @ ov))
                    st["ess"].append(ess(w))
                    st["size"].append(s.hand_size[1])
                    st["du"].append(dv.mean())
                    st["dw"].append(float(w @ dv))
        s.apply_code(code)
for name, st in stats.items():
    uni, wt = np.array(st["uni"]), np.array(st["w"])
    d = wt - uni
    print(
        json.dumps(
            {
                "model": name,
                "T": models[name][1],
                "top": models[name][2],
                "decisions": len(uni),
                "hand": round(float(np.mean(st["size"])), 2),
                "overlap_uniform": round(float(uni.mean()), 3),
                "overlap_inferred": round(float(wt.mean()), 3),
                "gain": round(float(d.mean()), 3),
                "gain_ci95": round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), 3),
                "down_uniform": round(float(np.mean(st["du"])), 3),
                "down_inferred": round(float(np.mean(st["dw"])), 3),
                "down_gain_ci95": round(
                    float(
                        1.96
                        * np.std(np.array(st["dw"]) - np.array(st["du"]), ddof=1)
                        / np.sqrt(len(d))
                    ),
                    3,
                ),
                "ess_of_M": round(float(np.mean(st["ess"])), 2),
                "M": M,
            }
        )
    )
