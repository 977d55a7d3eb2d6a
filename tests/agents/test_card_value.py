"""The card value agent: it decides from the view only, values every turn option in one pass,
leaves the other decisions to the heuristic and loads as ``policy:PATH``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers.card import random_playout

from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.value import CARD_VALUE_KIND, CardValueAgent, load_card_value_net
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError
from carcassonne_rl.encoders.features.card import NUM_CARD_FEATURES, option_features
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view


def _net(seed: int = 0, inputs: int = NUM_CARD_FEATURES) -> MLP:
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.3, (inputs, 32)), rng.normal(0, 0.1, 32)),
              (rng.normal(0, 0.3, (32, 1)), np.zeros(1))]  # fmt: skip
    return MLP(layers, {"kind": CARD_VALUE_KIND, "value_scale": 50.0, "output": "tanh"})


def _states(count: int, rng: random.Random):
    """Mid-game states of 2-5 players, each with its player to move."""
    for i in range(count):
        s = new_game(GameConfig(players=2 + i % 4, seed=100 + i))
        random_playout(s, rng, stop_after=rng.randrange(0, 120))
        if not s.is_over:
            yield s


def test_twins_get_the_same_decision_and_the_network_picks_its_best() -> None:
    """States the seat cannot tell apart (hidden cards redrawn) get the same decision; a
    turn decision is the option the network values most."""
    rng = random.Random(1)
    agent = CardValueAgent(_net(), seed=5)
    differs = turns = 0
    for s in _states(40, rng):
        p = s.current_player
        twin = s.resample_hidden(rng, p)
        agent.reset(5)
        a = agent.act(s, p)
        agent.reset(5)
        assert agent.act(twin, p) == a and a in s.legal_codes()
        legal = s.legal_codes()
        if s.phase == "turn" and len(legal) > 1:
            values = agent.values(view(s, p), legal)
            assert values[legal.index(a)] >= values.max() - 1e-7  # the best, or tied with it
            turns += 1
            differs += a != legal[0]
    assert turns >= 20 and differs >= 5  # the network's choice is not the first option


def test_values_are_one_batched_pass_of_the_option_features() -> None:
    s = new_game(GameConfig(players=3, seed=4))
    while s.phase != "turn":  # a setup joker's row first
        s.apply_code(s.legal_codes()[0])
    p = s.current_player
    agent = CardValueAgent(_net(2))
    legal = s.legal_codes()
    v = view(s, p)
    batched = agent.values(v, legal)
    alone = [agent.net.forward(option_features(v, [c]))[0, 0] for c in legal]
    assert len(legal) > 10 and np.allclose(batched, alone, atol=0) and np.ptp(batched) > 0


def test_other_decisions_are_the_heuristics() -> None:
    """Setup jokers, animal jokers and misplaced cards: the heuristic's choice."""
    rng = random.Random(3)
    agent, heuristic = CardValueAgent(_net(), seed=0), CardHeuristicAgent(seed=0)
    seen = set()
    for seed in range(60):
        s = new_game(GameConfig(players=2, seed=seed))
        while not s.is_over:
            if s.phase != "turn" and len(s.legal_codes()) > 1:
                seen.add(s.phase)
                assert agent.act(s, s.current_player) == heuristic.act(s, s.current_player)
            codes = s.legal_codes()
            s.apply_code(codes[rng.randrange(len(codes))])
        if len(seen) == 3:
            break
    assert seen == {"setup_joker", "assign_animal_joker", "misplaced_card"}


def test_policy_path_loads_the_card_value_network(tmp_path) -> None:
    from carcassonne_rl.agents.registry import make_agent

    path = tmp_path / "value.npz"
    _net(7).save(path)
    agent = make_agent(f"policy:{path}", "cardcassonne", seed=0)
    assert isinstance(agent, CardValueAgent) and agent.name == f"policy:{path}"
    with pytest.raises(ValueError, match="plays cardcassonne"):
        make_agent(f"policy:{path}", "carcassonne")
    _net(7, inputs=NUM_CARD_FEATURES - 1).save(tmp_path / "old.npz")
    with pytest.raises(ModelFileError, match="card feature set"):
        load_card_value_net(tmp_path / "old.npz")


def _search_net(seed: int = 0, candidates: int | None = 3) -> MLP:
    from carcassonne_rl.agents.card.value import CARD_SEARCH_VALUE_KIND, NUM_SEARCH_INPUTS

    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.3, (NUM_SEARCH_INPUTS, 16)), rng.normal(0, 0.1, 16)),
              (rng.normal(0, 0.3, (16, 1)), np.zeros(1))]  # fmt: skip
    return MLP(layers, {"kind": CARD_SEARCH_VALUE_KIND, "candidates": candidates})


def test_search_value_agent_plays_the_best_valued_of_the_heuristics_candidates() -> None:
    """Of the heuristic's 3 best turn options (its margins computed here), the agent plays
    the one whose inputs (features + heuristic margin) the network values most; twins get
    the same decision."""
    from carcassonne_rl.agents.card.value import MARGIN_SCALE, CardSearchValueAgent

    net = _search_net()
    agent = CardSearchValueAgent(net, seed=2)
    heuristic = CardHeuristicAgent(None)
    rng = random.Random(3)
    turns = outside_first = 0
    for s in _states(40, rng):
        p = s.current_player
        legal = s.legal_codes()
        agent.reset(2)
        a = agent.act(s, p)
        agent.reset(2)
        assert agent.act(s.resample_hidden(rng, p), p) == a
        if s.phase != "turn" or len(legal) < 4:
            continue
        v = view(s, p)
        margins = np.array([m for _, m in heuristic.scored(v, legal)])
        top = [legal[i] for i in np.argsort(-margins, kind="stable")[:3]]
        x = np.hstack(
            [
                option_features(v, top),
                (margins[[legal.index(c) for c in top]] / MARGIN_SCALE)[:, None],
            ]
        )
        values = x.astype(np.float32) @ net.layers[0][0] + net.layers[0][1]
        values = np.maximum(values, 0) @ net.layers[1][0] + net.layers[1][1]
        assert a in top and values[top.index(a), 0] >= values.max() - 1e-4
        turns += 1
        outside_first += a != top[0]
    assert turns >= 15 and outside_first >= 2  # the network, not the heuristic's order


def test_search_value_file_loads_as_policy_and_a_wrong_file_is_refused(tmp_path) -> None:
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net

    path = tmp_path / "student.npz"
    _search_net(candidates=2).save(path)
    agent = make_agent(f"policy:{path}", "cardcassonne", seed=0)
    assert isinstance(agent, CardSearchValueAgent) and agent.candidates == 2
    searched = make_agent(f"pretrained:search=2:2@{path}", "cardcassonne", seed=0)
    assert (searched.worlds, searched.candidates) == (2, 2)
    assert isinstance(searched.base, CardSearchValueAgent)
    _net().save(tmp_path / "afterstate.npz")
    with pytest.raises(ModelFileError, match="card_afterstate_value"):
        load_card_net(tmp_path / "afterstate.npz")
    with pytest.raises(ValueError, match="no such network file"):
        make_agent(f"pretrained:search@{tmp_path / 'missing.npz'}", "cardcassonne")
