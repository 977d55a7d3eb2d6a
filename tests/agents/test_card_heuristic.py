"""The card game's ``heuristic`` agent: legal to the end, hand-checked decisions, blind to
hidden cards, and stronger than ``greedy``."""

from __future__ import annotations

import random

import pytest
from helpers.card import points, run, scripted

from carcassonne_rl.agents.card.greedy import CardGreedyAgent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.row_values import row_values
from carcassonne_rl.games.cardcassonne import (
    GameConfig,
    determinize,
    new_game,
    parse_action_code,
    view,
)
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER

SETUP = ["Y1", "Y1", "R1", "R1", "G1", "G1", "B1", "B1", "B2", "B3"]
HANDS = {0: ["R3", "R3", "R2", "R2", "G3", "G3"], 1: ["Y2", "Y2", "Y3", "G2", "G2", "B1"]}


def _deal():
    """Round 1 of a 2-player game: rows Y 4, R 4, G 4, B (1+1+2+3) x 4 = 28 points."""
    return scripted(2, SETUP, [(1, HANDS)])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_plays_legal_moves_to_the_end(players: int) -> None:
    for seed, mixed in ((players, False), (players + 10, True)):
        state = new_game(GameConfig(players=players, seed=seed))
        agents = [
            CardGreedyAgent(seed + q) if mixed and q % 2 else CardHeuristicAgent(seed + q)
            for q in range(players)
        ]
        moves = 0
        while not state.is_over:
            p = state.current_player
            code = agents[p].act(state, p)
            assert code in state.legal_codes()
            state.apply_code(code)
            moves += 1
        assert state.phase == "game_over" and moves > 100


def test_keeps_the_follower_when_placing_hands_the_rows_over() -> None:
    """Seat 0 moves first; claiming B (28) now leaves its R and G cards to seat 1, whose
    best row then becomes R1 R1 R3 R3 R2 R2 = 12 x 6 = 72: margin 28 - 72 = -44. Hiding
    R2 misplaced in Y (10 points) instead: seat 1 takes B (28), seat 0 later claims
    R1 R1 R3 R3 R2 = 10 x 5 = 50, + 1 point for each of the 6 cards seat 1 can play before
    (seat 0 plays its 5 cards, then the follower): 56 - 28 = +28."""
    state = _deal()
    agent = CardHeuristicAgent(seed=0)
    v = view(state, 0)
    scores = dict(agent.scored(v, state.legal_codes()))
    assert scores[FOLLOWER + 3] == pytest.approx(28 - 72)
    assert scores[parse_action_code("play R2 Y down")] == pytest.approx(56 - 28)
    choice = agent.act(state, 0)
    assert choice < FOLLOWER
    assert scores[choice] >= 28


def test_last_free_follower_waits_for_the_cards_then_claims_the_best_row() -> None:
    """Once seat 0 has claimed B, seat 1 is the last free follower: it hides a card
    misplaced in Y (Y1 Y1 + its Y2 Y2 Y3 = 9 x 5 = 45, + 10: 55; + 6 for the cards seat 0
    can play before; minus seat 0's 28: 33), plays its cards, and places the follower
    only when it has none left, on the row worth most to it then."""
    state = _deal()
    run(state, ["0: follower B"])
    agents = [CardHeuristicAgent(seed=1), CardHeuristicAgent(seed=2)]
    scores = dict(agents[1].scored(view(state, 1), state.legal_codes()))
    assert max(scores.values()) == pytest.approx(55 + 6 - 28)
    assert scores[FOLLOWER + 0] == pytest.approx(4 - 28)
    while state.round == 1:
        p = state.current_player
        code = agents[p].act(state, p)
        if p == 1 and code >= FOLLOWER:
            assert state.hand_size == [0, 0]
            values = row_values(view(state, 1), 1)  # seat 0's face-down card counts 4
            assert values[code - FOLLOWER] == max(values) >= 55
        state.apply_code(code)
    assert state.dealer == 1  # the round ended; seat 1 placed its follower last
    assert sum(pts for _, pts in points(state, 1, 1)) > sum(pts for _, pts in points(state, 0, 1))


def _positions(count: int) -> list:
    """Decision points of 2-5 player games (heuristic, greedy and random moves mixed)."""
    out = []
    for players in (2, 3, 4, 5):
        rng = random.Random(players)
        state = new_game(GameConfig(players=players, seed=40 + players))
        agents = [
            CardHeuristicAgent(q) if q % 2 == 0 else CardGreedyAgent(q) for q in range(players)
        ]
        taken = 0
        while not state.is_over and taken < count:
            if rng.random() < 0.12:
                out.append(state.clone())
                taken += 1
            p = state.current_player
            codes = state.legal_codes()
            if rng.random() < 0.3:
                code = codes[rng.randrange(len(codes))]
            else:
                code = agents[p].act(state, p)
            state.apply_code(code)
    return out


def test_same_view_other_hidden_cards_same_decision() -> None:
    positions = _positions(10)
    assert len(positions) == 40
    changed = 0
    for i, state in enumerate(positions):
        p = state.current_player
        twin = determinize(state, p, random.Random(i))
        assert view(twin, p) == view(state, p)
        if twin.hands != state.hands or twin.deck_cards() != state.deck_cards():
            changed += 1
        a = CardHeuristicAgent(seed=i).act(state, p)
        b = CardHeuristicAgent(seed=i).act(twin, p)
        assert a == b, f"decision changed with the hidden cards at position {i}"
    assert changed >= len(positions) // 2


def test_beats_greedy_at_two_players() -> None:
    """20 duplicate deals, both seats (measured: about 100% over hundreds of deals)."""
    wins = 0.0
    for deal in range(20):
        for seat in (0, 1):
            state = new_game(GameConfig(players=2, seed=500 + deal))
            agents = [CardGreedyAgent(deal), CardGreedyAgent(deal + 1)]
            agents[seat] = CardHeuristicAgent(deal)
            while not state.is_over:
                p = state.current_player
                state.apply_code(agents[p].act(state, p))
            mine, theirs = state.scores[seat], state.scores[1 - seat]
            wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    assert wins / 40 >= 0.7
