"""Cities: completion (2 per tile + 2 per pennant), pennants, ties, majority, and the rule
that a follower may not join an occupied city.

Tiles used (rules table, printed N E S W; rotation r shows printed side (s - r) mod 4 at s):
  D = C R F R, city N, road E+W.       D r0 at (1,0): city N, road W-E.
  E = C F F F, city N.                 E r2 = F F C F (city S);  E r3 = F F F C (city W).
  M = C F F C, city N+W, pennant.      M r2 = F C C F (city E+S); M r3 = F F C C (city S+W).
  N = as M without pennant.            N r2 = F C C F (city E+S); N r3 = F F C C (city S+W).
  R = C C F C, city N+E+W.             R r2 = F C C C (city E+S+W).
  U = F R F R, road E+W.
The start tile D(0,0) has its city on the N side only, so the cell (0,-1) closes it or extends it.
"""

import pytest

from carcassonne_rl.games.carcassonne import IllegalActionError


def test_two_tile_city_scores_4_at_once(start, play, ev):
    # E r2 at (0,-1): its S side (city) meets D's N side (city).  Both tiles have a one-sided
    # city, so the city {D(0,0), E(0,-1)} is complete: 2 tiles x 2 = 4, no pennant.
    # The knight placed this turn scores at once (step 2 before step 3) and comes back.
    s = start("E")
    play(s, "E 0,-1 r2", "city:S")
    city = ev(s, kind="city")
    assert len(city) == 1 and city[0].player == 0 and city[0].points == 4
    assert not city[0].final
    assert set(city[0].tiles) == {(0, 0), (0, -1)}
    assert s.scores.tolist() == [4, 0]
    assert s.followers_left.tolist() == [7, 7]


def test_three_tile_city_with_pennant(start, play, ev):
    # T1 seat 0: M r2 at (0,-1): city S+E (pennant); S meets D's city.  Knight of seat 0.
    # T2 seat 1: E r3 at (1,-1): city W meets M's E side; E's other sides are fields and
    #            (1,0) below it is empty.  City {D, M, E} closed:
    #            3 tiles x 2 + 1 pennant x 2 = 8 for seat 0.
    s = start("MEU")
    play(s, "M 0,-1 r2", "city:S")
    assert ev(s, kind="city") == []
    play(s, "E 1,-1 r3", "none")
    city = ev(s, kind="city")
    assert len(city) == 1 and city[0].player == 0 and city[0].points == 8
    assert set(city[0].tiles) == {(0, 0), (0, -1), (1, -1)}
    assert s.scores.tolist() == [8, 0]
    assert not s.is_over


def test_incomplete_city_with_pennant_at_game_end(start, play, ev):
    # M r2 at (0,-1) extends D's city; M's E side stays open.  Game ends after this tile:
    # incomplete city = 1 per tile (2) + 1 per pennant (1) = 3.
    s = start("M")
    play(s, "M 0,-1 r2", "city:E")  # city:E is the canonical name, city:S the same city
    assert s.is_over
    city = ev(s, kind="city")
    assert len(city) == 1 and city[0].player == 0 and city[0].points == 3 and city[0].final
    assert s.scores.tolist() == [3, 0]


def test_incomplete_city_without_pennant_at_game_end(start, play):
    # N r2 is M r2 without the pennant: 2 tiles x 1 = 2.
    s = start("N")
    play(s, "N 0,-1 r2", "city:S")
    assert s.is_over
    assert s.scores.tolist() == [2, 0]


def test_city_tie_both_players_score_full_and_share_the_win(start, play, ev):
    # T1 seat 0: M r2 at (0,-1) (city S+E, pennant) joins D's city; knight of seat 0.
    # T2 seat 1: D r0 at (1,0): W road meets D(0,0)'s E road; its city N is a NEW city
    #            (nothing at (1,-1) yet) -> knight of seat 1.
    # T3 seat 0: M r3 at (1,-1): city S+W: W meets M(0,-1)'s E city, S meets D(1,0)'s N city.
    #            It joins both occupied cities -> no knight allowed here.
    # City {D(0,0), M(0,-1), M(1,-1), D(1,0)} is closed: 4 tiles x 2 + 2 pennants x 2 = 12.
    # One knight each: both score the full 12.  No other follower: 12-12 at the end, a shared win.
    s = start("MDM")
    play(s, "M 0,-1 r2", "city:S")
    play(s, "D 1,0 r0", "city:N")
    assert ev(s, kind="city") == []
    play(s, "M 1,-1 r3")
    legal = [str(a) for a in s.legal_actions()]
    assert "city:S" not in legal
    with pytest.raises(IllegalActionError):
        s.apply("city:W")
    play(s, "none")
    city = ev(s, kind="city")
    assert sorted((e.player, e.points) for e in city) == [(0, 12), (1, 12)]
    tiles = {(0, 0), (0, -1), (1, -1), (1, 0)}
    assert all(set(e.tiles) == tiles for e in city)
    assert s.followers_left.tolist() == [7, 7]
    assert s.is_over
    assert s.scores.tolist() == [12, 12]
    assert sorted(s.winners()) == [0, 1]


def test_city_majority_two_knights_beat_one(start, play, ev):
    # T1 seat 0: N r2 at (0,-1), city S+E, joins D's city -> knight of seat 0 (city A).
    # T2 seat 1: D r0 at (1,0), new city N (city B) -> knight of seat 1.
    # T3 seat 0: U r0 at (2,0): W road meets D(1,0)'s E road; N side field.  No follower.
    # T4 seat 1: E r3 at (2,-1): city W (city C, new); S side F meets U(2,0)'s N field.
    #            Knight of seat 1.
    # T5 seat 0: R r2 at (1,-1) = F C C C: W city meets N(0,-1)'s E city, S meets D(1,0)'s
    #            N city, E meets E(2,-1)'s W city, N side field (nothing above).  Joins A, B, C.
    # City {D(0,0), N(0,-1), R(1,-1), D(1,0), E(2,-1)}: 5 tiles, no pennant -> 10.
    # Seat 1 has 2 knights, seat 0 has 1: only seat 1 scores.
    s = start("NDUER")
    play(s, "N 0,-1 r2", "city:S")
    play(s, "D 1,0 r0", "city:N")
    play(s, "U 2,0 r0", "none")
    play(s, "E 2,-1 r3", "city:W")
    assert s.followers_left.tolist() == [6, 5]
    play(s, "R 1,-1 r2")
    assert "city:E" not in [str(a) for a in s.legal_actions()]
    play(s, "none")
    city = ev(s, kind="city")
    assert [(e.player, e.points) for e in city] == [(1, 10)]
    assert set(city[0].tiles) == {(0, 0), (0, -1), (1, -1), (1, 0), (2, -1)}
    # every knight on the city returns, the minority one too
    assert s.followers_left.tolist() == [7, 7]
    assert s.scores.tolist() == [0, 10]
    assert s.winners() == [1]


# The join rule, on one small layout (draw order D N N):
#   T1 seat 0: D r0 at (1,0): road W-E continues D(0,0)'s road; city N (a new city X).
#   T2 seat 1: N r2 at (0,-1): city S+E; S joins D(0,0)'s city (city Y = {D(0,0), N(0,-1)}).
#   T3 seat 0: N r3 at (1,-1): city S+W joins Y (W side) and X (S side) and closes the city
#              {D(0,0), N(0,-1), N(1,-1), D(1,0)} = 4 tiles, no pennant = 8.


def test_follower_forbidden_when_tile_joins_an_occupied_and_a_free_city(start, play, ev):
    s = start("DNN")
    play(s, "D 1,0 r0", "city:N")  # X occupied by seat 0
    play(s, "N 0,-1 r2", "none")  # Y free
    play(s, "N 1,-1 r3")
    legal = [str(a) for a in s.legal_actions()]
    assert "none" in legal
    assert "city:S" not in legal
    with pytest.raises(IllegalActionError):
        s.apply("city:S")
    assert s.phase == "place_follower"  # the refused action changed nothing
    play(s, "none")
    city = ev(s, kind="city")
    assert [(e.player, e.points) for e in city] == [(0, 8)]
    assert s.scores.tolist() == [8, 0]


def test_follower_allowed_when_tile_joins_two_free_cities_and_scores_at_once(start, play, ev):
    s = start("DNN")
    play(s, "D 1,0 r0", "none")
    play(s, "N 0,-1 r2", "none")
    play(s, "N 1,-1 r3")
    assert "city:S" in [str(a) for a in s.legal_actions()]
    play(s, "city:W")  # any side of the city names it
    city = ev(s, kind="city")
    assert [(e.player, e.points) for e in city] == [(0, 8)]
    assert s.followers_left.tolist() == [7, 7]
    assert s.scores.tolist() == [8, 0]


def test_tile_joining_cities_of_two_players_gives_a_tie(start, play, ev):
    s = start("DNN")
    play(s, "D 1,0 r0", "city:N")  # seat 0 on X
    play(s, "N 0,-1 r2")
    # N r2 at (0,-1): city S+E (canonical city:E, the first of N E S W), one field
    # touching W and N sides (halves WSW WNW NNW NNE, canonical field:NNW).  Y is free.
    assert sorted(str(a) for a in s.legal_actions()) == ["city:E", "field:NNW", "none"]
    play(s, "city:S")  # seat 1 on Y
    play(s, "N 1,-1 r3", "none")  # seat 0 joins X and Y: 1 knight each
    city = ev(s, kind="city")
    assert sorted((e.player, e.points) for e in city) == [(0, 8), (1, 8)]
    assert s.scores.tolist() == [8, 8]
    assert sorted(s.winners()) == [0, 1]
