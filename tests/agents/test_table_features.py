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
    """... expert iteration's 2-player network alone at 2 players (its values: tests/agents/
    test_blend.py), a table network averaged with the heuristic beyond 2 players with The
    Messages (at 3 and 5 players its own, :data:`PRETRAINED_TABLE_FILES`; without them:
    tests/agents/test_tile_obs_policy.py)."""
    from carcassonne_rl.agents.pretrained import (
        PRETRAINED_2P_FILE,
        PRETRAINED_TABLE_FILES,
        TABLE_MODEL_FILE,
        model_dir,
        shipped_file,
    )
    from carcassonne_rl.agents.tile.blend import PRETRAINED_TABLE_WEIGHTS, BlendedAgent

    two = load_value_net(shipped_file(PRETRAINED_2P_FILE))
    table = load_value_net(model_dir() / TABLE_MODEL_FILE)
    three = load_value_net(model_dir() / PRETRAINED_TABLE_FILES[3])  # its own at 3, any set
    assert net_feature_set(two) == "two_player" and net_feature_set(table) == "table"
    cases = ((2, (), two), (3, ("messages",), three),
             (5, ("messages", "labyrinth"), three))  # its own at 5 players too (tile-net-v8)
    for players, expansions, net in cases:
        s = _midgame(players, expansions, turns=20, seed=players)
        shipped = make_agent("pretrained", "carcassonne", seed=4)
        if players == 2:
            alone = AfterstateAgent(net, seed=4)
        else:
            weight = net.meta.get("heuristic_blend", PRETRAINED_TABLE_WEIGHTS)  # as its file says
            alone = BlendedAgent(net, weight, seed=4)
        for _ in range(12):  # the same moves as that blend, decision by decision
            code = shipped.act(s, s.current_player)
            assert code == alone.act(s, s.current_player)
            s.apply_code(code)


def test_pretrained_blend_weighs_the_table_network_beyond_2_players() -> None:
    """``pretrained:blend=W`` at 3-5 players averages the table network with the heuristic
    at weight ``W``: ``W = 1`` moves as the table network alone, the shipped weight as
    ``pretrained`` at 4 players, and a weight of 0 as the heuristic's margin alone."""
    from carcassonne_rl.agents.pretrained import table_network
    from carcassonne_rl.agents.tile.blend import PRETRAINED_TABLE_WEIGHTS

    table = table_network()
    cases = (
        (3, "pretrained:blend=1", AfterstateAgent(table, seed=4)),
        (4, f"pretrained:blend={PRETRAINED_TABLE_WEIGHTS[4]}",
         make_agent("pretrained", "carcassonne", seed=4)),
    )  # fmt: skip
    for players, spec, expected in cases:
        s = _midgame(players, (), turns=16, seed=players)
        agent = make_agent(spec, "carcassonne", seed=4)
        for _ in range(12):
            code = agent.act(s, s.current_player)
            assert code == expected.act(s, s.current_player)
            s.apply_code(code)
    # W = 0: the options ranked by the heuristic's margin (own - best other) alone
    s = _midgame(3, (), turns=10, seed=9)
    while s.phase != "place_tile":
        s.apply_code(int(s.legal_action_codes()[0]))
    codes, values = make_agent("pretrained:blend=0", "carcassonne", seed=4).decision_values(
        s, s.current_player
    )
    heuristic = dict(make_agent("heuristic", "carcassonne").evaluate(s, s.current_player))
    best = max(heuristic.values())
    assert heuristic[codes[int(np.argmax(values))]] >= best - 1e-6


def test_a_blend_with_a_weight_per_table_plays_each_tables_weight() -> None:
    """A weight per number of players moves as the single weight of that table, and a
    table it has no weight for is refused with a message naming it."""
    from carcassonne_rl.agents.pretrained import table_network
    from carcassonne_rl.agents.tile.blend import BlendedAgent

    table = table_network()
    per_table = BlendedAgent(table, {3: 0.9, 4: 0.3}, seed=1)
    for players, weight in ((3, 0.9), (4, 0.3)):
        s = _midgame(players, (), turns=12, seed=players + 20)
        single = BlendedAgent(table, weight, seed=1)
        for _ in range(8):
            codes, values = per_table.decision_values(s, s.current_player)
            codes1, values1 = single.decision_values(s, s.current_player)
            assert list(codes) == list(codes1)
            np.testing.assert_allclose(values, values1)
            s.apply_code(int(codes[int(np.argmax(values))]))
    with pytest.raises(ValueError, match="no weight for 5 players"):
        per_table.decision_values(_midgame(5, (), turns=3, seed=1), 0)
    with pytest.raises(ValueError, match=r"in \[0, 1\], got 1.5"):
        BlendedAgent(table, {3: 1.5})


def test_pretrained_plays_the_fine_tuned_table_network_at_4_players_only() -> None:
    """``pretrained`` (and ``pretrained:blend``, ``pretrained:search``) plays the table network
    fine-tuned with greedy seats at 4 players and the table network elsewhere (``pretrained``,
    ``tile-net-v8`` to ``-v6``: their own table network at 3 players, ``tile-net-v5`` and
    ``-v4`` others;
    ``tile-net-v3``
    the table network);
    ``@PATH``
    naming the table network replays the rows measured before: it then plays that file at
    every table of 3-5 players, averaged at ``W`` (blend) or searched (search), and 2
    players keep the shipped 2-player network."""
    from carcassonne_rl.agents.pretrained import (
        TABLE_MODEL_FILE,
        TABLE_MODEL_FILES,
        model_dir,
        table_network,
        table_networks,
    )
    from carcassonne_rl.agents.tile.blend import PRETRAINED_TABLE_WEIGHTS, BlendedAgent

    first = load_value_net(model_dir() / TABLE_MODEL_FILE)
    tuned = load_value_net(model_dir() / "carcassonne_table_greedy.npz")
    three = load_value_net(model_dir() / "carcassonne_table_3p_rank2.npz")
    v5 = load_value_net(model_dir() / "carcassonne_table_3p_rank.npz")
    v4 = load_value_net(model_dir() / "carcassonne_table_3p.npz")
    assert three.meta["heuristic_blend"] == PRETRAINED_TABLE_WEIGHTS[3]
    assert v4.meta["heuristic_blend"] == PRETRAINED_TABLE_WEIGHTS[3]
    assert v5.meta["heuristic_blend"] == PRETRAINED_TABLE_WEIGHTS[3]
    assert TABLE_MODEL_FILES == {4: "carcassonne_table_greedy.npz"}
    assert net_feature_set(first) == net_feature_set(tuned) == "table"
    x = np.random.default_rng(0).normal(size=(4, first.inputs)).astype(np.float32)
    assert not np.allclose(first.forward(x), tuned.forward(x))  # two different networks
    np.testing.assert_array_equal(table_network().forward(x), first.forward(x))
    np.testing.assert_array_equal(table_networks()[4].forward(x), tuned.forward(x))
    old = f"pretrained:blend=0.6@{TABLE_MODEL_FILE}"
    cases = (
        (4, "pretrained", BlendedAgent(tuned, PRETRAINED_TABLE_WEIGHTS, seed=2)),
        (3, "tile-net-v3", BlendedAgent(first, PRETRAINED_TABLE_WEIGHTS, seed=2)),
        # tile-net-v8 (pretrained) plays v6's table network at 3 players, averaged at 0.75
        (3, "pretrained", BlendedAgent(three, PRETRAINED_TABLE_WEIGHTS, seed=2)),
        (3, "tile-net-v5", BlendedAgent(v5, PRETRAINED_TABLE_WEIGHTS, seed=2)),
        (3, "tile-net-v4", BlendedAgent(v4, PRETRAINED_TABLE_WEIGHTS, seed=2)),
        (4, "pretrained:blend=0.6", BlendedAgent(tuned, 0.6, seed=2)),
        (4, old, BlendedAgent(first, 0.6, seed=2)),
        (2, old, make_agent("pretrained:blend=0.6", "carcassonne", seed=2)),
    )
    for players, spec, expected in cases:
        s = _midgame(players, (), turns=14, seed=players + 30)
        agent = make_agent(spec, "carcassonne", seed=2)
        assert agent.name == spec
        for _ in range(10):
            code = agent.act(s, s.current_player)
            assert code == expected.act(s, s.current_player)
            s.apply_code(code)
    search = make_agent(f"pretrained:search=2:0@{TABLE_MODEL_FILE}", "carcassonne")
    shipped = make_agent("pretrained:search=2:0", "carcassonne")
    assert search.tables == {} and set(shipped.tables) == {4}
    np.testing.assert_array_equal(search.table.net.forward(x), first.forward(x))
    np.testing.assert_array_equal(shipped.tables[4].net.forward(x), tuned.forward(x))
    zero = np.zeros((1, search.two.net.inputs), np.float32)  # 2 players: shipped either way
    np.testing.assert_array_equal(search.two.net.forward(zero), shipped.two.net.forward(zero))
    with pytest.raises(ValueError, match="pretrained:blend=W"):
        make_agent(f"pretrained:blend=2@{TABLE_MODEL_FILE}", "carcassonne")
    with pytest.raises(ValueError, match="no such network file"):
        make_agent("pretrained:blend=0.5@missing.npz", "carcassonne")
