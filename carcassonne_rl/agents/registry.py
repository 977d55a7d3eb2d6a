"""Agents by name: ``make_agent("mcts:1000", "carcassonne", seed=1)``.

Spec syntax: ``name[:simulations[:seconds]]`` with names ``random``, ``greedy``,
``heuristic`` (one move ahead with a stronger estimate: ``tile.heuristic``, ``card.heuristic``;
``heuristic:search[=W[:K[:H[:F]]]]``: card game, rollouts of it in every seat over ``W``
worlds drawn from the seat's view for its ``K`` best candidates, see ``card.search``),
``mcts`` (``mcts:1000`` = 1,000 simulations; ``mcts:100000:0.5`` = at most 0.5 s per decision),
``pretrained`` (the trained agent shipped with the package; ``pretrained:200``:
network-guided search with 200 simulations, ``tile.value_search`` or ``card.net_mcts``;
``pretrained:search[=K[:S]]``: tile game, expectimax over the next tile for the K best
options, each reply followed by S sampled continuations (default ``search=3:2``), see
``tile_search``; ``...@PATH`` searches over the
tile value network ``PATH`` (a 2-player one at 2 players, a table one at 3-5), its case
kept; ``pretrained:search[=W[:K[:H[:F]]]][@PATH]``: card game, ``heuristic:search`` over the
shipped search-value network, which also values the rollouts' ends at 2 players unless ``F``
names another leaf, see ``card.search``; ``pretrained:blend=W[@PATH]``: the
table's network's margin, weight ``W``, averaged with the heuristic's, see ``tile_blend``),
``pretrained-obs`` (tile game: the shipped policy that reads only the ``carcassonne_v1``
observation, see ``tile_obs_net``), the card game's measuring instruments (``card.probes``):
``cheat-mcts[:sims]`` (``mcts`` on the true hands: reads hidden cards by design),
``cheat:SEARCH`` (the card search ``SEARCH`` on the true hands, likewise) and
``exploit[:sims]:TARGET`` (a search best-responding to the frozen agent ``TARGET``),
and ``policy:PATH`` for a model saved by a trainer
(``runs/NAME/final_model.zip`` or ``.npz``, or the run folder; a tile value network whose
file names a ``heuristic_blend`` weight plays averaged with the heuristic; a bare file name
that is not in the current folder names a shipped model file, e.g.
``policy:cardcassonne_2p.npz``, the card game's PPO policy).

Every family, built-in or not, is a factory ``(params, game, seed) -> Agent`` in
:data:`FAMILIES` (a game's agent of a family: one more entry of its :func:`per_game` table);
``make_agent`` parses the spec, looks its family up, builds the agent and names it. Optional
families come from installed packages' entry points (group :data:`ENTRY_POINT_GROUP`, loaded
on first use, so ``openspiel:mcts:1000`` resolves in any process) or from
:func:`register_agent_family`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from carcassonne_rl.agents.base import Agent
from carcassonne_rl.games.registry import check_game

NAMES = ("random", "greedy", "heuristic", "mcts", "pretrained", "pretrained-obs", "cheat-mcts",
         "cheat", "exploit")  # fmt: skip

#: builds one family's agents: ``factory(params, game, seed)`` with ``params`` the spec's
#: ``:``-separated parts after the name (lower case), for ``game`` a game name
#: (:data:`carcassonne_rl.games.registry.GAMES`)
Factory = Callable[[list[str], str, int | None], Agent]
#: the entry-point group through which an installed package adds families (pyproject:
#: ``[project.entry-points."carcassonne_rl.agent_families"]``, ``NAME = "module:factory"``)
ENTRY_POINT_GROUP = "carcassonne_rl.agent_families"
#: families whose one parameter is the rest of the spec as written (a path: case kept)
RAW_FAMILIES = ("policy", "exploit", "cheat")
#: where a known optional family comes from, for the message when it is not installed
FAMILY_HINTS = {"openspiel": "it needs the openspiel extra: pip install -e '.[openspiel]'"}


def _spec(name: str, params: list[str]) -> str:
    """The (lower-case) spec a family's factory was called for, for its messages."""
    return ":".join([name, *params])


def _build(path: str) -> Callable[..., Agent]:
    """The agent class (or function) at ``module:name``, imported on first use so that
    importing the registry stays cheap."""
    from importlib import import_module

    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def seeded(path: str) -> Factory:
    """A factory building ``module:Class(seed)``."""
    return lambda params, game, seed: _build(path)(seed)


def per_game(name: str, builders: dict[str, Factory], missing: str | None = None) -> Factory:
    """A factory handing over to ``builders[game]``: a game's agent of a family is one more
    entry (``missing``: the message for a game without one)."""

    def factory(params: list[str], game: str, seed: int | None) -> Agent:
        if game not in builders:
            raise ValueError(missing or f"agent {name!r} does not play {game}")
        return builders[game](params, game, seed)

    return factory


def no_params(name: str, factory: Factory) -> Factory:
    """``factory`` for a family whose spec is its bare name."""

    def checked(params: list[str], game: str, seed: int | None) -> Agent:
        if params:
            raise ValueError(f"agent {name!r} takes no parameters, got {_spec(name, params)!r}")
        return factory(params, game, seed)

    return checked


MCTS = {"carcassonne": "carcassonne_rl.agents.tile.mcts:TileMCTSAgent",
        "cardcassonne": "carcassonne_rl.agents.card.mcts:CardMCTSAgent"}  # fmt: skip


def _mcts(params: list[str], game: str, seed: int | None) -> Agent:
    """``mcts[:sims[:seconds]]``: 1,000 simulations by default."""
    bad = f"bad mcts spec {_spec('mcts', params)!r}: expected mcts[:sims[:seconds]]"
    try:
        sims = int(params[0]) if params else 1000
        limit = float(params[1]) if len(params) > 1 else None
    except ValueError:
        raise ValueError(bad) from None
    if sims <= 0 or (limit is not None and limit <= 0) or len(params) > 2:
        raise ValueError(bad)
    if game not in MCTS:
        raise ValueError(f"agent 'mcts' does not play {game}")
    return _build(MCTS[game])(sims, limit, seed)


def _sims(spec: str, text: str, expected: str) -> int:
    """A positive simulation count, or one clear message."""
    try:
        sims = int(text)
        if sims <= 0:
            raise ValueError
    except ValueError:
        raise ValueError(f"bad spec {spec!r}: expected {expected} with sims >= 1") from None
    return sims


def _cheat_mcts(params: list[str], game: str, seed: int | None) -> Agent:
    """``cheat-mcts[:sims]``: card-game ``mcts`` on the true state (a measuring instrument)."""
    spec = _spec("cheat-mcts", params)
    if game != "cardcassonne":
        raise ValueError("cheat-mcts measures the card game (cardcassonne) only")
    if len(params) > 1:
        raise ValueError(f"bad spec {spec!r}: expected cheat-mcts[:sims]")
    sims = _sims(spec, params[0], "cheat-mcts[:sims]") if params else 1000
    return _build("carcassonne_rl.agents.card.probes:CheatingCardMCTSAgent")(sims, seed)


def _cheat(params: list[str], game: str, seed: int | None) -> Agent:
    """``cheat:SEARCH``: the card search ``SEARCH`` (``pretrained:search...`` or
    ``heuristic:search...``, its case kept) on the true state (a measuring instrument)."""
    from carcassonne_rl.agents.card.probes import CheatingCardSearchAgent
    from carcassonne_rl.agents.card.search import CardSearchAgent

    spec = ":".join(["cheat", *params])
    usage = "cheat:SEARCH (SEARCH: a card search, pretrained:search[...] or heuristic:search[...])"
    if game != "cardcassonne":
        raise ValueError("cheat measures the card game (cardcassonne) only")
    inner = params[0] if params else ""
    try:
        search = make_agent(inner, game, seed) if inner.strip() else None
    except ValueError as err:
        raise ValueError(f"bad spec {spec!r}: its search: {err}") from None
    if not isinstance(search, CardSearchAgent):
        raise ValueError(f"bad spec {spec!r}: expected {usage}")
    return CheatingCardSearchAgent(search, seed)


def _exploit(params: list[str], game: str, seed: int | None) -> Agent:
    """``exploit[:sims]:TARGET``: a card-game search best-responding to the agent ``TARGET``
    (any spec, its case kept), 1,000 simulations by default."""
    spec = ":".join(["exploit", *params])
    usage = "exploit[:sims]:TARGET (TARGET: the frozen agent's spec)"
    if game != "cardcassonne":
        raise ValueError("exploit measures the card game (cardcassonne) only")
    head, sep, rest = (params[0] if params else "").partition(":")
    sims, target = 1000, params[0] if params else ""
    if head.strip().lstrip("-").isdigit():
        sims, target = _sims(spec, head, usage), rest if sep else ""
    if not target.strip():
        raise ValueError(f"bad spec {spec!r}: expected {usage}")
    try:
        frozen = make_agent(target, game, seed)
    except ValueError as err:
        raise ValueError(f"bad spec {spec!r}: its target: {err}") from None
    return _build("carcassonne_rl.agents.card.probes:ExploitAgent")(frozen, sims, seed)


HEURISTIC = no_params("heuristic", per_game("heuristic", {
    "carcassonne": seeded("carcassonne_rl.agents.tile.heuristic:TileHeuristicAgent"),
    "cardcassonne": seeded("carcassonne_rl.agents.card.heuristic:CardHeuristicAgent"),
}))  # fmt: skip


def _heuristic(params: list[str], game: str, seed: int | None) -> Agent:
    """``heuristic`` (either game) or ``heuristic:search[=W[:K[:H[:F]]]]`` (card game)."""
    if params and params[0].startswith("search"):
        return _heuristic_search(params, game, seed)
    return HEURISTIC(params, game, seed)


def _heuristic_search(params: list[str], game: str, seed: int | None) -> Agent:
    """``heuristic:search[=W[:K[:H[:F]]]]``: card game, rollouts of ``heuristic`` in every
    seat over ``W`` worlds drawn from the seat's view for its ``K`` best candidates, ``H``
    rounds on, valued with the future weight ``F`` (see ``card.search``; default
    ``search=8:3:1:1``)."""
    spec = _spec("heuristic", params)
    if game != "cardcassonne":
        raise ValueError("heuristic:search exists for the card game (cardcassonne) only")
    from carcassonne_rl.agents.card.search import CardSearchAgent, parse_search

    try:
        worlds, candidates, horizon, future = parse_search(params)
    except ValueError:
        raise ValueError(
            f"bad spec {spec!r}: expected heuristic:search, heuristic:search=W, "
            "heuristic:search=W:K, heuristic:search=W:K:H or heuristic:search=W:K:H:F (W >= 1 "
            "sampled worlds, K >= 1 candidates searched, H >= 1 rounds played on, F >= 0 the "
            "weight of the future in the leaf's value)"
        ) from None
    from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent

    return CardSearchAgent(CardHeuristicAgent, worlds, seed, candidates, horizon, future)


def _pretrained(params: list[str], game: str, seed: int | None) -> Agent:
    """``pretrained``, ``pretrained:SIMS``, ``pretrained:search[=K[:S]]``,
    ``pretrained:blend=W``."""
    from carcassonne_rl.agents.pretrained import make_pretrained

    spec = _spec("pretrained", params)
    if params and params[0].startswith("search"):
        return _pretrained_search(spec, params, game, seed)
    if params and params[0].startswith("blend"):
        from carcassonne_rl.agents.pretrained import make_blend

        if game != "carcassonne":
            raise ValueError("pretrained:blend exists for the tile game only")
        return make_blend(params, seed)
    if params and params[-1].startswith("@"):
        raise ValueError(f"bad spec {spec!r}: only pretrained:search[=K[:S]] and "
                         "pretrained:blend=W take @PATH")  # fmt: skip
    if len(params) > 1:
        raise ValueError(f"bad spec {spec!r}: expected pretrained or pretrained:SIMS")
    try:
        sims = int(params[0]) if params else None
    except ValueError:
        raise ValueError(f"bad spec {spec!r}: SIMS must be an integer") from None
    return make_pretrained(game, sims, seed)


def _policy(params: list[str], game: str, seed: int | None) -> Agent:
    """``policy:PATH``: a model saved by a trainer (:func:`load_trained`)."""
    if not params or not params[0]:
        raise ValueError("bad spec: expected policy:PATH (a saved model or its run folder)")
    return load_trained(params[0], game, seed)


#: every family by spec name: built-in ones here, optional ones added by
#: :func:`register_agent_family` or loaded from an entry point on first use
FAMILIES: dict[str, Factory] = {
    "random": no_params("random", per_game("random", {
        "carcassonne": seeded("carcassonne_rl.agents.random_agent:RandomAgent"),
        "cardcassonne": seeded("carcassonne_rl.agents.random_agent:CardRandomAgent"),
    })),
    "greedy": no_params("greedy", per_game("greedy", {
        "carcassonne": seeded("carcassonne_rl.agents.tile.greedy:TileGreedyAgent"),
        "cardcassonne": seeded("carcassonne_rl.agents.card.greedy:CardGreedyAgent"),
    })),
    "heuristic": _heuristic,
    "mcts": _mcts,
    "pretrained": _pretrained,
    "pretrained-obs": no_params("pretrained-obs", per_game("pretrained-obs", {
        "carcassonne": seeded("carcassonne_rl.agents.pretrained:make_pretrained_obs"),
    }, "pretrained-obs plays the tile game (carcassonne) only")),
    "policy": _policy,
    "cheat-mcts": _cheat_mcts,
    "cheat": _cheat,
    "exploit": _exploit,
}  # fmt: skip
BUILT_IN = frozenset(FAMILIES)


def register_agent_family(name: str, factory: Factory) -> None:
    """Make ``make_agent("NAME:...")`` build agents with ``factory(params, game, seed)``."""
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a built-in agent name")
    FAMILIES[name] = factory


def _installed_family(name: str, spec: str) -> Factory:
    """The factory an installed package declares for ``name`` in :data:`ENTRY_POINT_GROUP`
    (loaded once per process), or the message saying why there is none."""
    from importlib import metadata

    for point in metadata.entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            factory = point.load()
        except ImportError as err:
            raise ValueError(f"agent {spec!r} is not loaded: {err}") from None
        return FAMILIES.setdefault(name, factory)
    if name in FAMILY_HINTS:
        raise ValueError(f"agent {spec!r} is not loaded: {FAMILY_HINTS[name]}")
    raise ValueError(f"unknown agent {spec!r}; expected one of {', '.join(NAMES)}")


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (``carcassonne`` / ``cardcassonne``):
    its family's factory (:data:`FAMILIES`) gets the parameters, the game and the seed."""
    check_game(game)
    text = spec.strip()
    head, sep, rest = text.partition(":")
    if sep and head.lower() in RAW_FAMILIES:
        name, params = head.lower(), [rest]
    else:  # a network file named by ``@PATH`` keeps its case (one more parameter)
        body, at, path = text.partition("@")
        text = body.lower() + at + path
        name, *params = body.lower().split(":")
        if at:
            params.append(at + path)
    factory = FAMILIES.get(name) or _installed_family(name, spec)
    agent = factory(params, game, seed)
    agent.name = text
    return agent


def _pretrained_search(spec: str, params: list[str], game: str, seed: int | None) -> Agent:
    """``pretrained:search[=K[:S]][@PATH]``: expectimax over the next tile for the ``K`` best
    options, each reply followed by ``S`` sampled continuations to the searcher's next turn
    (``pretrained:search`` is ``search=3:2``, ``search=K`` is ``search=K:0``). ``@PATH``: a
    2-player value network is searched at 2 players, played as ``policy:PATH`` plays it
    (averaged with the heuristic if the file names a ``heuristic_blend`` weight, alone
    otherwise) instead of the shipped network averaged with the heuristic; a table network
    is searched at 3-5 players instead of the shipped one (both alone)."""
    from carcassonne_rl.agents.pretrained import pretrained_path
    from carcassonne_rl.agents.tile.search import ExpectimaxAgent

    if game == "cardcassonne":
        from carcassonne_rl.agents.pretrained import make_card_search

        return make_card_search(params, seed)
    from carcassonne_rl.agents.pretrained import split_network

    params, network, spec = split_network(params)
    head, sep, value = params[0].partition("=")
    try:
        if head != "search" or len(params) > 2 or (len(params) == 2 and not sep):
            raise ValueError
        candidates = int(value) if sep else 3
        samples = int(params[1]) if len(params) == 2 else (0 if sep else 2)
        if candidates < 1 or samples < 0 or (network is not None and not network.strip()):
            raise ValueError
    except ValueError:
        raise ValueError(
            f"bad spec {spec!r}: expected pretrained:search, pretrained:search=K or "
            "pretrained:search=K:S (K >= 1 candidates searched, S >= 0 sampled "
            "continuations per reply), optionally followed by @PATH (a tile value network)"
        ) from None
    from carcassonne_rl.agents.pretrained import named_network, table_network, table_networks
    from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT
    from carcassonne_rl.agents.tile.table_agent import TileTableAgent

    net, weight, table, tables = None, None, table_network(), table_networks()
    if network is not None:
        named, is_table, named_weight = named_network(spec, network)
        if is_table:
            table, tables = named, {}
        else:
            net, weight = named, named_weight
    if net is None:
        from carcassonne_rl.agents.tile.afterstate import load_value_net

        net, weight = load_value_net(pretrained_path(game)), NETWORK_2P_WEIGHT
    two = ExpectimaxAgent(net, candidates, seed, weight=weight, samples=samples)
    if table is None:
        return two

    def search(value_net: Any) -> ExpectimaxAgent:
        return ExpectimaxAgent(value_net, candidates, seed, samples=samples)

    return TileTableAgent(two, search(table), seed,
                          tables={n: search(t) for n, t in tables.items()})  # fmt: skip


def load_trained(path: str, game: str, seed: int | None = None) -> Agent:
    """A trained model as an agent: a MaskablePPO ``.zip``, a tensors-only ``.npz`` (a tile-game
    or card-game value network, an exported tile observation policy or card-game policy), an
    RLlib export (``.pt2``) or a run folder holding one (``final_model.npz`` / ``.zip`` /
    ``.pt2``)."""
    from carcassonne_rl.agents.pretrained import shipped_or_given

    target = shipped_or_given(path)
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
        from carcassonne_rl.agents.card.value import (
            CARD_SEARCH_VALUE_KIND,
            CARD_VALUE_KIND,
            CardSearchValueAgent,
            CardValueAgent,
            load_card_net,
            load_card_value_net,
        )

        net = MLP.load(target)
        card_kinds = (CARD_POLICY_KIND, CARD_VALUE_KIND, CARD_SEARCH_VALUE_KIND)
        plays = "cardcassonne" if net.meta.get("kind") in card_kinds else "carcassonne"
        if plays != game:
            raise ValueError(f"policy:{path} plays {plays}, not {game}")
        if net.meta.get("kind") == CARD_VALUE_KIND:  # a card afterstate value network
            return CardValueAgent(load_card_value_net(target), seed=seed)
        if net.meta.get("kind") == CARD_SEARCH_VALUE_KIND:  # expert iteration's student
            return CardSearchValueAgent(load_card_net(target), seed=seed)
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
