"""Heuristic values for Cardcassonne: what a row would score for a player if claimed now.

Works on a :class:`PlayerView` or on a full ``State`` (both have ``rows``, ``animals``,
``collected``, ``pending_jokers``); a face-down card hidden from the viewer (kind
``HIDDEN``) counts ``HIDDEN_VALUE`` points.

Claim value of row ``r`` for player ``p`` = the points its claimable cards (after the last
follower in the row) would bring: persons (sum of values) x (count), each animal species
claimed -> the table value of ``p``'s new total, animal joker -> the best species gain (3 if
``p`` owns no animal), dragon / fairy 10, buildings -> the gain in ``p``'s end-of-game set
value, a misplaced face-down card 10 (or its kept value if higher).
"""

from __future__ import annotations

from carcassonne_rl.games.cardcassonne import RULES, building_points
from carcassonne_rl.games.cardcassonne.cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_ANIMAL,
    IS_BUILDING,
    KIND_COLOUR,
    PERSON_VALUE,
)

HIDDEN = 24
HIDDEN_VALUE = 4.0
FACE_DOWN = 32


def claimable(row: list[int] | tuple[int, ...]) -> list[int]:
    """Entries after the last follower of a row."""
    for i in range(len(row) - 1, -1, -1):
        if row[i] < 0:
            return list(row[i + 1 :])
    return list(row)


def buildings_value(
    collected: list[int] | tuple[int, ...],
    extra: list[int] = (),
    set_points: tuple[float, ...] = RULES.building_set_points,
) -> float:
    """End-of-game building points of ``collected`` (+ ``extra`` building kinds), sets of
    1-4 colours worth ``set_points``."""
    counts = [collected[c * 5 + 3] for c in range(4)]
    jokers = collected[BUILDING_JOKER]
    for k in extra:
        if k == BUILDING_JOKER:
            jokers += 1
        else:
            counts[KIND_COLOUR[k]] += 1
    return building_points(counts, jokers, set_points)


def claim_value(
    entries: list[int], row: int, animals: list[int], collected: list[int], rules=RULES
) -> float:
    """Points the cards ``entries`` (row entries, no follower) would give when claimed."""
    person_sum = 0
    persons = 0
    points = 0.0
    species = [0, 0, 0, 0]
    jokers = 0
    buildings: list[int] = []
    for e in entries:
        k = e & 31
        if k == HIDDEN:
            points += HIDDEN_VALUE
            continue
        down = e >= FACE_DOWN
        if down and k < 20 and KIND_COLOUR[k] != row:
            if IS_ANIMAL[k]:  # keep it as an animal if that is worth more than 10
                species[KIND_COLOUR[k]] += 1
            elif IS_BUILDING[k]:
                buildings.append(k)
            else:
                points += rules.misplaced_points
            continue
        if PERSON_VALUE[k]:
            person_sum += PERSON_VALUE[k]
            persons += 1
        elif IS_ANIMAL[k]:
            species[KIND_COLOUR[k]] += 1
        elif IS_BUILDING[k] or k == BUILDING_JOKER:
            buildings.append(k)
        elif k == ANIMAL_JOKER:
            jokers += 1
        elif k == DRAGON:
            points += rules.dragon_points
        elif k == FAIRY:
            points += rules.fairy_points
    points += person_sum * persons
    totals = [animals[s] + species[s] for s in range(4)]
    for _ in range(jokers):
        owned = [s for s in range(4) if totals[s]]
        if not owned:
            points += rules.lone_animal_joker_points
            continue
        gain = [rules.animal_value(totals[s] + 1) - rules.animal_value(totals[s]) for s in owned]
        s = owned[max(range(len(owned)), key=gain.__getitem__)]
        totals[s] += 1
        species[s] += 1
    for s in range(4):
        if species[s]:
            points += rules.animal_value(totals[s])
    if buildings:
        points += buildings_value(collected, buildings) - buildings_value(collected)
    return points


def row_values(obj, player: int) -> list[float]:
    """Claim value of each of the four rows for ``player`` (view or state)."""
    return [
        claim_value(claimable(obj.rows[r]), r, obj.animals[player], obj.collected[player])
        for r in range(4)
    ]


def standing(obj, player: int) -> float:
    """Score + end-of-game building value already collected (view or state); once the game
    is over, the final score alone (the end of the game has scored the buildings)."""
    if obj.is_over:
        return float(obj.scores[player])
    return float(obj.scores[player]) + buildings_value(obj.collected[player])


def locked_claim(obj, player: int) -> float:
    """Value of the cards ``player``'s follower claims this round (0 if not placed)."""
    row = obj.follower_row[player]
    if row < 0:
        return 0.0
    entries = obj.rows[row]
    mine = entries.index(-(player + 1))
    return claim_value(claimable(entries[:mine]), row, obj.animals[player], obj.collected[player])
