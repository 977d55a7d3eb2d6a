"""One-ply greedy agent for the tile game.

It tries every legal decision on a clone and keeps the one with the best heuristic margin
(``tile_eval.values``: score + estimated value of every open feature, farmers included, +
followers in supply; own value minus the best opponent's). A tile placement is judged
together with its best follower decision (the two-stage move). The Messages and the
Labyrinth are covered by the same lookahead: after a candidate decision, the pending steps
of the turn are *settled* by simple rules (figure: A; message: take the 2 points; message 8:
the first follower; an extra tile of message 7: its first legal placement, no follower),
and the position is valued once the turn has passed to the next player. So a figure that
lands on a dark space (which brings a message, hence at least 2 points) is preferred, and a
message is carried out when it is worth more than 2 points by the estimate.
"""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.tile.potentials import margin, values

TURN_PHASES = ("place_tile", "place_follower")


def settle(state: Any, turn: int, max_steps: int = 64) -> None:
    """Play the rest of turn ``turn`` (Messages steps, extra tiles) by the default rules."""
    for _ in range(max_steps):
        if state.is_over:
            return
        phase = state.phase
        if phase == "place_tile" and state.turn != turn:
            return
        codes = state.legal_action_codes()
        code = 0 if phase in ("choose_figure", "message", "place_follower") else int(codes[0])
        state.apply_code(code if code in codes else int(codes[0]))


def after(state: Any, code: int) -> Any:
    """A clone of ``state`` with ``code`` applied and the turn settled."""
    child = state.clone()
    turn = child.turn
    child.apply_code(int(code))
    if child.phase != "place_follower":
        settle(child, turn)
    return child


class TileGreedyAgent(BaseAgent):
    """Maximises the heuristic margin one decision ahead (placement judged with follower)."""

    name = "greedy"

    def __init__(self, seed: int | None = None, follower_value: float = 3.0) -> None:
        super().__init__(seed)
        self.follower_value = follower_value

    def score(self, state: Any, player: int) -> float:
        """Heuristic margin of a settled position for ``player``."""
        return margin(values(state, self.follower_value), player)

    def _best_follower_score(self, state: Any, player: int) -> float:
        best = -1e18
        for f in state.legal_action_codes():
            best = max(best, self.score(after(state, int(f)), player))
        return best

    def evaluate(self, state: Any, player: int) -> list[tuple[int, float]]:
        """(code, margin) for every legal decision of ``state``."""
        out = []
        placing = state.phase == "place_tile"
        for code in state.legal_action_codes():
            child = after(state, int(code))
            if placing and child.phase == "place_follower" and not child.is_over:
                out.append((int(code), self._best_follower_score(child, player)))
            else:
                out.append((int(code), self.score(child, player)))
        return out

    def decide(self, v: Any, legal: list[int]) -> int:
        state, player = v.public_world(), v.player  # the seat's view: order sorted
        scored = self.evaluate(state, player)
        best = max(s for _, s in scored)
        ties = [c for c, s in scored if s >= best - 1e-9]
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]
