"""Diagnostic: the oracle regret of the plain and the inference search's choices.

On recorded card-search-v1 self-play games, at seat 0's turn decisions where the inference
has the other seat's moves to read: card-search-v1, the inference searches (same seed), and
an oracle, the cheating search (the TRUE hidden cards, the pile reshuffled) with 32 worlds over
the same 3 candidates; regret = the oracle's best value - its value of the agent's choice.

``python benchmarks/card_inference/regret.py FOLDER FIRST GAMES [VARIANT ...]``, a variant a
spec (default ``search(infer=heuristic)``) with options after ``@``: ``@weighted`` (W uniform
worlds, the search's mean over them weighted by their tempered importance weights,
:class:`WeightedInference`, instead of resampling W of 2W), ``@top=K`` (the other seat's
choice among its model's K best, ``InferenceSearchAgent(top=K)``), ``@factor=F`` (``F * W``
candidate worlds), combined as ``SPEC@top=3@factor=4``;
one JSON line per variant, its regret against the plain search's on the same decisions and,
from the second variant on, against the first's."""

import json
import sys
from pathlib import Path

import numpy as np

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.inference import InferenceSearchAgent, tempered
from carcassonne_rl.agents.card.probes import CheatingCardSearchAgent
from carcassonne_rl.games.cardcassonne import determinize, load_json, new_game

folder, first, games = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
variants = sys.argv[4:] or ["search(infer=heuristic)"]
records = [p.read_text() for p in sorted(folder.glob("*.json"))][first : first + games]


class WeightedInference(InferenceSearchAgent):
    """W uniform worlds, the search's mean over them weighted by their tempered weights."""

    def decide(self, v, legal):
        self.log.observe(v)
        self._queue, self._weights = [], None
        if len(legal) == 1 or v.phase != "turn":
            return super().decide(v, legal)
        ranked = self._ranked(v, legal)[: self.candidates]
        if len(ranked) == 1:
            return ranked[0]
        me, future = v.player, self.leaf(v.players)
        worlds, seeds = self.sample_worlds(v, me)
        leaves = self._batched_rollouts().run(worlds, seeds, ranked, me, future, self.horizon)
        w = self._weights if self._weights is not None else np.full(len(worlds), 1 / len(worlds))
        totals = dict.fromkeys(ranked, 0.0)
        for i, value in enumerate(leaves):
            totals[ranked[i % len(ranked)]] += float(w[i // len(ranked)]) * value
        self.last_values = totals
        best = max(totals.values())
        return next(c for c in ranked if totals[c] >= best - 1e-9)

    def draw_worlds(self, v, me):
        moves = self.log.moves if self.log.round == v.round else []
        evidence = sum(m.seat != me for m in moves)
        pool = [determinize(v, me, self.rng) for _ in range(self.worlds)]
        self.last_inference = {"evidence": evidence}
        if evidence:
            self._weights, _ = tempered(self.log_weights(pool, moves, me), self.min_ess)
        return pool


def build(variant: str, seed: int) -> InferenceSearchAgent:
    spec, *options = variant.split("@")
    a = make_agent(spec, "cardcassonne", seed)
    assert isinstance(a, InferenceSearchAgent)
    top = next((int(o[4:]) for o in options if o.startswith("top=")), 0)
    factor = next((int(o[7:]) for o in options if o.startswith("factor=")), a.factor)
    kind = WeightedInference if "weighted" in options else InferenceSearchAgent
    return kind(a.base_factory, a.worlds, seed, a.candidates, a.horizon, a.future, a.model,
                factor=factor, top=top)  # fmt: skip


ra: list[float] = []
rb: list[list[float]] = [[] for _ in variants]
agree = [0] * len(variants)
for gi, rec in enumerate(records):
    g = load_json(rec)
    s = new_game(g.config, g.card_order)
    plain = make_agent("card-search-v1", "cardcassonne", 7 + gi)
    infs = [build(x, 7 + gi) for x in variants]
    oracle = CheatingCardSearchAgent(make_agent("search(worlds=32)", "cardcassonne", 99), 99)
    for code in g.history:
        if s.current_player == 0:
            a = plain.act(s, 0)
            bs = [inf.act(s, 0) for inf in infs]
            if (
                s.phase == "turn"
                and infs[0].last_inference.get("evidence")
                and len(plain.last_values) > 1
            ):
                oracle.act(s, 0)
                ov = oracle.last_values
                best = max(ov.values())
                ra.append(best - ov[a])
                for j, b in enumerate(bs):
                    rb[j].append(best - ov[b])
                    agree[j] += a == b
        s.apply_code(code)
plain_r = np.array(ra)


def ci(d: np.ndarray) -> float:
    return round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), 3)


for j, variant in enumerate(variants):
    r = np.array(rb[j])
    row = {"variant": variant, "games": f"{first}-{first + games - 1}", "decisions": len(r),
           "same_choice": agree[j], "regret_plain": round(float(plain_r.mean()), 3),
           "regret_inference": round(float(r.mean()), 3),
           "diff": round(float((r - plain_r).mean()), 3), "diff_ci95": ci(r - plain_r)}  # fmt: skip
    if j:
        d = r - np.array(rb[0])
        row.update({"vs_first": round(float(d.mean()), 3), "vs_first_ci95": ci(d)})
    print(json.dumps(row), flush=True)
