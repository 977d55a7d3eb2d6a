"""Follower claims, unclaimed cards, the next dealer and the forced follower placement.

2 players: seat 1 deals round 1, seat 0 plays first.  Setup rows: Y = 4 x Y1, R = 4 x R1,
G = 2 x G1, B = empty.
"""

import pytest
from helpers.card import points, run, scripted

from carcassonne_rl.games.cardcassonne import IllegalActionError

SETUP = ["Y1"] * 4 + ["R1"] * 4 + ["G1"] * 2
FD = 32  # row entry of a face-down card: kind + 32 * (player + 1)


def two_followers_in_row_b():
    hands = {0: ["B1", "B1", "B1", "B2", "B2", "B2"], 1: ["G2", "B3", "B3", "G2", "G2", "G2"]}
    s = scripted(2, SETUP, [(1, hands)])
    run(
        s,
        [
            "0: play B1 B down",
            "1: play G2 G down",  # never claimed this round: stays face down
            "0: play B1 B up",
            "1: play B3 B up",
            "0: follower B",  # back to the row start: B1 B1 B3
            "1: play B3 B up",
            "0: play B1 B up",
            "1: follower B",  # back to seat 0's follower: B3 B1
            "0: play B2 B up",
            "1: play G2 G up",
            "0: play B2 B up",
            "1: play G2 G up",
            "0: play B2 B up",
            "1: play G2 G up",
        ],
    )
    return s


def test_claims_back_to_row_start_and_to_previous_follower():
    s = two_followers_in_row_b()
    # Seat 0: B1 (face down, right row) + B1 + B3 -> (1+1+3) x 3 = 15.
    assert points(s, 0, 1) == [("persons", 15)]
    # Seat 1: only the cards after seat 0's follower: B3 + B1 -> (3+1) x 2 = 8.
    assert points(s, 1, 1) == [("persons", 8)]
    assert list(s.scores) == [15, 8]


def test_unclaimed_cards_stay_for_next_round():
    s = two_followers_in_row_b()
    # Kinds: Y1 = 0, R1 = 5, G1 = 10, G2 = 11, B2 = 16.
    assert s.rows[0] == [0] * 4
    assert s.rows[1] == [5] * 4
    assert s.rows[2] == [10, 10, 11 + FD * 2, 11, 11, 11]  # seat 1's G2 still face down
    assert s.rows[3] == [16, 16, 16]  # after the last follower in row B
    # Seat 0 does not see seat 1's face-down card; seat 1 does.
    assert s.view(0).rows[2][2] == 24 + FD * 2
    assert s.view(1).rows[2][2] == 11 + FD * 2


def test_last_follower_deals_next_round():
    s = two_followers_in_row_b()
    # Seat 1 placed the last follower: it deals round 2 and seat 0 (its left) starts.
    assert (s.round, s.dealer, s.current_player, s.phase) == (2, 1, 0, "turn")
    assert s.hand_size == [6, 6]
    assert s.follower_row == [-1, -1] and s.played == [0, 0]


def test_player_without_cards_must_place_follower_and_empty_row_claims_nothing():
    hands = {0: ["Y2"] * 5 + ["Y3"], 1: ["R2"] * 5 + ["R3"]}
    s = scripted(2, SETUP, [(1, hands)])
    run(
        s,
        [
            "0: play Y2 Y down",
            "1: follower B",  # row B is empty: claims nothing
            "0: play Y2 Y up",
            "1: play R2 R down",
            "0: play Y2 Y up",
            "1: play R2 R up",
            "0: play Y2 Y up",
            "1: play R2 R up",
            "0: play Y2 Y up",
            "1: play R2 R up",
            "0: play Y3 Y up",
            "1: play R2 R up",
        ],
    )
    # Seat 0 has no cards left and has not placed its follower: only follower actions.
    assert s.current_player == 0 and s.hand_size[0] == 0
    assert [str(a) for a in s.legal_actions()] == [
        "follower Y",
        "follower R",
        "follower G",
        "follower B",
    ]
    with pytest.raises(IllegalActionError, match="holds no Y2"):
        s.apply("play Y2 Y up")
    run(s, ["0: follower Y", "1: play R3 R up"])
    # Seat 0 claims Y1 x4, Y2 x5, Y3: (4 + 10 + 3) x 10 = 170; seat 1's empty row: nothing.
    assert points(s, 0, 1) == [("persons", 170)]
    assert points(s, 1, 1) == []
    # Seat 0's follower was the last: seat 0 deals round 2, seat 1 starts.
    assert (s.round, s.dealer, s.current_player) == (2, 0, 1)
    # The red row was never claimed: R1 x4, R2 (face down, seat 1), R2 x4, R3 stay.
    assert s.rows[1] == [5] * 4 + [6 + FD * 2] + [6] * 4 + [7]


def test_first_card_face_down_then_face_up_to_own_row():
    s = scripted(2, SETUP, [(1, {0: ["Y2"] * 5 + ["AJ"], 1: ["R2"] * 5 + ["R3"]})])
    codes = {str(a) for a in s.legal_actions()}
    # First card: face down to any row; follower anywhere.
    assert codes == {f"play {c} {r} down" for c in ("Y2", "AJ") for r in "YRGB"} | {
        f"follower {r}" for r in "YRGB"
    }
    with pytest.raises(IllegalActionError, match="first card"):
        s.apply("play Y2 Y up")
    s.apply("play Y2 G down")
    s.apply("play R2 R down")
    codes = {str(a) for a in s.legal_actions()}
    # Later cards: face up, coloured cards to their row only, the joker anywhere.
    assert codes == {"play Y2 Y up"} | {f"play AJ {r} up" for r in "YRGB"} | {
        f"follower {r}" for r in "YRGB"
    }
    with pytest.raises(IllegalActionError, match="row of its colour"):
        s.apply("play Y2 R up")
    with pytest.raises(IllegalActionError, match="only the first card"):
        s.apply("play Y2 Y down")
