"""The deprecated positional forms of the shipped agents' families, parsed:
``heuristic:search[=W[:K[:H[:F]]]]`` (card game), ``pretrained[:SIMS]``,
``pretrained:search[...][@PATH]`` and ``pretrained:blend=W[@PATH]``, each a factory
``(params, game, seed) -> Agent`` of ``agents.registry.FAMILIES`` (their named equivalents:
``agents.keys.DEPRECATED``)."""

from __future__ import annotations

from carcassonne_rl.agents.base import Agent


def _spec(name: str, params: list[str]) -> str:
    """The (lower-case) spec a family's factory was called for, for its messages."""
    return ":".join([name, *params])


def heuristic_search(params: list[str], game: str, seed: int | None) -> Agent:
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


def pretrained(params: list[str], game: str, seed: int | None) -> Agent:
    """``pretrained``, ``pretrained:SIMS``, ``pretrained:search[=K[:S]]``,
    ``pretrained:blend=W``."""
    from carcassonne_rl.agents.pretrained import make_pretrained

    spec = _spec("pretrained", params)
    if params and params[0].startswith("search"):
        return pretrained_search(spec, params, game, seed)
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


def pretrained_search(spec: str, params: list[str], game: str, seed: int | None) -> Agent:
    """``pretrained:search...``: the tile search (``pretrained.make_tile_search``) or the card
    search (``pretrained.make_card_search``)."""
    from carcassonne_rl.agents import pretrained

    if params == ["search"]:  # the alias: the newest pinned search of the game
        from carcassonne_rl.agents.catalog import ALIASES, PINNED

        return PINNED[ALIASES[game]["pretrained:search"]].build(seed)
    if game == "cardcassonne":
        return pretrained.make_card_search(params, seed)
    return pretrained.make_tile_search(params, seed)
