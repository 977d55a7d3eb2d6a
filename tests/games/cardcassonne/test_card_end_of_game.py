"""End of game: buildings scored in sets, rows worthless; a one-round rules table."""

import numpy as np
from helpers.card import build_order, points, run

from carcassonne_rl.games.cardcassonne import (
    RULES,
    GameConfig,
    RulesTable,
    load_json,
    new_game,
)

ONE_ROUND = RulesTable(deal_table=((2, 6, 1),))
# Rows after setup (the dealer, seat 1, puts the building joker on B):
# Y: YH YH YH   R: RH RH R1   G: GH GH   B: BH BJ
SETUP = ["YH", "RH", "GH", "BH", "YH", "RH", "GH", "BJ", "YH", "R1"]
HANDS = {0: ["RH"] + ["G2"] * 5, 1: ["R2"] * 5 + ["R3"]}
SCRIPT = [
    "1: setup B",
    "0: play RH B down",  # a red building face down in the blue row: misplaced
    "1: follower Y",  # YH YH YH
    "0: follower B",  # BH BJ RH
    "1: play R2 R down",
    "0: play G2 G up",
    "1: play R2 R up",
    "0: play G2 G up",
    "1: play R2 R up",
    "0: play G2 G up",
    "1: play R2 R up",
    "0: play G2 G up",
    "1: play R3 R up",
    "0: play G2 G up",
    "1: play R2 R up",
]


def one_round_game():
    order = build_order(2, SETUP, [(1, HANDS)])
    s = new_game(GameConfig(players=2, rules=ONE_ROUND), order)
    run(s, SCRIPT)
    assert s.phase == "misplaced_card" and s.current_player == 0
    return s


def test_kept_misplaced_building_joins_the_chest():
    s = one_round_game()
    s.apply("keep")
    assert s.is_over and s.current_player == -1 and s.phase == "game_over"
    # Seat 0: blue + red + joker = 3 different -> 15.  Seat 1: 3 yellow = 3 singles -> 0.
    assert points(s, 0) == [("buildings", 15)]
    assert points(s, 1) == [("buildings", 0)]
    assert s.winners() == [0]
    # The unclaimed red and green rows score nothing and stay where they are.
    assert len(s.rows[1]) == 3 + 6 and len(s.rows[2]) == 2 + 5


def test_misplaced_building_for_ten():
    s = one_round_game()
    s.apply("ten")
    # 10 now; blue + joker = 2 different -> 5 at the end.
    assert points(s, 0) == [("misplaced", 10), ("buildings", 5)]
    assert list(s.scores) == [15, 0]


def test_custom_rules_table_survives_save_and_load():
    s = one_round_game()
    s.apply("keep")
    t = load_json(s.to_json())
    assert t.rules == ONE_ROUND != RULES
    assert hash(t.config) == hash(s.config)
    assert np.array_equal(t.scores, s.scores) and t.is_over


def test_history_holds_python_ints():
    s = new_game(GameConfig(players=2, seed=9))
    for _ in range(20):
        s.apply_code(s.legal_action_codes()[0])  # a numpy int32
    assert all(type(c) is int for c in s.history)
    assert all(type(e) is int for row in s.rows for e in row)
