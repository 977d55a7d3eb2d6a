"""The Messages and the Labyrinth together (rules sections 4 and 5).

Every expected number is computed by hand from the rules, never by asking the engine.

Tiles (printed N E S W; rotation r shows the printed side (s - r) mod 4 at side s):
  N r3 = F F C C (city S+W); E r1 = F C F F (city E); E r2 = city S; E r0 = city N.
  Y = the labyrinth (R R R R); at (1,0) its W exit meets D's E road, so D is its W arm.
  U r1 = R F R F (road N-S).  W r0 = F R R R (roads end at a junction).  A r0 = road S,
  A r2 = road N (ending at the cloister).  L r0 = C R R R (roads end at a junction).
"""

import pytest
from helpers.messages import award as _award
from helpers.messages import play as _play

from carcassonne_rl.games.carcassonne import GameConfig, new_game


def _game(draw_order, message_order):
    cfg = GameConfig(players=2, expansions=("messages", "labyrinth"))
    return new_game(cfg, draw_order=draw_order, message_order=message_order)


def _minority_on_a_labyrinth(card):
    """Seat 0 has one follower on a labyrinth network where seat 1 has two, and draws `card`.

    T1 s0 N(0,-1) r3 + knight (city {D, N} open W).
    T2 s1 E(-1,-1) r1 closes it: 3 tiles x 2 = 6 to seat 0 (seat 1's turn): figure B 0 -> 6.
    T3 s0 E(0,1) r2 (city S, N side F on D's field), no knight.
    T4 s1 Y(1,0) + follower on the labyrinth.
    T5 s0 U(1,-1) r1 at the N exit (W side F on N(0,-1)'s E side F) + follower: empty arm.
    T6 s1 W(2,0) r0 at the E exit + follower: empty arm.
    T7 s0 E(0,2) r0 + knight closes {E(0,1), E(0,2)}: 4 -> figure B 6 -> 10 -> message.
    Network: Y(1,0), D (W arm, open), U(1,-1) (N arm, open), W(2,0) (E arm) = 4 tiles,
    S exit open.  Followers on it: seat 1 two, seat 0 one.
    """
    s = _game("NEEYUWEU", card + "".join(c for c in "12345678" if c != card))
    _play(s, "N 0,-1 r3", "city:S", "E -1,-1 r1", "none")
    _award(s, 0, 6, "B")
    _play(s, "E 0,1 r2", "none", "Y 1,0 r0", "labyrinth", "U 1,-1 r1", "road:N")
    _play(s, "W 2,0 r0", "road:W", "E 0,2 r0", "city:N")
    _award(s, 0, 4, "B")
    assert s.phase == "message" and s.message_card == int(card)
    assert s.figures.tolist() == [[0, 10], [0, 0]]
    return s


def test_message_8_recall_without_majority_gives_nothing_but_returns_the_follower():
    # Seat 0 recalls its arm follower: 1 against seat 1's 2 on the network -> no points,
    # the follower comes back anyway; seat 1's followers stay.
    s = _minority_on_a_labyrinth("8")
    s.apply("message:carry")
    assert s.phase == "message_follower"
    assert [str(a) for a in s.legal_actions()] == ["recall 1,-1 road:N"]
    s.apply("recall 1,-1 road:N")
    assert s.phase == "place_tile" and s.current_player == 1
    assert [e for e in s.score_events if e.kind == "message"] == []
    assert s.figures.tolist() == [[0, 10], [0, 0]]
    assert s.followers_left.tolist() == [7, 5]
    assert sorted((f.player, f.x, f.y) for f in s.placed_followers()) == [(1, 1, 0), (1, 2, 0)]


def test_message_1_labyrinth_network_is_a_road_majority_not_needed():
    # Message 1: seat 0's only road follower is on the labyrinth network (its N arm).  The
    # network is one road feature: end-of-game value 1 per tile = 4 (no follower bonus when
    # incomplete), although seat 0 is in the minority there.  Figure A 0 -> 4.
    s = _minority_on_a_labyrinth("1")
    s.apply("message:carry")
    _award(s, 0, 4, "A")
    (e,) = [e for e in s.score_events if e.kind == "message"]
    assert (e.player, e.points, e.card) == (0, 4, 1)
    assert set(e.tiles) == {(1, 0), (0, 0), (1, -1), (2, 0)}
    assert s.figures.tolist() == [[4, 10], [0, 0]]
    assert s.followers_left.tolist() == [6, 5]  # the follower stays


def test_completed_labyrinth_lands_on_a_dark_space():
    # T1 s0 Y(1,0) + labyrinth.  T2 s1 A(1,-1) r0 (closes the N exit), no follower.
    # T3 s0 A(1,1) r2 at the S exit + follower.  T4 s1 W(2,0) r0 closes the E exit.
    # T5 s0 L(-1,0) r0 closes the W arm: network Y, D, L, A, A, W = 6 tiles, seat 0 alone with
    # 2 followers: 6 + 2 x 2 = 10 -> figure A 0 -> 10 -> message (card 2; seat 0 has no
    # knight -> it takes the 2 points, B 0 -> 2).
    s = _game("YAAWLU", "23456781")
    _play(s, "Y 1,0 r0", "labyrinth", "A 1,-1 r0", "none", "A 1,1 r2", "road:N")
    _play(s, "W 2,0 r0", "none", "L -1,0 r0", "none")
    _award(s, 0, 10, "A")
    (lab,) = [e for e in s.score_events if e.kind == "labyrinth"]
    assert lab.figure == "A" and lab.points == 10
    assert s.phase == "message" and s.message_card == 2
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.figures.tolist() == [[10, 2], [0, 0]]
    assert s.followers_left.tolist() == [7, 7]
    assert s.phase == "place_tile" and s.current_player == 1


@pytest.mark.parametrize("card", ["5", "6"])
def test_labyrinth_followers_are_neither_knights_nor_farmers(card):
    # Seat 0's followers: the arm follower on U(1,-1) only (its knights came back) -> message
    # 5 (knights) and 6 (farmers) give nothing.
    s = _minority_on_a_labyrinth(card)
    s.apply("message:carry")
    assert s.phase == "place_tile" and s.current_player == 1
    assert [e for e in s.score_events if e.kind == "message"] == []


def test_both_players_land_on_a_dark_space_only_the_active_player_gets_a_message():
    # T1 s0 Y(1,0) + labyrinth.  T2 s1 A(1,-1) r0 at the N exit + follower (empty arm).
    # T3 s0 A(1,1) r2, T4 s1 W(2,0) r0, T5 s0 L(-1,0) r0 close the other exits.
    # Network: 6 tiles, followers 1 - 1 (tie): each scores 6 + 2 x 2 = 10.
    # Seat 1 chooses its own figure (A: 0 -> 10, dark) but it is seat 0's turn; seat 0's
    # figure A 0 -> 10 -> one message, for seat 0 only.
    s = _game("YAAWLU", "23456781")
    _play(s, "Y 1,0 r0", "labyrinth", "A 1,-1 r0", "road:S", "A 1,1 r2", "none")
    _play(s, "W 2,0 r0", "none", "L -1,0 r0", "none")
    receivers = []
    while s.phase == "choose_figure":
        player, points = s.pending_award
        assert points == 10 and s.current_player == player and s.active_player == 0
        receivers.append(player)
        s.apply("figure:A")
    assert sorted(receivers) == [0, 1]
    assert s.figures.tolist() == [[10, 0], [10, 0]]
    assert s.phase == "message" and s.current_player == 0 and s.message_card == 2
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.messages_drawn == 1
    assert s.phase == "place_tile" and s.current_player == 1
    assert s.scores.tolist() == [12, 10]


def test_recalled_arm_follower_frees_its_arm():
    # After message 8 takes seat 0's follower off the N arm (scenario above), the arm is
    # empty again: seat 1 extends it with U(1,-2) r1 and may put a follower on it.
    s = _minority_on_a_labyrinth("8")
    _play(s, "message:carry", "recall 1,-1 road:N", "U 1,-2 r1")
    assert "road:N" in [str(a) for a in s.legal_actions()]
    _play(s, "road:N")
    assert s.is_over
    # final: network Y, D, U(1,-1), U(1,-2), W(2,0) = 5 tiles, incomplete; seat 1 alone
    # (3 followers) -> 5; seat 0 (figures 0 + 10) gets nothing from it.
    assert s.scores.tolist() == [10, 5]


def test_recall_the_labyrinth_follower_with_a_tie_then_final_scoring_without_it():
    # T1 s0 N(0,-1) r3 + knight.  T2 s1 E(-1,-1) r1 closes the city: 6 -> seat 0's B.
    # T3 s0 Y(1,0) + labyrinth.  T4 s1 U(1,-1) r1 at the N exit + follower (empty arm).
    # T5 s0 E(0,1) r2, no knight.  T6 s1 W(2,0) r0 closes the E exit, no follower.
    # T7 s0 E(0,2) r0 + knight closes {E(0,1), E(0,2)}: 4 -> B 6 -> 10 -> message 8:
    #    seat 0 recalls its labyrinth follower: 1 - 1 is a tie = majority -> seat 0 alone
    #    scores the network at end-of-game value: Y, D, U(1,-1), W(2,0) = 4 (no bonus).
    # T8 s1 U(1,-2) r1 extends the N arm (its own follower is there: no follower).
    # Final: network Y, D, U(1,-1), U(1,-2), W(2,0) = 5 tiles, only seat 1's follower left
    # -> seat 1: 5; seat 0: 4 + 10 = 14 and nothing more.
    s = _game("NEYUEWEU", "81234567")
    _play(s, "N 0,-1 r3", "city:S", "E -1,-1 r1", "none")
    _award(s, 0, 6, "B")
    _play(s, "Y 1,0 r0", "labyrinth", "U 1,-1 r1", "road:N", "E 0,1 r2", "none")
    _play(s, "W 2,0 r0", "none", "E 0,2 r0", "city:N")
    _award(s, 0, 4, "B")
    assert s.message_card == 8
    s.apply("message:carry")
    assert [str(a) for a in s.legal_actions()] == ["recall 1,0 labyrinth"]
    s.apply("recall 1,0 labyrinth")
    _award(s, 0, 4, "A")
    (e,) = [e for e in s.score_events if e.kind == "message"]
    assert set(e.tiles) == {(1, 0), (0, 0), (1, -1), (2, 0)}
    assert s.followers_left.tolist() == [7, 6]
    _play(s, "U 1,-2 r1")
    assert "road:N" not in [str(a) for a in s.legal_actions()]
    _play(s, "none")
    assert s.is_over
    lab = [e for e in s.score_events if e.kind == "labyrinth"]
    assert [(e.player, e.points, e.final) for e in lab] == [(1, 5, True)]
    assert s.scores.tolist() == [14, 5]
