"""Observation entries computed by hand for small positions of both games."""

from __future__ import annotations

import numpy as np

from carcassonne_rl.encoders import CardEncoder, TileEncoder
from carcassonne_rl.encoders.card import encoder as CE
from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.games import cardcassonne
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.cardcassonne import new_game as new_card_game

G = TK.NUM_BOARD_PLANES  # first global plane


def _on(obs: np.ndarray, wy: int, wx: int) -> set[int]:
    return set(np.flatnonzero(obs[:G, wy, wx]).tolist())


def test_tile_planes_by_hand():
    state = new_game(GameConfig(players=2), draw_order="EU")
    enc = TileEncoder(window=29)
    obs = enc.encode(state, 0)
    assert obs.shape == (G + TK.NUM_GLOBALS, 29, 29) and obs.dtype == np.uint8
    # start tile D at (0, 0) is the window centre: city N, road E, field S, road W, E-W road
    assert _on(obs, 14, 14) == {0, 1 + 0 + 2, 1 + 3 + 1, 1 + 6 + 0, 1 + 9 + 1, 16 + 5, 45}
    assert obs[:G].sum() == 7  # nothing else on the board
    g = obs[G:, 0, 0]
    assert np.array_equal(obs[G:], np.broadcast_to(g[:, None, None], obs[G:].shape))
    expected = {TK.G_TILE + 4: 1, TK.G_REMAIN + 20: 1, TK.G_FOLLOWERS: 7, TK.G_FOLLOWERS + 1: 7}
    expected |= {TK.G_PHASE + 0: 1, TK.G_CURRENT: 1, TK.G_ACTIVE: 1}
    expected |= {TK.G_PRESENT: 1, TK.G_PRESENT + 1: 1}
    assert {int(i): int(g[i]) for i in np.flatnonzero(g)} == expected
    # E north of D, turned so that its city closes D's city; seat 0's farmer on its field
    state.apply("E 0,-1 r2")
    state.apply("field:NNW")
    for player, rel in ((0, 0), (1, 1)):
        obs = enc.encode(state, player)
        # window re-centred on the 1x2 board: centre (0, -1) -> E at (14, 14), D at (14, 15)
        e_planes = {0, 1 + 0 + 0, 1 + 3 + 0, 1 + 6 + 2, 1 + 9 + 0, 22 + rel, 40 + 2, 45}
        e_planes |= {27 + 4 + h for h in (0, 1, 2, 3, 6, 7)}  # the farmer's half-edges
        assert _on(obs, 14, 14) == e_planes
        assert _on(obs, 15, 14) == {0, 3, 5, 7, 11, 21, 40}  # D: its city is complete too
        g = obs[G:, 0, 0]
        assert g[TK.G_FOLLOWERS + rel] == 6 and g[TK.G_FOLLOWERS + 1 - rel] == 7
        assert g[TK.G_TILE + 20] == 1  # U to place, by seat 1
        assert g[TK.G_CURRENT + (1 - player)] == 1


def test_tile_action_indices_by_hand():
    state = new_game(GameConfig(players=2), draw_order="EU")
    enc = TileEncoder(window=29)
    code = state.parse_action("E 0,-1 r2")
    # window origin (-14, -14): cell (14, 13) -> index (13 * 29 + 14) * 4 + 2
    assert enc.index_of(state, code) == (13 * 29 + 14) * 4 + 2
    assert enc.code_of(state, (13 * 29 + 14) * 4 + 2) == code
    state.apply(code)
    assert enc.index_of(state, 0) == 29 * 29 * 4  # no follower
    assert np.flatnonzero(enc.action_mask(state)).tolist() == [29 * 29 * 4 + k for k in (0, 1, 2)]


def test_card_vector_by_hand():
    state = new_card_game(cardcassonne.GameConfig(players=2, seed=0))
    enc = CardEncoder()
    assert state.phase == "turn" and state.current_player == 0
    k = next(i for i, c in enumerate(state.hands[0]) if c)  # a card seat 0 holds
    before0, before1 = enc.encode(state, 0), enc.encode(state, 1)
    tail = CE.seg_offset(2, 0)  # green row, claimable tail
    state.apply_code(k * 4 + 2)  # seat 0 plays it face down to the green row
    after0, after1 = enc.encode(state, 0), enc.encode(state, 1)
    d0 = {int(i): float(after0[i] - before0[i]) for i in np.flatnonzero(after0 != before0)}
    me, opp = CE.seat_offset(0), CE.seat_offset(1)
    assert d0 == {
        k: -1.0,  # own hand
        tail + k: 1.0,  # seen in the row
        tail + CE.NK + 1 + k: 1.0,  # own face-down card
        me + CE.S_HAND: -1.0,
        me + CE.S_PLAYED: 1.0,
        me + CE.S_CURRENT: -1.0,
        opp + CE.S_CURRENT: 1.0,
    }
    d1 = {int(i): float(after1[i] - before1[i]) for i in np.flatnonzero(after1 != before1)}
    assert d1 == {
        tail + CE.NK: 1.0,  # one hidden face-down card, kind unknown
        opp + CE.S_HAND: -1.0,  # seat 0 is seat 1's relative seat 1
        opp + CE.S_PLAYED: 1.0,
        opp + CE.S_CURRENT: -1.0,
        me + CE.S_CURRENT: 1.0,
    }
    state.apply_code(192 + 2)  # seat 1's follower on the green row claims the row
    obs0, obs1 = enc.encode(state, 0), enc.encode(state, 1)
    for obs, old, claimed in (
        (obs0, after0, CE.seg_offset(2, 2)),
        (obs1, after1, CE.seg_offset(2, 1)),
    ):
        # the tail (setup cards + the face-down card) moved to the follower's segment
        seg = slice(claimed, claimed + CE.SEG_LEN)
        assert np.array_equal(obs[seg], old[tail : tail + CE.SEG_LEN])
        assert obs[tail : tail + CE.SEG_LEN].sum() == 0
    assert obs1[CE.seg_offset(2, 1) + CE.NK] == 1  # seat 1 only knows a hidden card is there
    assert obs0[CE.seg_offset(2, 2) + CE.NK + 1 + k] == 1  # seat 0 knows it is its own k
    assert obs1[CE.seat_offset(0) + CE.S_FROW + 2] == 1
    assert obs0[CE.seat_offset(1) + CE.S_FROW + 2] == 1 and obs0[opp + CE.S_LASTF] == 1
