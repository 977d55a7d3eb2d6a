"""The arena with ``search(infer=heuristic)`` modelling the other seat's choice among its
heuristic's K best (``InferenceSearchAgent(top=K)``, ``TOP_TEMPERATURE``), a variant no spec
names: ``python benchmarks/card_inference/arena_top.py K ARENA-ARGUMENTS...`` runs
``carcassonne-rl ARENA-ARGUMENTS`` in this process (``--workers 1``) with every
``infer=heuristic`` search built with ``top=K``; give it a label of its own, e.g.
``--agents 'search(infer=heuristic, worlds=8)'`` (the same agent as the spec otherwise)."""

import sys

from carcassonne_rl.agents.card import inference
from carcassonne_rl.cli.main import main

top = int(sys.argv[1])
plain = inference.with_inference


def with_top(search, model):
    agent = plain(search, model)
    if model == "heuristic" and isinstance(agent, inference.InferenceSearchAgent):
        agent.top = top
        agent.temperature = inference.TOP_TEMPERATURE["heuristic"]
    return agent


inference.with_inference = with_top
if "--workers" not in sys.argv or sys.argv[sys.argv.index("--workers") + 1] != "1":
    raise SystemExit("arena_top.py patches this process only: pass --workers 1")
sys.exit(main(sys.argv[2:]))
