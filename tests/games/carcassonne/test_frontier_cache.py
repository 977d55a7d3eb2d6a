"""The engine's frontier (open cells with the edges their neighbours show them) and bounding
box, checked after every action of random games against the board itself, and the legal
placements against a brute-force match of printed tile edges."""

import random

import numpy as np
import pytest

from carcassonne_rl.games.carcassonne import GameConfig, layout, new_game
from carcassonne_rl.games.carcassonne.board_kernels import FRONT_CELL, FRONT_SHIFT
from carcassonne_rl.games.carcassonne.tiles import TILE_TYPES

STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # N E S W as (dx, dy); y grows south
EDGE = {"F": 1, "R": 2, "C": 3}


def _placed(s) -> dict[tuple[int, int], tuple[int, int]]:
    ints, tiles = s._ints, s._tiles
    return {
        (int(tiles[k, 2]), int(tiles[k, 3])): (int(tiles[k, 0]), int(tiles[k, 1]))
        for k in range(int(ints[layout.R_NSLOTS]))
    }


def _shows(t: int, r: int, side: int) -> str:
    """The printed edge tile type ``t`` turned ``r`` shows on ``side``."""
    return TILE_TYPES[t].edges[(side - r) % 4]


def _expected_front(placed) -> dict[int, int]:
    """Every empty cell beside a tile -> the edges (2 bits a side) its neighbours face it."""
    out: dict[int, int] = {}
    for x, y in placed:
        for dx, dy in STEPS:
            c = (x + dx, y + dy)
            if c in placed or c in out:
                continue
            con = 0
            for side, (ex, ey) in enumerate(STEPS):
                n = placed.get((c[0] + ex, c[1] + ey))
                if n is not None:
                    con |= EDGE[_shows(n[0], n[1], (side + 2) % 4)] << (2 * side)
            out[(c[1] + layout.OFF) * layout.SIZE + c[0] + layout.OFF] = con
    return out


def _fitting(placed, front: dict[int, int], t: int) -> set[int]:
    codes = set()
    for cell in front:
        x, y = cell % layout.SIZE - layout.OFF, cell // layout.SIZE - layout.OFF
        for r in range(4):
            if all(
                (n := placed.get((x + ex, y + ey))) is None
                or _shows(t, r, side) == _shows(n[0], n[1], (side + 2) % 4)
                for side, (ex, ey) in enumerate(STEPS)
            ):
                codes.add(cell * 4 + r)
    return codes


@pytest.mark.parametrize(
    "seed,players,expansions",
    [(0, 2, ()), (1, 3, ("messages",)), (2, 4, ("labyrinth",)), (3, 5, ("messages", "labyrinth"))],
)
def test_frontier_box_and_placements_follow_the_board(seed, players, expansions):
    rng = random.Random(seed)
    s = new_game(GameConfig(players=players, seed=seed, expansions=expansions))
    checked = 0
    while not s.is_over:
        placed = _placed(s)
        ints = s._ints
        entries = ints[layout.O_FRONT : layout.O_FRONT + ints[layout.R_NFRONT]].astype(np.int64)
        got = {int(e & FRONT_CELL): int(e >> FRONT_SHIFT) for e in entries}
        assert len(got) == len(entries)  # no cell twice
        assert got == _expected_front(placed)
        xs = [x for x, _ in placed]
        ys = [y for _, y in placed]
        box = ints[layout.R_BOX : layout.R_BOX + 4].tolist()
        assert box == [min(xs), max(xs), min(ys), max(ys)]
        if s.phase == "place_tile":
            legal = set(ints[layout.O_LEGAL : layout.O_LEGAL + ints[layout.R_NLEGAL]].tolist())
            assert legal == _fitting(placed, got, int(ints[layout.R_TILE]))
            checked += 1
        s.apply(rng.choice(s.legal_actions()))
    assert checked > 40
