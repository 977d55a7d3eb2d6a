"""The arena with ``search(infer=heuristic)`` built with keys no spec names
(``InferenceSearchAgent``'s ``top``, with :data:`TOP_TEMPERATURE`, ``factor``, ``temperature``,
``min_ess``, the effective sample size the tempered weights keep, and ``distinct=1``, the
worlds searched drawn by weight without repeats, ``draw="distinct"``):
``python benchmarks/card_inference/arena_variant.py KEYS ARENA-ARGUMENTS...``, KEYS such as
``top=3``, ``factor=3,top=3`` or ``factor=3,temperature=3`` (``factor``: the spec key
``pool``), runs ``carcassonne-rl ARENA-ARGUMENTS`` in this process (``--workers 1``) with
every ``infer=heuristic`` search built so; give it a label of its own, e.g. ``--agents
'search(infer=heuristic, worlds=8)'`` (the same agent as the spec otherwise)."""

import sys

from carcassonne_rl.agents.card import inference
from carcassonne_rl.cli.main import main

keys = {k: float(v) for k, v in (kv.split("=") for kv in sys.argv[1].split(","))}
if not set(keys) <= {"top", "factor", "temperature", "min_ess", "distinct"}:
    raise SystemExit(
        f"keys: top=K, factor=F, temperature=T, min_ess=E, distinct=1, got {sys.argv[1]!r}"
    )
plain = inference.with_inference


def with_keys(search, model, factor=inference.FACTOR, draw="resample"):
    agent = plain(search, model, int(keys.get("factor", factor)), draw)
    if model != "heuristic" or not isinstance(agent, inference.InferenceSearchAgent):
        return agent
    if keys.get("top"):
        agent.top = int(keys["top"])
        agent.temperature = inference.TOP_TEMPERATURE["heuristic"]
    agent.temperature = keys.get("temperature", agent.temperature)
    agent.min_ess = keys.get("min_ess", agent.min_ess)
    if keys.get("distinct"):
        agent.draw = "distinct"
    return agent


inference.with_inference = with_keys
if "--workers" not in sys.argv or sys.argv[sys.argv.index("--workers") + 1] != "1":
    raise SystemExit("arena_variant.py patches this process only: pass --workers 1")
sys.exit(main(sys.argv[2:]))
