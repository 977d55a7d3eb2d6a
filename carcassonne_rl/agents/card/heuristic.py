"""``heuristic``: a one-decision Cardcassonne agent that projects the round's follower race.

Like ``greedy`` it tries every legal decision on the rows of its own view (``state.view``:
its hand and face-down cards, the public rows, the others' hidden cards only as ``HIDDEN``)
and keeps the one with the best margin, my projected claim - the best other projected claim.
The projection looks past the next move to the end of the round:

- a placed follower's claim is locked (the cards before it, after the previous follower);
- the free followers of the others, in turn order, each take the row then best for them (as
  greedy seats do): a row they take is cut, the cards played after it go to a later follower;
- the last free follower gets the cards still to come: if it is mine, my remaining hand is
  played into the rows of its colours (jokers into the row I will claim) and I claim the best
  row after them, plus ``unknown_card`` points per card the others can play before it; if
  it is another seat's, my remaining hand feeds its best row (the cost of an early follower);
- row values are claim values with a longer view than the immediate points: a building is
  valued by a set table whose partial sets are worth more while rounds remain, an animal adds
  the extra its species will score in later claims (both fade as the rounds run out); another
  seat's face-down card counts ``hidden`` points; a misplaced face-down card is valued by the
  row tally's ``misplaced`` rule (``row_values.claim_value``): ``"best"``, the larger of 10
  and what keeping it adds to the claim (``card-heuristic-v2``, the ``heuristic`` baseline),
  or ``"apart"``, the default, 10 or what it adds to the holdings alone if more
  (``card-heuristic-v1`` and the agents built on the heuristic before the rule).

A setup joker's row is chosen as ``greedy`` does. Scoring decisions use the same values: an
animal joker goes to the species with the largest gain (the whole species scores now if none
of it was claimed this round); a misplaced card is kept when that is worth at least 10.
The agent reads nothing but the view, so equal views give equal decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

from carcassonne_rl.agents.base import ViewAgent
from carcassonne_rl.agents.card.greedy import CardGreedyAgent
from carcassonne_rl.agents.card.row_values import MISPLACED_RULES, buildings_value, claim_value
from carcassonne_rl.games.cardcassonne import RULES
from carcassonne_rl.games.cardcassonne.actions import ACTIONS, ASSIGN, KEEP, TEN
from carcassonne_rl.games.cardcassonne.cards import (
    IS_ANIMAL,
    IS_JOKER,
    KIND_COLOUR,
    NUM_KINDS,
)

FACE_DOWN = 32


@dataclass(frozen=True)
class CardHeuristicWeights:
    """The heuristic's constants (points, or fractions of a value)."""

    unknown_card: float = 1.0  # per card the others play before my free follower claims
    feed: float = 1.0  # share of my remaining hand's value fed to the last free opponent
    hidden: float = 4.0  # another seat's face-down card
    animal_future: float = 0.5  # x the table gain of an animal, scaled by the rounds left
    building_future: tuple[float, float, float] = (4.0, 6.0, 5.0)  # partial sets of 1-3


def rounds_left(obj) -> float:
    """The share of the game's rounds still to come (a view or a state)."""
    return max(0, obj.rounds_total - obj.round) / max(1, obj.rounds_total)


def future_set_points(w: CardHeuristicWeights, left: float) -> tuple[float, ...]:
    """Points of building sets of 1-4 colours, partial sets worth more while ``left`` (the
    share of rounds to come) is large."""
    sp, bf = RULES.building_set_points, w.building_future
    return (sp[0] + bf[0] * left, sp[1] + bf[1] * left, sp[2] + bf[2] * left, sp[3])


class _Values:
    """Claim values of row segments for each seat, cached for one decision."""

    def __init__(self, v, w: CardHeuristicWeights, misplaced: str) -> None:
        self.v = v
        self.w = w
        self.misplaced = misplaced
        left = rounds_left(v)
        self.animal_future = w.animal_future * left
        self.set_points = future_set_points(w, left)
        self.base_buildings = [self._buildings(q, []) for q in range(v.players)]
        self.cache: dict[tuple, float] = {}

    def _buildings(self, q: int, extra: list[int]) -> float:
        return buildings_value(self.v.collected[q], extra, self.set_points)

    def _animal(self, q: int, s: int, total: int) -> float:
        old = self.v.animals[q][s]
        return RULES.animal_value(total) + self.animal_future * (
            RULES.animal_value(total) - RULES.animal_value(old)
        )

    def value(self, entries: tuple[int, ...], row: int, q: int) -> float:
        """What the cards ``entries`` (no follower among them) are worth to seat ``q``."""
        key = (entries, row, q)
        got = self.cache.get(key)
        if got is None:
            got = self.cache[key] = claim_value(
                entries, row, self.v.animals[q], self.v.collected[q], misplaced=self.misplaced,
                hidden=self.w.hidden, animal_points=lambda s, t: self._animal(q, s, t),
                set_points=self.set_points,
            )  # fmt: skip
        return got

    def keep_gain(self, q: int, k: int) -> float:
        """Value to ``q`` of keeping card ``k`` (an animal or a building)."""
        if IS_ANIMAL[k]:
            s = KIND_COLOUR[k]
            t = self.v.animals[q][s]
            return self._animal(q, s, t + 1) - self._animal(q, s, t)
        return self._buildings(q, [k]) - self.base_buildings[q]


def _tail(row: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    for i in range(len(row) - 1, -1, -1):
        if row[i] < 0:
            return tuple(row[i + 1 :])
    return tuple(row)


def _locked(row: list[int], q: int) -> tuple[int, ...]:
    i = row.index(-(q + 1))
    return _tail(row[:i])


class CardHeuristicAgent(ViewAgent):
    """Projects each decision to the round's end (see module doc); decides from the view."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        weights: CardHeuristicWeights | None = None,
        misplaced: str = "apart",
    ):
        super().__init__(seed)
        if misplaced not in MISPLACED_RULES:
            raise ValueError(
                f"misplaced must be one of {', '.join(MISPLACED_RULES)}: {misplaced!r}"
            )
        self.weights = weights or CardHeuristicWeights()
        self.misplaced = misplaced
        self._greedy = CardGreedyAgent(seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._greedy.reset(seed)

    # ------------------------------------------------------------------ decisions
    def decide(self, v, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase == "setup_joker":
            return self._greedy.decide(v, legal)
        vals = _Values(v, self.weights, self.misplaced)
        if v.phase == "assign_animal_joker":
            return max(legal, key=lambda c: self.scoring_gain(v, vals, (c - ASSIGN) * 5 + 4))
        if v.phase == "misplaced_card":
            gain = self.scoring_gain(v, vals, v.pending_card)
            return KEEP if gain >= RULES.misplaced_points else TEN
        scored = self.scored(v, legal, vals)
        best = max(s for _, s in scored)
        ties = [c for c, s in scored if s >= best - 1e-9]
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]

    @staticmethod
    def scoring_gain(v, vals: _Values, k: int) -> float:
        """Value of keeping card ``k`` (or an animal joker as kind ``k``) while scoring: an
        animal of a species not claimed this round makes the whole species score now."""
        gain = vals.keep_gain(v.player, k)
        if IS_ANIMAL[k] and not v.claimed_species[KIND_COLOUR[k]]:
            gain += RULES.animal_value(v.animals[v.player][KIND_COLOUR[k]])
        return gain

    def scored(self, v, legal: list[int], vals: _Values | None = None) -> list[tuple[int, float]]:
        """(code, projected margin) of each turn decision."""
        vals = vals or _Values(v, self.weights, self.misplaced)
        p = v.player
        out = []
        for c in legal:
            a = ACTIONS[c]
            rows = [list(r) for r in v.rows]
            fr = list(v.follower_row)
            hand = list(v.hand)
            if a.verb == "play":
                rows[a.row].append(a.card + FACE_DOWN * (p + 1) if a.face_down else a.card)
                hand[a.card] -= 1
            else:
                rows[a.row].append(-(p + 1))
                fr[p] = a.row
            out.append((c, self.project(v, vals, rows, fr, hand)))
        return out

    def project(self, v, vals: _Values, rows, fr, hand) -> float:
        """My projected claim minus the best other projected claim, after my decision."""
        w = self.weights
        n = v.players
        p = v.player
        claims = [0.0] * n
        for q in range(n):
            if fr[q] >= 0:
                claims[q] = vals.value(_locked(rows[fr[q]], q), fr[q], q)
        tails = [_tail(r) for r in rows]
        order = [(p + i) % n for i in range(1, n) if fr[(p + i) % n] < 0]
        feed: list[list[int]] = [[], [], [], []]
        jokers: list[int] = []
        for k in range(NUM_KINDS):
            for _ in range(hand[k]):
                (jokers if IS_JOKER[k] else feed[KIND_COLOUR[k]]).append(k)
        my_free = fr[p] < 0
        takers = order if my_free else order[:-1]
        for q in takers:
            best_r = max(range(4), key=lambda r: vals.value(tails[r], r, q))
            claims[q] = vals.value(tails[best_r], best_r, q)
            tails[best_r] = ()
        if my_free:
            claims[p] = max(
                vals.value(tails[r] + tuple(feed[r]) + tuple(jokers), r, p) for r in range(4)
            )
            turns = sum(hand) + 1  # my plays, then the follower
            others = sum(min(v.hand_sizes[q], turns) for q in range(n) if q != p)
            claims[p] += w.unknown_card * others
        elif order:
            last = order[-1]
            now = max(vals.value(tails[r], r, last) for r in range(4))
            fed = max(vals.value(tails[r] + tuple(feed[r]), r, last) for r in range(4))
            claims[last] = now + w.feed * (fed - now)
        return claims[p] - max(claims[q] for q in range(n) if q != p)


__all__ = ["CardHeuristicAgent", "CardHeuristicWeights", "future_set_points", "rounds_left"]
