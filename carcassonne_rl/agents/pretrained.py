"""The trained agents shipped with the package: ``pretrained`` and ``pretrained(sims=N)``.

The weights lie in ``carcassonne_rl/agents/pretrained_models/`` as ``.npz`` files (tensors
and a JSON description only, loaded without pickle, see ``value_net``); ``models.json``
there records how each was trained and how strong it measured. Loading needs no network
access and no torch. Which shipped agent each pinned name (``tile-net-v2``, ``card-net-v4``,
...) builds, and which one ``pretrained`` is an alias of, is ``agents.catalog``'s table.

- Tile game: ``pretrained`` ranks its options by the shipped value networks (one batched
  forward pass per decision): at 2 players expert iteration's network alone
  (``carcassonne_2p_expert5.npz``: :data:`PRETRAINED_2P_FILE`, ``tile-net-v7`` and ``-v8``;
  :func:`make_tile_net` builds it over any shipped 2-player network); bare ``search``
  (``tile-search-v4``) searches the network before it (``carcassonne_2p_expert4.npz``,
  ``tile-net-v4`` to ``-v6``) alone; ``blend(weight=W)`` and the searches with
  keys but no network (``tile-search-v2``) use the first network expert iteration taught
  from (``carcassonne_2p.npz``, features
  ``two_player``: the self-play network ``carcassonne_2p_selfplay.npz`` fine-tuned against
  the heuristic), its margin averaged with the heuristic's (``tile.blend.BlendedAgent``, as
  ``tile-net-v1`` plays it at 2 players); at 3-5 players the network trained at tables of
  2-5 seats (``carcassonne_table.npz``, features ``table``; at 4 players that network
  fine-tuned with greedy seats, ``carcassonne_table_greedy.npz``: :data:`TABLE_MODEL_FILES`;
  ``pretrained``, ``tile-net-v8``, plays the networks its search taught against greedy seats
  where :data:`PRETRAINED_TABLE_FILES` has one: at 3 and 5 players the same one), its margin
  averaged with the heuristic's too (``tile-net-v2`` to ``-v7`` play the 5-player
  observation network of ``pretrained-obs`` at 5 players without The Messages,
  ``tile.table_agent.OBS_TABLES``); ``pretrained(sims=N)`` is
  ``tile.value_search.ValueSearchAgent``, the UCT search of ``tile.mcts`` with the network
  valuing the leaves and the children's priors, ``N`` simulations per decision.
- Card game: ``pretrained`` is ``card.value.CardSearchValueAgent`` over the search-value
  network ``cardcassonne_netleaf.npz`` (expert iteration with the network valuing the
  search's leaves; of the card heuristic's 3 best turn options, the one the network values
  most); ``search(...)`` is ``card.search.CardSearchAgent`` over it
  (:func:`make_card_search`; the network values the rollouts' ends at 2 players, the
  standings at 3-5, unless ``leaf`` says otherwise); ``pretrained(sims=N)`` is
  ``card.net_mcts.CardNetMCTSAgent``, ``mcts`` with the network's priors and leaf values.
  The networks it played before stay shipped under their names and pinned names:
  ``cardcassonne_dmc.npz`` (``card-net-v3``), expert iteration's ``cardcassonne_expert.npz``
  (``card-net-v2``) and the MaskablePPO policy ``cardcassonne_2p.npz`` (``card-net-v1``,
  ``card.policy_net.CardNetAgent``).
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError
from carcassonne_rl.agents.tile.afterstate import AfterstateAgent, load_value_net
from carcassonne_rl.agents.tile.blend import BlendedAgent
from carcassonne_rl.agents.tile.table_agent import OBS_TABLES, TileTableAgent
from carcassonne_rl.agents.tile.value_search import ValueSearchAgent

#: each game's 2-player network: the tile game's is the one ``pretrained:blend``, a tile
#: search with keys and no network (``tile-search-v2``) and expert iteration's first step
#: average with the heuristic or search
MODEL_FILES = {"carcassonne": "carcassonne_2p.npz", "cardcassonne": "cardcassonne_netleaf.npz"}
#: what the tile game's ``pretrained`` plays at 2 players, alone: expert iteration's newest
#: network (``tile-net-v7``; ``tile-net-v4`` to ``-v6`` play ``carcassonne_2p_expert4.npz``,
#: ``tile-net-v3`` ``carcassonne_2p_expert3.npz``,
#: ``tile-net-v2`` the first, ``carcassonne_2p_expert.npz``, ``tile-net-v1``
#: ``carcassonne_2p.npz`` averaged with the heuristic)
PRETRAINED_2P_FILE = "carcassonne_2p_expert5.npz"
TABLE_MODEL_FILE = "carcassonne_table.npz"  # the tile game at 3-5 players
# the tables where ``pretrained`` plays another table network: at 4 players the table
# network fine-tuned with greedy seats
TABLE_MODEL_FILES = {4: "carcassonne_table_greedy.npz"}
#: the tables where ``pretrained`` (``tile-net-v8``) plays a table network of its own: at 3
#: players the network of two steps of its own search, averaged with the heuristic, teaching
#: against greedy seats (``expert-loop --opponents greedy``), each fitted with a ranking term
#: (``tile-net-v5`` plays the first step's, ``carcassonne_table_3p_rank.npz``; each file names
#: its weight, the shipped one); at 5 players the same network (``tile-net-v8``; before it
#: the observation network without The Messages, the table network with them)
PRETRAINED_TABLE_FILES = {3: "carcassonne_table_3p_rank2.npz", 5: "carcassonne_table_3p_rank2.npz"}
#: the tables where ``pretrained`` plays the observation network (without The Messages):
#: none (``tile-net-v8``; ``tile-net-v2`` to ``-v7`` play it at 5 players)
PRETRAINED_OBS_TABLES: tuple[int, ...] = ()
OBS_MODEL_FILE = "carcassonne_obs.npz"  # pretrained-obs: reads the carcassonne_v1 observation
# the observation networks that play these tables (pretrained-obs; chosen by measurement:
# docs/research/2026-11-26-tile-observation-tables.md): at 3 players the 2-player network
OBS_TABLE_FILES = {3: OBS_MODEL_FILE, 4: "carcassonne_obs_4p.npz", 5: "carcassonne_obs_5p.npz"}


def model_dir() -> Path:
    return Path(str(resources.files("carcassonne_rl.agents") / "pretrained_models"))


def model_info() -> dict:
    """``models.json``: per game, the training command, machine, wall time and strength."""
    return json.loads((model_dir() / "models.json").read_text())


def pretrained_path(game: str) -> Path:
    """The 2-player network of ``game`` (:data:`MODEL_FILES`)."""
    return shipped_file(MODEL_FILES[game])


def shipped_file(name: str) -> Path:
    """The shipped model file ``name`` (a message if this installation lacks it)."""
    path = model_dir() / name
    if not path.exists():
        raise ModelFileError(f"no pretrained model {name} in this installation ({path})")
    return path


def table_network() -> MLP | None:
    """The network trained at 2-5 player tables, if this installation has it."""
    path = model_dir() / TABLE_MODEL_FILE
    return load_value_net(path) if path.exists() else None


def table_networks() -> dict[int, MLP]:
    """The other table networks ``pretrained`` plays, by number of players
    (:data:`TABLE_MODEL_FILES`, those this installation has)."""
    paths = {n: model_dir() / name for n, name in TABLE_MODEL_FILES.items()}
    return {n: load_value_net(path) for n, path in paths.items() if path.exists()}


def named_network(spec: str, path: str) -> tuple[MLP, bool, float | None]:
    """The tile value network that ``@PATH`` of ``spec`` names (a path or a shipped file's
    name): ``(network, is_table, heuristic_blend weight or None)``; a table network
    replaces ``pretrained``'s at 3-5 players, a 2-player one at 2 players."""
    from carcassonne_rl.agents.tile.afterstate import net_feature_set

    target = shipped_or_given(path)
    if not path.strip() or not target.is_file():
        raise ValueError(f"bad spec {spec!r}: no such network file {path}")
    try:
        net = load_value_net(target)
    except ModelFileError as err:
        raise ValueError(f"bad spec {spec!r}: {err}") from None
    weight = net.meta.get("heuristic_blend")
    return net, net_feature_set(net) == "table", None if weight is None else float(weight)


def make_pretrained(game: str, simulations: int | None = None, seed: int | None = None) -> Any:
    """The shipped agent of ``game`` (``simulations``: the tile game's network-guided search)."""
    if game == "cardcassonne":
        from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net

        net = load_card_net(pretrained_path(game))
        if simulations is None:
            return CardSearchValueAgent(net, seed=seed)
        if simulations <= 0 or not math.isfinite(simulations):
            raise ValueError(f"pretrained:SIMS needs SIMS > 0, got {simulations}")
        from carcassonne_rl.agents.card.net_mcts import CardNetMCTSAgent

        return CardNetMCTSAgent(net, int(simulations), seed=seed)
    if simulations is None:
        return make_tile_net(PRETRAINED_2P_FILE, seed, PRETRAINED_TABLE_FILES,
                             PRETRAINED_OBS_TABLES)  # fmt: skip
    if simulations <= 0 or not math.isfinite(simulations):
        raise ValueError(f"pretrained:SIMS needs SIMS > 0, got {simulations}")
    return ValueSearchAgent(load_value_net(pretrained_path(game)), simulations, seed=seed)


def make_tile_net(two_player_file: str, seed: int | None = None,
                  table_files: dict[int, str] | None = None,
                  obs_tables: tuple[int, ...] = OBS_TABLES) -> BaseAgent:  # fmt: skip
    """The tile ``pretrained`` with the shipped 2-player network ``two_player_file`` alone at
    2 players (``tile-net-v2``: ``carcassonne_2p_expert.npz``, ``tile-net-v3``:
    ``carcassonne_2p_expert3.npz``, ``tile-net-v4``: ``carcassonne_2p_expert4.npz``,
    ``tile-net-v7``: ``carcassonne_2p_expert5.npz``); at 3-5 players the table networks
    averaged with the heuristic at their shipped weights (at 5 without The Messages the
    observation network; ``obs_tables``: where it plays, none for ``tile-net-v8``),
    ``table_files``: the shipped table network of those numbers of players instead
    (``tile-net-v4``'s to ``-v8``'s)."""
    two = load_value_net(shipped_file(two_player_file))
    table = table_network()
    if table is not None:
        obs = None
        if obs_tables and (model_dir() / OBS_MODEL_FILE).exists():
            obs = make_pretrained_obs(seed)
        tables = table_networks()
        tables.update({n: load_value_net(shipped_file(f)) for n, f in (table_files or {}).items()})
        return TileTableAgent.of_networks(two, table, seed=seed, obs=obs, tables=tables,
                                          obs_tables=obs_tables)  # fmt: skip
    return AfterstateAgent(two, seed=seed, name="pretrained")


def split_network(params: list[str]) -> tuple[list[str], str | None, str]:
    """``pretrained:...@PATH`` parameters -> (the parameters before ``@PATH``, ``PATH`` or
    None, the spec as written, for messages)."""
    network = params[-1][1:] if params[-1].startswith("@") else None
    params = params[:-1] if network is not None else params
    return (
        params,
        network,
        ":".join(["pretrained", *params]) + (f"@{network}" if network is not None else ""),
    )


def make_blend(params: list[str], seed: int | None = None) -> BaseAgent:
    """``pretrained:blend=W[@PATH]`` (tile game): the value network of the table (the
    2-player network at 2 players, the table networks of ``pretrained`` at 3-5; ``@PATH``:
    that network instead of the shipped one of its kind), its margin with weight ``W``
    averaged with the heuristic's (``W = 1``: the network alone; ``pretrained`` plays the
    shipped weights at 3-5 players, at 5 without The Messages its observation network, and
    at 2 players expert iteration's network alone; ``pretrained:blend=0.75`` is the
    2-player ``pretrained`` before it)."""
    params, network, spec = split_network(params)
    head, sep, value = params[0].partition("=")
    try:
        weight = float(value)
        if head != "blend" or not sep or not 0.0 <= weight <= 1.0 or len(params) > 1:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"bad spec {spec!r}: expected pretrained:blend=W with the network's weight W in "
            "[0, 1] (1: the value network of the table alone), optionally followed by @PATH "
            "(a tile value network)"
        ) from None
    two, table, tables = (
        load_value_net(pretrained_path("carcassonne")),
        table_network(),
        table_networks(),
    )
    if network is not None:
        net, is_table, _ = named_network(spec, network)
        two, table, tables = (two, net, {}) if is_table else (net, table, tables)
    blended = BlendedAgent(two, weight, seed=seed)
    if table is None:
        return blended
    return TileTableAgent(blended, BlendedAgent(table, weight, seed=seed), seed, obs_tables=(),
                          tables={n: BlendedAgent(t, weight, seed=seed)
                                  for n, t in tables.items()})  # fmt: skip


def make_card_search(params: list[str], seed: int | None = None) -> BaseAgent:
    """``pretrained:search[=W[:K[:H[:F]]]][@PATH]`` (card game): ``heuristic:search`` with the
    shipped search-value network (or the one of ``@PATH``) as the base policy: it ranks the
    candidates and plays every seat of the rollouts (``card.search``; default ``8:3:1:table``:
    at 2 seats the network values the rollouts' ends (``F = net``), at 3-5 the standings with
    ``F`` = 1 do, as in ``heuristic:search``; ``net`` or a weight ``F`` holds at every
    table)."""
    from carcassonne_rl.agents.card.search import CardSearchAgent, parse_search
    from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net

    params, network, spec = split_network(params)
    try:
        worlds, candidates, horizon, future = parse_search(params, net_leaf=True)
        if network is not None and not network.strip():
            raise ValueError
    except ValueError:
        raise ValueError(
            f"bad spec {spec!r}: expected pretrained:search, pretrained:search=W, "
            "pretrained:search=W:K, pretrained:search=W:K:H or pretrained:search=W:K:H:F (W >= 1 "
            "sampled worlds, K >= 1 candidates searched, H >= 1 rounds played on, F >= 0 the "
            "weight of the future in the leaf's value, F = net: the leaf valued by the network, "
            "or F = table, the default: net at 2 players, 1 at 3-5), optionally followed by "
            "@PATH (a card search-value network)"
        ) from None
    path = shipped_or_given(network) if network is not None else pretrained_path("cardcassonne")
    if not path.is_file():
        raise ValueError(f"bad spec {spec!r}: no such network file {network}")
    try:
        net = load_card_net(path)
    except ModelFileError as err:
        raise ValueError(f"bad spec {spec!r}: {err}") from None
    return CardSearchAgent(lambda s: CardSearchValueAgent(net, s), worlds, seed, candidates,
                           horizon, future)  # fmt: skip


def shipped_or_given(path: str) -> Path:
    """``path`` itself when it exists, else the shipped model file of that name (so
    ``policy:cardcassonne_2p.npz`` plays a shipped file from any folder)."""
    given = Path(path)
    shipped = model_dir() / given.name
    if given.exists() or given.name != path or not shipped.is_file():
        return given
    return shipped


def make_pretrained_obs(seed: int | None = None) -> BaseAgent:
    """``pretrained-obs``: the shipped tile policy that decides from the ``carcassonne_v1``
    observation alone (numpy, see ``tile_obs_net``): the 2-player network, and the network
    of each table in :data:`OBS_TABLE_FILES` that this installation has."""
    from carcassonne_rl.agents.tile.obs_policy.board_net import (
        TileObsPolicyAgent,
        load_tile_obs_policy,
    )

    path = model_dir() / OBS_MODEL_FILE
    if not path.exists():
        raise ModelFileError(f"no pretrained-obs model in this installation ({path})")
    nets = {OBS_MODEL_FILE: load_tile_obs_policy(path)}
    tables = {}
    for players, name in OBS_TABLE_FILES.items():
        if name not in nets and (model_dir() / name).exists():
            nets[name] = load_tile_obs_policy(model_dir() / name)
        if name in nets:
            tables[players] = nets[name]
    return TileObsPolicyAgent(nets[OBS_MODEL_FILE], seed=seed, name="pretrained-obs",
                              tables=tables)  # fmt: skip


def make_tile_search(params: list[str], seed: int | None = None) -> BaseAgent:
    """``pretrained:search[=K[:S]][@PATH]``: expectimax over the next tile for the ``K`` best
    options, each reply followed by ``S`` sampled continuations to the searcher's next turn
    (``search=3:2`` by default, ``tile-search-v2``; ``search=K`` is ``search=K:0``). ``@PATH``: a
    2-player value network is searched at 2 players, played as ``policy:PATH`` plays it
    (averaged with the heuristic if the file names a ``heuristic_blend`` weight, alone
    otherwise) instead of the shipped network averaged with the heuristic; a table network
    is searched at 3-5 players instead of the shipped ones, the same way (the shipped table
    networks are searched alone)."""
    from carcassonne_rl.agents.tile.search import ExpectimaxAgent

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
    from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT

    net, weight, table, tables = None, None, table_network(), table_networks()
    table_weight = None
    if network is not None:
        named, is_table, named_weight = named_network(spec, network)
        if is_table:
            table, tables, table_weight = named, {}, named_weight
        else:
            net, weight = named, named_weight
    if net is None:
        net, weight = load_value_net(pretrained_path("carcassonne")), NETWORK_2P_WEIGHT
    two = ExpectimaxAgent(net, candidates, seed, weight=weight, samples=samples)
    if table is None:
        return two

    def search(value_net: Any, share: float | None = None) -> ExpectimaxAgent:
        return ExpectimaxAgent(value_net, candidates, seed, samples=samples, weight=share)

    return TileTableAgent(two, search(table, table_weight), seed,
                          tables={n: search(t) for n, t in tables.items()})  # fmt: skip


def make_tile_search_v1(seed: int | None = None) -> BaseAgent:
    """``tile-search-v1``: :func:`make_tile_search`'s ``pretrained:search`` deciding from the
    full state, as before agents got their seat's view (it reads the pile in the rare case
    of a drawn tile that fits nowhere; ``agents.tile.pile_reading.PileReadingAgent``)."""
    from carcassonne_rl.agents.tile.pile_reading import PileReadingAgent

    return PileReadingAgent(make_tile_search(["search"], seed))


def load_trained(path: str, game: str, seed: int | None = None, shipped: bool = True) -> Any:
    """A trained model as an agent: a MaskablePPO ``.zip``, a tensors-only ``.npz`` (a tile-game
    or card-game value network, an exported tile observation policy or card-game policy), an
    RLlib export (``.pt2``) or a run folder holding one (``final_model.npz`` / ``.zip`` /
    ``.pt2``); with ``shipped``, a bare file name not in the current folder names a shipped
    model file (the deprecated ``policy:NAME.npz``), without it a path is only a path."""
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


def make_tile_net_v1(seed: int | None = None) -> BaseAgent:
    """``tile-net-v1``: at 2 players ``carcassonne_2p.npz`` averaged with the heuristic (its
    margin's share 0.75), at 3-5 players what ``pretrained`` plays there."""
    from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT, PRETRAINED_TABLE_WEIGHTS

    two = BlendedAgent(load_value_net(pretrained_path("carcassonne")), NETWORK_2P_WEIGHT,
                       seed=seed, name="pretrained")  # fmt: skip
    table = table_network()
    if table is None:
        return two
    obs = make_pretrained_obs(seed) if (model_dir() / OBS_MODEL_FILE).exists() else None

    def blended(net: MLP) -> BlendedAgent:
        return BlendedAgent(net, PRETRAINED_TABLE_WEIGHTS, seed=seed, name="pretrained")

    return TileTableAgent(two, blended(table), seed, obs,
                          tables={n: blended(t) for n, t in table_networks().items()})  # fmt: skip


def make_card_net(name: str, seed: int | None = None) -> Any:
    """The shipped card network file ``name`` as ``policy`` plays it (a search-value network
    ranking the heuristic's options, or the PPO policy network)."""
    return load_trained(str(shipped_file(name)), "cardcassonne", seed)
