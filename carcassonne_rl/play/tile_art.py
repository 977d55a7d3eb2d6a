"""What the page needs to draw tiles as SVG: shapes of every tile letter and rotation, in
unit-square coordinates (x east, y south), and the follower spot of each segment.

The geometry is the one of the Pillow renderer (:mod:`carcassonne_rl.envs.tile_picture`),
so both pictures agree.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from carcassonne_rl.envs.tile_picture import (
    SIDE_VEC,
    city_shapes,
    rotate_points,
    segment_follower_spot,
    tile_segments,
)
from carcassonne_rl.games.carcassonne.tiles import (
    CITY,
    CLOISTER,
    LABYRINTH,
    LETTERS,
    ROAD,
    SEGMENT_OF_NAME,
    TYPE_OF_LETTER,
)


def _round(points: list[tuple[float, float]]) -> list[list[float]]:
    return [[round(x, 3), round(y, 3)] for x, y in points]


def tile_shapes(letter: str, rotation: int) -> dict[str, Any]:
    """Roads (polylines), cities (polygons), pennants (points), cloister / labyrinth flags
    and follower spots ``[x, y, lying]`` per segment, for one tile as it lies."""
    roads: list[list[list[float]]] = []
    cities: list[list[list[float]]] = []
    pennants: list[list[float]] = []
    spots: list[list[float | bool]] = []
    cloister = labyrinth = False
    for kind, sides, halves, pennant in tile_segments(letter, rotation):
        if kind in (ROAD, LABYRINTH):
            ends = [SIDE_VEC[s] for s in sides]
            if len(ends) == 2:
                roads.append(_round([ends[0], (0.5, 0.5), ends[1]]))
            else:
                roads.extend(_round([e, (0.5, 0.5)]) for e in ends)
        if kind == CITY:
            cities.extend(_round(poly) for poly in city_shapes(sides))
            if pennant:
                spot = rotate_points([(0.5, 0.16)], sides[0])[0] if len(sides) < 4 else (0.5, 0.5)
                pennants.append(_round([spot])[0])
        cloister = cloister or kind == CLOISTER
        labyrinth = labyrinth or kind == LABYRINTH
        x, y, lying = segment_follower_spot(kind, sides, halves)
        spots.append([round(x, 3), round(y, 3), lying])
    return {
        "roads": roads,
        "cities": cities,
        "pennants": pennants,
        "cloister": cloister,
        "labyrinth": labyrinth,
        "spots": spots,
    }


@lru_cache(maxsize=1)
def tile_art_table() -> dict[str, list[dict[str, Any]]]:
    """``{letter: [shapes at rotation 0, 1, 2, 3]}`` for every tile letter."""
    return {letter: [tile_shapes(letter, r) for r in range(4)] for letter in LETTERS}


def follower_spot(letter: str, rotation: int, location: str) -> list[float | bool]:
    """``[x, y, lying]`` of a follower on ``location`` (e.g. ``city:N``) of a placed tile."""
    k = SEGMENT_OF_NAME[TYPE_OF_LETTER[letter]][rotation][location]
    return tile_art_table()[letter][rotation]["spots"][k]
