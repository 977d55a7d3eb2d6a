"""The tile set (docs/rules/carcassonne.md section 2) and the precomputed rotation tables.

Every tile type is a list of *segments* (local features): a road, a city, a field or a
cloister. A segment touches *ports* of the tile: the four side centres (roads and cities)
and the eight field half-edges. Ports are numbered

    0..3   side centres N E S W
    4..11  half-edges NNW NNE ENE ESE SSE SSW WSW WNW (clockwise from the north-west corner)

Rotating a tile by ``r`` clockwise quarter turns moves side ``s`` to ``(s + r) % 4`` and
half-edge ``h`` to ``(h + 2 r) % 8``; segment indices never change with rotation, so a
follower action ("segment k of the tile just placed") is rotation-invariant.

The Numba kernels freeze these tables into their compiled (and disk-cached) code: after
editing the tile table, delete the caches (``find . -name '*.nb[ic]' -delete``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIDES = ("N", "E", "S", "W")
HALVES = ("NNW", "NNE", "ENE", "ESE", "SSE", "SSW", "WSW", "WNW")

# Feature kinds (also used in score events). LABYRINTH is the centre of the labyrinth tile
# (a road hub); MESSAGE only labels score events of The Messages.
FIELD, ROAD, CITY, CLOISTER, LABYRINTH, MESSAGE = 0, 1, 2, 3, 4, 5
KIND_NAMES = ("field", "road", "city", "cloister", "labyrinth", "message")

# Edge kinds as used for matching (0 means "no neighbour" in a constraint).
EDGE_FIELD, EDGE_ROAD, EDGE_CITY = 1, 2, 3
_EDGE_OF = {"F": EDGE_FIELD, "R": EDGE_ROAD, "C": EDGE_CITY}

MAX_SEGMENTS = 9  # most segments on one tile type (X: 4 roads + 4 fields)


@dataclass(frozen=True)
class Segment:
    """One local feature of a tile type, in printed orientation."""

    kind: int
    sides: tuple[str, ...] = ()  # side centres (roads, cities)
    halves: tuple[str, ...] = ()  # half-edges (fields)
    pennant: bool = False
    cities: tuple[int, ...] = ()  # for fields: indices of the city segments it borders


@dataclass(frozen=True)
class TileType:
    letter: str
    count: int
    edges: str  # N E S W, printed orientation
    segments: tuple[Segment, ...]
    expansion: str | None = None  # None: base game


def _city(*sides: str, pennant: bool = False) -> Segment:
    return Segment(CITY, sides=sides, pennant=pennant)


def _road(*sides: str) -> Segment:
    return Segment(ROAD, sides=sides)


def _field(halves: str, cities: tuple[int, ...] = ()) -> Segment:
    return Segment(FIELD, halves=tuple(halves.split()), cities=cities)


_CLOISTER = Segment(CLOISTER)
_LABYRINTH = Segment(LABYRINTH, sides=("N", "E", "S", "W"))
_ALL = "NNW NNE ENE ESE SSE SSW WSW WNW"

# docs/rules/carcassonne.md, section 2 (printed orientation). City segment indices in `cities`.
TILE_TYPES: tuple[TileType, ...] = (
    TileType("A", 2, "FFRF", (_CLOISTER, _road("S"), _field(_ALL))),
    TileType("B", 4, "FFFF", (_CLOISTER, _field(_ALL))),
    TileType("C", 1, "CCCC", (_city("N", "E", "S", "W", pennant=True),)),
    TileType(
        "D",
        4,
        "CRFR",
        (_city("N"), _road("E", "W"), _field("ENE WNW", (0,)), _field("ESE SSE SSW WSW")),
    ),
    TileType("E", 5, "CFFF", (_city("N"), _field("ENE ESE SSE SSW WSW WNW", (0,)))),
    TileType(
        "F",
        2,
        "FCFC",
        (_city("E", "W", pennant=True), _field("NNW NNE", (0,)), _field("SSE SSW", (0,))),
    ),
    TileType("G", 1, "FCFC", (_city("E", "W"), _field("NNW NNE", (0,)), _field("SSE SSW", (0,)))),
    TileType("H", 3, "CFCF", (_city("N"), _city("S"), _field("ENE ESE WSW WNW", (0, 1)))),
    TileType("I", 2, "CFFC", (_city("N"), _city("W"), _field("ENE ESE SSE SSW", (0, 1)))),
    TileType(
        "J",
        3,
        "CRRF",
        (_city("N"), _road("E", "S"), _field("ENE SSW WSW WNW", (0,)), _field("ESE SSE")),
    ),
    TileType(
        "K",
        3,
        "CFRR",
        (_city("N"), _road("S", "W"), _field("ENE ESE SSE WNW", (0,)), _field("SSW WSW")),
    ),
    TileType(
        "L",
        3,
        "CRRR",
        (
            _city("N"),
            _road("E"),
            _road("S"),
            _road("W"),
            _field("ENE WNW", (0,)),
            _field("ESE SSE"),
            _field("SSW WSW"),
        ),
    ),
    TileType("M", 2, "CFFC", (_city("N", "W", pennant=True), _field("ENE ESE SSE SSW", (0,)))),
    TileType("N", 3, "CFFC", (_city("N", "W"), _field("ENE ESE SSE SSW", (0,)))),
    TileType(
        "O",
        2,
        "CRRC",
        (
            _city("N", "W", pennant=True),
            _road("E", "S"),
            _field("ENE SSW", (0,)),
            _field("ESE SSE"),
        ),
    ),
    TileType(
        "P",
        3,
        "CRRC",
        (_city("N", "W"), _road("E", "S"), _field("ENE SSW", (0,)), _field("ESE SSE")),
    ),
    TileType("Q", 1, "CCFC", (_city("N", "E", "W", pennant=True), _field("SSE SSW", (0,)))),
    TileType("R", 3, "CCFC", (_city("N", "E", "W"), _field("SSE SSW", (0,)))),
    TileType(
        "S",
        2,
        "CCRC",
        (_city("N", "E", "W", pennant=True), _road("S"), _field("SSE", (0,)), _field("SSW", (0,))),
    ),
    TileType(
        "T", 1, "CCRC", (_city("N", "E", "W"), _road("S"), _field("SSE", (0,)), _field("SSW", (0,)))
    ),
    TileType(
        "U", 8, "FRFR", (_road("E", "W"), _field("WNW NNW NNE ENE"), _field("ESE SSE SSW WSW"))
    ),
    TileType(
        "V", 9, "FFRR", (_road("S", "W"), _field("WNW NNW NNE ENE ESE SSE"), _field("SSW WSW"))
    ),
    TileType(
        "W",
        4,
        "FRRR",
        (
            _road("E"),
            _road("S"),
            _road("W"),
            _field("WNW NNW NNE ENE"),
            _field("ESE SSE"),
            _field("SSW WSW"),
        ),
    ),
    TileType(
        "X",
        1,
        "RRRR",
        (
            _road("N"),
            _road("E"),
            _road("S"),
            _road("W"),
            _field("WNW NNW"),
            _field("NNE ENE"),
            _field("ESE SSE"),
            _field("SSW WSW"),
        ),
    ),
    # The Labyrinth (docs/rules/carcassonne.md section 5): four roads joined through the centre.
    TileType(
        "Y",
        2,
        "RRRR",
        (_LABYRINTH, _field("WNW NNW"), _field("NNE ENE"), _field("ESE SSE"), _field("SSW WSW")),
        expansion="labyrinth",
    ),
)

LETTERS = "".join(t.letter for t in TILE_TYPES)
TYPE_OF_LETTER = {t.letter: i for i, t in enumerate(TILE_TYPES)}
NUM_TYPES = len(TILE_TYPES)
START_TILE = "D"
BOX_COUNTS = {t.letter: t.count for t in TILE_TYPES if t.expansion is None}
LABYRINTH_TILE = "Y"


def _rot_side(side: str, r: int) -> int:
    return (SIDES.index(side) + r) % 4


def _rot_half(half: str, r: int) -> int:
    return (HALVES.index(half) + 2 * r) % 8


def _build_tables() -> dict[str, np.ndarray]:
    n = NUM_TYPES
    portmap = np.full((n, 4, 12), -1, np.int8)
    edge_code = np.zeros((n, 4), np.int32)
    edges = np.zeros((n, 4, 4), np.int8)
    nseg = np.zeros(n, np.int8)
    seg_kind = np.full((n, MAX_SEGMENTS), -1, np.int8)
    seg_open = np.zeros((n, MAX_SEGMENTS), np.int8)
    seg_pennant = np.zeros((n, MAX_SEGMENTS), np.int8)
    field_cities = np.zeros((n, MAX_SEGMENTS), np.int16)  # bitmask of bordered city segments
    cloister_seg = np.full(n, -1, np.int8)
    for t, tile in enumerate(TILE_TYPES):
        nseg[t] = len(tile.segments)
        for k, seg in enumerate(tile.segments):
            seg_kind[t, k] = seg.kind
            seg_open[t, k] = len(seg.sides)
            seg_pennant[t, k] = int(seg.pennant)
            field_cities[t, k] = sum(1 << c for c in seg.cities)
            if seg.kind == CLOISTER:
                cloister_seg[t] = k
        for r in range(4):
            code = 0
            for s, e in enumerate(tile.edges):
                rs = (s + r) % 4
                edges[t, r, rs] = _EDGE_OF[e]
                code |= _EDGE_OF[e] << (2 * rs)
            edge_code[t, r] = code
            for k, seg in enumerate(tile.segments):
                for side in seg.sides:
                    portmap[t, r, _rot_side(side, r)] = k
                for half in seg.halves:
                    portmap[t, r, 4 + _rot_half(half, r)] = k
    _check_tables(portmap, edges)
    return {
        "portmap": portmap,
        "edge_code": edge_code,
        "edges": edges,
        "nseg": nseg,
        "seg_kind": seg_kind,
        "seg_open": seg_open,
        "seg_pennant": seg_pennant,
        "field_cities": field_cities,
        "cloister_seg": cloister_seg,
    }


def _check_tables(portmap: np.ndarray, edges: np.ndarray) -> None:
    """Every port that exists on an edge must belong to exactly one segment."""
    for t, tile in enumerate(TILE_TYPES):
        for s in range(4):
            kind = edges[t, 0, s]
            centre = portmap[t, 0, s]
            halves = portmap[t, 0, 4 + 2 * s : 6 + 2 * s]
            if kind == EDGE_CITY:
                ok = centre >= 0 and (halves < 0).all()
            elif kind == EDGE_ROAD:
                ok = centre >= 0 and (halves >= 0).all()
            else:
                ok = centre < 0 and (halves >= 0).all()
            if not ok:
                raise AssertionError(f"tile {tile.letter}: ports of side {SIDES[s]} inconsistent")


TABLES = _build_tables()


def segment_names(letter: str, rotation: int) -> list[list[str]]:
    """All accepted names of each segment of a placed tile, canonical name first."""
    tile = TILE_TYPES[TYPE_OF_LETTER[letter]]
    out: list[list[str]] = []
    for seg in tile.segments:
        if seg.kind == CLOISTER:
            out.append(["cloister"])
            continue
        if seg.kind == LABYRINTH:
            out.append(["labyrinth"] + [f"road:{side}" for side in SIDES])
            continue
        if seg.kind == FIELD:
            idx = sorted(_rot_half(h, rotation) for h in seg.halves)
            out.append([f"field:{HALVES[i]}" for i in idx])
        else:
            idx = sorted(_rot_side(s, rotation) for s in seg.sides)
            out.append([f"{KIND_NAMES[seg.kind]}:{SIDES[i]}" for i in idx])
    return out


# (type, rotation) -> canonical names / name -> segment index; built once.
SEGMENT_NAMES: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(n[0] for n in segment_names(t.letter, r)) for r in range(4)) for t in TILE_TYPES
)
SEGMENT_OF_NAME: tuple[tuple[dict[str, int], ...], ...] = tuple(
    tuple(
        {name: k for k, names in enumerate(segment_names(t.letter, r)) for name in names}
        for r in range(4)
    )
    for t in TILE_TYPES
)
