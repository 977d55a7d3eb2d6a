"""Agents by name: ``make_agent("mcts:1000", "carcassonne", seed=1)``.

Spec syntax: ``name[:simulations[:seconds]]`` with names ``random``, ``greedy``, ``mcts``
(``mcts:1000`` = 1,000 simulations; ``mcts:100000:0.5`` = at most 0.5 s per decision), and
``policy:PATH`` for a model saved by the trainer (``runs/NAME/final_model.zip``).
"""

from __future__ import annotations

from .base import Agent

GAMES = ("carcassonne", "cardcassonne")
NAMES = ("random", "greedy", "mcts")


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (``carcassonne`` / ``cardcassonne``)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    if spec.strip().startswith("policy:"):
        from .policy_agent import PolicyAgent

        agent = PolicyAgent.load(spec.strip()[len("policy:") :], seed=seed)
        if agent.game != game:
            raise ValueError(f"{spec!r} plays {agent.game}, not {game}")
        return agent
    name, *params = spec.strip().lower().split(":")
    if name not in NAMES:
        raise ValueError(f"unknown agent {spec!r}; expected one of {', '.join(NAMES)}")
    if name != "mcts" and params:
        raise ValueError(f"agent {name!r} takes no parameters, got {spec!r}")
    if name == "random":
        from .random_agent import CardRandomAgent, RandomAgent

        agent = RandomAgent(seed) if game == "carcassonne" else CardRandomAgent(seed)
    elif name == "greedy":
        if game == "carcassonne":
            from .tile_greedy import TileGreedyAgent

            agent = TileGreedyAgent(seed)
        else:
            from .card_greedy import CardGreedyAgent

            agent = CardGreedyAgent(seed)
    else:
        try:
            sims = int(params[0]) if params else 1000
            limit = float(params[1]) if len(params) > 1 else None
        except ValueError:
            raise ValueError(f"bad mcts spec {spec!r}: expected mcts[:sims[:seconds]]") from None
        if sims <= 0 or (limit is not None and limit <= 0) or len(params) > 2:
            raise ValueError(f"bad mcts spec {spec!r}: expected mcts[:sims[:seconds]]")
        if game == "carcassonne":
            from .tile_mcts import TileMCTSAgent

            agent = TileMCTSAgent(sims, limit, seed)
        else:
            from .card_mcts import CardMCTSAgent

            agent = CardMCTSAgent(sims, limit, seed)
    agent.name = spec.strip().lower()
    return agent
