"""``board_kernels.held_features``: the features followers stand on, found from a list of
follower rows of an earlier position of the turn and the tiles placed since, against a
plain walk over every segment of the board."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.board_kernels import (
    follower_rows,
    held_features,
)
from carcassonne_rl.games.carcassonne.tiles import CLOISTER, MAX_SEGMENTS, TABLES

NONE = np.zeros(0, np.int64)


def _naive(a) -> list[int]:
    """Root rows (a cloister: its own row) of every segment a follower stands on."""
    nslots = int(a.ints[L.R_NSLOTS])
    out = set()
    for slot in range(nslots):
        for k in range(int(TABLES["nseg"][a.tiles[slot, 0]])):
            g = slot * MAX_SEGMENTS + k
            if a.segs[g, L.S_OWNER] < 0:
                continue
            if a.segs[g, L.S_KIND] != CLOISTER:
                while a.segs[g, L.S_PARENT] != g:
                    g = int(a.segs[g, L.S_PARENT])
            out.add(g)
    return sorted(out)


@pytest.mark.parametrize(
    "expansions", [(), ("messages",), ("labyrinth",), ("messages", "labyrinth")]
)
def test_held_features_are_the_roots_of_every_follower(expansions) -> None:
    rng = random.Random(len(expansions))
    checked = with_followers = 0
    for seed in range(3):
        state = new_game(GameConfig(3, seed=seed, expansions=expansions))
        held, lo = NONE, 0  # the follower rows at the last tile placement of the game
        while not state.is_over:
            a = state.kernel_arrays()
            if state.phase == "place_tile":
                lo = int(a.ints[L.R_NSLOTS])
                rows = np.empty(lo * MAX_SEGMENTS, np.int64)
                held = rows[: follower_rows(a.tiles, a.segs, 0, lo, rows, 0)]
            segs_before = a.segs.copy()
            want = _naive(a)
            nslots = int(a.ints[L.R_NSLOTS])
            assert held_features(a.tiles, a.segs, nslots, NONE, 0, 0).tolist() == want
            assert held_features(a.tiles, a.segs, nslots, held, len(held), lo).tolist() == want
            assert np.array_equal(a.segs, segs_before)  # no path halving
            checked += 1
            with_followers += bool(want)
            codes = state.legal_codes()
            state.apply_code(codes[rng.randrange(len(codes))])
    assert checked > 300 and with_followers > checked // 2
