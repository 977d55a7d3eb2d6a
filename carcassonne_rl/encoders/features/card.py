"""Afterstate features of the card game: one seat's view after one of its turn options.

The card value network (``agents.card.value``) reads, for a turn decision of seat ``p``, the
numbers of :class:`CardFeatures` computed from ``p``'s :class:`PlayerView` alone (its hand and
face-down cards, the public table, counts of hidden cards) with the option applied to the
rows, hand and follower: the afterstate is what ``p`` knows right after its move, before a
round that the move ends is resolved. Two states ``p`` cannot tell apart give equal numbers.

Layout (:data:`NUM_CARD_FEATURES` numbers; seats in turn order from ``p``: slot 0 is ``p``,
slot ``i`` the seat ``i`` places after it, slots past the table size are zero):

- *static* (does not depend on the option), :data:`STATIC_FEATURES`: table size one-hot
  (2-5), round progress, pile size, unseen cards per kind (share of the kind) and in all;
  per seat slot: present, score (own / 200; others: minus own / 50), standing (score +
  building set value until the game ends, same scaling), animals per species, pending
  animal jokers, buildings per colour, building jokers, dealer;
- *after the option*, :data:`OPTION_FEATURES`: own hand per kind; per row, the claimable
  tail (after the row's last follower): persons, their sum and points, animals, buildings,
  building / animal jokers, dragon, fairy, others' face-down cards, own face-down cards,
  own misplaced cards, length, followers in the row; per seat slot: cards in hand and
  played (share of the deal), follower row one-hot, the claim its placed follower locks,
  the claim value of each row's tail for it and the best, last follower; and the greedy
  claim margin (own claim, placed or best, minus the best free opponent's best claim).

Claim values (points / 30) count persons (sum x count), the species total's animal value,
animal jokers on the best species, dragon / fairy, building set gains, 10 for a misplaced
card and 4 for a face-down card the seat cannot see.
"""

from __future__ import annotations

import numpy as np

from carcassonne_rl.games.cardcassonne.actions import ACTIONS
from carcassonne_rl.games.cardcassonne.cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_ANIMAL,
    IS_BUILDING,
    KIND_COLOUR,
    KIND_COUNTS,
    NUM_KINDS,
    PERSON_VALUE,
)
from carcassonne_rl.games.cardcassonne.rules_table import RULES
from carcassonne_rl.games.cardcassonne.scoring import building_points
from carcassonne_rl.games.cardcassonne.unseen import unseen_counts
from carcassonne_rl.games.cardcassonne.views import HIDDEN, PlayerView

FACE_DOWN = 32
SLOTS = 5  # seat slots (the largest table)
HIDDEN_POINTS = 4.0  # a face-down card the seat cannot see
CLAIM_SCALE = 30.0
STATIC_SEAT = 14  # present, score, standing, animals x4, pending, buildings x4, bj, dealer
STATIC_FEATURES = 4 + 3 + NUM_KINDS + 1 + SLOTS * STATIC_SEAT
ROW_FEATURES = 14
OPTION_SEAT = 14  # hand, played, follower row x4, locked, claims x4, best, last follower, free
OPTION_FEATURES = NUM_KINDS + 4 * ROW_FEATURES + SLOTS * OPTION_SEAT + 1
NUM_CARD_FEATURES = STATIC_FEATURES + OPTION_FEATURES
FEATURE_SET = "card"


def _tail(row: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """Entries after the last follower of a row."""
    for i in range(len(row) - 1, -1, -1):
        if row[i] < 0:
            return tuple(row[i + 1 :])
    return tuple(row)


class RowSummary:
    """What a row segment holds, as one seat sees it (seat-independent counts)."""

    __slots__ = ("persons", "person_sum", "animals", "buildings", "building_jokers",
                 "animal_jokers", "dragon", "fairy", "hidden", "own_down", "misplaced",
                 "length", "building_colours", "misplaced_animals")  # fmt: skip

    def __init__(self, entries: tuple[int, ...], row: int) -> None:
        self.persons = self.person_sum = self.animals = self.buildings = 0
        self.building_jokers = self.animal_jokers = self.dragon = self.fairy = 0
        self.hidden = self.own_down = self.misplaced = 0
        self.length = len(entries)
        self.building_colours = [0, 0, 0, 0]
        self.misplaced_animals = 0
        for e in entries:
            k = e & 31
            if k == HIDDEN:
                self.hidden += 1
                continue
            if e >= FACE_DOWN:
                self.own_down += 1
                if k < 20 and KIND_COLOUR[k] != row:
                    self.misplaced += 1
                    continue
            if PERSON_VALUE[k]:
                self.persons += 1
                self.person_sum += PERSON_VALUE[k]
            elif IS_ANIMAL[k]:
                self.animals += 1
            elif IS_BUILDING[k]:
                self.buildings += 1
                self.building_colours[KIND_COLOUR[k]] += 1
            elif k == BUILDING_JOKER:
                self.building_jokers += 1
            elif k == ANIMAL_JOKER:
                self.animal_jokers += 1
            elif k == DRAGON:
                self.dragon += 1
            elif k == FAIRY:
                self.fairy += 1

    def claim(self, row: int, animals: tuple[int, ...], collected: tuple[int, ...]) -> float:
        """Points the segment would bring the seat owning ``animals`` and ``collected``."""
        rules = RULES
        points = float(self.person_sum * self.persons)
        points += rules.dragon_points * self.dragon + rules.fairy_points * self.fairy
        points += rules.misplaced_points * self.misplaced + HIDDEN_POINTS * self.hidden
        totals = list(animals)
        species = [0, 0, 0, 0]
        if self.animals:
            totals[row] += self.animals
            species[row] += self.animals
        for _ in range(self.animal_jokers):
            owned = [s for s in range(4) if totals[s]]
            if not owned:
                points += rules.lone_animal_joker_points
                continue
            s = max(owned, key=lambda s: rules.animal_value(totals[s] + 1)
                    - rules.animal_value(totals[s]))  # fmt: skip
            totals[s] += 1
            species[s] += 1
        for s in range(4):
            if species[s]:
                points += rules.animal_value(totals[s])
        if self.buildings or self.building_jokers:
            counts = [collected[c * 5 + 3] for c in range(4)]
            jokers = collected[BUILDING_JOKER]
            base = building_points(counts, jokers, rules.building_set_points)
            more = [counts[c] + self.building_colours[c] for c in range(4)]
            points += building_points(more, jokers + self.building_jokers,
                                      rules.building_set_points) - base  # fmt: skip
        return points


def _buildings_value(collected: tuple[int, ...]) -> int:
    counts = [collected[c * 5 + 3] for c in range(4)]
    return building_points(counts, collected[BUILDING_JOKER], RULES.building_set_points)


class CardFeatures:
    """The features of seat ``v.player``'s turn options in view ``v`` (static part computed
    once, row summaries and claim values cached across the options)."""

    def __init__(self, v: PlayerView) -> None:
        self.v = v
        self.p = p = v.player
        self.n = n = v.players
        self.seats = [(p + i) % n for i in range(n)]
        deal_size, _ = RULES.deal(n)
        self.deal_size = float(deal_size)
        self.static = self._static()
        self._summaries: dict[tuple, RowSummary] = {}
        self._claims: dict[tuple, float] = {}

    def _static(self) -> np.ndarray:
        v, n, p = self.v, self.n, self.p
        x = np.zeros(STATIC_FEATURES, np.float32)
        x[n - 2] = 1.0
        x[4] = v.round / max(1, v.rounds_total)
        x[5] = max(0, v.rounds_total - v.round) / max(1, v.rounds_total)
        x[6] = v.deck_size / 130.0
        unseen = unseen_counts(v)
        for k in range(NUM_KINDS):
            x[7 + k] = unseen[k] / KIND_COUNTS[k]
        x[7 + NUM_KINDS] = sum(unseen) / 120.0
        at = 8 + NUM_KINDS
        mine = float(v.scores[p])
        held = 0.0 if v.is_over else 1.0  # a finished game's scores hold the buildings
        my_standing = mine + held * _buildings_value(v.collected[p])
        for q in self.seats:
            col = v.collected[q]
            standing = v.scores[q] + held * _buildings_value(col)
            x[at] = 1.0
            if q == p:
                x[at + 1] = mine / 200.0
                x[at + 2] = my_standing / 200.0
            else:
                x[at + 1] = (v.scores[q] - mine) / 50.0
                x[at + 2] = (standing - my_standing) / 50.0
            for s in range(4):
                x[at + 3 + s] = v.animals[q][s] / 6.0
                x[at + 8 + s] = col[s * 5 + 3] / 3.0
            x[at + 7] = v.pending_jokers[q]
            x[at + 12] = col[BUILDING_JOKER]
            x[at + 13] = 1.0 if q == v.dealer else 0.0
            at += STATIC_SEAT
        return x

    def _summary(self, tail: tuple[int, ...], row: int) -> RowSummary:
        key = (tail, row)
        got = self._summaries.get(key)
        if got is None:
            got = self._summaries[key] = RowSummary(tail, row)
        return got

    def _claim(self, tail: tuple[int, ...], row: int, q: int) -> float:
        key = (tail, row, q)
        got = self._claims.get(key)
        if got is None:
            v = self.v
            got = self._summary(tail, row).claim(row, v.animals[q], v.collected[q])
            self._claims[key] = got
        return got

    def after(self, code: int) -> np.ndarray:
        """The features of the view after turn option ``code`` of the seat."""
        v, p = self.v, self.p
        a = ACTIONS[code]
        rows = [list(r) for r in v.rows]
        hand = list(v.hand)
        follower_row = list(v.follower_row)
        played = list(v.played)
        hand_sizes = list(v.hand_sizes)
        last = v.last_follower
        if a.verb == "play":
            rows[a.row].append(a.card + FACE_DOWN * (p + 1) if a.face_down else a.card)
            hand[a.card] -= 1
            played[p] += 1
            hand_sizes[p] -= 1
        elif a.verb == "follower":
            rows[a.row].append(-(p + 1))
            follower_row[p] = a.row
            last = p
        else:
            raise ValueError(f"{a} is not a turn option")
        return self.features(rows, hand, follower_row, played, hand_sizes, last)

    def features(self, rows, hand, follower_row, played, hand_sizes, last) -> np.ndarray:
        """The features of the seat's view with these rows, hand and follower state."""
        x = np.zeros(NUM_CARD_FEATURES, np.float32)
        x[:STATIC_FEATURES] = self.static
        at = STATIC_FEATURES
        for k in range(NUM_KINDS):
            x[at + k] = hand[k] / 3.0
        at += NUM_KINDS
        tails = [_tail(r) for r in rows]
        for r in range(4):
            s = self._summary(tails[r], r)
            x[at : at + ROW_FEATURES] = (
                s.persons / 4.0, s.person_sum / 8.0, s.person_sum * s.persons / 40.0,
                s.animals / 3.0, s.buildings / 3.0, s.building_jokers, s.animal_jokers,
                s.dragon, s.fairy, s.hidden / 3.0, s.own_down / 3.0, s.misplaced / 2.0,
                s.length / 8.0, sum(1 for e in rows[r] if e < 0) / 3.0,
            )  # fmt: skip
            at += ROW_FEATURES
        p = self.p
        best_free_other = 0.0
        mine = 0.0
        for q in self.seats:
            claims = [self._claim(tails[r], r, q) for r in range(4)]
            best = max(claims)
            fr = follower_row[q]
            locked = 0.0
            if fr >= 0:
                row = rows[fr]
                locked = self._claim(_tail(row[: row.index(-(q + 1))]), fr, q)
            x[at] = hand_sizes[q] / self.deal_size
            x[at + 1] = played[q] / self.deal_size
            if fr >= 0:
                x[at + 2 + fr] = 1.0
            x[at + 6] = locked / CLAIM_SCALE
            for r in range(4):
                x[at + 7 + r] = claims[r] / CLAIM_SCALE
            x[at + 11] = best / CLAIM_SCALE
            x[at + 12] = 1.0 if q == last else 0.0
            x[at + 13] = 1.0 if fr < 0 else 0.0
            if q == p:
                mine = locked if fr >= 0 else best
            elif fr < 0:
                best_free_other = max(best_free_other, best)
            at += OPTION_SEAT
        at = NUM_CARD_FEATURES - 1
        x[at] = (mine - best_free_other) / CLAIM_SCALE
        return x


def option_features(v: PlayerView, codes: list[int]) -> np.ndarray:
    """``[len(codes), NUM_CARD_FEATURES]``: the afterstate features of each turn option."""
    f = CardFeatures(v)
    if not codes:
        return np.zeros((0, NUM_CARD_FEATURES), np.float32)
    return np.stack([f.after(c) for c in codes])


__all__ = ["FEATURE_SET", "NUM_CARD_FEATURES", "CardFeatures", "RowSummary", "option_features"]
