"""Agents by name: ``make_agent("mcts(sims=1000)", "carcassonne", seed=1)``.

Specs are written in the named language of ``agents.spec``: ``family`` or
``family(key=value, ...)``, each family's keys per game declared once in :data:`KEYS` (types,
defaults, what they mean; ``carcassonne-rl agents`` lists them); a shipped agent also has a
pinned name (``agents.catalog``: ``tile-net-v2``, ``card-net-v4``, ...), and ``pretrained``,
``search`` and ``pretrained-obs`` are aliases of the newest. :func:`resolution` says what a
spec resolved to (pinned name, model files with their sha256, package version).

Deprecated, still accepted silently: the positional forms ``name[:param...][@PATH]``, e.g.
``mcts:1000``, ``pretrained:search=8:3``, ``exploit:200:pretrained``, ``policy:PATH`` (a bare
file name not in the current folder names a shipped model file); :data:`DEPRECATED` lists
them with their named equivalents, :func:`to_named` translates one.

Every family, built-in or not, is a factory ``(params, game, seed) -> Agent`` in
:data:`FAMILIES` (a game's agent of a family: one more entry of its :func:`per_game` table);
``make_agent`` parses the spec, looks its family up, builds the agent and names it. Optional
families come from installed packages' entry points (group :data:`ENTRY_POINT_GROUP`, loaded
on first use, so ``openspiel(bot=mcts, sims=1000)`` resolves in any process) or from
:func:`register_agent_family`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.base import Agent
from carcassonne_rl.agents.keys import (
    DEPRECATED,
    KEYS,
    WHAT,
    families_help,
    format_value,
)
from carcassonne_rl.agents.positional import heuristic_search, pretrained, pretrained_search
from carcassonne_rl.agents.resolve import spec_values, to_named
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
        return heuristic_search(params, game, seed)
    if game == "cardcassonne" and not params:  # the alias's pinned card heuristic
        from carcassonne_rl.agents.catalog import ALIASES, PINNED

        return PINNED[ALIASES[game]["heuristic"]].build(seed)
    return HEURISTIC(params, game, seed)


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
    "pretrained": pretrained,
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
        return _make_named(text, game, seed)
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


def load_trained(path: str, game: str, seed: int | None = None, shipped: bool = True) -> Agent:
    """A model saved by a trainer as an agent (``pretrained.load_trained``)."""
    from carcassonne_rl.agents.pretrained import load_trained as load

    return load(path, game, seed, shipped)


def _make_named(text: str, game: str, seed: int | None) -> Agent:
    """The agent of a named spec (a family with keys, a pinned name or an alias)."""
    from carcassonne_rl.agents.catalog import ALIASES, PINNED, pinned_for

    parsed = parse(text)
    family = parsed.family
    label = family + text[text.index("(") :] if "(" in text else family
    if family in PINNED:
        if parsed.args:
            raise ValueError(f"bad spec {text!r}: a pinned name takes no keys")
        agent = pinned_for(family, game).build(seed)
        agent.name = family
        return agent
    if family not in KEYS:
        factory = FAMILIES.get(family) or _installed_family(family, text)
        if parsed.args:
            raise ValueError(f"bad spec {text!r}: {family} takes no named keys")
        agent = factory([], game, seed)
        agent.name = family
        return agent
    v, net = spec_values(text, family, parsed.args, game)
    if family in ("pretrained", "pretrained-obs") and v.get("sims") is None or (
            family == "search" and not parsed.args):  # fmt: skip
        agent = PINNED[ALIASES[game][family]].build(seed)  # the alias's pinned agent
    else:
        agent = _build_named(text, family, v, net, game, seed)
    agent.name = label
    return agent


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
        return pretrained_search(text, params, game, seed)
    if family == "search":
        leaf = format_value(v["leaf"])
        from carcassonne_rl.agents.card.inference import with_inference

        if v["base"] == "heuristic":
            leaf = "1" if v["leaf"] == "table" else leaf
            params = [f"search={v['worlds']}", str(v["candidates"]), str(v["horizon"]), leaf]
            return with_inference(heuristic_search(params, game, seed), v["infer"], v["pool"],
                                  evidence=v["evidence"])  # fmt: skip
        params = [f"search={v['worlds']}", str(v["candidates"]), str(v["horizon"]), leaf, *at]
        return with_inference(shipped.make_card_search(params, seed), v["infer"], v["pool"],
                              evidence=v["evidence"])  # fmt: skip
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
        return CheatingCardSearchAgent(search, seed, v["told"])
    if family == "exploit":
        frozen = make_agent(v["target"], game, seed)
        return _build("carcassonne_rl.agents.card.probes:ExploitAgent")(frozen, v["sims"], seed)
    factory = FAMILIES.get(family) or _installed_family(family, text)  # openspiel
    return factory([v["bot"], str(v["sims"])], game, seed)


def family_names() -> list[str]:
    """Every family a spec may name: the named language's, the built-in positional ones, the
    optional and the registered ones."""
    return list(dict.fromkeys([*KEYS, *FAMILIES, *FAMILY_HINTS]))


def resolution(spec: str, game: str) -> dict[str, Any]:
    """What ``spec`` resolves to in ``game`` (``agents.resolve.record``): the spec as given,
    its named form (``named``), the pinned name (or None), each model file its agent loads
    with its sha256, and the package version; one ``ValueError`` line if the spec is bad."""
    from carcassonne_rl.agents.catalog import PINNED
    from carcassonne_rl.agents.resolve import record

    check_game(game)
    text = spec.strip()
    family = parse(text).family if is_named(text) else None
    if family is not None and family not in KEYS and family not in PINNED:
        FAMILIES.get(family) or _installed_family(family, text)  # an unknown one's message
    try:
        return record(spec, game)
    except (ValueError, IndexError) as err:
        if not is_named(text):
            make_agent(text, game)  # the deprecated form's own message
        if isinstance(err, ValueError):
            raise
        raise ValueError(f"bad spec {spec!r}") from None


#: every name the registry reserves (families cannot be registered under them)
BUILT_IN = frozenset(FAMILIES) | {"search", "blend"}
#: the built-in families (the named language's and the positional ones)
NAMES = tuple(n for n in dict.fromkeys([*KEYS, *FAMILIES]) if n != "openspiel")
__all__ = ["DEPRECATED", "FAMILIES", "KEYS", "NAMES", "WHAT", "families_help", "load_trained",
           "make_agent", "register_agent_family", "resolution", "to_named"]  # fmt: skip
