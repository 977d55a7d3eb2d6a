"""Rotations of tile-game observations and actions (encoders/tile/symmetry.py).

Every expected value is computed without the symmetry module: the rotated planes by
encoding a board whose tiles were moved and turned in the engine's arrays, the rotated
legal set by a naive edge-matching check on the rotated planes and the tile table.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.encoders import TileEncoder
from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.encoder import global_values
from carcassonne_rl.encoders.tile.symmetry import (
    augment,
    rotate_actions,
    rotate_batch,
    rotate_index,
    rotate_planes,
)
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.tiles import TABLES

CONFIGS = [
    (2, ()),
    (2, ("messages",)),
    (3, ("labyrinth",)),
    (4, ("messages", "labyrinth")),
]
STEP_YX = ((-1, 0), (0, 1), (1, 0), (0, -1))  # N E S W as (dy, dx)


def _positions(players: int, expansions: tuple[str, ...], seed: int, every: int = 3):
    """States along one game: seat 0 greedy, the others random; messages carried out."""
    state = new_game(GameConfig(players=players, seed=seed, expansions=expansions))
    greedy = make_agent("greedy", "carcassonne", seed=seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % every == 0 or state.phase not in ("place_tile", "place_follower"):
            yield state
        codes = state.legal_action_codes()
        if state.phase == "message":
            code = 1  # carry the message out, so that message 8 comes up
        elif state.current_player == 0:
            code = greedy.act(state, 0)
        else:
            code = int(codes[rng.randrange(len(codes))])
        state.apply_code(int(code))
        step += 1


def _turn_board(state, k: int, window: int) -> np.ndarray:
    """Board planes of ``state`` with every tile moved ``k`` quarter turns clockwise about
    the origin (x, y) -> (-y, x) and its rotation advanced by ``k``, encoded by the
    encoder's kernel through the window turned likewise."""
    x0, y0 = TK.window_origin(state._ints, state._tiles, window)
    tiles = state._tiles.copy()
    board = np.full_like(state._board, -1)
    for s in range(state._ints[L.R_NSLOTS]):
        t, r, x, y = (int(v) for v in tiles[s])
        for _ in range(k):
            x, y = -y, x
        tiles[s] = (t, (r + k) % 4, x, y)
        board[(y + L.OFF) * L.SIZE + x + L.OFF] = s
    for _ in range(k):
        x0, y0 = -(y0 + window - 1), x0
    out = np.zeros((TK.NUM_BOARD_PLANES, window, window), np.uint8)
    player = state.current_player
    TK.encode_board(board, state._ints, tiles, state._segs, player, state.config.players,
                    x0, y0, out)  # fmt: skip
    return out


def _naive_placements(obs: np.ndarray) -> set[tuple[int, int, int]]:
    """(wy, wx, rotation) where the tile to place fits: an empty cell next to a tile, each
    side's edge kind equal to the facing edge of the neighbour (read from the planes)."""
    g = global_values(obs)
    tile = int(np.flatnonzero(g[TK.G_TILE : TK.G_TILE + 25])[0])
    present = obs[TK.B_PRESENT].astype(bool)
    w = present.shape[0]
    kind = np.zeros((4, w, w), np.int64)  # edge kind (1 field, 2 road, 3 city) per side
    for side in range(4):
        for e in range(3):
            kind[side][obs[TK.B_EDGE + side * 3 + e] == 1] = e + 1
    found = set()
    for wy in range(w):
        for wx in range(w):
            if present[wy, wx]:
                continue
            neighbours = [
                (side, wy + dy, wx + dx)
                for side, (dy, dx) in enumerate(STEP_YX)
                if 0 <= wy + dy < w and 0 <= wx + dx < w and present[wy + dy, wx + dx]
            ]
            if not neighbours:
                continue
            for r in range(4):
                edges = TABLES["edges"][tile, r]
                if all(edges[s] == kind[(s + 2) % 4, ny, nx] for s, ny, nx in neighbours):
                    found.add((wy, wx, r))
    return found


def _placements_of(mask: np.ndarray, w: int) -> set[tuple[int, int, int]]:
    idx = np.flatnonzero(mask[: w * w * 4])
    return {(int(i) // 4 // w, int(i) // 4 % w, int(i) % 4) for i in idx}


def _check_rotations(state) -> None:
    enc = TileEncoder.for_config(state.config)
    w, msg = enc.window, enc.messages
    obs = enc.encode(state, state.current_player)
    mask = enc.action_mask(state)
    assert obs[TK.B_PRESENT].sum() == state._ints[L.R_NSLOTS]  # the whole board is seen
    legal = np.flatnonzero(mask)
    for k in range(1, 4):
        turned = rotate_planes(obs, k)
        turned_mask = rotate_actions(mask, k, w, msg)
        # planes: as if the engine's tiles had been turned
        assert np.array_equal(turned[: TK.NUM_BOARD_PLANES], _turn_board(state, k, w))
        assert np.array_equal(global_values(turned), global_values(obs))
        # mask: the rotated indices of the legal actions, nothing else
        rotated_legal = sorted(rotate_index(i, k, w, msg) for i in legal)
        assert rotated_legal == np.flatnonzero(turned_mask).tolist()
        if state.phase == "place_tile":
            assert _placements_of(turned_mask, w) == _naive_placements(turned)
        elif state.phase == "place_follower":  # segment codes do not turn
            assert np.array_equal(turned_mask[w * w * 4 :], mask[w * w * 4 :])
        elif state.phase == "message_follower":  # cells of the decider's own followers
            cells = np.flatnonzero(turned_mask[w * w * 4 + TK.A_MSG_FOLLOWER :])
            own = turned[TK.B_FOLLOWER].reshape(-1)
            assert len(cells) and all(own[c] for c in cells)
    # four turns are the identity, for planes, masks and indices
    four = obs
    for _ in range(4):
        four = rotate_planes(four, 1)
    assert np.array_equal(four, obs)
    assert np.array_equal(rotate_actions(rotate_actions(mask, 1, w, msg), 3, w, msg), mask)
    assert all(rotate_index(rotate_index(i, 2, w, msg), 2, w, msg) == i for i in legal)


@pytest.mark.parametrize("players,expansions", CONFIGS)
def test_rotations_match_the_rotated_board_and_its_legal_set(players, expansions):
    phases: set[str] = set()
    for seed in range(2):
        for state in _positions(players, expansions, seed):
            _check_rotations(state)
            phases.add(state.phase)
    assert {"place_tile", "place_follower"} <= phases


def test_rotations_of_a_message_8_decision():
    """Seed 32, random play carrying out every message: message 8 comes up."""
    state = new_game(GameConfig(players=2, seed=32, expansions=("messages",)))
    rng = random.Random(32)
    seen = 0
    while not state.is_over:
        if state.phase == "message_follower":
            _check_rotations(state)
            seen += 1
        codes = state.legal_action_codes()
        code = 1 if state.phase == "message" else int(codes[rng.randrange(len(codes))])
        state.apply_code(code)
    assert seen > 0


def test_rotated_policy_target_keeps_its_mass_on_the_rotated_legal_set():
    rng = np.random.default_rng(0)
    checked = 0
    for state in _positions(2, ("messages",), seed=1, every=5):
        enc = TileEncoder.for_config(state.config)
        w, msg = enc.window, enc.messages
        obs = enc.encode(state, state.current_player)
        mask = enc.action_mask(state)
        legal = np.flatnonzero(mask)
        target = np.zeros(enc.num_actions)
        target[legal] = rng.dirichlet(np.ones(len(legal)))
        action = int(rng.choice(legal))
        for k in range(4):
            new_obs, new_mask, new_target = augment(obs, mask, target, k, w, msg)
            _, _, new_action = augment(obs, mask, action, k, w, msg)
            assert np.isclose(new_target.sum(), 1.0)
            assert np.array_equal(np.flatnonzero(new_target > 0), np.flatnonzero(new_mask))
            assert new_mask[new_action] == 1
            for i in legal[:20]:  # each probability travels with its action
                assert new_target[rotate_index(i, k, w, msg)] == target[i]
            if state.phase == "place_tile":
                assert _placements_of(new_mask, w) == _naive_placements(new_obs)
        checked += 1
    assert checked > 20


def test_rotate_batch_turns_each_sample_by_its_own_count():
    enc = TileEncoder(window=9)
    states = [s.clone() for s in itertools.islice(_positions(2, (), seed=3, every=1), 12)]
    obs = np.stack([enc.encode(s, s.current_player) for s in states])
    masks = np.stack([enc.action_mask(s) for s in states])
    actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
    turns = np.arange(len(states)) % 4
    b_obs, b_masks, b_actions = rotate_batch(obs, masks, actions, turns, 9, False)
    for i, k in enumerate(turns):
        one_obs, one_mask, one_action = augment(obs[i], masks[i], int(actions[i]), k, 9, False)
        assert np.array_equal(b_obs[i], one_obs)
        assert np.array_equal(b_masks[i], one_mask)
        assert b_actions[i] == one_action
    assert not np.array_equal(b_obs[1], obs[1])  # a quarter turn changes the planes


def test_global_values_hold_every_global_plane():
    state = next(itertools.islice(_positions(3, ("messages",), seed=2, every=1), 40, None))
    enc = TileEncoder.for_config(state.config)
    obs = enc.encode(state, 1)
    g = global_values(obs)
    assert g.shape == (TK.NUM_GLOBALS,)
    assert np.array_equal(
        obs[TK.NUM_BOARD_PLANES :], np.broadcast_to(g[:, None, None], obs[46:].shape)
    )
    expected = np.zeros(TK.NUM_GLOBALS, np.uint8)
    TK.encode_globals(state._ints, 1, 3, expected)
    assert np.array_equal(g, expected)
    assert np.array_equal(global_values(obs[None])[0], g)  # batched
