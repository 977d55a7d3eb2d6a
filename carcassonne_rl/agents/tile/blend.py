"""The afterstate network's margin estimate averaged with the heuristic's (``pretrained``
of the tile game: the 2-player network at 2 players, the table network at 3-5).

The network and the heuristic both estimate an afterstate's final margin for a seat (own
final score - best other), in points: the network as ``value_scale * atanh(value)`` (it is
trained on ``tanh(margin / value_scale)``), the heuristic as the margin of
:func:`tile_heuristic.player_values` (what the remaining tiles can still complete, followers
kept in supply, farms). They err differently: the network learnt from self-play what
positions are worth, the heuristic counts what the unplaced tiles can still do. Their
weighted mean, ``weight * network + (1 - weight) * heuristic``, ranks the options better
than either alone (docs/multiplayer.md: the weight was chosen on other deals than the
reported ones). A finished game is valued exactly, as everywhere.

Values are returned as the network's are, ``tanh(margin / value_scale)``, so every caller of
:class:`AfterstateAgent` (its ``decision_values``, a teacher's soft targets) reads the same
scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.agents.tile.afterstate import (
    AfterstateAgent,
    final_value,
    final_values,
    net_feature_set,
)
from carcassonne_rl.agents.tile.heuristic import values_of_features
from carcassonne_rl.encoders.features.afterstate import player_features
from carcassonne_rl.encoders.features.afterstate_options import Options, option_inputs
from carcassonne_rl.encoders.features.table import feature_set

#: the 2-player network's (``carcassonne_2p.npz``) share of its average with the heuristic,
#: as ``pretrained:blend``, ``pretrained:search`` and expert iteration play it (and ``pretrained``
#: at 2 players until 2026-11-28, when expert iteration's network, played alone, replaced it)
NETWORK_2P_WEIGHT = 0.75
#: the table network's share of ``pretrained``'s estimate at each table of 3-5 players
#: (chosen on other deals than the reported ones: docs/multiplayer.md)
PRETRAINED_TABLE_WEIGHTS = {3: 0.75, 4: 0.6, 5: 0.6}
_EDGE = 1.0 - 1e-7


def net_margins(values: np.ndarray, scale: float) -> np.ndarray:
    """Margins in points from network values ``tanh(margin / scale)``."""
    return scale * np.arctanh(np.clip(values, -_EDGE, _EDGE))


def heuristic_margins(states: list[Any], features: list[Any], player: int) -> np.ndarray:
    """The heuristic's margin (own value - best other) for ``player`` of each game going on
    in ``states``, all computed together (``features``: each state's ``player_features``)."""
    if not states:
        return np.zeros(0, np.float64)
    scores = np.stack([s.scores for s in states]).astype(np.float64)
    per = np.stack([f[0] for f in features])
    left = np.array([f[1] for f in features], np.float64)
    values = values_of_features(scores, per, left)
    return values[:, player] - np.delete(values, player, axis=1).max(axis=1)


def blend(net_values: np.ndarray, heuristic: np.ndarray, weight: float, scale: float
          ) -> np.ndarray:  # fmt: skip
    """``tanh((weight * network margin + (1 - weight) * heuristic margin) / scale)``."""
    margins = weight * net_margins(net_values, scale) + (1.0 - weight) * heuristic
    return np.tanh(margins / scale)


def blended_values(net: MLP, children: list[Any], player: int, weight: float) -> np.ndarray:
    """Value of each afterstate for ``player``: the blend where the game goes on, exact
    where it is over. Each afterstate's ``player_features`` are read once, for both the
    network's input and the heuristic."""
    scale = float(net.meta["value_scale"])
    seat_vector = feature_set(net_feature_set(net))[1]
    vals = np.empty(len(children), np.float64)
    going, rows, feats = [], [], []
    for i, child in enumerate(children):
        if child.is_over:
            vals[i] = final_value(child, player, scale)
            continue
        per, left = player_features(child)
        going.append(i)
        rows.append(seat_vector(per, left, player, child.config))
        feats.append((per, left))
    if going:
        net_values = net.forward(np.stack(rows))[:, 0]
        heuristic = heuristic_margins([children[i] for i in going], feats, player)
        vals[going] = blend(net_values, heuristic, weight, scale)
    return vals


def option_heuristic_margins(opts: Options, player: int | np.ndarray) -> np.ndarray:
    """:func:`heuristic_margins` of options of one table size (``option_table``), for seat
    ``player`` (or one seat per option)."""
    if not len(opts.code):
        return np.zeros(0, np.float64)
    n = int(opts.players[0])
    scores = opts.scores[:, :n].astype(np.float64)
    values = values_of_features(scores, opts.per_player[:, :n], opts.left)
    if np.isscalar(player):
        return values[:, player] - np.delete(values, player, axis=1).max(axis=1)
    rows = np.arange(len(values))
    own = values[rows, player]
    values[rows, player] = -np.inf
    return own - values.max(axis=1)


def blended_option_values(net: MLP, opts: Options, player: int, weight: float) -> np.ndarray:
    """:func:`blended_values` of the options of one decision (``option_table``)."""
    scale = float(net.meta["value_scale"])
    x, where = option_inputs(opts, player, net_feature_set(net))
    going = np.flatnonzero(where >= 0)
    vals = final_values(opts, player, scale)
    if len(going):
        net_values = net.forward(x)[:, 0]
        heuristic = option_heuristic_margins(opts.take(going), player)
        vals[going] = blend(net_values, heuristic, weight, scale)
    return vals


class BlendedAgent(AfterstateAgent):
    """:class:`AfterstateAgent` ranking its options by the network-heuristic blend, the
    network's share ``weight`` (one for every table, or one per number of players)."""

    def __init__(self, net: MLP, weight: float | Mapping[int, float] = NETWORK_2P_WEIGHT,
                 seed: int | None = None, epsilon: float = 0.0, name: str = "blend"
                 ) -> None:  # fmt: skip
        shares = weight.values() if isinstance(weight, Mapping) else (weight,)
        for w in shares:
            if not 0.0 <= w <= 1.0:
                raise ValueError(f"the network's weight must be in [0, 1], got {w}")
        super().__init__(net, seed=seed, epsilon=epsilon, name=name)
        self.weight = dict(weight) if isinstance(weight, Mapping) else float(weight)

    def weight_at(self, players: int) -> float:
        """The network's share at a table of ``players`` seats."""
        if not isinstance(self.weight, dict):
            return self.weight
        if players not in self.weight:
            raise ValueError(f"this blend has no weight for {players} players")
        return self.weight[players]

    def values(self, children: list[Any], player: int) -> np.ndarray:
        if not children:
            return np.zeros(0, np.float64)
        weight = self.weight_at(children[0].config.players)
        return blended_values(self.net, children, player, weight)

    def option_values(self, opts: Options, player: int) -> np.ndarray:
        if not len(opts.code):
            return np.zeros(0, np.float64)
        weight = self.weight_at(int(opts.players[0]))
        return blended_option_values(self.net, opts, player, weight)
