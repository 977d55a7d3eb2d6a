"""``pretrained:SIMS`` (card game): ISMCTS over the seat's view with the network's priors
and leaf values (the twin test of tests/agents/test_agent_information.py covers it too)."""

from __future__ import annotations

import random

import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.net_mcts import CardNetMCTSAgent
from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net
from carcassonne_rl.agents.common.mcts_core import squash
from carcassonne_rl.agents.pretrained import pretrained_path
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view


def _turns(players: int, seed: int, count: int) -> list:
    """``count`` turn decisions with at least 4 legal codes from a heuristic game."""
    state, rng = new_game(GameConfig(players, seed)), random.Random(seed)
    agent, out = CardHeuristicAgent(seed), []
    while not state.is_over and len(out) < count:
        if state.phase == "turn" and len(state.legal_codes()) >= 4 and rng.random() < 0.3:
            out.append(state.clone())
        state.apply_code(agent.act(state, state.current_player))
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_it_finishes_games_with_legal_moves(players: int) -> None:
    seats = ("pretrained:12", "heuristic", "greedy")[:players]
    job = Job(Setup("cardcassonne", players), seats, seats, 2, 0, 0, agent_seed=1)
    res = play_game(job, warm=False)  # the engine rejects an illegal code
    assert len(res.scores) == players and res.winners


def test_the_root_searches_the_heuristics_best_options_only() -> None:
    """At its own turn the tree holds the heuristic's 3 best options (the network's
    candidates), each visited, and the move is the most visited of them."""
    for state in _turns(2, 4, 3):
        p = state.current_player
        agent = make_agent("pretrained:40", "cardcassonne", seed=2)
        assert isinstance(agent, CardNetMCTSAgent)
        code = agent.act(state, p)
        ranked = CardHeuristicAgent(0).scored(view(state, p), state.legal_codes())
        top = sorted(ranked, key=lambda cm: -cm[1])[:3]
        assert set(agent.last_stats) == {c for c, _ in top}
        stats = agent.last_stats
        assert code == max(stats, key=lambda c: stats[c])  # most visits, then best mean
        # the first simulation expands the root; each other one visits a candidate, which
        # started with 2 virtual visits
        assert sum(n for n, _ in stats.values()) == 39 + 3 * 2


@pytest.mark.parametrize("own_leaf", [True, False])
def test_a_leaf_is_a_network_margin_for_its_seat_and_its_negation_for_the_others(
    own_leaf: bool,
) -> None:
    """A leaf is valued at the next turn decision (``own_leaf``: the searching seat's, the
    others' moves played by the network's agent) by the network's estimate of that seat's
    margin; the other seats get its negation."""
    net = load_card_net(pretrained_path("cardcassonne"))
    for players in (2, 3):
        state = _turns(players, 6, 1)[0]
        me = (state.current_player + 1) % players  # the searcher waits for its turn
        agent = CardNetMCTSAgent(net, 10, seed=0, scale=20.0, own_leaf=own_leaf)
        agent._me = me
        s = state.clone()
        if own_leaf:
            seat = CardSearchValueAgent(net, 0)
            while s.phase != "turn" or s.current_player != me:
                s.apply_code(seat.act(s, s.current_player))
        p = s.current_player
        assert (p == me) == own_leaf
        margin = CardSearchValueAgent(net, 0, candidates=3).state_value(view(s, p), s.legal_codes())
        values = agent._evaluate(state.clone())
        assert values[p] == pytest.approx(squash(margin, 20.0), rel=1e-6)
        for q in range(players):
            if q != p:
                assert values[q] == pytest.approx(squash(-margin, 20.0), rel=1e-6)


def test_a_finished_game_is_valued_by_its_true_margins() -> None:
    state = new_game(GameConfig(2, 8))
    agent = CardHeuristicAgent(8)
    while not state.is_over:
        state.apply_code(agent.act(state, state.current_player))
    values = make_agent("pretrained:5", "cardcassonne", seed=0)._evaluate(state)
    s0, s1 = state.scores
    assert values == pytest.approx([squash(s0 - s1, 20.0), squash(s1 - s0, 20.0)])


def test_bad_simulation_counts_get_one_message() -> None:
    for spec in ("pretrained:0", "pretrained:-3"):
        with pytest.raises(ValueError, match="SIMS > 0"):
            make_agent(spec, "cardcassonne")
