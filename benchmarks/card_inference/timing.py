"""Benchmark: CPU time per decision of the inference search against card-search-v1, in the same
run (2 players, the given deals, each from both seats).

``python benchmarks/card_inference/timing.py FIRST_DEAL DEALS [SPEC ...]``: one JSON line per
agent with its CPU ms per turn decision (``time.process_time`` around ``act``), its decisions
and its ratio to card-search-v1's time; the compiled heuristic likelihood is the default,
``python`` in a spec's place adds ``search(infer=heuristic)`` with the Python likelihood
(``log_weights`` by :func:`~carcassonne_rl.agents.card.inference.log_likelihood`, the
rollouts still compiled); ``SPEC@top=K@factor=F`` builds ``InferenceSearchAgent`` with those
keys."""

import json
import sys
import time
from collections import defaultdict

import numpy as np

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.inference import InferenceSearchAgent, log_likelihood
from carcassonne_rl.games.cardcassonne import new_game
from carcassonne_rl.games.cardcassonne.config import GameConfig

BASE = "card-search-v1"
first, deals = int(sys.argv[1]), int(sys.argv[2])
specs = sys.argv[3:] or ["search(infer=heuristic)"]


def build(spec: str, seed: int):
    if "@" in spec:  # SPEC@top=K@factor=F: InferenceSearchAgent's keys no spec names
        name, *options = spec.split("@")
        a = make_agent(name, "cardcassonne", seed)
        assert isinstance(a, InferenceSearchAgent)
        keys = dict(o.split("=") for o in options)
        top = int(keys.get("top", 0))
        return InferenceSearchAgent(a.base_factory, a.worlds, seed, a.candidates, a.horizon,
                                    a.future, a.model, factor=int(keys.get("factor", a.factor)),
                                    top=top)  # fmt: skip
    if spec != "python":
        return make_agent(spec, "cardcassonne", seed)
    a = make_agent("search(infer=heuristic)", "cardcassonne", seed)
    assert isinstance(a, InferenceSearchAgent)
    a.log_weights = lambda pool, moves, me: np.array(  # type: ignore[method-assign]
        [log_likelihood(w, moves, me, a.values, a.temperature) for w in pool]
    )
    return a


cpu: dict[str, float] = defaultdict(float)
count: dict[str, int] = defaultdict(int)
warm = new_game(GameConfig(players=2, seed=0))  # compile/load the kernels outside the clock
for spec in specs:
    w = build(spec, 0)
    for _ in range(12):
        w.act(warm, warm.current_player)
        warm.apply_code(warm.legal_codes()[0])
    warm = new_game(GameConfig(players=2, seed=0))
for deal in range(first, first + deals):
    for spec in specs:
        for seat in (0, 1):
            names = [BASE, BASE]
            names[seat] = spec
            agents = [build(n, 1000 * deal + q) for q, n in enumerate(names)]
            s = new_game(GameConfig(players=2, seed=deal))
            while not s.is_over:
                p = s.current_player
                turn = s.phase == "turn" and len(s.legal_codes()) > 1
                t = time.process_time()
                code = agents[p].act(s, p)
                if turn:
                    cpu[names[p]] += time.process_time() - t
                    count[names[p]] += 1
                s.apply_code(code)
base_ms = 1000 * cpu[BASE] / count[BASE]
for name in [BASE, *specs]:
    ms = 1000 * cpu[name] / count[name]
    print(json.dumps({"agent": name, "deals": deals, "first_deal": first,
                      "turn_decisions": count[name], "cpu_ms_per_decision": round(ms, 2),
                      "ratio_to_card_search_v1": round(ms / base_ms, 2)}))  # fmt: skip
