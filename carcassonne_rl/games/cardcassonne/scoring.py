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
def _best(counts: tuple[int, ...], jokers: int, set_points: tuple[int, ...]) -> int:
    if jokers == 0:
        return _sets_value(counts, set_points)
    best = 0
    for c in range(len(counts)):
        more = list(counts)
        more[c] += 1
        best = max(best, _best(tuple(more), jokers - 1, set_points))
    return best


def building_points(
    counts: Sequence[int], jokers: int, set_points: Sequence[int] = RULES.building_set_points
) -> int:
    """Best total for building cards ``counts`` per colour plus ``jokers`` building jokers."""
    return _best(tuple(int(c) for c in counts), int(jokers), tuple(set_points))
