"""UCT search for the tile game (``mcts_core``) with a heuristic leaf value.

- Two-stage tree: the engine asks for the tile placement and the follower as two decisions,
  so each is its own tree level (placement, then follower).
- Chance: the draw pile is hidden, so each simulation reshuffles the undrawn tiles of a clone
  of the root (the engine's ``State.resample_hidden``): the next tile is sampled from the remaining
  ones, and the tree splits on the tile actually drawn (and on a drawn message card).
- Leaf value: after an optional random rollout of ``rollout_moves`` decisions, the position
  is settled (Messages steps) and valued with ``tile_eval.values``; at a pending follower
  decision the best follower option counts (as in the greedy agent). Each player's value is
  ``squash(margin / scale)``, margin = own value - best opponent's.
"""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.mcts_core import best_code, search, squash
from carcassonne_rl.agents.tile.greedy import after, settle
from carcassonne_rl.agents.tile.potentials import margin, values


def _chance_key(s: Any) -> tuple | None:
    phase = s.phase
    if phase == "place_tile":
        return ("tile", s.current_tile, s.turn)
    if phase == "message":
        return ("msg", s.message_card)
    return None


class TileMCTSAgent(BaseAgent):
    """UCT over clones; ``simulations`` and ``time_limit`` (seconds per move) bound it."""

    def __init__(
        self,
        simulations: int = 1000,
        time_limit: float | None = None,
        seed: int | None = None,
        c: float = 0.5,
        scale: float = 15.0,
        rollout_moves: int = 0,
        follower_value: float = 3.0,
        prior: bool = True,
        prior_visits: float = 2.0,
    ) -> None:
        super().__init__(seed)
        self.simulations = simulations
        self.time_limit = time_limit
        self.c = c
        self.scale = scale
        self.rollout_moves = rollout_moves
        self.follower_value = follower_value
        self.prior = prior
        self.prior_visits = prior_visits
        self.name = f"mcts:{simulations}"
        self.last_stats: dict[int, tuple[int, float]] = {}

    def _values(self, s: Any) -> list[float]:
        n = s.config.players
        if s.is_over:
            v = s.scores.astype(float)
        else:
            if s.phase == "place_follower":
                best = None
                for f in s.legal_action_codes():
                    child = after(s, int(f))
                    vals = values(child, self.follower_value)
                    if best is None or margin(vals, s.current_player) > margin(
                        best, s.current_player
                    ):
                        best = vals
                v = best
            else:
                settle(s, s.turn if s.phase != "place_tile" else -1)
                v = values(s, self.follower_value)
        return [squash(margin(v, p), self.scale) for p in range(n)]

    def _evaluate(self, s: Any) -> list[float]:
        if self.rollout_moves and not s.is_over:
            rng = self.rng
            for _ in range(self.rollout_moves):
                if s.is_over:
                    break
                codes = s.legal_action_codes()
                s.apply_code(int(codes[rng.randrange(len(codes))]))
        return self._values(s)

    def _expand(self, s: Any) -> list[tuple[int, list[float]]]:
        n = s.config.players
        out = []
        for code in s.legal_action_codes().tolist():
            child = after(s, code)
            v = values(child, self.follower_value)
            out.append((code, [squash(margin(v, p), self.scale) for p in range(n)]))
        return out

    def _legal(self, s: Any) -> list[int]:
        """The decisions the search considers in ``s``."""
        return s.legal_action_codes().tolist()

    def decide(self, v: Any, legal: list[int]) -> int:
        codes = v.legal_action_codes()
        if len(codes) == 1:
            return int(codes[0])

        def determinize(rng):
            return v.sample_world(rng)

        stats = search(
            determinize,
            self._legal,
            self._evaluate,
            self.rng,
            self.simulations,
            self.time_limit,
            self.c,
            _chance_key,
            self._expand if self.prior else None,
            self.prior_visits,
        )
        self.last_stats = stats
        return int(best_code(stats, codes))
