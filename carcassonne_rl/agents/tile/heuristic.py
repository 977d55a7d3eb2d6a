"""``heuristic``: a one-move tile-game agent with a stronger position estimate than ``greedy``.

Like ``greedy`` it plays every option of the pending decision on a clone (a placement
together with each of its follower choices, the turn settled: ``afterstate_agent.options``)
and keeps the one whose position has the best margin, own value - best other value. The
value of a player's position is what good one-move heuristics weigh, read from the public
information only (``encoders.features.afterstate.player_features``: the unplaced tiles are
the public multiset, the draw order is not used):

- score, plus every open feature where the player holds the majority (shared majorities
  count for every holder, as the rules score them);
- expected completion from the remaining tiles: a city is worth its points once, plus its
  points again times the chance that every gap around it is filled (for each gap the count
  ``f`` of unplaced tiles that fit it, chance ``f / (f + 3)``); a city or road with a gap no
  unplaced tile fits is dead (it scores once, at the end, and keeps its followers);
  a road grows by its open ends while tiles remain; a cloister by its empty neighbours,
  unless one of them can no longer be filled;
- farms' future value: 3 per completed city their fields touch, 3 x the completion chance
  per open one;
- followers: one kept in supply is worth more while many tiles remain and more when it is
  one of the last two (without a follower, no opportunity can be taken); a follower stuck
  in a feature another player holds the majority of (stolen) or in a dead feature is lost;
- stealing and sharing majorities show in the margin: joining a rival's feature with the
  majority takes its value from the rival, sharing it cancels the rival's advantage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.tile.afterstate import options
from carcassonne_rl.encoders.features import afterstate as af


@dataclass(frozen=True)
class HeuristicWeights:
    """The heuristic's constants (points)."""

    follower: float = 4.0  # a follower in supply, early in the game
    last_followers: float = 3.0  # extra for each of the last two in supply
    stuck_follower: float = 1.5  # a follower in a feature another holds, or a dead one
    road_growth: float = 0.5  # per open road end, early in the game
    city_growth: float = 0.5  # per open city side, early in the game
    cloister_growth: float = 1.0  # per empty neighbour cell that can still be filled
    farm_city: float = 3.0  # per completed city a held field touches


def player_values(state: Any, w: HeuristicWeights = HeuristicWeights()) -> np.ndarray:
    """Estimated final points of every player (the exact scores once the game is over)."""
    scores = state.scores.astype(np.float64)
    if state.is_over:
        return scores
    f, left = af.player_features(state)
    return values_of_features(scores, f, left, w)


def values_of_features(
    scores: np.ndarray,
    f: np.ndarray,
    left: float | np.ndarray,
    w: HeuristicWeights = HeuristicWeights(),
) -> np.ndarray:
    """:func:`player_values` of a game going on, from its scores and ``player_features``.
    Also for a batch of positions: ``scores[n, players]``, ``f[n, players, features]`` and
    ``left[n]`` give ``values[n, players]``."""
    left = np.asarray(left, np.float64)[..., None]
    grow = left / (left + 10.0)
    late = left / (left + 20.0)
    cities = f[..., af.F_CITY_POINTS] + f[..., af.F_CITY_LIKELY]
    cities += w.city_growth * grow * (f[..., af.F_CITY_SIDES] - f[..., af.F_CITY_DEAD])
    roads = f[..., af.F_ROAD_TILES] + w.road_growth * grow * f[..., af.F_ROAD_ENDS]
    roads -= w.road_growth * grow * f[..., af.F_ROAD_DEAD]
    empty = 8.0 * f[..., af.F_CLOISTER_N] - f[..., af.F_CLOISTER_NB]
    cloisters = f[..., af.F_CLOISTER_N] + f[..., af.F_CLOISTER_NB]
    cloisters += w.cloister_growth * grow * empty * (f[..., af.F_CLOISTER_DEAD] == 0)
    farms = w.farm_city * (f[..., af.F_FIELD_DONE] + f[..., af.F_FIELD_OPEN])
    supply = f[..., af.F_SUPPLY]
    followers = late * (w.follower * supply + w.last_followers * np.minimum(supply, 2.0))
    stuck = w.stuck_follower * late * (f[..., af.F_LOSING] + f[..., af.F_CITY_DEAD])
    return scores + cities + roads + cloisters + farms + followers - stuck


def heuristic_margin(values: np.ndarray, player: int) -> float:
    """Own value minus the best other player's value."""
    return float(values[player] - np.delete(values, player).max())


class TileHeuristicAgent(BaseAgent):
    """Maximises the heuristic margin one decision ahead (placement judged with follower)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, weights: HeuristicWeights | None = None) -> None:
        super().__init__(seed)
        self.weights = weights or HeuristicWeights()

    def evaluate(self, state: Any, player: int) -> list[tuple[int, float]]:
        """(code, margin) of every option (a placement: with its best follower choice)."""
        best: dict[int, float] = {}
        for opt in options(state):
            m = heuristic_margin(player_values(opt.state, self.weights), player)
            best[opt.code] = max(best.get(opt.code, -1e18), m)
        return list(best.items())

    def decide(self, v: Any, legal: list[int]) -> int:
        state, player = v.public_world(), v.player  # the seat's view: order sorted
        codes = state.legal_action_codes()
        if len(codes) == 1 and state.phase != "place_tile":
            return int(codes[0])
        scored = self.evaluate(state, player)
        top = max(s for _, s in scored)
        ties = [c for c, s in scored if s >= top - 1e-9]
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]
