"""Heuristic values for Cardcassonne: what a row would score for a player if claimed now.

Works on a :class:`PlayerView` or on a full ``State`` (both have ``rows``, ``animals``,
``collected``, ``pending_jokers``); a face-down card hidden from the viewer (kind
``HIDDEN``) counts ``HIDDEN_VALUE`` points.

Claim value of row ``r`` for player ``p`` = the points its claimable cards (after the last
follower in the row) would bring: persons (sum of values) x (count), each animal species
claimed -> the table value of ``p``'s new total, animal joker -> the best species gain (3 if
``p`` owns no animal), dragon / fairy 10, buildings -> the gain in ``p``'s end-of-game set
value, a misplaced face-down card by ``misplaced`` (see :func:`claim_value`).

:func:`claim_value` is the one card row tally: the greedy and heuristic agents, MCTS and the
search all value row segments with it (the heuristic with its longer-view animal and set
values).
"""

from __future__ import annotations

from collections.abc import Callable

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


#: how a tally values a misplaced face-down animal or building (a misplaced person is 10)
MISPLACED_RULES = ("best", "keep", "apart")


def claim_value(
    entries: list[int] | tuple[int, ...],
    row: int,
    animals: list[int] | tuple[int, ...],
    collected: list[int] | tuple[int, ...],
    rules=RULES,
    *,
    misplaced: str = "keep",
    hidden: float = HIDDEN_VALUE,
    animal_points: Callable[[int, int], float] | None = None,
    set_points: tuple[float, ...] | None = None,
) -> float:
    """Points the cards ``entries`` (row entries, no follower) would give when claimed.

    ``misplaced`` says what a misplaced face-down animal or building is worth:

    - ``"best"`` (the rule): the seat chooses as it will at scoring, card by card in row
      order, the larger of 10 and what keeping it adds to the claim (an animal of a species
      the claim has none of makes the whole species score; jokers and sets follow);
    - ``"keep"``: always kept as an ordinary card (what greedy and MCTS play);
    - ``"apart"``: 10 or, if larger, what it adds to the seat's holdings on its own, apart
      from the rest of the claim (the heuristic before the rule; pinned agents keep it).

    ``hidden`` is a face-down card the viewer cannot see; ``animal_points(s, total)`` the
    points of species ``s`` at ``total`` animals (default the table value); ``set_points``
    the building set values (default the rules').
    """
    if misplaced not in MISPLACED_RULES:
        raise ValueError(f"misplaced must be one of {', '.join(MISPLACED_RULES)}: {misplaced!r}")
    value = animal_points or (lambda s, total: rules.animal_value(total))
    sets = rules.building_set_points if set_points is None else set_points
    person_sum = 0
    persons = 0
    points = 0.0
    species = [0, 0, 0, 0]
    jokers = 0
    buildings: list[int] = []
    choose: list[int] = []  # misplaced animals / buildings, chosen after the rest ("best")
    for e in entries:
        k = e & 31
        if k == HIDDEN:
            points += hidden
            continue
        down = e >= FACE_DOWN
        if down and k < 20 and KIND_COLOUR[k] != row:
            if not (IS_ANIMAL[k] or IS_BUILDING[k]):
                points += rules.misplaced_points
            elif misplaced == "keep":
                if IS_ANIMAL[k]:
                    species[KIND_COLOUR[k]] += 1
                else:
                    buildings.append(k)
            elif misplaced == "apart":
                points += max(
                    rules.misplaced_points, _keep_apart(k, animals, collected, value, sets)
                )
            else:
                choose.append(k)
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
    args = (jokers, animals, collected, value, sets, rules)
    for k in choose:
        kept = _with_kept(0.0, species, buildings, *args)
        if IS_ANIMAL[k]:
            species[KIND_COLOUR[k]] += 1
        else:
            buildings.append(k)
        if _with_kept(0.0, species, buildings, *args) - kept < rules.misplaced_points:
            points += rules.misplaced_points  # ten is worth more: the card leaves
            if IS_ANIMAL[k]:
                species[KIND_COLOUR[k]] -= 1
            else:
                buildings.pop()
    return _with_kept(points, species, buildings, *args)


def _keep_apart(k, animals, collected, value, sets) -> float:
    """What keeping card ``k`` alone adds to a seat's holdings (the ``"apart"`` rule)."""
    if IS_ANIMAL[k]:
        s = KIND_COLOUR[k]
        return value(s, animals[s] + 1) - value(s, animals[s])
    return buildings_value(collected, [k], sets) - buildings_value(collected, (), sets)


def _with_kept(points, species, buildings, jokers, animals, collected, value, sets, rules):
    """``points`` plus those of a claim's animals (species counts, animal jokers) and
    buildings."""
    species = list(species)
    totals = [animals[s] + species[s] for s in range(4)]
    for _ in range(jokers):
        owned = [s for s in range(4) if totals[s]]
        if not owned:
            points += rules.lone_animal_joker_points
            continue
        gain = [value(s, totals[s] + 1) - value(s, totals[s]) for s in owned]
        s = owned[max(range(len(owned)), key=gain.__getitem__)]
        totals[s] += 1
        species[s] += 1
    for s in range(4):
        if species[s]:
            points += value(s, totals[s])
    if buildings:
        points += buildings_value(collected, buildings, sets) - buildings_value(collected, (), sets)
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
