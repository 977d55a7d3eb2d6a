"""Agents by name: ``make_agent("mcts:1000", "carcassonne", seed=1)``.

Spec syntax: ``name[:simulations[:seconds]]`` with names ``random``, ``greedy``,
``heuristic`` (tile game: one move ahead with a stronger estimate, see ``tile_heuristic``),
``mcts`` (``mcts:1000`` = 1,000 simulations; ``mcts:100000:0.5`` = at most 0.5 s per decision),
``pretrained`` (the trained agent shipped with the package; ``pretrained:200``: tile game,
network-guided search with 200 simulations; ``pretrained:search[=K[:S]]``: tile game,
expectimax over the next tile for the K best options, each reply followed by S sampled
continuations (default ``search=3:2``), see ``tile_search``;
``pretrained:blend=W``: the 2-player network's margin, weight ``W``, averaged with the
heuristic's, see ``tile_blend``),
``pretrained-obs`` (tile game: the shipped policy that reads only the ``carcassonne_v1``
observation, see ``tile_obs_net``), and ``policy:PATH`` for a model saved by a trainer
(``runs/NAME/final_model.zip`` or ``.npz``, or the run folder; a tile value network whose
file names a ``heuristic_blend`` weight plays averaged with the heuristic). Rooms above may add
families (:func:`register_agent_family`): ``openspiel:mcts:1000`` once
``carcassonne_rl.openspiel`` is imported.
"""

from __future__ import annotations

from collections.abc import Callable

from carcassonne_rl.agents.base import Agent

GAMES = ("carcassonne", "cardcassonne")
NAMES = ("random", "greedy", "heuristic", "mcts", "pretrained", "pretrained-obs")

#: Agent families that rooms above this one add when they are imported (``name:params``
#: specs; ``carcassonne_rl.openspiel`` adds ``openspiel``): name -> factory(params, game, seed)
FAMILIES: dict[str, Callable[[list[str], str, int | None], Agent]] = {}
#: where a known family comes from, for the message when it is not loaded
FAMILY_HINTS = {
    "openspiel": "import carcassonne_rl.openspiel (pip install -e '.[openspiel]') to use it"
}


def register_agent_family(name: str, factory: Callable[[list[str], str, int | None], Agent]):
    """Make ``make_agent("NAME:...")`` build agents with ``factory(params, game, seed)``."""
    if name in NAMES:
        raise ValueError(f"{name!r} is a built-in agent name")
    FAMILIES[name] = factory


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (``carcassonne`` / ``cardcassonne``)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    if spec.strip().startswith("policy:"):
        agent = load_trained(spec.strip()[len("policy:") :], game, seed)
        agent.name = spec.strip()
        return agent
    name, *params = spec.strip().lower().split(":")
    if name in FAMILIES:
        agent = FAMILIES[name](params, game, seed)
        agent.name = spec.strip().lower()
        return agent
    if name in FAMILY_HINTS:
        raise ValueError(f"agent {spec!r} is not loaded: {FAMILY_HINTS[name]}")
    if name not in NAMES:
        raise ValueError(f"unknown agent {spec!r}; expected one of {', '.join(NAMES)}")
    if name == "pretrained":
        from carcassonne_rl.agents.pretrained import make_pretrained

        if params and params[0].startswith("search"):
            agent = _pretrained_search(spec, params, game, seed)
            agent.name = spec.strip().lower()
            return agent
        if len(params) > 1:
            raise ValueError(f"bad spec {spec!r}: expected pretrained or pretrained:SIMS")
        if params and params[0].startswith("blend"):
            agent = _pretrained_blend(spec, params[0], game, seed)
            agent.name = spec.strip().lower()
            return agent
        try:
            sims = int(params[0]) if params else None
        except ValueError:
            raise ValueError(f"bad spec {spec!r}: SIMS must be an integer") from None
        agent = make_pretrained(game, sims, seed)
        agent.name = spec.strip().lower()
        return agent
    if name == "pretrained-obs":
        if params:
            raise ValueError(f"agent {name!r} takes no parameters, got {spec!r}")
        if game != "carcassonne":
            raise ValueError("pretrained-obs plays the tile game (carcassonne) only")
        from carcassonne_rl.agents.pretrained import make_pretrained_obs

        agent = make_pretrained_obs(seed)
        agent.name = name
        return agent
    if name != "mcts" and params:
        raise ValueError(f"agent {name!r} takes no parameters, got {spec!r}")
    if name == "random":
        from carcassonne_rl.agents.random_agent import CardRandomAgent, RandomAgent

        agent = RandomAgent(seed) if game == "carcassonne" else CardRandomAgent(seed)
    elif name == "heuristic":
        if game != "carcassonne":
            raise ValueError("heuristic plays the tile game (carcassonne) only; use greedy")
        from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent

        agent = TileHeuristicAgent(seed)
    elif name == "greedy":
        if game == "carcassonne":
            from carcassonne_rl.agents.tile.greedy import TileGreedyAgent

            agent = TileGreedyAgent(seed)
        else:
            from carcassonne_rl.agents.card.greedy import CardGreedyAgent

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
            from carcassonne_rl.agents.tile.mcts import TileMCTSAgent

            agent = TileMCTSAgent(sims, limit, seed)
        else:
            from carcassonne_rl.agents.card.mcts import CardMCTSAgent

            agent = CardMCTSAgent(sims, limit, seed)
    agent.name = spec.strip().lower()
    return agent


def _pretrained_blend(spec: str, param: str, game: str, seed: int | None) -> Agent:
    """``pretrained:blend=W``: the 2-player network's margin with weight ``W`` averaged with
    the heuristic's (``W = 1``: the network alone; ``pretrained`` plays the shipped weight)."""
    from carcassonne_rl.agents.pretrained import pretrained_path
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.agents.tile.blend import BlendedAgent

    if game != "carcassonne":
        raise ValueError("pretrained:blend exists for the tile game only")
    head, sep, value = param.partition("=")
    try:
        weight = float(value)
        if head != "blend" or not sep or not 0.0 <= weight <= 1.0:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"bad spec {spec!r}: expected pretrained:blend=W with the network's weight W in "
            "[0, 1] (1: the 2-player network alone)"
        ) from None
    return BlendedAgent(load_value_net(pretrained_path(game)), weight, seed=seed)


def _pretrained_search(spec: str, params: list[str], game: str, seed: int | None) -> Agent:
    """``pretrained:search[=K[:S]]``: expectimax over the next tile for the ``K`` best
    options, each reply followed by ``S`` sampled continuations to the searcher's next turn
    (``pretrained:search`` is ``search=3:2``, ``search=K`` is ``search=K:0``)."""
    from carcassonne_rl.agents.pretrained import pretrained_path
    from carcassonne_rl.agents.tile.search import ExpectimaxAgent

    if game != "carcassonne":
        raise ValueError("pretrained:search exists for the tile game only")
    head, sep, value = params[0].partition("=")
    try:
        if head != "search" or len(params) > 2 or (len(params) == 2 and not sep):
            raise ValueError
        candidates = int(value) if sep else 3
        samples = int(params[1]) if len(params) == 2 else (0 if sep else 2)
        if candidates < 1 or samples < 0:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"bad spec {spec!r}: expected pretrained:search, pretrained:search=K or "
            "pretrained:search=K:S (K >= 1 candidates searched, S >= 0 sampled "
            "continuations per reply)"
        ) from None
    from carcassonne_rl.agents.pretrained import table_network
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.agents.tile.blend import PRETRAINED_2P_WEIGHT
    from carcassonne_rl.agents.tile.table_agent import TileTableAgent

    two = ExpectimaxAgent(load_value_net(pretrained_path(game)), candidates, seed,
                          weight=PRETRAINED_2P_WEIGHT, samples=samples)  # fmt: skip
    table = table_network()
    if table is None:
        return two
    return TileTableAgent(two, ExpectimaxAgent(table, candidates, seed, samples=samples), seed)


def load_trained(path: str, game: str, seed: int | None = None) -> Agent:
    """A trained model as an agent: a MaskablePPO ``.zip``, a tensors-only ``.npz`` (a tile-game
    value network, an exported tile observation policy or card-game policy), an RLlib export
    (``.pt2``) or a run folder holding one (``final_model.npz`` / ``.zip`` / ``.pt2``)."""
    from pathlib import Path

    target = Path(path)
    if target.is_dir():
        for name in ("final_model.npz", "final_model.zip", "final_model.pt2"):
            if (target / name).exists():
                target = target / name
                break
    if target.suffix == ".npz":  # tensors-only: tile values, tile or card policies
        from carcassonne_rl.agents.card.policy_net import CARD_POLICY_KIND, CardNetAgent
        from carcassonne_rl.agents.common.value_net import MLP
        from carcassonne_rl.agents.tile.afterstate import AfterstateAgent, load_value_net
        from carcassonne_rl.agents.tile.obs_policy.board_net import (
            TileObsPolicyAgent,
            is_tile_obs_policy,
            load_tile_obs_policy,
        )

        if is_tile_obs_policy(target):
            if game != "carcassonne":
                raise ValueError(f"policy:{path} plays carcassonne, not {game}")
            return TileObsPolicyAgent(load_tile_obs_policy(target), seed=seed)
        net = MLP.load(target)
        plays = "cardcassonne" if net.meta.get("kind") == CARD_POLICY_KIND else "carcassonne"
        if plays != game:
            raise ValueError(f"policy:{path} plays {plays}, not {game}")
        if plays == "cardcassonne":
            return CardNetAgent(net, seed=seed)
        value_net = load_value_net(target)
        if "heuristic_blend" in value_net.meta:  # trained to be averaged with the heuristic
            from carcassonne_rl.agents.tile.blend import BlendedAgent

            return BlendedAgent(value_net, float(value_net.meta["heuristic_blend"]), seed=seed)
        return AfterstateAgent(value_net, seed=seed)
    from carcassonne_rl.agents.policy_agent import PolicyAgent

    agent = PolicyAgent.load(target, seed=seed)
    if agent.game != game:
        raise ValueError(f"policy:{path} plays {agent.game}, not {game}")
    return agent
