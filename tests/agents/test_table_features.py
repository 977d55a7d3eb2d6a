"""The ``table`` feature set (every opponent, 2-5 seats) and value networks by feature set."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError
from carcassonne_rl.agents.pretrained import pretrained_path
from carcassonne_rl.agents.tile.afterstate import AfterstateAgent, load_value_net, net_feature_set
from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
from carcassonne_rl.encoders.features.afterstate import (
    F_POTENTIAL,
    F_SCORE,
    NUM_FEATURES,
    PLAYER_FEATURES,
    PLAYER_SCALE,
    afterstate_features,
    player_features,
)
from carcassonne_rl.encoders.features.table import (
    NUM_TABLE_FEATURES,
    OPPONENT_SLOTS,
    SLOT_FEATURES,
    TABLE_FEATURE_NAMES,
    seat_features,
    table_features,
)
from carcassonne_rl.games.carcassonne import GameConfig, new_game

NF = PLAYER_FEATURES


def _midgame(players: int, expansions=(), turns: int = 50, seed: int = 1):
    s = new_game(GameConfig(players=players, seed=seed, expansions=expansions))
    greedy = TileGreedyAgent(seed)
    while s.turn < turns and not s.is_over:
        s.apply_code(greedy.act(s, s.current_player))
    return s


def _slot(x: np.ndarray, k: int) -> np.ndarray:
    start = NF + k * SLOT_FEATURES
    return x[start : start + SLOT_FEATURES]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_opponent_has_its_slot_strongest_first(players) -> None:
    s = _midgame(players, ("messages",) if players == 4 else ())
    per, _ = player_features(s)
    for me in range(players):
        x = table_features(s, me)
        assert x.shape == (NUM_TABLE_FEATURES,) and x.dtype == np.float32
        assert np.allclose(x[:NF], per[me] / PLAYER_SCALE)
        others = [q for q in range(players) if q != me]
        strength = {q: per[q, F_SCORE] + per[q, F_POTENTIAL] for q in others}
        expected = sorted(others, key=lambda q: (-strength[q], others.index(q)))
        for k in range(OPPONENT_SLOTS):
            slot = _slot(x, k)
            if k < players - 1:
                q = expected[k]
                assert np.allclose(slot[:NF], per[q] / PLAYER_SCALE)
                assert slot[NF] == 1.0  # present
                assert slot[NF + 1] == pytest.approx(((q - me) % players) / 4)
            else:
                assert not slot.any()  # an empty seat is all zeros
        diff = x[NF + OPPONENT_SLOTS * SLOT_FEATURES : 2 * NF + OPPONENT_SLOTS * SLOT_FEATURES]
        assert np.allclose(diff, (per[me] - per[expected[0]]) / PLAYER_SCALE, atol=1e-6)


def test_two_players_table_and_v1_features_hold_the_same_numbers() -> None:
    s = _midgame(2, ("labyrinth",))
    for me in (0, 1):
        v1, table = afterstate_features(s, me), table_features(s, me)
        assert np.allclose(table[:NF], v1[:NF])  # own
        assert np.allclose(_slot(table, 0)[:NF], v1[NF : 2 * NF])  # the one opponent
        assert np.allclose(table[-7:], v1[-7:])  # globals
        assert np.array_equal(seat_features(s, me), v1)  # the default set is v1
    assert len(TABLE_FEATURE_NAMES) == NUM_TABLE_FEATURES == 159


def _net(width: int, feature_set: str | None) -> MLP:
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(0, 0.2, (width, 8)), np.zeros(8)),
        (rng.normal(0, 0.2, (8, 1)), np.zeros(1)),
    ]
    meta = {"kind": "tile_afterstate_value", "value_scale": 30.0, "output": "tanh"}
    if feature_set:
        meta["feature_set"] = feature_set
    return MLP(layers, meta)


def test_model_files_load_with_their_own_feature_set(tmp_path) -> None:
    shipped = load_value_net(pretrained_path("carcassonne"))
    assert shipped.meta["feature_set"] == "v1"  # the set's old name, kept in the shipped file
    assert net_feature_set(shipped) == "two_player" and shipped.inputs == NUM_FEATURES
    for name in ("v1", "two_player", None):  # old name, new name, files older than the key
        _net(NUM_FEATURES, name).save(tmp_path / "two.npz")
        assert net_feature_set(load_value_net(tmp_path / "two.npz")) == "two_player"
    _net(NUM_TABLE_FEATURES, "table").save(tmp_path / "table.npz")
    net = load_value_net(tmp_path / "table.npz")
    assert net_feature_set(net) == "table"
    agent = AfterstateAgent(net, seed=0)
    s = new_game(GameConfig(players=4, seed=3, expansions=("messages", "labyrinth")))
    while not s.is_over:
        code = agent.act(s, s.current_player)
        assert code in s.legal_action_codes().tolist()
        s.apply_code(code)
    _net(NUM_FEATURES, "table").save(tmp_path / "wrong.npz")
    with pytest.raises(ModelFileError, match="feature set 'table' has 159"):
        load_value_net(tmp_path / "wrong.npz")
    _net(NUM_FEATURES, "v9").save(tmp_path / "unknown.npz")
    with pytest.raises(ModelFileError, match="unknown feature set 'v9'"):
        load_value_net(tmp_path / "unknown.npz")
    search = make_agent(f"policy:{tmp_path / 'table.npz'}", "carcassonne")
    assert search.net.inputs == NUM_TABLE_FEATURES


def test_network_search_reads_the_table_features() -> None:
    from carcassonne_rl.agents.tile.value_search import ValueSearchAgent

    agent = ValueSearchAgent(_net(NUM_TABLE_FEATURES, "table"), simulations=6, seed=0)
    s = new_game(GameConfig(players=3, seed=8))
    for _ in range(12):
        code = agent.act(s, s.current_player)
        assert code in s.legal_action_codes().tolist()
        s.apply_code(code)


def test_pretrained_plays_the_2_player_network_at_2_and_the_table_network_beyond() -> None:
    """... (at 2 players blended with the heuristic: tests/agents/test_blend.py) beyond 2
    players with The Messages (without them, the observation networks play 3-5 players:
    tests/agents/test_tile_obs_policy.py)."""
    from carcassonne_rl.agents.pretrained import TABLE_MODEL_FILE, model_dir
    from carcassonne_rl.agents.tile.blend import PRETRAINED_2P_WEIGHT, BlendedAgent

    two = load_value_net(pretrained_path("carcassonne"))
    table = load_value_net(model_dir() / TABLE_MODEL_FILE)
    assert net_feature_set(two) == "two_player" and net_feature_set(table) == "table"
    cases = ((2, (), two), (3, ("messages",), table), (5, ("messages", "labyrinth"), table))
    for players, expansions, net in cases:
        s = _midgame(players, expansions, turns=20, seed=players)
        shipped = make_agent("pretrained", "carcassonne", seed=4)
        if players == 2:
            alone = BlendedAgent(net, PRETRAINED_2P_WEIGHT, seed=4)
        else:
            alone = AfterstateAgent(net, seed=4)
        for _ in range(12):  # the same moves as the network alone, decision by decision
            code = shipped.act(s, s.current_player)
            assert code == alone.act(s, s.current_player)
            s.apply_code(code)
