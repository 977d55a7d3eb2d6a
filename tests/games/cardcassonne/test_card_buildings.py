"""Best split of building cards into sets, checked against an exhaustive search."""

import itertools
from functools import cache

from carcassonne_rl.games.cardcassonne import building_points

SET_POINTS = {1: 0, 2: 5, 3: 15, 4: 30}  # rulebook: sets of 1, 2, 3, 4 different colours


@cache
def brute(counts: tuple[int, ...], jokers: int) -> int:
    """Try every possible next set (any subset of colours present plus 0+ jokers)."""
    if sum(counts) + jokers == 0:
        return 0
    best = -1
    present = [c for c in range(4) if counts[c]]
    for size in range(0, len(present) + 1):
        for cols in itertools.combinations(present, size):
            for j in range(0, min(jokers, 4 - size) + 1):
                if size + j == 0:
                    continue
                rest = list(counts)
                for c in cols:
                    rest[c] -= 1
                best = max(best, SET_POINTS[size + j] + brute(tuple(rest), jokers - j))
    return best


def test_against_brute_force():
    for counts in itertools.product(range(4), repeat=4):
        for jokers in range(4):
            assert building_points(counts, jokers) == brute(counts, jokers), (counts, jokers)


def test_jokers_fill_the_missing_colours():
    # 2 yellow + 2 red + 2 jokers: two sets of 2 (5+5=10) vs jokers as G and B -> two sets
    # Y R G / Y R B = 15 + 15 = 30, or Y R G B + Y R = 30 + 5 = 35 (best).
    assert building_points([2, 2, 0, 0], 2) == 35
    # 5 yellow: five single cards -> 0.
    assert building_points([5, 0, 0, 0], 0) == 0


def test_an_agents_float_set_values_leave_the_rules_points_integers() -> None:
    """Set values that are floats equal to the rules' (a heuristic's estimate in the last
    round) once shared the rules' cache and turned the engine's scores into floats."""
    counts, jokers = (7, 3, 5, 2), 3  # a collection no other test scores first
    rules = (0, 5, 15, 30)
    estimate = building_points(counts, jokers, tuple(float(x) for x in rules))
    exact = building_points(counts, jokers, rules)
    assert type(exact) is int and type(estimate) is float
    assert exact == estimate == brute(counts, jokers)
