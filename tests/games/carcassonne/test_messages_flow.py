"""The Messages (docs/rules/carcassonne.md section 4): figures, when a message is drawn, the
2-point option, chains, one message per scoring step, only the active player, the end-of-game sum,
and the automatic figure choice (``figure_choice="auto"``, ``scoring_kernels.auto_figure``).

Every expected number is computed by hand from the rules, never by asking the engine.

Recurring pieces (printed N E S W; rotation r shows the printed side (s - r) mod 4 at side s):
  5-tile road along y = 0: A(1,0) r1 (F F F R, road W ends at a cloister), U(-1,0) r0,
  U(-2,0) r0 (road W-E), A(-3,0) r3 (F R F F, road E ends at a cloister), with D(0,0) ->
  5 tiles, both ends closed = 5 points.  Seat 0 closes it on its own turn with a follower
  on the closing tile (the road is unoccupied until then).
  Preloading seat 0 with 6 or 8 points during seat 1's turn (no message: not seat 0's turn):
    N(0,-1) r3 = F F C C (city S+W) joins D's city; E(-1,-1) r1 = F C F F closes it:
    3 tiles x 2 = 6.   M(0,-1) r2 = F C C F (city E+S, pennant); E(1,-1) r3 = F F F C
    closes it: 3 tiles x 2 + 1 pennant x 2 = 8.
"""

import pytest
from helpers.messages import award as _award
from helpers.messages import play as _play

from carcassonne_rl.games.carcassonne import GameConfig, IllegalActionError, new_game


def _game(draw_order, message_order, players=2, figure_choice="player"):
    cfg = GameConfig(players=players, expansions=("messages",), figure_choice=figure_choice)
    return new_game(cfg, draw_order=draw_order, message_order=message_order)


def test_dark_space_gives_a_message_and_the_two_point_option():
    # T1 s0 A(1,0) r1, T2 s1 U(-1,0), T3 s0 U(-2,0), T4 s1 U(0,1) r0 (south of D, a
    # filler), T5 s0 A(-3,0) r3 + follower: road of 5 -> 5 points, a figure choice of seat 0.
    # Figure A 0 -> 5 (dark) -> the top card (6).  Seat 0 takes the 2 points instead: a new
    # award, figure B 0 -> 2 (not dark: no further message).
    s = _game("AUUUAU", "61234578")
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    assert s.scores.tolist() == [0, 0]  # not credited before the figure choice
    assert sorted(str(a) for a in s.legal_actions()) == ["figure:A", "figure:B"]
    _award(s, 0, 5, "A")
    assert s.phase == "message" and s.current_player == 0 and s.message_card == 6
    assert sorted(str(a) for a in s.legal_actions()) == ["message:carry", "message:points"]
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.figures.tolist() == [[5, 2], [0, 0]]
    assert s.scores.tolist() == [7, 0]
    road, msg = s.score_events
    assert (road.kind, road.player, road.points, road.figure) == ("road", 0, 5, "A")
    assert (msg.kind, msg.player, msg.points, msg.figure, msg.card) == ("message", 0, 2, "B", 6)
    assert s.messages_drawn == 1 and s.messages_seen == [6] and s.message_card is None
    assert s.phase == "place_tile" and s.current_player == 1


def test_figure_not_on_a_dark_space_gives_no_message():
    # As above, but seat 0 moves figure B with the 5 points (B 0 -> 5 is dark as well ->
    # message) and puts the 2 points on B again: 5 -> 7, not dark -> no second message.
    s = _game("AUUUAU", "61234578")
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    _award(s, 0, 5, "B")
    assert s.phase == "message"
    s.apply("message:points")
    _award(s, 0, 2, "B")  # B 5 -> 7
    assert s.figures[0].tolist() == [0, 7]
    assert s.phase == "place_tile" and s.current_player == 1 and s.messages_drawn == 1


def test_only_the_active_player_receives_messages():
    # T1 s0 A(1,0) r1 + follower on its road.  T2 s1 U(-1,0).  T3 s0 U(-2,0).
    # T4 s1 A(-3,0) r3 closes the 5-tile road: 5 points to seat 0 in seat 1's turn.
    # Seat 0 chooses (it receives the points) and moves A 0 -> 5, a dark space, but it is not
    # seat 0's turn: no message; seat 0's next turn starts.
    s = _game("AUUAU", "12345678")
    _play(s, "A 1,0 r1", "road:W", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "A -3,0 r3", "none")
    assert s.active_player == 1
    _award(s, 0, 5, "A")
    assert s.figures.tolist() == [[5, 0], [0, 0]]
    assert s.messages_drawn == 0 and s.message_card is None
    assert s.phase == "place_tile" and s.current_player == 0 and s.active_player == 0


def test_one_message_per_scoring_step():
    # T1 s0 N(0,-1) r3 (city S+W) joins D's city, knight.
    # T2 s1 E(-1,-1) r1 closes {D, N, E}: 6 to seat 0 in seat 1's turn -> figure B 0 -> 6.
    # T3 s0 E(1,-1) r2 = F F C F (city S; W side F on N(0,-1)'s E side F), knight.
    # T4 s1 U(-1,0) (N side F on E(-1,-1)'s S side F).  T5 s0 U(-2,0).  T6 s1 A(-3,0) r3.
    # T7 s0 L(1,0) r0 = C R R R: W road closes the 5-tile road A(-3,0)..D..L(1,0) (follower
    #    on it: 5), N city closes {E(1,-1), L(1,0)} (knight of T3: 4).  One step, two awards:
    #    road 5 -> figure A 0 -> 5 (dark); city 4 -> figure B 6 -> 10 (dark).
    #    Two figures on dark spaces in one step -> exactly one message.
    s = _game("NEEUUALU", "61234578")
    _play(s, "N 0,-1 r3", "city:S", "E -1,-1 r1", "none")
    _award(s, 0, 6, "B")
    _play(s, "E 1,-1 r2", "city:S", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "A -3,0 r3", "none", "L 1,0 r0", "road:W")
    seen = []
    while s.phase == "choose_figure":
        player, points = s.pending_award
        assert player == 0
        seen.append(points)
        s.apply("figure:A" if points == 5 else "figure:B")
    assert sorted(seen) == [4, 5]
    assert s.figures[0].tolist() == [5, 10]
    assert s.phase == "message" and s.message_card == 6
    s.apply("message:points")
    _award(s, 0, 2, "A")  # A 5 -> 7: no further message
    assert s.figures[0].tolist() == [7, 10]
    assert s.messages_drawn == 1
    assert s.phase == "place_tile" and s.current_player == 1


def test_chain_two_point_message_lands_on_a_dark_space_again():
    # T1 s0 M(0,-1) r2 (pennant) joins D's city, knight.
    # T2 s1 E(1,-1) r3 closes {D, M, E}: 8 to seat 0 in seat 1's turn -> figure B 0 -> 8.
    # T3 s0 A(1,0) r1, T4 s1 U(-1,0), T5 s0 U(-2,0), T6 s1 U(0,1) (filler),
    # T7 s0 closes the 5-tile road: A 0 -> 5 -> message 6 -> seat 0 takes 2 points on B:
    #    8 -> 10, dark again -> a second message in the same turn: card 8.  Seat 0 has no
    #    follower on the board (the knight and the road follower came back): carrying out
    #    message 8 gives nothing, and the turn passes.
    s = _game("MEAUUUAU", "68123457")
    _play(s, "M 0,-1 r2", "city:S", "E 1,-1 r3", "none")
    _award(s, 0, 8, "B")
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    _award(s, 0, 5, "A")
    assert s.phase == "message" and s.message_card == 6
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.figures[0].tolist() == [5, 10]
    assert s.phase == "message" and s.message_card == 8 and s.current_player == 0
    s.apply("message:carry")
    assert s.messages_seen == [6, 8]
    assert s.figures[0].tolist() == [5, 10]
    assert s.phase == "place_tile" and s.current_player == 1


def test_chain_message_points_land_on_a_dark_space_again():
    # T1 s0 B(0,1) + monk.  T2 s1 A(1,0) r1.  T3 s0 U(-1,0).  T4 s1 B(1,1), no monk.
    # T5 s0 E(0,-1) r2 (closes D's empty city; not a neighbour of (0,1)).  T6 s1 U(-2,0).
    # T7 s0 road: A 0 -> 5 -> message 3: the cloister (0,1) has neighbours (-1,0), (0,0),
    #    (1,0), (1,1) -> 1 + 4 = 5 -> figure A 5 -> 10, dark -> second message (card 5:
    #    seat 0 has no knight -> it takes the 2 points, B 0 -> 2).
    s = _game("BAUBEUAU", "35124678")
    _play(s, "B 0,1 r0", "cloister", "A 1,0 r1", "none", "U -1,0 r0", "none")
    _play(s, "B 1,1 r0", "none", "E 0,-1 r2", "none", "U -2,0 r0", "none")
    _play(s, "A -3,0 r3", "road:E")
    _award(s, 0, 5, "A")
    assert s.message_card == 3
    s.apply("message:carry")
    _award(s, 0, 5, "A")
    assert s.phase == "message" and s.message_card == 5
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.figures[0].tolist() == [10, 2]
    assert s.scores.tolist() == [12, 0]
    assert s.messages_seen == [3, 5]
    assert s.phase == "place_tile" and s.current_player == 1


def test_end_of_game_adds_both_figures_then_final_scoring_without_messages():
    # T1 s0 M(0,-1) r2 (pennant) joins D's city, knight; it stays incomplete (M's E side open).
    # T2 s1 A(1,0) r1, T3 s0 U(-1,0), T4 s1 U(-2,0), T5 s0 closes the road: A 0 -> 5 ->
    # message 6 (no farmers) -> 2 points on B: [5, 2].  The stack is empty: the game ends.
    # Final scoring: the incomplete city {D, M} = 2 tiles + 1 pennant = 3, added to the sum
    # 5 + 2 = 7 -> 10.  No figure choice and no message then (10 would be a dark space).
    s = _game("MAUUA", "61234578")
    _play(s, "M 0,-1 r2", "city:S", "A 1,0 r1", "none", "U -1,0 r0", "none")
    _play(s, "U -2,0 r0", "none", "A -3,0 r3", "road:E")
    _award(s, 0, 5, "A")
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.is_over and s.phase == "game_over" and s.current_player == -1
    assert s.messages_drawn == 1
    assert s.figures.tolist() == [[5, 2], [0, 0]]
    assert s.scores.tolist() == [10, 0]
    (final,) = [e for e in s.score_events if e.final]
    assert (final.player, final.points, final.kind, final.figure) == (0, 3, "city", None)
    assert s.winners() == [0]
    with pytest.raises(IllegalActionError):
        s.apply("figure:A")


def test_auto_figure_choice_follows_the_documented_rule():
    # auto_figure: the player whose turn it is moves a figure that lands on a multiple of 5
    # if one does (A first); otherwise the figure with the lower total moves (A on a tie).
    # T1 s0 N(0,-1) r3 + knight.  T2 s1 E(-1,-1) r1 closes the city: 6 to seat 0, not its
    #    turn -> lower total, tie 0 = 0 -> A: [6, 0].  No choose_figure decision.
    # T3 s0 A(1,0) r1, T4 s1 U(-1,0), T5 s0 U(-2,0), T6 s1 U(0,1), T7 s0 closes the road:
    #    5 to seat 0 in its turn: A 6 + 5 = 11 is not dark, B 0 + 5 = 5 is -> B: [6, 5]
    #    -> message (card 6).  Seat 0 takes 2 points: 8 and 7 are not dark -> lower total
    #    is B (5 < 6): [6, 7].
    s = _game("NEAUUUAU", "61234578", figure_choice="auto")
    _play(s, "N 0,-1 r3", "city:S", "E -1,-1 r1", "none")
    assert s.phase == "place_tile" and s.current_player == 0
    assert s.figures[0].tolist() == [6, 0]
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    assert s.figures[0].tolist() == [6, 5]
    assert s.phase == "message" and s.message_card == 6 and s.current_player == 0
    s.apply("message:points")
    assert s.figures[0].tolist() == [6, 7]
    assert s.phase == "place_tile" and s.current_player == 1
    assert [(e.kind, e.points, e.figure) for e in s.score_events] == [
        ("city", 6, "A"),
        ("road", 5, "B"),
        ("message", 2, "B"),
    ]
    with pytest.raises(IllegalActionError):
        s.apply("figure:A")


def test_auto_figure_other_player_takes_lower_total_even_next_to_a_dark_space():
    # Seat 0 receives 5 in seat 1's turn (the road of test_only_the_active_player...):
    # figures [0, 0], not its turn -> lower total, tie -> A: [5, 0], no message.
    s = _game("AUUAU", "12345678", figure_choice="auto")
    _play(s, "A 1,0 r1", "road:W", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "A -3,0 r3", "none")
    assert s.figures.tolist() == [[5, 0], [0, 0]]
    assert s.messages_drawn == 0
    assert s.phase == "place_tile" and s.current_player == 0


def test_figure_passing_over_a_dark_space_within_the_step_still_counts():
    # T1 s0 N(0,-1) r3 + knight.  T2 s1 E(-1,-1) r1 closes {D, N, E}: 6 to seat 0 -> A: 6.
    # T3 s0 E(1,-1) r2 + knight (city S).  T4 s1 A(-1,0) r3 (road E ends at its cloister).
    # T5 s0 L(1,0) r0 + follower on its W road: closes the road {A(-1,0), D, L} = 3 and the
    #    city {E(1,-1), L} = 4: two awards in one step.  The engine asks the city first; both
    #    move figure A: 6 -> 10 (a dark space) -> 13.  The figure landed on a dark space
    #    during the step (each feature's points are one move), so seat 0 gets a message.
    s = _game("NEEALU", "61234578")
    _play(s, "N 0,-1 r3", "city:S", "E -1,-1 r1", "none")
    _award(s, 0, 6, "A")
    _play(s, "E 1,-1 r2", "city:S", "A -1,0 r3", "none", "L 1,0 r0", "road:W")
    assert s.pending_award == (0, 4)  # the generated order: city, then road
    _award(s, 0, 4, "A")
    _award(s, 0, 3, "A")
    assert s.figures[0].tolist() == [13, 0]
    assert s.phase == "message" and s.message_card == 6 and s.current_player == 0


def test_message_7_with_an_empty_stack_gives_nothing_and_the_game_ends():
    # The 5-tile road is closed with the last tile of the stack (T5, after the filler U(0,1)):
    # message 7 finds no tile to draw; the turn and the game end.  Final scoring: nothing
    # (no follower left on the board).  Totals: 5 + 0.
    s = _game("AUUUA", "71234568")
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    _award(s, 0, 5, "A")
    assert s.message_card == 7
    s.apply("message:carry")
    assert s.is_over
    assert s.scores.tolist() == [5, 0]
    assert s.discarded == []


def test_message_7_extra_tile_is_the_last_tile_then_the_game_ends():
    # As above with one more tile E in the stack: message 7 draws it; seat 0 places it at
    # (0,-1) r2 with a knight, closing D's city {D, E}: 4 -> figure B 0 -> 4 (not dark).
    # The stack is empty after this turn: the game ends.  Totals 5 + 4 = 9.
    s = _game("AUUUAE", "71234568")
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    _award(s, 0, 5, "A")
    s.apply("message:carry")
    assert s.phase == "place_tile" and s.current_tile == "E" and s.current_player == 0
    _play(s, "E 0,-1 r2", "city:S")
    _award(s, 0, 4, "B")
    assert s.is_over
    assert s.figures.tolist() == [[5, 4], [0, 0]]
    assert s.scores.tolist() == [9, 0]


def test_auto_figure_active_player_both_figures_would_land_moves_a():
    # The plain trigger with figures [0, 0]: 5 lands either figure on 5 -> A (checked first)
    # -> message (card 6) -> the 2 points: 7 / 2 not dark -> lower total B: [5, 2].
    s = _game("AUUUAU", "61234578", figure_choice="auto")
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none", "A -3,0 r3", "road:E")
    assert s.figures[0].tolist() == [5, 0]
    assert s.phase == "message" and s.message_card == 6
    s.apply("message:points")
    assert s.figures[0].tolist() == [5, 2]
    assert s.phase == "place_tile" and s.current_player == 1
