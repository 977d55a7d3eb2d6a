"""Afterstate features, the value network file format, and the agents built on them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError
from carcassonne_rl.agents.tile.afterstate import AfterstateAgent, options
from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
from carcassonne_rl.agents.tile.potentials import potentials
from carcassonne_rl.encoders.features.afterstate import (
    F_POTENTIAL,
    F_SCORE,
    F_SUPPLY,
    NUM_FEATURES,
    PLAYER_FEATURES,
    _fit_count,
    afterstate_features,
    player_features,
)
from carcassonne_rl.games.carcassonne import GameConfig, layout, new_game
from carcassonne_rl.games.carcassonne.board_kernels import FRONT_CELL, gen_placements
from carcassonne_rl.games.carcassonne.tiles import NUM_TYPES

EXPANSION_SETS = [(), ("messages",), ("labyrinth",), ("messages", "labyrinth")]


def _positions(expansions=(), players=2, games=3, seed=0):
    """Positions along greedy-vs-random games (every 5th turn)."""
    rng = random.Random(seed)
    greedy = TileGreedyAgent(seed)
    for g in range(games):
        s = new_game(GameConfig(players=players, seed=seed * 100 + g, expansions=expansions))
        while not s.is_over:
            if s.phase == "place_tile" and s.turn % 5 == 0:
                yield s.clone()
            if s.current_player == 0:
                s.apply_code(greedy.act(s, 0))
            else:
                codes = s.legal_action_codes()
                s.apply_code(int(codes[rng.randrange(len(codes))]))


def _unplaced(s) -> np.ndarray:
    ints = s._ints
    counts = np.zeros(NUM_TYPES, np.int64)
    for i in range(ints[layout.R_DECKPOS], ints[layout.R_DECKLEN]):
        counts[ints[layout.O_DECK + i]] += 1
    if s.phase == "place_tile":
        counts[ints[layout.R_TILE]] += 1
    return counts


@pytest.mark.parametrize("expansions", EXPANSION_SETS)
def test_gap_fit_counts_agree_with_the_engines_legal_placements(expansions) -> None:
    """For every open cell, the kernel's count of fitting unplaced tiles equals what the
    engine's own placement generator allows, tile type by tile type."""
    checked = 0
    for s in _positions(expansions, games=1, seed=3):
        unplaced = _unplaced(s)
        allowed: dict[int, int] = {}
        for t in np.flatnonzero(unplaced):
            probe = s.clone()
            probe._ints[layout.R_TILE] = t
            n = gen_placements(probe._board, probe._ints, probe._tiles)
            codes = probe._ints[layout.O_LEGAL : layout.O_LEGAL + n]
            for cell in {int(c) // 4 for c in codes}:
                allowed[cell] = allowed.get(cell, 0) + int(unplaced[t])
        front = s._ints[layout.O_FRONT : layout.O_FRONT + s._ints[layout.R_NFRONT]]
        for cell in (front & FRONT_CELL).tolist():
            assert _fit_count(s._board, s._tiles, unplaced, cell) == allowed.get(cell, 0)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("players", [2, 3, 5])
def test_player_features_agree_with_the_public_state_and_the_heuristic(players) -> None:
    for s in _positions(players=players, games=1, seed=players):
        per, left = player_features(s)
        assert per.shape == (players, PLAYER_FEATURES)
        assert np.array_equal(per[:, F_SCORE], s.scores)
        assert np.array_equal(per[:, F_SUPPLY], s.followers_left)
        # greedy's estimate, computed by its own code: it counts the tiles left in the pile
        # without the drawn one, so put that tile back on the pile for the comparison
        probe = s.clone()
        probe._ints[layout.R_DECKPOS] -= 1
        probe._ints[layout.R_PHASE] = layout.PHASE_FOLLOWER
        assert np.allclose(per[:, F_POTENTIAL], potentials(probe))
        assert left == sum(s.remaining_tiles().values()) + 1  # the drawn tile counts back


def test_seat_vectors_mirror_each_other_for_two_players() -> None:
    for s in _positions(games=1, seed=5):
        a, b = afterstate_features(s, 0), afterstate_features(s, 1)
        k = PLAYER_FEATURES
        assert a.shape == (NUM_FEATURES,) and a.dtype == np.float32
        assert np.array_equal(a[:k], b[k : 2 * k]) and np.array_equal(a[k : 2 * k], b[:k])
        assert not a[2 * k : 3 * k].any()  # no third player
        assert np.allclose(a[3 * k : 4 * k], -b[3 * k : 4 * k])


def test_features_do_not_depend_on_the_hidden_pile_order() -> None:
    for i, s in enumerate(_positions(expansions=("messages",), games=1, seed=7)):
        twin = s.clone()
        twin.shuffle_hidden(seed=i)
        assert np.array_equal(afterstate_features(s, 0), afterstate_features(twin, 0))


@pytest.mark.parametrize("expansions", EXPANSION_SETS)
def test_options_are_exactly_the_legal_decisions(expansions) -> None:
    """The afterstates valued (the learning targets' positions) come from legal moves only,
    and every legal move is among them."""
    for s in _positions(expansions, games=1, seed=11):
        opts = options(s)
        assert {o.code for o in opts} == set(s.legal_action_codes().tolist())
        for o in opts:
            if o.follower is not None:
                child = s.clone()
                child.apply_code(o.code)
                assert o.follower in child.legal_action_codes().tolist()
            assert o.state.is_over or o.state.phase == "place_tile"


def _random_net(seed: int = 0, hidden=(16, 8)) -> MLP:
    rng = np.random.default_rng(seed)
    sizes = (NUM_FEATURES, *hidden, 1)
    pairs = zip(sizes, sizes[1:], strict=False)
    layers = [(rng.normal(0, 0.3, (a, b)), rng.normal(0, 0.1, b)) for a, b in pairs]
    meta = {"kind": "tile_afterstate_value", "value_scale": 30.0, "output": "tanh"}
    return MLP(layers, meta)


def test_value_net_file_round_trip_and_refusals(tmp_path) -> None:
    net = _random_net()
    path = tmp_path / "net.npz"
    net.save(path)
    back = MLP.load(path, kind="tile_afterstate_value")
    x = np.random.default_rng(1).normal(size=(5, NUM_FEATURES)).astype(np.float32)
    assert np.array_equal(back.forward(x), net.forward(x))
    # reference forward pass written out independently
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(net.layers):
        h = h @ w + b
        h = np.maximum(h, 0) if i < len(net.layers) - 1 else np.tanh(h)
    assert np.allclose(net.forward(x), h, atol=1e-5)
    with pytest.raises(ModelFileError, match="not 'card_policy'"):
        MLP.load(path, kind="card_policy")
    with pytest.raises(ModelFileError, match="no model file"):
        MLP.load(tmp_path / "missing.npz")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, w0=np.array([object()], dtype=object), meta=np.zeros(2, np.uint8))
    with pytest.raises(ModelFileError, match="not a model file"):
        MLP.load(pickled)  # object arrays would need pickle: refused


def test_a_batch_with_repeated_rows_is_valued_row_by_row() -> None:
    """The forward pass values each distinct row once: every row's outputs are those of the
    row alone, and the distinct rows are those numpy finds."""
    from carcassonne_rl.agents.common.value_net import unique_rows

    net = _random_net()
    gen = np.random.default_rng(3)
    base = gen.normal(size=(40, NUM_FEATURES)).astype(np.float32)
    base[:, ::3] = 0.0
    x = base[gen.integers(0, 40, 300)]
    x[7, 4] = np.nextafter(x[7, 4], np.float32(1))  # one bit apart: another row
    alone = np.concatenate([net.forward(x[i : i + 1]) for i in range(len(x))])
    assert np.array_equal(net.forward(x), alone)
    first = np.empty(len(x), np.int64)
    inverse = np.empty(len(x), np.int64)
    u = unique_rows(x.view(np.uint32), first, inverse)
    assert u == len(np.unique(x, axis=0)) < len(x)
    assert np.array_equal(x[first[:u]][inverse], x)
    assert sorted(first[:u].tolist()) == first[:u].tolist()  # in order of first appearance


@pytest.mark.parametrize("expansions", EXPANSION_SETS)
def test_afterstate_agent_plays_legal_moves_to_the_end(expansions) -> None:
    agent = AfterstateAgent(_random_net(2), seed=0, epsilon=0.2)
    s = new_game(GameConfig(players=3, seed=4, expansions=expansions))
    while not s.is_over:
        code = agent.act(s, s.current_player)
        assert code in s.legal_action_codes().tolist()
        s.apply_code(code)


@pytest.mark.parametrize("expansions", EXPANSION_SETS)
def test_pretrained_agents_play_legal_moves_in_every_tile_config(expansions) -> None:
    fast = make_agent("pretrained", "carcassonne", seed=1)
    search = make_agent("pretrained:8", "carcassonne", seed=1)
    s = new_game(GameConfig(players=2, seed=9, expansions=expansions))
    while not s.is_over:
        agent = fast if s.current_player == 0 else search
        code = agent.act(s, s.current_player)
        assert code in s.legal_action_codes().tolist()
        s.apply_code(code)


def test_pretrained_card_agent_plays_legal_moves() -> None:
    from carcassonne_rl.games import cardcassonne
    from carcassonne_rl.games.cardcassonne import new_game as new_card_game

    for players in (2, 3, 5):
        agent = make_agent("pretrained", "cardcassonne", seed=0)
        s = new_card_game(cardcassonne.GameConfig(players=players, seed=players))
        while not s.is_over:
            code = agent.act(s, s.current_player)
            assert code in s.legal_codes()
            s.apply_code(code)


def test_pretrained_spec_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="SIMS > 0"):
        make_agent("pretrained:0", "cardcassonne")
    with pytest.raises(ValueError, match="SIMS must be an integer"):
        make_agent("pretrained:many", "carcassonne")
    with pytest.raises(ValueError, match="SIMS > 0"):
        make_agent("pretrained:0", "carcassonne")


def test_pretrained_agents_load_offline_without_torch() -> None:
    """The shipped agents need neither network access nor torch (tensors-only files)."""
    import subprocess
    import sys

    code = """
import socket, sys
def refuse(*args, **kwargs):
    raise OSError("network access attempted")
socket.socket.connect = refuse
socket.create_connection = refuse
from carcassonne_rl.agents import make_agent
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games import cardcassonne
from carcassonne_rl.games.cardcassonne import new_game as new_card_game
s = new_game(GameConfig(seed=1))
s.apply_code(make_agent("pretrained", "carcassonne").act(s, 0))
c = new_card_game(cardcassonne.GameConfig(seed=1))
c.apply_code(make_agent("pretrained", "cardcassonne").act(c, c.current_player))
assert "torch" not in sys.modules, "torch was imported"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_every_shipped_model_file_is_described_and_loads() -> None:
    """``models.json`` describes every shipped weight file (how it was trained, how strong
    it measured) and names no file that is missing; each tile value network loads and plays
    through ``policy:FILE`` (the self-play network the 2-player one was fine-tuned from)."""
    from carcassonne_rl.agents.pretrained import model_dir, model_info
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    info = model_info()
    described = {entry["file"] for entry in info.values()}
    shipped = {path.name for path in model_dir().glob("*.npz")}
    assert described == shipped
    for entry in info.values():
        assert entry["trained_by"].startswith("carcassonne-rl ") and entry["rows"]
    selfplay = info["carcassonne_2p_selfplay"]
    assert selfplay["file"] == "carcassonne_2p_selfplay.npz"
    assert "carcassonne_2p_selfplay.npz" in info["carcassonne_2p"]["trained_by"]  # its start
    agent = make_agent(f"policy:{model_dir() / selfplay['file']}", "carcassonne", seed=0)
    s = new_game(GameConfig(seed=3))
    code = agent.act(s, 0)
    assert code in set(int(c) for c in s.legal_action_codes())
    # the card game: pretrained is the search-value network, the PPO policy plays by its name
    from carcassonne_rl.agents.card.policy_net import CardNetAgent
    from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net

    assert info["cardcassonne_netleaf"]["file"] == "cardcassonne_netleaf.npz"
    card = make_agent("pretrained", "cardcassonne")
    assert isinstance(card, CardSearchValueAgent)
    assert card.net.meta == load_card_net(model_dir() / "cardcassonne_netleaf.npz").meta
    # the networks it played before keep their names: cardcassonne_dmc.npz (2026-11-28) and
    # expert iteration's first network (until 2026-11-28)
    metas = [card.net.meta]
    for key, name in (
        ("cardcassonne_dmc", "cardcassonne_dmc.npz"),
        ("cardcassonne_expert", "cardcassonne_expert.npz"),
    ):
        assert info[key]["file"] == name
        before = make_agent(f"policy:{name}", "cardcassonne")
        assert isinstance(before, CardSearchValueAgent) and before.net.meta not in metas
        metas.append(before.net.meta)
    assert info["cardcassonne_2p"]["file"] == "cardcassonne_2p.npz"
    assert isinstance(make_agent("policy:cardcassonne_2p.npz", "cardcassonne"), CardNetAgent)
