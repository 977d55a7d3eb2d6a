"""``tile_blend``: ``pretrained:blend=W`` ranks options by the network's margin averaged
with the heuristic's (the 2-player ``pretrained`` before 2026-11-28; now expert iteration's
network alone); the expected values are recomputed here from the two estimators."""

from __future__ import annotations

import math

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.pretrained import (
    PRETRAINED_2P_FILE,
    load_value_net,
    pretrained_path,
    shipped_file,
)
from carcassonne_rl.agents.tile.afterstate import AfterstateAgent, options, values_from
from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT, BlendedAgent
from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent, player_values
from carcassonne_rl.games.carcassonne import GameConfig, new_game


def _position(turns: int, seed: int = 5, expansions=()):
    s = new_game(GameConfig(players=2, seed=seed, expansions=expansions))
    greedy = make_agent("greedy", "carcassonne", seed=seed)
    while s.turn < turns and not s.is_over:
        s.apply_code(greedy.act(s, s.current_player))
    return s


def _expected(net, children, player: int, weight: float) -> np.ndarray:
    """tanh((w * scale * atanh(net) + (1 - w) * heuristic margin) / scale); exact if over."""
    scale = float(net.meta["value_scale"])
    out = []
    for child, v in zip(children, values_from(net, children, player), strict=True):
        if child.is_over:
            sc = child.scores
            out.append(math.tanh((sc[player] - np.delete(sc, player).max()) / scale))
            continue
        pv = player_values(child)
        h = pv[player] - np.delete(pv, player).max()
        out.append(math.tanh((weight * scale * math.atanh(v) + (1 - weight) * h) / scale))
    return np.array(out)


@pytest.fixture(scope="module")
def net():
    return load_value_net(pretrained_path("carcassonne"))


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_blended_values_are_the_weighted_margins(net, weight) -> None:
    s = _position(40)
    children = [o.state for o in options(s)]
    got = BlendedAgent(net, weight).values(children, s.current_player)
    np.testing.assert_allclose(got, _expected(net, children, s.current_player, weight),
                               atol=1e-5)  # fmt: skip
    if weight == 1.0:  # the network alone
        np.testing.assert_allclose(got, AfterstateAgent(net).values(children, s.current_player),
                                   atol=1e-5)  # fmt: skip


def test_a_finished_game_is_valued_exactly(net) -> None:
    s = _position(1000)  # played to the end
    assert s.is_over
    scale = float(net.meta["value_scale"])
    for player in (0, 1):
        margin = s.scores[player] - s.scores[1 - player]
        got = BlendedAgent(net, 0.5).values([s], player)
        assert got[0] == pytest.approx(math.tanh(margin / scale))


def test_weight_zero_plays_the_heuristic_move(net) -> None:
    blend, heuristic = BlendedAgent(net, 0.0, seed=1), TileHeuristicAgent(seed=1)
    for turns in (10, 30, 50):
        s = _position(turns, seed=turns)
        margins = dict(heuristic.evaluate(s, s.current_player))
        assert margins[blend.act(s, s.current_player)] == pytest.approx(max(margins.values()))


def _plays_by(agent, net, weight: float, s) -> None:
    """``agent``'s values of every option of ``s`` are those of ``net`` averaged with the
    heuristic at ``weight`` (a placement worth its best follower option), and it plays the best."""
    codes, vals = agent.decision_values(s, s.current_player)
    opts = options(s)
    want = _expected(net, [o.state for o in opts], s.current_player, weight)
    best: dict[int, float] = {}
    for o, v in zip(opts, want, strict=True):
        best[o.code] = max(best.get(o.code, -2.0), float(v))
    np.testing.assert_allclose(vals, [best[c] for c in codes], atol=1e-5)
    chosen = agent.act(s, s.current_player)
    assert best[chosen] == pytest.approx(max(best.values()), abs=1e-6)


@pytest.mark.parametrize(("spec", "file", "parent"), [
    ("pretrained", PRETRAINED_2P_FILE, "carcassonne_2p_expert4.npz"),  # tile-net-v8 (and -v7)
    ("tile-net-v4", "carcassonne_2p_expert4.npz", "carcassonne_2p_expert3.npz"),
    ("tile-net-v3", "carcassonne_2p_expert3.npz", "network.npz"),  # fine-tuned from a loop's
    ("tile-net-v2", "carcassonne_2p_expert.npz", "carcassonne_2p.npz"),
])  # fmt: skip
def test_pretrained_plays_expert_iterations_network_alone_at_two_players(spec, file, parent
                                                                         ) -> None:  # fmt: skip
    agent = make_agent(spec, "carcassonne", seed=0)
    expert = load_value_net(shipped_file(file))
    assert expert.meta["expert_iteration"]["init_model"] == parent
    assert expert.meta["expert_iteration"]["target"] == "search"
    assert not isinstance(agent.two, BlendedAgent)  # no heuristic in its values
    for turns, expansions in ((30, ("messages", "labyrinth")), (12, ())):
        _plays_by(agent, expert, 1.0, _position(turns, expansions=expansions))


def test_blend_075_is_the_2_player_pretrained_before_the_switch(net) -> None:
    """``pretrained:blend=0.75`` plays ``carcassonne_2p.npz`` averaged at 0.75, as
    ``pretrained`` did at 2 players until expert iteration's network replaced it."""
    agent = make_agent(f"pretrained:blend={NETWORK_2P_WEIGHT}", "carcassonne", seed=0)
    assert NETWORK_2P_WEIGHT == 0.75
    _plays_by(agent, net, 0.75, _position(30, expansions=("messages", "labyrinth")))


def test_the_weight_must_be_a_share(net) -> None:
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match=r"weight must be in \[0, 1\]"):
            BlendedAgent(net, bad)


def test_the_blend_spec_builds_the_weighted_agent(net) -> None:
    alone = make_agent("pretrained:blend=1", "carcassonne", seed=0)
    assert isinstance(alone.two, BlendedAgent) and alone.two.weight == 1.0
    assert isinstance(alone.table, BlendedAgent) and alone.table.weight == 1.0
    assert alone.name == "pretrained:blend=1"
    quarter = make_agent("pretrained:blend=0.25", "carcassonne")
    assert quarter.two.weight == quarter.table.weight == 0.25
    for bad in (
        "pretrained:blend",
        "pretrained:blend=2",
        "pretrained:blend=x",
        "pretrained:blender=1",
    ):
        with pytest.raises(ValueError, match="pretrained:blend=W"):
            make_agent(bad, "carcassonne")
    with pytest.raises(ValueError, match="tile game only"):
        make_agent("pretrained:blend=0.5", "cardcassonne")
