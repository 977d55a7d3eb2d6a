"""The trained agents shipped with the package: ``pretrained`` and ``pretrained:SIMS``.

The weights lie in ``carcassonne_rl/agents/pretrained_models/`` as ``.npz`` files (tensors
and a JSON description only, loaded without pickle, see ``value_net``); ``models.json``
there records how each was trained and how strong it measured. Loading needs no network
access and no torch.

- Tile game: ``pretrained`` ranks its options by the shipped value networks (one batched
  forward pass per decision): at 2 players the 2-player network (``carcassonne_2p.npz``,
  features ``v1``: the self-play network ``carcassonne_2p_selfplay.npz`` fine-tuned against
  the heuristic), its margin averaged with the heuristic's (``tile_blend.BlendedAgent``),
  at 3-5 players the network trained at tables of 2-5 seats (``carcassonne_table.npz``,
  features ``table``) or, without The Messages, the observation networks distilled from it
  (see docs/multiplayer.md);
  ``pretrained:SIMS`` is :class:`ValueSearchAgent`, the
  UCT search of ``tile_mcts`` with the network valuing the leaves and the children's priors,
  ``SIMS`` simulations per decision.
- Card game: ``pretrained`` is :class:`CardNetAgent`, the shipped policy network (the most
  likely legal action of the MaskablePPO policy it was exported from).
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .afterstate_agent import AfterstateAgent, load_value_net, net_feature_set, options
from .base import BaseAgent
from .tile_blend import PRETRAINED_2P_WEIGHT, BlendedAgent
from .tile_greedy import settle
from .tile_mcts import TileMCTSAgent
from .value_net import MLP, ModelFileError, single_threaded_blas

CARD_POLICY_KIND = "card_policy"
MODEL_FILES = {"carcassonne": "carcassonne_2p.npz", "cardcassonne": "cardcassonne_2p.npz"}
TABLE_MODEL_FILE = "carcassonne_table.npz"  # the tile game at 3-5 players
OBS_MODEL_FILE = "carcassonne_obs.npz"  # pretrained-obs: reads the carcassonne_v1 observation
# the observation networks that play these tables (pretrained-obs, and pretrained there
# without The Messages; chosen by measurement: docs/multiplayer.md): at 3 players the
# 2-player network
OBS_TABLE_FILES = {3: OBS_MODEL_FILE, 4: "carcassonne_obs_4p.npz", 5: "carcassonne_obs_5p.npz"}


def model_dir() -> Path:
    return Path(str(resources.files("carcassonne_rl.agents") / "pretrained_models"))


def model_info() -> dict:
    """``models.json``: per game, the training command, machine, wall time and strength."""
    return json.loads((model_dir() / "models.json").read_text())


def pretrained_path(game: str) -> Path:
    path = model_dir() / MODEL_FILES[game]
    if not path.exists():
        raise ModelFileError(f"no pretrained {game} model in this installation ({path})")
    return path


class CardNetAgent(BaseAgent):
    """A card-game policy network: the legal action with the highest logit."""

    def __init__(self, net: MLP, seed: int | None = None, name: str = "pretrained") -> None:
        from carcassonne_rl.encoders.card_encoder import CardEncoder

        super().__init__(seed)
        if net.meta.get("kind") != CARD_POLICY_KIND:
            raise ModelFileError(f"not a card policy network: {net.meta.get('kind')!r}")
        self.net = net
        self.encoder = CardEncoder()
        self.name = name
        single_threaded_blas()

    def act(self, state: Any, player: int) -> int:
        codes = state.legal_codes_list()
        if len(codes) == 1:
            return int(codes[0])
        obs = self.encoder.encode(state, player)  # the seat's own view: nothing hidden
        logits = self.net.forward(obs[None])[0]
        idx = [self.encoder.index_of(state, int(c)) for c in codes]
        return int(codes[int(np.argmax(logits[idx]))])


class ValueSearchAgent(TileMCTSAgent):
    """Tile-game UCT whose leaf values and child priors come from an afterstate network.

    Every new tree node gets its options valued by one forward pass (``options``: each
    placement with each follower choice, for every seat) and keeps only the ``top`` best for
    the mover (the network prunes the tree; progressive-bias priors from the same values).
    A node's value for a seat is ``squash(margin / search_scale)`` of the margin the network
    predicts (``value_scale * atanh(value)``), so the search sees margins in points. Only
    tile placements are searched; the other decisions of a turn (follower, The Messages)
    take the network's best option, as :class:`AfterstateAgent` does.
    """

    def __init__(
        self,
        net: MLP,
        simulations: int,
        seed: int | None = None,
        c: float = 0.3,
        prior_visits: float = 2.0,
        top: int = 6,
        search_scale: float = 10.0,
    ) -> None:
        super().__init__(simulations, None, seed, c=c, prior_visits=prior_visits)
        self.net = net
        self.value_scale = float(net.meta["value_scale"])
        self.search_scale = search_scale
        self.top = top
        self.name = f"pretrained:{simulations}"
        self._kept: dict[tuple, list[int]] = {}
        single_threaded_blas()

    @staticmethod
    def _key(s: Any) -> tuple:
        """The position (the tiles drawn differ between determinizations of one path)."""
        return (tuple(s.history), s._tiles[: s.num_tiles_placed].tobytes(), s.current_tile)

    def _legal(self, s: Any) -> list[int]:
        kept = self._kept.get(self._key(s))
        return kept if kept is not None else s.legal_action_codes().tolist()

    def _seat_values(self, children: list[Any]) -> np.ndarray:
        """values[child, seat] in (0, 1) of settled afterstates (one forward pass)."""
        from carcassonne_rl.encoders.afterstate_features import player_features
        from carcassonne_rl.encoders.table_features import feature_set

        seat_vector = feature_set(net_feature_set(self.net))[1]
        n = children[0].config.players
        margins = np.empty((len(children), n))
        rows, where = [], []
        for i, child in enumerate(children):
            if child.is_over:
                scores = child.scores.astype(float)
                for p in range(n):
                    margins[i, p] = scores[p] - np.delete(scores, p).max()
                continue
            per, left = player_features(child)
            for p in range(n):
                rows.append(seat_vector(per, left, p, child.config))
                where.append((i, p))
        if rows:
            vals = np.clip(self.net.forward(np.stack(rows))[:, 0], -0.999, 0.999)
            for (i, p), v in zip(where, np.arctanh(vals) * self.value_scale, strict=True):
                margins[i, p] = v
        return 1.0 / (1.0 + np.exp(-np.clip(margins / self.search_scale, -50, 50)))

    def _expand(self, s: Any) -> list[tuple[int, list[float]]]:
        opts = options(s)
        vals = self._seat_values([o.state for o in opts])
        mover = s.current_player
        best: dict[int, np.ndarray] = {}
        for o, v in zip(opts, vals, strict=True):
            if o.code not in best or v[mover] > best[o.code][mover]:
                best[o.code] = v
        distinct: dict[tuple, tuple[int, np.ndarray]] = {}  # symmetric placements: one each
        for code, v in best.items():
            distinct.setdefault(tuple(v.tolist()), (code, v))
        ranked = sorted(distinct.values(), key=lambda kv: -kv[1][mover])[: self.top]
        self._kept[self._key(s)] = [code for code, _ in ranked]
        return [(code, v.tolist()) for code, v in ranked]

    def _values(self, s: Any) -> list[float]:
        if s.phase == "place_follower" and not s.is_over:
            opts = options(s)
            vals = self._seat_values([o.state for o in opts])
            return vals[int(np.argmax(vals[:, s.current_player]))].tolist()
        if not s.is_over:
            settle(s, s.turn if s.phase != "place_tile" else -1)
        return self._seat_values([s])[0].tolist()

    def act(self, state: Any, player: int) -> int:
        if state.phase != "place_tile":  # followers were weighed with the placement
            opts = options(state)
            vals = self._seat_values([o.state for o in opts])
            return opts[int(np.argmax(vals[:, player]))].code
        self._kept = {}
        try:
            return super().act(state, player)
        finally:
            self._kept = {}


class TileTableAgent(BaseAgent):
    """The tile game's ``pretrained``: one agent for 2 players, another for 3-5 (each
    built on its network: ``carcassonne_2p.npz`` and ``carcassonne_table.npz``); with
    ``obs``, the observation policy plays the tables it has a network for
    (``obs.tables``: 3, 4 and 5 players), except with The Messages (it has no outputs for
    them). Its values (``decision_values``) are always the value agents' (at 2 players the
    network-heuristic blend)."""

    def __init__(self, two: Any, table: Any, seed: int | None = None, obs: Any = None) -> None:
        super().__init__(seed)
        self.name = "pretrained"
        self.two, self.table, self.obs = two, table, obs

    @classmethod
    def of_networks(cls, two: MLP, table: MLP, seed: int | None = None, obs: Any = None
                    ) -> TileTableAgent:  # fmt: skip
        """The network-only agents (``pretrained``)."""
        return cls(BlendedAgent(two, PRETRAINED_2P_WEIGHT, seed=seed, name="pretrained"),
                   AfterstateAgent(table, seed=seed, name="pretrained"), seed, obs)  # fmt: skip

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        for agent in (self.two, self.table, self.obs):
            if agent is not None:
                agent.reset(seed)

    def values_agent(self, state: Any) -> Any:
        """The value-network agent of this table (what ``decision_values`` reads)."""
        return self.two if state.config.players == 2 else self.table

    def _agent(self, state: Any) -> Any:
        players = state.config.players
        if (
            self.obs is not None
            and players in self.obs.tables
            and "messages" not in state.config.expansions
        ):
            return self.obs
        return self.values_agent(state)

    def act(self, state: Any, player: int) -> int:
        return self._agent(state).act(state, player)

    def decision_values(self, state: Any, player: int) -> tuple[list[int], np.ndarray]:
        """The value network's value of every legal option (see AfterstateAgent)."""
        return self.values_agent(state).decision_values(state, player)


def table_network() -> MLP | None:
    """The network trained at 2-5 player tables, if this installation has it."""
    path = model_dir() / TABLE_MODEL_FILE
    return load_value_net(path) if path.exists() else None


def make_pretrained(game: str, simulations: int | None = None, seed: int | None = None) -> Any:
    """The shipped agent of ``game`` (``simulations``: the tile game's network-guided search)."""
    if game == "cardcassonne":
        if simulations is not None:
            raise ValueError("pretrained:SIMS (search) exists for the tile game only")
        return CardNetAgent(MLP.load(pretrained_path(game), kind=CARD_POLICY_KIND), seed=seed)
    net = load_value_net(pretrained_path(game))
    if simulations is None:
        table = table_network()
        if table is not None:
            obs = make_pretrained_obs(seed) if (model_dir() / OBS_MODEL_FILE).exists() else None
            if obs is not None and not obs.tables:
                obs = None
            return TileTableAgent.of_networks(net, table, seed=seed, obs=obs)
        return BlendedAgent(net, PRETRAINED_2P_WEIGHT, seed=seed, name="pretrained")
    if simulations <= 0 or not math.isfinite(simulations):
        raise ValueError(f"pretrained:SIMS needs SIMS > 0, got {simulations}")
    return ValueSearchAgent(net, simulations, seed=seed)


def make_pretrained_obs(seed: int | None = None) -> BaseAgent:
    """``pretrained-obs``: the shipped tile policy that decides from the ``carcassonne_v1``
    observation alone (numpy, see ``tile_obs_net``): the 2-player network, and the network
    of each table in :data:`OBS_TABLE_FILES` that this installation has."""
    from .tile_obs_net import TileObsPolicyAgent, load_tile_obs_policy

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
