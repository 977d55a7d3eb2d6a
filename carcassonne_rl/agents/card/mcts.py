"""Information-set MCTS for Cardcassonne (``mcts_core`` with determinizations).

Each simulation samples a full state consistent with the agent's view
(``determinize(view, player, rng)``: other hands, others' face-down cards and the pile are
drawn from the unseen cards), then descends one shared tree keyed by action code, with
availability-corrected UCB. The leaf is played out to the end of the current round by a fast
policy (place the follower on the best row by claim value with probability ``claim_prob``
per turn or when out of cards, else play a random card; scoring choices by the greedy
rules), and valued by score + building value already collected (``row_values.standing``;
the final scores once the game is over), squashed margin per player. The agent sees only
its view: ``decide(view, legal)``.
"""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.base import ViewAgent
from carcassonne_rl.agents.card.greedy import scoring_choice
from carcassonne_rl.agents.card.row_values import claim_value, claimable, standing
from carcassonne_rl.agents.common.mcts_core import best_code, search, squash
from carcassonne_rl.games.cardcassonne import determinize, view
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER


def fast_move(s: Any, rng, claim_prob: float = 0.3) -> int:
    """The rollouts' move for the seat to play in ``s`` (the fast policy)."""
    codes = s.legal_codes()
    phase = s.phase
    if phase == "turn":
        p = s.current_player
        plays = [c for c in codes if c < FOLLOWER]
        if s.follower_row[p] < 0 and (not plays or rng.random() < claim_prob):
            vals = [
                claim_value(claimable(s.rows[r]), r, s.animals[p], s.collected[p]) for r in range(4)
            ]
            return FOLLOWER + max(range(4), key=vals.__getitem__)
        return plays[rng.randrange(len(plays))]
    if phase in ("assign_animal_joker", "misplaced_card"):
        return scoring_choice(view(s, s.current_player), codes)
    return codes[rng.randrange(len(codes))]


def rollout_round(s: Any, rng, claim_prob: float = 0.3) -> None:
    """Play ``s`` on to the start of the next round (or the end) with the fast policy."""
    start_round = s.round
    while not s.is_over and (s.round == start_round or s.phase != "turn"):
        s.apply_code(fast_move(s, rng, claim_prob))


class CardMCTSAgent(ViewAgent):
    """ISMCTS over determinizations of the view; ``simulations`` / ``time_limit`` bound it."""

    def __init__(
        self,
        simulations: int = 1000,
        time_limit: float | None = None,
        seed: int | None = None,
        c: float = 0.7,
        scale: float = 20.0,
        claim_prob: float = 0.3,
    ) -> None:
        super().__init__(seed)
        self.simulations = simulations
        self.time_limit = time_limit
        self.c = c
        self.scale = scale
        self.claim_prob = claim_prob
        self.name = f"mcts:{simulations}"
        self.last_stats: dict[int, tuple[int, float]] = {}

    def _evaluate(self, s: Any) -> list[float]:
        rollout_round(s, self.rng, self.claim_prob)
        return self._values(s)

    def _values(self, s: Any) -> list[float]:
        """Per seat: its standing's margin over the best other, squashed."""
        v = [standing(s, p) for p in range(s.n)]
        out = []
        for p in range(s.n):
            other = max(v[q] for q in range(s.n) if q != p)
            out.append(squash(v[p] - other, self.scale))
        return out

    def decide(self, v, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        stats = search(
            lambda rng: determinize(v, v.player, rng),
            lambda s: s.legal_codes(),
            self._evaluate,
            self.rng,
            self.simulations,
            self.time_limit,
            self.c,
        )
        self.last_stats = stats
        return int(best_code(stats, legal))
