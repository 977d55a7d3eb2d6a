"""The trained agents shipped with the package: ``pretrained`` and ``pretrained(sims=N)``.

The weights lie in ``carcassonne_rl/agents/pretrained_models/`` as ``.npz`` files (tensors
and a JSON description only, loaded without pickle, see ``value_net``); ``models.json``
there records how each was trained and how strong it measured. Loading needs no network
access and no torch. Which shipped agent each pinned name (``tile-net-v2``, ``card-net-v4``,
...) builds, and which one ``pretrained`` is an alias of, is ``agents.catalog``'s table.

- Tile game: ``pretrained`` ranks its options by the shipped value networks (one batched
  forward pass per decision): at 2 players expert iteration's network alone
  (``carcassonne_2p_expert.npz``: :data:`PRETRAINED_2P_FILE`); ``blend(weight=W)`` and the
  searches use the 2-player network it was taught from (``carcassonne_2p.npz``, features
  ``two_player``: the self-play network ``carcassonne_2p_selfplay.npz`` fine-tuned against
  the heuristic), its margin averaged with the heuristic's (``tile.blend.BlendedAgent``, as
  ``tile-net-v1`` plays it at 2 players); at 3-5 players the network trained at tables of
  2-5 seats (``carcassonne_table.npz``, features ``table``; at 4 players that network
  fine-tuned with greedy seats, ``carcassonne_table_greedy.npz``: :data:`TABLE_MODEL_FILES`),
  its margin averaged with the heuristic's too, except at 5 players without The Messages,
  where the 5-player observation network of ``pretrained-obs`` plays
  (``tile.table_agent.OBS_TABLES``); ``pretrained(sims=N)`` is
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
from carcassonne_rl.agents.tile.table_agent import TileTableAgent
from carcassonne_rl.agents.tile.value_search import ValueSearchAgent

#: each game's 2-player network: the tile game's is the one ``pretrained:blend``, ``pretrained:
#: search`` and expert iteration average with the heuristic or search
MODEL_FILES = {"carcassonne": "carcassonne_2p.npz", "cardcassonne": "cardcassonne_netleaf.npz"}
#: what the tile game's ``pretrained`` plays at 2 players, alone: expert iteration's network
#: (``tile-net-v1`` played ``carcassonne_2p.npz`` averaged with the heuristic there)
PRETRAINED_2P_FILE = "carcassonne_2p_expert.npz"
TABLE_MODEL_FILE = "carcassonne_table.npz"  # the tile game at 3-5 players
# the tables where ``pretrained`` plays another table network: at 4 players the table
# network fine-tuned with greedy seats
TABLE_MODEL_FILES = {4: "carcassonne_table_greedy.npz"}
OBS_MODEL_FILE = "carcassonne_obs.npz"  # pretrained-obs: reads the carcassonne_v1 observation
# the observation networks that play these tables (pretrained-obs; chosen by measurement:
# docs/multiplayer.md): at 3 players the 2-player network
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
        two = load_value_net(shipped_file(PRETRAINED_2P_FILE))
        table = table_network()
        if table is not None:
            obs = make_pretrained_obs(seed) if (model_dir() / OBS_MODEL_FILE).exists() else None
            return TileTableAgent.of_networks(two, table, seed=seed, obs=obs,
                                              tables=table_networks())  # fmt: skip
        return AfterstateAgent(two, seed=seed, name="pretrained")
    if simulations <= 0 or not math.isfinite(simulations):
        raise ValueError(f"pretrained:SIMS needs SIMS > 0, got {simulations}")
    return ValueSearchAgent(load_value_net(pretrained_path(game)), simulations, seed=seed)


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
