"""Greedy agent for Cardcassonne: values rows by the points they would score for it now.

Every legal decision is tried on the rows of the agent's view (``card_eval``):

- *my claim*: the value of the cards my follower claims this round if it is placed, else
  the best row's claim value for me (what I could take now);
- *their claim*: the best claim value, over the opponents whose follower is still free, of
  the rows as they would lie;
- the decision with the largest ``my claim - their claim`` wins (ties: random).

So it places its follower when the best row is worth more to it than what the opponents
could take afterwards, and otherwise plays the card that helps them least (or fills its own
best row). Scoring decisions: an animal joker goes to the species with the largest table
gain; a misplaced card is kept when that gains at least the 10 points.
"""

from __future__ import annotations

from carcassonne_rl.agents.base import ViewAgent
from carcassonne_rl.agents.card.row_values import (
    FACE_DOWN,
    buildings_value,
    claim_value,
    claimable,
    locked_claim,
)
from carcassonne_rl.games.cardcassonne import RULES
from carcassonne_rl.games.cardcassonne.actions import ACTIONS, ASSIGN, KEEP, TEN
from carcassonne_rl.games.cardcassonne.cards import IS_ANIMAL, KIND_COLOUR


def _rows_after(v, code: int) -> tuple[list[list[int]], int]:
    """Rows after a turn/setup action of ``v.player``; returns (rows, my follower row)."""
    rows = [list(r) for r in v.rows]
    a = ACTIONS[code]
    p = v.player
    mine = v.follower_row[p]
    if a.verb == "play":
        rows[a.row].append(a.card + FACE_DOWN * (p + 1) if a.face_down else a.card)
    elif a.verb == "follower":
        rows[a.row].append(-(p + 1))
        mine = a.row
    elif a.verb == "setup":
        rows[a.row].append(v.pending_card)
    return rows, mine


def claim_margin(v, rows: list[list[int]], mine: int) -> float:
    """My claim minus the best claim an opponent with a free follower could make now."""
    p = v.player
    if mine >= 0:
        entries = rows[mine]
        idx = len(entries) - 1 - entries[::-1].index(-(p + 1))
        my = claim_value(claimable(entries[:idx]), mine, v.animals[p], v.collected[p])
    else:
        my = max(claim_value(claimable(rows[r]), r, v.animals[p], v.collected[p]) for r in range(4))
    theirs = 0.0
    for q in range(v.players):
        if q != p and v.follower_row[q] < 0:
            best = max(
                claim_value(claimable(rows[r]), r, v.animals[q], v.collected[q]) for r in range(4)
            )
            theirs = max(theirs, best)
    return my - theirs


def scoring_choice(v, legal: list[int]) -> int:
    """Animal-joker species / keep-or-ten by the immediate gain."""
    p = v.player
    if legal[0] >= ASSIGN and legal[0] < KEEP:
        a = v.animals[p]
        return max(
            legal,
            key=lambda c: RULES.animal_value(a[c - ASSIGN] + 1) - RULES.animal_value(a[c - ASSIGN]),
        )
    k = v.pending_card
    if IS_ANIMAL[k]:
        total = v.animals[p][KIND_COLOUR[k]]
        gain = RULES.animal_value(total + 1) - RULES.animal_value(total)
    else:
        gain = buildings_value(v.collected[p], [k]) - buildings_value(v.collected[p])
    return KEEP if gain >= RULES.misplaced_points else TEN


class CardGreedyAgent(ViewAgent):
    """One-decision lookahead on the rows by the claim-value margin (see module doc)."""

    name = "greedy"

    def scored(self, v, legal: list[int]) -> list[tuple[int, float]]:
        return [(c, claim_margin(v, *_rows_after(v, c))) for c in legal]

    def decide(self, v, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase in ("assign_animal_joker", "misplaced_card"):
            return scoring_choice(v, legal)
        scored = self.scored(v, legal)
        best = max(s for _, s in scored)
        ties = [c for c, s in scored if s >= best - 1e-9]
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]


__all__ = ["CardGreedyAgent", "claim_margin", "locked_claim", "scoring_choice"]
