"""The Messages (docs/rules/carcassonne.md section 4): one scenario per message card 1-8.

Every expected number is computed by hand from the rules, never by asking the engine.

Common trigger (used by every test): a 5-tile road along y = 0 that seat 0 closes on its
own turn, placing a follower on the closing tile (the road is unoccupied until then):
    A(-3,0) r3 = F R F F  road E ends at its cloister
    U(-2,0) r0, U(-1,0) r0 = F R F R  road W-E
    D(0,0) (start tile, road W-E)
    A(1,0) r1 = F F F R  road W ends at its cloister
-> road of 5 tiles, both ends closed = 5 points to seat 0.  Seat 0 moves figure A
from 0 to 5, a dark space, on its own turn -> it draws the top message card.

Tiles used (printed N E S W; rotation r shows the printed side (s - r) mod 4 at side s):
  B = F F F F cloister.  E = C F F F: E r2 = F F C F (city S), E r0 = city N.
  L = C R R R (city N, three roads ending at a junction): L r2 = R R C R (city S).
  M = C F F C (city N+W, pennant): M r2 = F C C F (city E+S).  N = M without pennant.
  F = F C F C (city E+W, pennant).  U = F R F R: r0 road W-E.
The start tile D(0,0): city N, road W-E, fields {ENE WNW} (north, borders the city) and
{ESE SSE SSW WSW} (south).  A tile north of D needs a city on its S side, a tile south of
D a field on its N side.
"""

import pytest
from helpers.messages import award as _award
from helpers.messages import play as _play

from carcassonne_rl.games.carcassonne import GameConfig, IllegalActionError, new_game


def _game(draw_order, message_order, players=2):
    cfg = GameConfig(players=players, expansions=("messages",))
    return new_game(cfg, draw_order=draw_order, message_order=message_order)


def _close_road_and_draw(s, card, figure_b=0):
    """Seat 0 closes the 5-tile road (follower on the closing tile): 5 points on figure A
    (0 -> 5, a dark space) -> seat 0 draws `card`.  Figure B stays at `figure_b`."""
    assert s.current_player == 0 and s.current_tile == "A"
    _play(s, "A -3,0 r3", "road:E")
    _award(s, 0, 5, "A")
    assert s.phase == "message"
    assert s.current_player == 0 and s.active_player == 0
    assert s.message_card == card
    assert s.figures[0].tolist() == [5, figure_b]


def _message_events(s, card):
    return [e for e in s.score_events if e.kind == "message" and e.card == card]


def test_message_1_scores_the_smallest_road_followers_stay():
    # T1 s0 U(0,1) r0, road W-E south of D (N side F meets D's S field); knight on it.
    # T2 s1 A(1,0) r1 (road end, east of D).
    # T3 s0 U(1,1) r0: W road meets U(0,1)'s E road; N side F meets A(1,0)'s S side F.
    #       Seat 0's road {U(0,1), U(1,1)}: 2 tiles, open at both ends -> end value 2.
    # T4 s1 U(-1,0) r0.
    # T5 s0 L(0,-1) r2 = R R C R: city S closes D's city (nobody on it: no points);
    #       follower on its E road: a 1-tile road, open towards (1,-1) -> end value 1.
    # T6 s1 U(-2,0) r0.   T7 s0 A(-3,0) r3 closes the 5-tile road -> message 1.
    # Smallest road of seat 0: min(2, 1) = 1 (the 1-tile road was placed later, so taking the
    # first road found would give 2).  1 point, figure B: 0 -> 1.  Both followers stay.
    s = _game("UAUULUAU", "12345678")
    _play(s, "U 0,1 r0", "road:E", "A 1,0 r1", "none", "U 1,1 r0", "none")
    _play(s, "U -1,0 r0", "none", "L 0,-1 r2", "road:E", "U -2,0 r0", "none")
    assert s.score_events == []  # the closed city {D, L} had no follower
    _close_road_and_draw(s, 1)
    s.apply("message:carry")
    _award(s, 0, 1, "B")
    (e,) = _message_events(s, 1)
    assert e.player == 0 and e.points == 1 and not e.final and e.figure == "B"
    assert set(e.tiles) == {(0, -1)}
    assert s.figures[0].tolist() == [5, 1]
    assert s.scores.tolist() == [6, 0]
    mine = sorted((f.x, f.y, f.location) for f in s.placed_followers() if f.player == 0)
    assert mine == [(0, -1, "road:E"), (0, 1, "road:E")]
    assert s.followers_left.tolist() == [5, 7]
    # the turn is over: seat 1 places the last U
    assert s.phase == "place_tile" and s.current_player == 1


def test_message_2_scores_the_smallest_city_pennants_count():
    # T1 s0 M(0,-1) r2 (city E+S, pennant) joins D's city; knight.  City {D, M}: open at M's
    #       E side -> end value 2 tiles + 1 pennant = 3.
    # T2 s1 A(1,0) r1.
    # T3 s0 E(0,1) r2 (city S, N side F on D's field); knight.
    # T4 s1 N(0,2) r0 = C F F C: N city meets E(0,1)'s S city, W city open -> city
    #       {E(0,1), N(0,2)}: 2 tiles, no pennant -> end value 2.
    # T5 s0 U(-1,0), T6 s1 U(-2,0), T7 s0 closes the road -> message 2.
    # Smallest city: min(3, 2) = 2 (same tile count; the pennant decides).  Figure A: 5 -> 7.
    s = _game("MAENUUAU", "23456781")
    _play(s, "M 0,-1 r2", "city:S", "A 1,0 r1", "none", "E 0,1 r2", "city:S")
    _play(s, "N 0,2 r0", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _close_road_and_draw(s, 2)
    s.apply("message:carry")
    _award(s, 0, 2, "A")
    (e,) = _message_events(s, 2)
    assert e.points == 2 and set(e.tiles) == {(0, 1), (0, 2)}
    assert s.figures[0].tolist() == [7, 0]
    assert s.scores.tolist() == [7, 0]
    assert len([f for f in s.placed_followers() if f.player == 0]) == 2  # knights stay


def test_message_3_scores_the_smallest_cloister():
    # T1 s0 B(0,1) monk.  T2 s1 A(1,0) r1.  T3 s0 B(1,1) monk (N side F on A's S side F,
    # W side F on B(0,1)).  T4 s1 U(-1,0).  T5 s0 E(0,-1) r2 closes D's city, no follower
    # (no points; (0,-1) neighbours neither cloister).  T6 s1 U(-2,0).  T7 road -> message 3.
    # Cloister (0,1): neighbours (-1,0) U, (0,0) D, (1,0) A, (1,1) B -> 1 + 4 = 5.
    # Cloister (1,1): neighbours (0,0) D, (1,0) A, (0,1) B          -> 1 + 3 = 4.
    # Smallest = 4 (the later cloister).  Figure B: 0 -> 4.
    s = _game("BABUEUAU", "34567812")
    _play(s, "B 0,1 r0", "cloister", "A 1,0 r1", "none", "B 1,1 r0", "cloister")
    _play(s, "U -1,0 r0", "none", "E 0,-1 r2", "none", "U -2,0 r0", "none")
    _close_road_and_draw(s, 3)
    s.apply("message:carry")
    _award(s, 0, 4, "B")
    (e,) = _message_events(s, 3)
    assert e.points == 4
    assert s.figures[0].tolist() == [5, 4]
    assert s.scores.tolist() == [9, 0]
    assert len([f for f in s.placed_followers() if f.player == 0]) == 2  # monks stay


def test_message_4_two_points_per_pennant_in_own_cities():
    # T1 s0 M(0,-1) r2 (pennant) joins D's city; knight.          city 1: 1 pennant
    # T2 s1 A(1,0) r1.
    # T3 s0 M(0,1) r2 = F C C F (pennant; N side F on D's field); knight on its city.
    #                                                                city 2: 1 pennant
    # T4 s1 U(-1,0).  T5 s0 U(-2,0).
    # T6 s1 F(-2,1) r0 = F C F C (pennant; N side F on U(-2,0)'s S field); knight of seat 1.
    # T7 s0 road -> message 4: 2 x (1 + 1) = 4 (seat 1's pennant city does not count).
    s = _game("MAMUUFAU", "45678123")
    _play(s, "M 0,-1 r2", "city:S", "A 1,0 r1", "none", "M 0,1 r2", "city:E")
    _play(s, "U -1,0 r0", "none", "U -2,0 r0", "none", "F -2,1 r0", "city:E")
    _close_road_and_draw(s, 4)
    s.apply("message:carry")
    _award(s, 0, 4, "B")
    (e,) = _message_events(s, 4)
    assert e.player == 0 and e.points == 4
    assert s.figures.tolist() == [[5, 4], [0, 0]]
    assert s.scores.tolist() == [9, 0]


def test_message_5_two_points_per_own_knight():
    # T1 s0 N(0,-1) r2 (city E+S) joins D's city, knight (open towards (1,-1)).
    # T2 s1 A(1,0) r1.  T3 s0 E(0,1) r2 (city S), knight.  T4 s1 U(-1,0).  T5 s0 U(-2,0).
    # T6 s1 E(-1,1) r2 (N side F on U(-1,0), E side F on E(0,1)'s W side F), knight of seat 1.
    # T7 s0 road -> message 5: seat 0 has 2 knights -> 4 (seat 1's knight does not count).
    s = _game("NAEUUEAU", "56781234")
    _play(s, "N 0,-1 r2", "city:S", "A 1,0 r1", "none", "E 0,1 r2", "city:S")
    _play(s, "U -1,0 r0", "none", "U -2,0 r0", "none", "E -1,1 r2", "city:S")
    _close_road_and_draw(s, 5)
    s.apply("message:carry")
    _award(s, 0, 4, "B")
    (e,) = _message_events(s, 5)
    assert e.points == 4
    assert s.figures.tolist() == [[5, 4], [0, 0]]
    assert s.followers_left.tolist() == [5, 6]  # the knights stay on the board


def test_message_6_two_points_per_own_farmer():
    # T1 s0 U(0,1) r0, farmer on its south field {ESE SSE SSW WSW} (cut off by its road).
    # T2 s1 U(1,1) r0 (W road meets U(0,1)), farmer on its north field: joins U(0,1)'s north
    #       field and D's south field, nobody there yet.
    # T3 s0 U(-1,0) r0, farmer on its north field: joins D's north field {ENE WNW}, which is
    #       still separate from D's south field (A(1,0) not placed yet) -> free.
    # T4 s1 A(1,0) r1 (its field joins D's north and south fields: two farmers, legal).
    # T5 s0 E(0,-1) r2, no follower.  T6 s1 U(-2,0).  T7 s0 road -> message 6:
    # seat 0 has 2 farmers -> 4 (seat 1's farmer does not count).  Figure B: 0 -> 4.
    s = _game("UUUAEUAU", "67812345")
    _play(s, "U 0,1 r0", "field:SSE", "U 1,1 r0", "field:NNW", "U -1,0 r0", "field:NNW")
    _play(s, "A 1,0 r1", "none", "E 0,-1 r2", "none", "U -2,0 r0", "none")
    _close_road_and_draw(s, 6)
    s.apply("message:carry")
    _award(s, 0, 4, "B")
    (e,) = _message_events(s, 6)
    assert e.points == 4
    assert s.figures.tolist() == [[5, 4], [0, 0]]
    assert s.followers_left.tolist() == [5, 6]  # farmers stay


def test_message_7_extra_tile_whose_scoring_gives_another_message():
    # T1 s0 N(0,-1) r2 (city E+S) joins D's city, knight.
    # T2 s1 E(1,-1) r3 = F F F C: its W city closes {D, N, E}: 3 tiles x 2 = 6 for seat 0,
    #       received in seat 1's turn: seat 0 moves figure B 0 -> 6 (no message: not its turn).
    # T3 s0 A(1,0) r1 (N side F on E(1,-1)'s S side F).  T4 s1 U(-1,0).
    # T5 s0 E(0,1) r2 (city S), no follower.  T6 s1 U(-2,0).
    # T7 s0 closes the road: A 0 -> 5 -> message 7: seat 0 draws the next tile (E) and
    #    places it at (0,2) r0 (city N) with a knight: city {E(0,1), E(0,2)} closed = 4.
    #    Figure B: 6 -> 10, a dark space: a new scoring step -> second message (card 6,
    #    seat 0 takes the 2 points instead) -> figure A 5 -> 7.
    # Then seat 1 plays the last tile (U): the extra tile did not change the turn order.
    s = _game("NEAUEUAEU", "76812345")
    _play(s, "N 0,-1 r2", "city:S", "E 1,-1 r3", "none")
    assert s.active_player == 1
    _award(s, 0, 6, "B")
    assert s.phase == "place_tile" and s.current_player == 0 and s.messages_drawn == 0
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "E 0,1 r2", "none")
    _play(s, "U -2,0 r0", "none")
    _close_road_and_draw(s, 7, figure_b=6)
    s.apply("message:carry")
    assert s.phase == "place_tile" and s.current_player == 0 and s.current_tile == "E"
    _play(s, "E 0,2 r0", "city:N")
    _award(s, 0, 4, "B")
    assert s.phase == "message" and s.message_card == 6
    s.apply("message:points")
    _award(s, 0, 2, "A")
    assert s.figures[0].tolist() == [7, 10]
    assert s.scores.tolist() == [17, 0]
    assert s.messages_seen == [7, 6]
    assert s.phase == "place_tile" and s.current_player == 1 and s.current_tile == "U"
    (city,) = [e for e in s.score_events if e.kind == "city" and e.points == 4]
    assert set(city.tiles) == {(0, 1), (0, 2)} and city.figure == "B"


def test_message_7_unplaceable_extra_tile_is_discarded():
    # T1 s0 E(0,-1) r2 closes D's city (no follower).  Then the open edges of the board are
    # only roads and fields, so C (C C C C) fits nowhere.
    # T2 s1 A(1,0) r1, T3 s0 U(-1,0), T4 s1 U(-2,0), T5 s0 closes the road -> message 7:
    # the extra draw is C -> discarded, seat 0 draws again: U, placed at (0,1).
    s = _game("EAUUACUU", "78123456")
    _play(s, "E 0,-1 r2", "none", "A 1,0 r1", "none", "U -1,0 r0", "none")
    _play(s, "U -2,0 r0", "none")
    _close_road_and_draw(s, 7)
    s.apply("message:carry")
    assert s.discarded == ["C"]
    assert s.phase == "place_tile" and s.current_player == 0 and s.current_tile == "U"
    _play(s, "U 0,1 r0", "none")
    assert s.phase == "place_tile" and s.current_player == 1 and s.current_tile == "U"
    assert s.figures[0].tolist() == [5, 0]


def test_message_8_recall_a_farmer_with_a_tied_majority_scores_alone():
    # T1 s0 U(-1,0) r0, farmer on its north field (joins D's north field {ENE WNW}).
    # T2 s1 U(0,1) r0, farmer on its north field (joins D's south field, still separate).
    # T3 s0 E(0,-1) r2 closes D's city {D, E}, no follower (no points).
    # T4 s1 A(1,0) r1: its one field (all 8 halves) joins D's north and south fields ->
    #       one field holding one farmer of each seat (a tie).
    # T5 s0 U(-2,0).  T6 s1 B(0,2), no follower.  T7 s0 road -> message 8.
    # Seat 0's only follower on the board is the farmer (the road follower came back).
    # Tie = majority: seat 0 alone scores the field at end-of-game value: it borders one
    # completed city ({D, E}) -> 3 points.  Seat 1 gets nothing and keeps its farmer.
    s = _game("UUEAUBAU", "81234567")
    _play(s, "U -1,0 r0", "field:NNW", "U 0,1 r0", "field:NNW", "E 0,-1 r2", "none")
    _play(s, "A 1,0 r1", "none", "U -2,0 r0", "none", "B 0,2 r0", "none")
    _close_road_and_draw(s, 8)
    s.apply("message:carry")
    assert s.phase == "message_follower" and s.current_player == 0
    assert [str(a) for a in s.legal_actions()] == ["recall -1,0 field:NNW"]
    with pytest.raises(IllegalActionError):
        s.apply("recall 0,1 field:NNW")  # seat 1's farmer
    s.apply("recall -1,0 field:NNW")
    _award(s, 0, 3, "B")
    (e,) = _message_events(s, 8)
    assert e.player == 0 and e.points == 3
    assert [x for x in s.score_events if x.player == 1] == []
    assert s.figures.tolist() == [[5, 3], [0, 0]]
    assert s.followers_left.tolist() == [7, 6]
    assert [(f.player, f.x, f.y) for f in s.placed_followers()] == [(1, 0, 1)]


@pytest.mark.parametrize("card", [1, 2, 3, 4, 5, 6, 8])
def test_message_with_nothing_to_score_gives_nothing(card):
    # The plain trigger (A(1,0), U(-1,0), U(-2,0) and a U at (0,1), nobody else's
    # followers): when seat 0 draws its message it has no follower left on the board
    # (the road follower came back).  Carrying out 1-6 or 8 gives nothing (no award, no
    # figure choice) and the turn passes.
    order = str(card) + "".join(c for c in "12345678" if c != str(card))
    s = _game("AUUUAU", order)
    _play(s, "A 1,0 r1", "none", "U -1,0 r0", "none", "U -2,0 r0", "none")
    _play(s, "U 0,1 r0", "none")
    _close_road_and_draw(s, card)
    assert "message:carry" in [str(a) for a in s.legal_actions()]
    s.apply("message:carry")
    assert s.phase == "place_tile" and s.current_player == 1
    assert s.figures.tolist() == [[5, 0], [0, 0]]
    assert [e.kind for e in s.score_events] == ["road"]
    assert s.messages_seen == [card]


def test_message_8_recall_a_monk_scores_its_cloister_and_can_chain():
    # The board of the message 3 test: seat 0's monks on (0,1) (1 + 4 neighbours = 5) and
    # (1,1) (1 + 3 = 4).  Message 8 on the monk of (0,1): alone on its cloister -> 5 at
    # end-of-game value; figure A 5 -> 10, a dark space -> the next card (2) in the same turn;
    # seat 0 takes its 2 points on B.  The monk of (1,1) stays.
    s = _game("BABUEUAU", "82345671")
    _play(s, "B 0,1 r0", "cloister", "A 1,0 r1", "none", "B 1,1 r0", "cloister")
    _play(s, "U -1,0 r0", "none", "E 0,-1 r2", "none", "U -2,0 r0", "none")
    _close_road_and_draw(s, 8)
    s.apply("message:carry")
    assert sorted(str(a) for a in s.legal_actions()) == [
        "recall 0,1 cloister",
        "recall 1,1 cloister",
    ]
    s.apply("recall 0,1 cloister")
    _award(s, 0, 5, "A")
    assert s.phase == "message" and s.message_card == 2
    s.apply("message:points")
    _award(s, 0, 2, "B")
    assert s.figures[0].tolist() == [10, 2]
    assert [(f.x, f.y) for f in s.placed_followers()] == [(1, 1)]
    assert s.followers_left.tolist() == [6, 7]


@pytest.mark.parametrize("card,points", [(4, 2), (5, 4), (2, 5)])
def test_two_own_knights_in_one_city(card, points):
    # T1 s0 M(0,-1) r2 (city E+S, pennant) joins D's city, knight.
    # T2 s1 U(-1,0).
    # T3 s0 L(1,0) r0 (road W ends at its junction: the east end of the road; city N is a new
    #       city, (1,-1) still empty) + knight on its city.
    # T4 s1 R(1,-1) r2 = F C C C: W city meets M's E city, S city meets L's N city -> one city
    #       {D, M, R, L} with both knights of seat 0, open at R's E side; 1 pennant.
    # T5 s0 U(-2,0).  T6 s1 U(0,1) (filler).  T7 s0 A(-3,0) r3 closes the road
    #       A(-3,0), U(-2,0), U(-1,0), D, L(1,0) = 5 -> message `card`:
    # 4: pennants of the cities with a knight of seat 0, each city once: 1 x 2 = 2.
    # 5: 2 per own knight: 2 knights -> 4.
    # 2: the smallest (only) city, end-of-game value 4 tiles + 1 pennant = 5 -> figure B 0 -> 5.
    order = str(card) + "".join(c for c in "12345678" if c != str(card))
    s = _game("MULRUUAU", order)
    _play(s, "M 0,-1 r2", "city:S", "U -1,0 r0", "none", "L 1,0 r0", "city:N")
    _play(s, "R 1,-1 r2", "none", "U -2,0 r0", "none", "U 0,1 r0", "none")
    assert s.followers_left.tolist() == [5, 7]
    _close_road_and_draw(s, card)
    s.apply("message:carry")
    _award(s, 0, points, "B")
    assert s.figures[0].tolist() == [5, points]
    if points == 5:  # B landed on 5: another message (the next card, 1) in the same turn
        assert s.phase == "message" and s.message_card == 1
    else:
        assert s.phase == "place_tile" and s.current_player == 1
