"""Pure scoring helpers: person cards and the best split of buildings into sets."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .rules_table import RULES


def person_points(values: Sequence[int]) -> int:
    """(sum of values) x (number of person cards)."""
    return sum(values) * len(values)


def _sets_value(counts: Sequence[int], set_points: Sequence[int]) -> int:
    """Best value of sets of distinct colours from colour ``counts`` (no jokers).

    Taking as many different colours as possible for each set is optimal: its set sizes
    majorize those of any other split, and the set value is convex in the size.
    """
    total = 0
    for t in range(1, max(counts, default=0) + 1):
        size = sum(1 for c in counts if c >= t)
        total += set_points[size - 1]
    return total


@lru_cache(maxsize=4096)
def _best(counts: tuple[int, ...], jokers: int, set_points: tuple, kind: type) -> int | float:
    """``kind`` (the type of the set values) is part of the cache's key: set values of
    another type that compare equal (``(0.0, 5.0, ...) == (0, 5, ...)``) must not hand
    their type to the rules' integer points."""
    if jokers == 0:
        return _sets_value(counts, set_points)
    best = 0
    for c in range(len(counts)):
        more = list(counts)
        more[c] += 1
        best = max(best, _best(tuple(more), jokers - 1, set_points, kind))
    return best


def building_points(
    counts: Sequence[int], jokers: int, set_points: Sequence[float] = RULES.building_set_points
) -> int | float:
    """Best total for building cards ``counts`` per colour plus ``jokers`` building jokers:
    an ``int`` for integer set values (the rules'), a ``float`` for others (an agent's
    estimates)."""
    points = tuple(set_points)
    if all(type(x) is int for x in points):
        return _best(tuple(int(c) for c in counts), int(jokers), points, int)
    return _best(tuple(int(c) for c in counts), int(jokers), tuple(map(float, points)), float)
