"""Option features of carcassonne_v1 observations (``agents/tile/obs_policy/features.py``), checked
against the engine: what a placement completes is what the engine scores, the rebuilt
fields are the engine's fields, and the features do not change when the board turns."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile.obs_policy import board as B
from carcassonne_rl.agents.tile.obs_policy import features as F
from carcassonne_rl.arena.match import Setup
from carcassonne_rl.encoders.tile.encoder import NUM_PLANES
from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1
from carcassonne_rl.encoders.tile.kernels import window_origin
from carcassonne_rl.encoders.tile.symmetry import rotate_actions, rotate_batch
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.tiles import FIELD, MAX_SEGMENTS, TABLES

ENCODER = TileEncoderV1()
PLACE = {name: i for i, name in enumerate(F.PLACE_FEATURES)}
FOLLOW = {name: i for i, name in enumerate(F.FOLLOW_FEATURES)}


def _greedy_states(deals: range, every: int = 1):
    """(state, seat, observation, legal indices) along greedy games of ``deals``."""
    for deal in deals:
        state = Setup("carcassonne", 2, ()).new_state(deal)
        agents = [make_agent("greedy", "carcassonne", seed=p) for p in range(2)]
        n = 0
        while not state.is_over:
            p = state.current_player
            if n % every == 0:
                obs = ENCODER.encode(state, p)
                legal = np.flatnonzero(ENCODER.action_mask(state))
                yield state, p, obs, legal
            state.apply_code(int(agents[p].act(state, p)))
            n += 1


def _points(row: np.ndarray, who: str) -> float:
    """Points that the features say a placement completes for ``who`` (my / their)."""
    return (10 * (row[PLACE[f"city_{who}_done_points"]] + row[PLACE[f"road_{who}_done_points"]])
            + 9 * row[PLACE[f"{who}_cloisters_done"]])  # fmt: skip


def test_completed_points_of_every_placement_are_what_the_engine_scores():
    checked = agree = 0
    for state, p, obs, legal in _greedy_states(range(2)):
        kind, rows = F.option_features(obs["board"], obs["globals"], legal)
        if kind != "place":
            continue
        for index, row in zip(legal, rows, strict=True):
            after = state.clone()
            after.apply_code(int(ENCODER.code_of(state, int(index))))
            if after.is_over:
                continue
            after.apply_code(0)  # no follower: only what the placement completes scores
            if after.is_over:
                continue
            gain = np.asarray(after.scores) - np.asarray(state.scores)
            checked += 1
            agree += (
                round(_points(row, "my")) == gain[p] and round(_points(row, "their")) == gain[1 - p]
            )
    assert checked > 3000
    assert agree / checked > 0.995  # a city closed around the cell twice may count once


def test_a_follower_on_a_completed_feature_scores_what_its_features_say():
    checked = 0
    for state, p, obs, legal in _greedy_states(range(3)):
        kind, rows = F.option_features(obs["board"], obs["globals"], legal)
        if kind != "follow":
            continue
        base = state.clone()
        base.apply_code(0)
        for index, row in zip(legal, rows, strict=True):
            if row[FOLLOW["done_points"]] == 0:
                continue
            code = int(ENCODER.code_of(state, int(index)))
            after = state.clone()
            after.apply_code(code)
            extra = after.scores[p] - base.scores[p]
            assert extra == round(10 * row[FOLLOW["done_points"]])
            checked += 1
    assert checked >= 10


def _engine_root(segs: np.ndarray, g: int) -> int:
    while segs[g, L.S_PARENT] != g:
        g = int(segs[g, L.S_PARENT])
    return g


def test_rebuilt_fields_and_farmers_are_the_engines():
    halves = 0
    for state, p, obs, _ in _greedy_states(range(2), every=9):
        board = obs["board"]
        w = board.shape[1]
        comp = B.components(board)
        types, turns = B.cell_tiles(board, B.SIGNATURES)
        froot, farmers, _, _ = B.fields(board, comp, types, turns)
        ints, tiles, segs = state._ints, state._tiles, state._segs
        x0, y0 = window_origin(ints, tiles, w)
        ours_to_engine: dict[int, int] = {}
        engine_to_ours: dict[int, int] = {}
        for slot in range(int(ints[L.R_NSLOTS])):
            t, r, x, y = (int(v) for v in tiles[slot])
            cell = (y - y0) * w + (x - x0)
            assert np.array_equal(B.SIGNATURES[types[cell], turns[cell]], B.SIGNATURES[t, r])
            for h in range(8):
                k = int(TABLES["portmap"][t, r, 4 + h])
                if k < 0 or TABLES["seg_kind"][t, k] != FIELD:
                    continue
                engine = _engine_root(segs, slot * MAX_SEGMENTS + k)
                ours = int(froot[cell * 8 + h])
                assert ours_to_engine.setdefault(ours, engine) == engine
                assert engine_to_ours.setdefault(engine, ours) == ours
                count = segs[engine, L.S_COUNT : L.S_COUNT + 2]
                assert farmers[ours, 0] == count[p] and farmers[ours, 1] == count[1 - p]
                halves += 1
    assert halves > 1000


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_features_do_not_change_when_the_board_turns(turns):
    w = ENCODER.window
    seen = 0
    for state, _, obs, legal in _greedy_states(range(1), every=5):
        mask = ENCODER.action_mask(state).astype(bool)
        planes = np.zeros((1, NUM_PLANES, w, w), np.uint8)
        planes[0, : obs["board"].shape[0]] = obs["board"]
        planes, masks, _ = rotate_batch(planes, mask[None], legal[:1].copy(),
                                        np.array([turns]), w, False)  # fmt: skip
        board = np.ascontiguousarray(planes[0, : obs["board"].shape[0]])
        turned_legal = np.flatnonzero(masks[0])
        kind, rows = F.option_features(obs["board"], obs["globals"], legal)
        turned_kind, turned_rows = F.option_features(board, obs["globals"], turned_legal)
        assert kind == turned_kind
        if kind == "follow" and _looks_the_same_turned(obs["board"]):
            continue  # its segment numbers cannot be read from the planes (see the module)
        where = np.zeros(len(mask))
        where[legal] = np.arange(len(legal)) + 1
        moved = rotate_actions(where[None], turns, w, False)[0]
        order = (moved[turned_legal] - 1).astype(int)
        np.testing.assert_allclose(turned_rows, rows[order], atol=1e-6)
        seen += 1
    assert seen > 20


def _looks_the_same_turned(board: np.ndarray) -> bool:
    """Whether the tile placed last has the same planes under another turn."""
    _, _, t, r = B.last_tile(board, B.SIGNATURES)
    return sum(np.array_equal(B.SIGNATURES[t, q], B.SIGNATURES[t, r]) for q in range(4)) > 1


def test_features_need_a_placement_or_follower_decision():
    obs = ENCODER.encode(Setup("carcassonne", 2, ()).new_state(0), 0)
    with pytest.raises(ValueError, match="placements and followers"):
        F.option_features(obs["board"], obs["globals"], np.array([4 * 29 * 29 + 20]))
