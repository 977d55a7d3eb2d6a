"""``pretrained:SIMS``: the tile game's UCT search guided by an afterstate value network."""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.common.value_net import MLP, single_threaded_blas
from carcassonne_rl.agents.tile.afterstate import net_feature_set, options
from carcassonne_rl.agents.tile.greedy import settle
from carcassonne_rl.agents.tile.mcts import TileMCTSAgent


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
        placed = s.kernel_arrays().tiles[: s.num_tiles_placed]
        return (tuple(s.history), placed.tobytes(), s.current_tile)

    def _legal(self, s: Any) -> list[int]:
        kept = self._kept.get(self._key(s))
        return kept if kept is not None else s.legal_action_codes().tolist()

    def _seat_values(self, children: list[Any]) -> np.ndarray:
        """values[child, seat] in (0, 1) of settled afterstates (one forward pass)."""
        from carcassonne_rl.encoders.features.afterstate import player_features
        from carcassonne_rl.encoders.features.table import feature_set

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

    def decide(self, v: Any, legal: list[int]) -> int:
        state, player = v.public_world(), v.player  # the seat's view: order sorted
        if state.phase != "place_tile":  # followers were weighed with the placement
            opts = options(state)
            vals = self._seat_values([o.state for o in opts])
            return opts[int(np.argmax(vals[:, player]))].code
        self._kept = {}
        try:
            return super().decide(v, legal)
        finally:
            self._kept = {}
