"""Agents by name: ``make_agent("mcts(sims=1000)", "carcassonne", seed=1)``.

Specs are written in the named language of ``agents.spec``: ``family`` or
``family(key=value, ...)``, each family's keys per game declared once in :data:`KEYS` (types,
defaults, what they mean; ``carcassonne-rl agents`` lists them); a shipped agent also has a
pinned name (``agents.catalog``: ``tile-net-v2``, ``card-net-v4``, ...), and ``pretrained``,
``search`` and ``pretrained-obs`` are aliases of the newest. :func:`resolution` says what a
spec resolved to (pinned name, model files with their sha256, package version).

Deprecated, still accepted silently: the positional forms ``name[:param...][@PATH]``
(:data:`DEPRECATED` lists them with their named equivalents; :func:`to_named` translates
one), e.g. ``mcts:1000``, ``pretrained:search=8:3``, ``policy:PATH``, whose bare file name
that is not in the current folder names a shipped model file. In the positional forms:
``heuristic:search[=W[:K[:H[:F]]]]`` (card game, see ``card.search``), ``mcts[:sims[:seconds]]``,
``pretrained:SIMS`` (network-guided search, ``tile.value_search`` or ``card.net_mcts``),
``pretrained:search[=K[:S]][@PATH]`` (tile game, ``tile.search``),
``pretrained:search[=W[:K[:H[:F]]]][@PATH]`` (card game, ``card.search``),
``pretrained:blend=W[@PATH]`` (tile game, ``tile.blend``), ``cheat-mcts[:sims]``,
``cheat:SEARCH``, ``exploit[:sims]:TARGET`` (card game, ``card.probes``) and ``policy:PATH``
(a model saved by a trainer: ``runs/NAME/final_model.zip`` or ``.npz``, or the run folder).

Every family, built-in or not, is a factory ``(params, game, seed) -> Agent`` in
:data:`FAMILIES` (a game's agent of a family: one more entry of its :func:`per_game` table);
``make_agent`` parses the spec, looks its family up, builds the agent and names it. Optional
families come from installed packages' entry points (group :data:`ENTRY_POINT_GROUP`, loaded
on first use, so ``openspiel(bot=mcts, sims=1000)`` resolves in any process) or from
:func:`register_agent_family`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.base import Agent
from carcassonne_rl.agents.spec import is_named, parse
from carcassonne_rl.games.registry import check_game

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
    raise ValueError(
        f"unknown agent {spec!r}; expected one of {', '.join(family_names())}, "
        "or a pinned name (carcassonne-rl agents lists them)"
    )


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (``carcassonne`` / ``cardcassonne``): a
    named spec (``family(key=value, ...)``, a pinned name or an alias) or a deprecated
    positional one (its family's factory in :data:`FAMILIES` gets the parameters)."""
    check_game(game)
    text = spec.strip()
    if is_named(text):
        agent = _make_named(text, game, seed)[0]
        assert agent is not None
        return agent
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


def load_trained(path: str, game: str, seed: int | None = None, shipped: bool = True) -> Agent:
    """A trained model as an agent: a MaskablePPO ``.zip``, a tensors-only ``.npz`` (a tile-game
    or card-game value network, an exported tile observation policy or card-game policy), an
    RLlib export (``.pt2``) or a run folder holding one (``final_model.npz`` / ``.zip`` /
    ``.pt2``); with ``shipped``, a bare file name not in the current folder names a shipped
    model file (the deprecated ``policy:NAME.npz``), without it a path is only a path."""
    from carcassonne_rl.agents.pretrained import shipped_or_given

    target = shipped_or_given(path) if shipped else Path(path)
    if not shipped and not target.exists():
        raise ValueError(f"no model file or run folder at {path}")
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


# ---------------------------------------------------------------------------------------------
# The named spec language: each family's keys per game, built from one table (:data:`KEYS`).

#: a key without a default must be given
REQUIRED = object()


@dataclass(frozen=True)
class Key:
    """One key of a family: its name, what its values are (for messages and listings), its
    default (:data:`REQUIRED`: none) and its parser (a bare ``ValueError`` on a bad value)."""

    name: str
    kind: str
    default: Any
    parse: Callable[[str], Any]

    def describe(self) -> str:
        if self.default is REQUIRED:
            return f"{self.name} ({self.kind}, required)"
        shown = "none" if self.default is None else format_value(self.default)
        return f"{self.name} ({self.kind}, default {shown})"


def format_value(value: Any) -> str:
    """A value as a named spec writes it (``0.75``, ``1``, ``8``, ``net``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse_int(text: str) -> int:
        value = int(text)
        if value < low:
            raise ValueError
        return value

    return parse_int


def _positive_float(text: str) -> float:
    value = float(text)
    if not 0.0 < value < float("inf"):
        raise ValueError
    return value


def _weight(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError
    return value


def _leaf(text: str) -> str | float:
    word = text.strip().lower()
    if word in ("net", "table"):
        return word
    value = float(word)
    if not 0.0 <= value < float("inf"):
        raise ValueError
    return value


def _word(*choices: str) -> Callable[[str], str]:
    def parse_word(text: str) -> str:
        word = text.strip().lower()
        if word not in choices:
            raise ValueError
        return word

    return parse_word


def _text(text: str) -> str:
    if not text.strip():
        raise ValueError
    return text.strip()


SIMS = Key("sims", "int >= 1", 1000, _int_at_least(1))
MODEL = "a shipped model (its models.json key or file name) or a path with a '/'"
_TILE_SEARCH = (
    Key("candidates", "int >= 1", 3, _int_at_least(1)),
    Key("samples", "int >= 0: sampled continuations per reply", 2, _int_at_least(0)),
    Key("net", MODEL, None, _text),
)
_CARD_SEARCH = (
    Key("base", "net or heuristic: the policy ranking and playing the rollouts", "net",
        _word("net", "heuristic")),
    Key("net", MODEL + " (base=net)", None, _text),
    Key("worlds", "int >= 1: worlds sampled from the seat's view", 8, _int_at_least(1)),
    Key("candidates", "int >= 1", 3, _int_at_least(1)),
    Key("horizon", "int >= 1: rounds played on", 1, _int_at_least(1)),
    Key("leaf", "net, table (net at 2 players, 1 at 3-5) or a weight >= 0 of the future "
        "(base=heuristic: a weight, 1 by default)", "table", _leaf),
)  # fmt: skip
_BOTH = ("carcassonne", "cardcassonne")
GAME_WORDS = {"carcassonne": "the tile game (carcassonne)",
              "cardcassonne": "the card game (cardcassonne)"}  # fmt: skip

#: every family of the named language: per game, its keys (in the order a canonical spec
#: writes them); a family absent for a game does not play it
KEYS: dict[str, dict[str, tuple[Key, ...]]] = {
    "random": dict.fromkeys(_BOTH, ()),
    "greedy": dict.fromkeys(_BOTH, ()),
    "heuristic": dict.fromkeys(_BOTH, ()),
    "mcts": dict.fromkeys(_BOTH, (
        SIMS, Key("seconds", "float > 0: at most this per decision", None, _positive_float))),
    "pretrained": dict.fromkeys(_BOTH, (
        Key("sims", "int >= 1: network-guided search (none: the shipped one-move agent)",
            None, _int_at_least(1)),)),
    "search": {"carcassonne": _TILE_SEARCH, "cardcassonne": _CARD_SEARCH},
    "blend": {"carcassonne": (
        Key("weight", "float in [0, 1]: the network's share (1: the network alone)", REQUIRED,
            _weight),
        Key("net", MODEL, None, _text))},
    "pretrained-obs": {"carcassonne": ()},
    "policy": dict.fromkeys(_BOTH, (
        Key("path", "a model file or run folder saved by a trainer", None, _text),
        Key("model", "a shipped model: its models.json key or file name", None, _text))),
    "cheat": {"cardcassonne": (Key("agent", "a card search spec", REQUIRED, _text),)},
    "cheat-mcts": {"cardcassonne": (SIMS,)},
    "exploit": {"cardcassonne": (Key("target", "the frozen agent's spec", REQUIRED, _text),
                                 SIMS)},
    "openspiel": dict.fromkeys(_BOTH, (Key("bot", "mcts or ismcts", REQUIRED,
                                           _word("mcts", "ismcts")), SIMS)),
}  # fmt: skip
#: the families whose first key may be given without ``key=`` (a nested spec, a bot)
POSITIONAL = ("cheat", "exploit", "openspiel")

#: what each family is, one line (``carcassonne-rl agents``, ``--help``)
WHAT = {
    "random": "a uniformly random legal move",
    "greedy": "the move scoring most now",
    "heuristic": "one move ahead with a stronger estimate",
    "mcts": "Monte-Carlo tree search (the card game: over sampled hidden cards)",
    "pretrained": "the shipped network (alias of the newest pinned one; sims: searched)",
    "search": "the shipped search (no keys: alias of the newest pinned one)",
    "blend": "the table's value network averaged with the heuristic",
    "pretrained-obs": "the shipped policy reading only the observation (alias)",
    "policy": "a trained model: path= a file or run folder, model= a shipped model",
    "cheat": "a card search on the true hands (a measuring instrument: sees hidden cards)",
    "cheat-mcts": "mcts on the true hands (a measuring instrument: sees hidden cards)",
    "exploit": "a search best-responding to a frozen target agent (a probe)",
    "openspiel": "OpenSpiel's bots (the openspiel extra)",
}

#: the deprecated positional forms per game, with their named equivalents
DEPRECATED: dict[str, tuple[tuple[str, str], ...]] = {
    "carcassonne": (
        ("mcts:SIMS[:SECONDS]", "mcts(sims=SIMS, seconds=SECONDS)"),
        ("pretrained:SIMS", "pretrained(sims=SIMS)"),
        ("pretrained:search[=K[:S]][@NET]", "search(candidates=K, samples=S, net=NET)"),
        ("pretrained:blend=W[@NET]", "blend(weight=W, net=NET)"),
        ("policy:PATH", "policy(path=PATH) or policy(model=KEY)"),
        ("openspiel:BOT[:SIMS]", "openspiel(bot=BOT, sims=SIMS)"),
    ),
    "cardcassonne": (
        ("mcts:SIMS[:SECONDS]", "mcts(sims=SIMS, seconds=SECONDS)"),
        ("pretrained:SIMS", "pretrained(sims=SIMS)"),
        ("pretrained:search[=W[:K[:H[:F]]]][@NET]",
         "search(worlds=W, candidates=K, horizon=H, leaf=F, net=NET)"),
        ("heuristic:search[=W[:K[:H[:F]]]]",
         "search(base=heuristic, worlds=W, candidates=K, horizon=H, leaf=F)"),
        ("cheat-mcts[:SIMS]", "cheat-mcts(sims=SIMS)"),
        ("cheat:SEARCH", "cheat(SEARCH)"),
        ("exploit[:SIMS]:TARGET", "exploit(target=TARGET, sims=SIMS)"),
        ("policy:PATH", "policy(path=PATH) or policy(model=KEY)"),
        ("openspiel:BOT[:SIMS]", "openspiel(bot=BOT, sims=SIMS)"),
    ),
}  # fmt: skip


def family_names() -> list[str]:
    """Every family a spec may name: the named language's, the built-in positional ones, the
    optional and the registered ones."""
    return list(dict.fromkeys([*KEYS, *FAMILIES, *FAMILY_HINTS]))


def families_help(game: str | None = None) -> str:
    """The families of ``game`` (both games: None) with their keys, and the pinned names, in
    a few lines for ``--help`` and messages."""
    from carcassonne_rl.agents.catalog import GAME_PREFIX, PINNED

    parts = []
    for family, per in KEYS.items():
        shapes: dict[str, list[str]] = {}
        for g, keys in per.items():
            if game in (None, g):
                text = f"{family}({', '.join(k.name for k in keys)})" if keys else family
                shapes.setdefault(text, []).append(GAME_PREFIX[g])
        for text, games in shapes.items():
            only = f" [{games[0]}]" if game is None and len(per) == 1 or len(shapes) > 1 else ""
            parts.append(text + only)
    pinned = [p.name for p in PINNED.values() if game in (None, p.game)]
    return (f"agent specs, family or family(key=value, ...): {', '.join(parts)}; pinned names: "
            f"{', '.join(pinned)}; their keys and deprecated forms: carcassonne-rl agents "
            "(a shell needs quotes around parentheses)")  # fmt: skip


def _keys_message(family: str, game: str) -> str:
    keys = KEYS[family][game]
    if not keys:
        return f"{family} takes no keys"
    return f"the keys of {family} in {game}: " + "; ".join(k.describe() for k in keys)


def _values(spec: str, family: str, args: tuple[tuple[str | None, str], ...],
            game: str) -> dict[str, Any]:  # fmt: skip
    """The keys' values of a named spec (defaults filled in), or one message naming the
    wrong key or value and listing the valid ones."""
    per = KEYS[family]
    if game not in per:
        raise ValueError(f"{family} plays {' and '.join(GAME_WORDS[g] for g in per)} only")
    keys = {k.name: k for k in per[game]}
    given: dict[str, str] = {}
    for i, (key, text) in enumerate(args):
        if key is None:
            if i > 0 or family not in POSITIONAL:
                raise ValueError(
                    f"bad spec {spec!r}: write key=value; {_keys_message(family, game)}"
                )
            key = per[game][0].name
        if key not in keys:
            raise ValueError(f"bad spec {spec!r}: {family} has no key {key!r}; "
                             f"{_keys_message(family, game)}")  # fmt: skip
        given[key] = text
    values: dict[str, Any] = {}
    for name, key in keys.items():
        if name not in given:
            if key.default is REQUIRED:
                raise ValueError(f"bad spec {spec!r}: {family} needs {name}; "
                                 f"{_keys_message(family, game)}")  # fmt: skip
            values[name] = key.default
            continue
        try:
            values[name] = key.parse(given[name])
        except ValueError:
            raise ValueError(f"bad spec {spec!r}: {name}={given[name]} is not {key.kind}; "
                             f"{_keys_message(family, game)}") from None  # fmt: skip
    return values


def shipped_model(text: str) -> tuple[str, Path]:
    """``(models.json key, file)`` of the shipped model named by its key or file name."""
    from carcassonne_rl.agents.pretrained import model_dir, model_info

    info = model_info()
    name = text.strip()
    for key, entry in info.items():
        if name in (key, entry.get("file")):
            path = model_dir() / entry["file"]
            if not path.is_file():
                raise ValueError(f"shipped model {name} is not in this installation ({path})")
            return key, path
    raise ValueError(f"{name!r} is not a shipped model (models.json keys: {', '.join(info)}); "
                     "a local file is a path: write ./FILE")  # fmt: skip


def model_or_path(text: str) -> tuple[str, Path]:
    """A ``net=`` value: a shipped model (a bare name) or a path (with a '/') ->
    ``(how a canonical spec writes it, file)``."""
    if "/" in text or "\\" in text:
        path = Path(text)
        if not path.is_file():
            raise ValueError(f"no such network file {text}")
        return text, path
    return shipped_model(text)


def _check_family_values(spec: str, family: str, v: dict[str, Any], game: str) -> None:
    """Checks across keys: one message each."""
    if family == "policy" and (v["path"] is None) == (v["model"] is None):
        raise ValueError(f"bad spec {spec!r}: policy needs exactly one of path= and model=; "
                         f"{_keys_message(family, game)}")  # fmt: skip
    if family == "search" and game == "cardcassonne" and v["base"] == "heuristic":
        if v["net"] is not None:
            raise ValueError(f"bad spec {spec!r}: net= needs base=net")
        if v["leaf"] == "net":
            raise ValueError(f"bad spec {spec!r}: leaf=net needs base=net")


def _canonical(family: str, v: dict[str, Any], game: str) -> str:
    """The named spec of these values, writing only the keys off their defaults."""
    parts = []
    for key in KEYS[family][game]:
        value = v[key.name]
        if family == "search" and key.name == "leaf" and v.get("base") == "heuristic":
            if value in ("table", 1.0):
                continue
        elif value == key.default:
            continue
        parts.append(f"{key.name}={format_value(value)}")
    return f"{family}({', '.join(parts)})" if parts else family


def _make_named(
    text: str, game: str, seed: int | None, build: bool = True
) -> tuple[Agent | None, str, list[Path]]:
    """A named spec's agent (None without ``build``), its canonical spec and the model files
    it loads."""
    from carcassonne_rl.agents.catalog import PINNED, pinned_for, resolve_alias

    parsed = parse(text)
    family = parsed.family
    label = family + text[text.index("(") :] if "(" in text else family
    agent: Agent | None = None
    if family in PINNED:
        if parsed.args:
            raise ValueError(f"bad spec {text!r}: a pinned name takes no keys")
        entry = pinned_for(family, game)
        if build:
            agent = entry.build(seed)
            agent.name = family
        return agent, family, _shipped_files(entry.files)
    if family not in KEYS:
        factory = FAMILIES.get(family) or _installed_family(family, text)
        if parsed.args:
            raise ValueError(f"bad spec {text!r}: {family} takes no named keys")
        if build:
            agent = factory([], game, seed)
            agent.name = family
        return agent, family, []
    v = _values(text, family, parsed.args, game)
    _check_family_values(text, family, v, game)
    net = None
    for key in ("net", "model"):
        if v.get(key) is not None:
            written, net = (shipped_model if key == "model" else model_or_path)(v[key])
            v[key] = written
    if family == "policy" and v["path"] is not None:
        net = Path(v["path"])
        if not net.exists():
            raise ValueError(f"bad spec {text!r}: no model file or run folder at {v['path']}")
    inner: list[Path] = []
    for key in ("agent", "target"):
        if v.get(key) is not None:
            v[key], inner = _resolve(v[key], game)
    canonical = _canonical(family, v, game)
    pinned = resolve_alias(canonical, game)
    if pinned is not None and family in ("pretrained", "search", "pretrained-obs"):
        entry = PINNED[pinned]
        if build:
            agent = entry.build(seed)
            agent.name = label
        return agent, canonical, _shipped_files(entry.files)
    files = _named_files(family, v, net, game) + inner
    if build:
        agent = _build_named(text, family, v, net, game, seed)
        agent.name = label
    return agent, canonical, files


def _named_files(family: str, v: dict[str, Any], net: Path | None, game: str) -> list[Path]:
    """The model files the agent of a named spec's values loads (nested specs' aside)."""
    from carcassonne_rl.agents.pretrained import pretrained_path

    if family == "pretrained":  # with sims (without: the alias)
        return [pretrained_path(game)]
    if family == "search" and game == "carcassonne" or family == "blend":
        return _tile_networks(net)
    if family == "search" and v["base"] == "net":
        return [net] if net is not None else [pretrained_path(game)]
    if family == "policy" and net is not None:
        return [_run_file(net)]
    return []


def _resolve(spec: str, game: str) -> tuple[str, list[Path]]:
    """Any spec's canonical named form and the model files its agent loads (no agent built,
    except to have a deprecated form's own message when it is bad)."""
    text = spec.strip()
    if is_named(text):
        return _make_named(text, game, None, build=False)[1:]
    try:
        named = to_named(text, game)
    except (ValueError, IndexError):
        make_agent(text, game, None)  # its own message
        raise ValueError(f"bad spec {spec!r}") from None
    try:
        return named, _make_named(named, game, None, build=False)[2]
    except ValueError:
        make_agent(text, game, None)  # its own message
        raise


def _shipped_files(names: tuple[str, ...]) -> list[Path]:
    from carcassonne_rl.agents.pretrained import model_dir

    return [model_dir() / n for n in names if (model_dir() / n).is_file()]


def _tile_networks(net: Path | None) -> list[Path]:
    """The files a tile search or blend over ``net`` (None: the shipped ones) loads."""
    from carcassonne_rl.agents.pretrained import MODEL_FILES, TABLE_MODEL_FILE, TABLE_MODEL_FILES

    two = MODEL_FILES["carcassonne"]
    tables = (TABLE_MODEL_FILE, *TABLE_MODEL_FILES.values())
    if net is None:
        return _shipped_files((two, *tables))
    from carcassonne_rl.agents.tile.afterstate import load_value_net, net_feature_set

    if net_feature_set(load_value_net(net)) == "table":
        return [*_shipped_files((two,)), net]
    return [net, *_shipped_files(tables)]


def _run_file(path: Path) -> Path:
    """The model file a ``policy`` path loads (a run folder's final model)."""
    if path.is_dir():
        for name in ("final_model.npz", "final_model.zip", "final_model.pt2"):
            if (path / name).exists():
                return path / name
    return path


def _build_named(text: str, family: str, v: dict[str, Any], net: Path | None, game: str,
                 seed: int | None) -> Agent:  # fmt: skip
    """The agent of a named spec's values (``net``: the file of its ``net=``, ``model=`` or
    ``path=``)."""
    from carcassonne_rl.agents import pretrained as shipped

    at = [f"@{net.resolve()}"] if net is not None else []
    if family in ("random", "greedy", "heuristic"):
        return FAMILIES[family]([], game, seed)
    if family == "mcts":
        return _build(MCTS[game])(v["sims"], v["seconds"], seed)
    if family == "pretrained":  # with sims (without: the alias, resolved above)
        return shipped.make_pretrained(game, v["sims"], seed)
    if family == "search" and game == "carcassonne":
        params = [f"search={v['candidates']}", str(v["samples"]), *at]
        return _pretrained_search(text, params, game, seed)
    if family == "search":
        leaf = format_value(v["leaf"])
        if v["base"] == "heuristic":
            leaf = "1" if v["leaf"] == "table" else leaf
            params = [f"search={v['worlds']}", str(v["candidates"]), str(v["horizon"]), leaf]
            return _heuristic_search(params, game, seed)
        params = [f"search={v['worlds']}", str(v["candidates"]), str(v["horizon"]), leaf, *at]
        return shipped.make_card_search(params, seed)
    if family == "blend":
        params = [f"blend={format_value(v['weight'])}", *at]
        return shipped.make_blend(params, seed)
    if family == "pretrained-obs":
        return shipped.make_pretrained_obs(seed)
    if family == "policy":
        try:
            return load_trained(str(net), game, seed, shipped=False)
        except ValueError as err:
            raise ValueError(f"bad spec {text!r}: {err}") from None
    if family == "cheat-mcts":
        return _cheat_mcts([str(v["sims"])], game, seed)
    if family == "cheat":
        from carcassonne_rl.agents.card.probes import CheatingCardSearchAgent
        from carcassonne_rl.agents.card.search import CardSearchAgent

        search = make_agent(v["agent"], game, seed)
        if not isinstance(search, CardSearchAgent):
            raise ValueError(f"bad spec {text!r}: cheat needs a card search, e.g. cheat(search)")
        return CheatingCardSearchAgent(search, seed)
    if family == "exploit":
        frozen = make_agent(v["target"], game, seed)
        return _build("carcassonne_rl.agents.card.probes:ExploitAgent")(frozen, v["sims"], seed)
    factory = FAMILIES.get(family) or _installed_family(family, text)  # openspiel
    return factory([v["bot"], str(v["sims"])], game, seed)


def _model_value(path: str) -> tuple[bool, str]:
    """A deprecated ``@PATH`` or ``policy:PATH`` value as the named language writes it:
    ``(True, the shipped model's key)`` where the old form read a shipped file, else
    ``(False, the path, with ./ before a bare file name)``."""
    from carcassonne_rl.agents.pretrained import model_dir, shipped_or_given

    target = shipped_or_given(path)
    if target.resolve().parent == model_dir().resolve() and target.is_file():
        try:
            return True, shipped_model(target.name)[0]
        except ValueError:
            pass
    return False, path if ("/" in path or "\\" in path) else f"./{path}"


def to_named(spec: str, game: str) -> str:
    """The named equivalent (canonical form) of a deprecated positional spec."""
    text = spec.strip()
    if is_named(text):
        return _resolve(text, game)[0]
    head, sep, rest = text.partition(":")
    name = head.lower()
    if sep and name == "policy":
        is_shipped, value = _model_value(rest)
        return f"policy(model={value})" if is_shipped else f"policy(path={rest})"
    if sep and name == "cheat":
        return f"cheat({to_named(rest, game)})"
    if sep and name == "exploit":
        first, _, target = rest.partition(":")
        if first.strip().isdigit():
            return f"exploit(target={to_named(target, game)}, sims={int(first)})"
        return f"exploit(target={to_named(rest, game)})"
    body, at, path = text.partition("@")
    name, *params = body.lower().split(":")
    net = None if not at else _model_value(path)[1]
    if name == "mcts":
        return _canonical_of(
            "mcts",
            {
                "sims": params[0] if params else None,
                "seconds": params[1] if len(params) > 1 else None,
            },
            game,
        )
    if name == "cheat-mcts":
        return _canonical_of("cheat-mcts", {"sims": params[0] if params else None}, game)
    if name == "openspiel":
        return _canonical_of(
            "openspiel", {"bot": params[0], "sims": params[1] if len(params) > 1 else None}, game
        )
    if name == "heuristic" and params:
        from carcassonne_rl.agents.card.search import parse_search

        w, k, h, f = parse_search(params)
        return _canonical_of("search", {"base": "heuristic", "worlds": w, "candidates": k,
                                        "horizon": h, "leaf": f}, game)  # fmt: skip
    if name == "pretrained" and params and params[0].startswith("blend"):
        return _canonical_of("blend", {"weight": params[0].partition("=")[2], "net": net}, game)
    if name == "pretrained" and params and params[0].startswith("search"):
        if game == "carcassonne":
            k, eq, _ = params[0].partition("=")[2], "=" in params[0], None
            samples = params[1] if len(params) > 1 else (0 if eq else 2)
            return _canonical_of("search", {"candidates": k or 3, "samples": samples,
                                            "net": net}, game)  # fmt: skip
        from carcassonne_rl.agents.card.search import NET_LEAF, parse_search

        w, k, h, f = parse_search(params, net_leaf=True)
        return _canonical_of(
            "search",
            {
                "worlds": w,
                "candidates": k,
                "horizon": h,
                "leaf": NET_LEAF if f is None else f,
                "net": net,
            },
            game,
        )
    if name == "pretrained" and params:
        return _canonical_of("pretrained", {"sims": params[0]}, game)
    if params:
        raise ValueError(f"bad spec {spec!r}: no named equivalent")
    return name


def _canonical_of(family: str, given: dict[str, Any], game: str) -> str:
    """The canonical named spec of ``family`` with these values (None: the default)."""
    args = tuple((k, format_value(v)) for k, v in given.items() if v is not None)
    text = f"{family}({', '.join(f'{k}={v}' for k, v in args)})"
    v = _values(text, family, args, game)
    return _canonical(family, v, game)


_SHA256: dict[tuple[str, float, int], str] = {}


def sha256_of(path: Path) -> str:
    """The sha256 of a file (cached by path, modification time and size)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime, stat.st_size)
    if key not in _SHA256:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        _SHA256[key] = digest.hexdigest()
    return _SHA256[key]


def package_version() -> str | None:
    """``carcassonne_rl.__version__``, else the installed distribution's version."""
    import carcassonne_rl

    version = getattr(carcassonne_rl, "__version__", None)
    if version:
        return str(version)
    from importlib import metadata

    try:
        return metadata.version("carcassonne-rl")
    except metadata.PackageNotFoundError:
        return None


def resolution(spec: str, game: str) -> dict[str, Any]:
    """What ``spec`` resolves to in ``game``: the spec as given, its named form
    (``named``), the pinned name (or None), each model file it loads with its sha256, and the
    package version (one ``ValueError`` line if the spec is bad)."""
    from carcassonne_rl.agents.catalog import resolve_alias
    from carcassonne_rl.agents.pretrained import model_dir

    check_game(game)
    named, files = _resolve(spec, game)
    pinned = resolve_alias(named, game)
    shipped = model_dir().resolve()

    def describe(path: Path) -> dict[str, Any]:
        inside = path.resolve().parent == shipped
        return {"file": path.name if inside else str(path), "shipped": inside,
                "sha256": sha256_of(path)}  # fmt: skip

    return {"spec": spec, "named": named, "pinned": pinned,
            "files": [describe(p) for p in dict.fromkeys(files)],
            "version": package_version()}  # fmt: skip


#: every name the registry reserves (families cannot be registered under them)
BUILT_IN = frozenset(FAMILIES) | {"search", "blend"}
#: the built-in families (the named language's and the positional ones)
NAMES = tuple(n for n in dict.fromkeys([*KEYS, *FAMILIES]) if n != "openspiel")
