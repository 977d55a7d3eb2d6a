"""Invariants over random games of 2-5 players."""

import random

import numpy as np
from helpers.card import census, random_playout
from hypothesis import given, settings
from hypothesis import strategies as st

from carcassonne_rl.games.cardcassonne import (
    ACTIONS,
    KIND_COUNTS,
    KIND_NAMES,
    NUM_ACTIONS,
    GameConfig,
    IllegalActionError,
    load_json,
    new_game,
)

# players -> (cards per round, rounds), from the rulebooks' table.
TABLE = {2: (6, 10), 3: (5, 8), 4: (5, 6), 5: (4, 6)}


def check_game(players: int, seed: int) -> None:
    s = new_game(GameConfig(players=players, seed=seed))
    rng = random.Random(seed)
    per_round, rounds = TABLE[players]
    rounds_seen = []
    while not s.is_over:
        assert census(s) == list(KIND_COUNTS)  # all 130 cards somewhere
        assert sum(KIND_COUNTS) == 130
        round_start = s.phase == "turn" and sum(s.played) == 0 and max(s.follower_row) < 0
        if round_start and (not rounds_seen or rounds_seen[-1] != s.round):
            rounds_seen.append(s.round)
            assert s.hand_size == [per_round] * players
        totals = [0] * players
        for e in s.score_events:
            totals[e.player] += e.points
        assert list(s.scores) == totals
        codes = s.legal_action_codes()
        assert codes.dtype == np.int32 and len(codes) > 0  # a legal action until the end
        assert list(codes) == [a.code for a in s.legal_actions()]
        assert 0 <= s.current_player < players
        if rng.random() < 0.05:  # an illegal code is refused and changes nothing
            bad = [c for c in range(NUM_ACTIONS) if c not in set(codes.tolist())]
            before = s.view(s.current_player)
            try:
                s.apply_code(rng.choice(bad))
                raise AssertionError("illegal code accepted")
            except IllegalActionError:
                pass
            assert s.view(s.current_player) == before
        s.apply_code(int(codes[rng.randrange(len(codes))]))
    assert rounds_seen == list(range(1, rounds + 1))
    assert s.deck_size == 0 and s.current_player == -1 and s.phase == "game_over"
    assert census(s) == list(KIND_COUNTS)
    totals = [0] * players
    for e in s.score_events:
        totals[e.player] += e.points
    assert list(s.scores) == totals
    # Final building events list exactly the building cards under each chest.
    for p in range(players):
        chest = [KIND_NAMES[k] for k in (3, 8, 13, 18, 23) for _ in range(s.collected[p][k])]
        ev = [e for e in s.score_events if e.player == p and e.kind == "buildings"]
        assert sorted(ev[0].cards if ev else []) == sorted(chest)
    w = s.winners()
    assert w and all(s.scores[p] == max(s.scores) for p in w)
    # Save / load replays to the same state.
    t = load_json(s.to_json())
    assert t.history == s.history and list(t.scores) == list(s.scores)
    assert all(t.view(p) == s.view(p) for p in range(players))


def test_random_games_all_player_counts():
    for players in (2, 3, 4, 5):
        for seed in range(8):
            check_game(players, seed)


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**31 - 1))
def test_random_games_hypothesis(players, seed):
    check_game(players, seed)


def test_deterministic_by_seed_and_clone_independent():
    a = new_game(GameConfig(players=3, seed=42))
    b = new_game(GameConfig(players=3, seed=42))
    assert a.card_order == b.card_order
    assert new_game(GameConfig(players=3, seed=43)).card_order != a.card_order
    random_playout(a, random.Random(1), stop_after=30)
    c = a.clone()
    random_playout(a, random.Random(2))
    assert c.history == a.history[: len(c.history)] and not c.is_over
    random_playout(c, random.Random(2))
    assert c.history == a.history and list(c.scores) == list(a.scores)


def test_notation_round_trip_for_every_code():
    s = new_game(GameConfig())
    for code in range(NUM_ACTIONS):
        text = s.action_to_string(code)
        assert s.parse_action(text) == ACTIONS[code]
        assert s.parse_action(text.upper()).code == code
    assert s.parse_action("R1 g fd").code == s.parse_action("play R1 G down").code
    assert s.parse_action("follower road").code == s.parse_action("follower R").code
    assert s.parse_action("assign sheep").code == s.parse_action("assign r").code
    assert s.parse_action("10").code == s.parse_action("ten").code


def test_tie_break_by_buildings():
    s = new_game(GameConfig(players=3, seed=0))
    random_playout(s, random.Random(0))
    s._scores = [50, 50, 10]
    s.collected[0][3] = 0  # no yellow building
    for p in range(3):
        for k in (3, 8, 13, 18, 23):
            s.collected[p][k] = 0
    s.collected[1][23] = 1  # one building joker: counts in the tie-break
    assert s.winners() == [1]
    s.collected[0][8] = 1  # one red building: tied again -> shared win
    assert s.winners() == [0, 1]
