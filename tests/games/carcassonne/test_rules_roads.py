"""Roads: completion (1 point per tile), loops, shared majority, incomplete at the end.

Tiles used (rules table, printed N E S W):
  A = F F R F, cloister, road S ends at the cloister.
      A r1 = F F F R (road ends on the W side);  A r3 = F R F F (road E);  A r2 = R F F F (road N).
  U = F R F R, road E+W.  U r0 = F R F R;  U r1 = R F R F (road N+S).
  V = F F R R, road S+W (a curve).
      V r0 = F F R R (road S+W), V r1 = R F F R (W+N), V r2 = R R F F (N+E), V r3 = F R R F (E+S).
  X = R R R R, four roads ending at a crossroads.
"""


def test_road_completed_by_two_cloister_ends_scores_one_per_tile(start, play, ev):
    # D(0,0) road W-E.  A r1 at (1,0): its W side R meets D's E side R; the road ends at
    # A's cloister.  A r3 at (-1,0): its E side R meets D's W side R, ends at that cloister.
    # Road = A(-1,0) + D(0,0) + A(1,0) = 3 tiles, both ends closed -> 3 points to seat 0.
    s = start("AA")
    play(s, "A 1,0 r1", "road:W")  # seat 0, knight on the road (road:W names it)
    assert s.followers_left[0] == 6
    assert s.scores.tolist() == [0, 0]
    play(s, "A -1,0 r3", "none")  # seat 1 closes the road
    road = ev(s, kind="road")
    assert len(road) == 1
    assert road[0].player == 0 and road[0].points == 3 and not road[0].final
    assert set(road[0].tiles) == {(-1, 0), (0, 0), (1, 0)}
    # the follower came back; nothing else scores at the end (no other followers)
    assert s.followers_left[0] == 7
    assert s.is_over
    assert s.scores.tolist() == [3, 0]


def test_road_half_open_is_not_scored_during_the_game(start, play, ev):
    # Only one end closed (A(1,0)); D's W end is open -> no road scoring during play.
    # A third tile keeps the game running.
    s = start("AUU")
    play(s, "A 1,0 r1", "road:W", "U -1,0 r0", "none")
    assert not s.is_over
    assert ev(s, kind="road") == []
    assert s.scores.tolist() == [0, 0]
    assert s.followers_left[0] == 6


def test_road_loop_of_four_curves_counts_each_tile_once(start, play, ev):
    # A closed loop without any end:
    #   (0,1) V r3 = F R R F  road E+S   (N side F meets D's S side F)
    #   (1,1) V r0 = F F R R  road S+W   (W meets (0,1)'s E: R-R)
    #   (0,2) V r2 = R R F F  road N+E   (N meets (0,1)'s S: R-R)
    #   (1,2) V r1 = R F F R  road N+W   (N meets (1,1)'s S, W meets (0,2)'s E: R-R)
    # 4 tiles -> 4 points for seat 0 when seat 1 closes the loop.
    s = start("VVVV")
    play(s, "V 0,1 r3", "road:E")  # seat 0
    play(s, "V 1,1 r0", "none")  # seat 1
    play(s, "V 0,2 r2", "none")  # seat 0
    assert ev(s, kind="road") == []
    play(s, "V 1,2 r1", "none")  # seat 1 closes the loop
    road = ev(s, kind="road")
    assert len(road) == 1 and road[0].player == 0 and road[0].points == 4
    assert set(road[0].tiles) == {(0, 1), (1, 1), (0, 2), (1, 2)}
    assert s.scores.tolist() == [4, 0]
    assert s.followers_left.tolist() == [7, 7]


def test_road_passing_a_crossroads_twice_counts_that_tile_once(start, play, ev):
    # As the loop above, but the last tile is the crossroads X at (1,2).  X's N road and
    # W road both belong to the loop road, which now ends twice at X's crossing:
    # (0,1) -> (1,1) -> X's N arm ... and (0,1) -> (0,2) -> X's W arm: complete.
    # Tiles: (0,1), (1,1), (0,2), (1,2) = 4 (X counted once, not twice) -> 4 points.
    s = start("VVVX")
    play(s, "V 0,1 r3", "road:E", "V 1,1 r0", "none", "V 0,2 r2", "none")
    play(s, "X 1,2 r0", "none")
    road = ev(s, kind="road", final=False)
    assert len(road) == 1 and road[0].player == 0 and road[0].points == 4
    assert set(road[0].tiles) == {(0, 1), (1, 1), (0, 2), (1, 2)}
    # X's E and S roads are unoccupied and incomplete: no points at the end.
    assert s.is_over
    assert s.scores.tolist() == [4, 0]


def test_road_tie_both_players_score_full(start, play, ev):
    # Two separately occupied roads joined by one tile; the finished road is tied 1-1.
    # T1 seat 0: A(1,0) r1 (road ends W at D's E) -> road {D, A(1,0)}, knight of seat 0.
    # T2 seat 1: V(0,1) r0 = F F R R: N side F meets D's S side F; its road S+W is a NEW
    #            road (not connected to D's) -> knight of seat 1 is legal.
    # T3 seat 0: V(-1,1) r2 = R R F F: E side R meets V(0,1)'s W side R (joins seat 1's road).
    # T4 seat 1: V(-1,0) r3 = F R R F: E meets D's W road, S meets V(-1,1)'s N road -> joins
    #            both occupied roads, so no knight may be placed on that road.
    # T5 seat 0: A(0,2) r2 = R F F F: N meets V(0,1)'s S road; closes the road.
    # Road: A(1,0), D(0,0), V(-1,0), V(-1,1), V(0,1), A(0,2) = 6 tiles, ends at 2 cloisters.
    # One knight each -> both score 6.
    s = start("AVVVA")
    play(s, "A 1,0 r1", "road:W")
    play(s, "V 0,1 r0")
    assert "road:S" in [str(a) for a in s.legal_actions()]
    play(s, "road:S")
    play(s, "V -1,1 r2", "none")
    play(s, "V -1,0 r3")
    legal = [str(a) for a in s.legal_actions()]
    assert "road:E" not in legal  # the joining road is occupied (twice)
    play(s, "none")
    assert ev(s, kind="road") == []
    play(s, "A 0,2 r2", "none")
    road = ev(s, kind="road")
    assert sorted((e.player, e.points) for e in road) == [(0, 6), (1, 6)]
    expected_tiles = {(1, 0), (0, 0), (-1, 0), (-1, 1), (0, 1), (0, 2)}
    assert all(set(e.tiles) == expected_tiles for e in road)
    assert s.scores.tolist() == [6, 6]
    assert s.followers_left.tolist() == [7, 7]
    assert s.is_over
    assert sorted(s.winners()) == [0, 1]


def test_incomplete_road_at_game_end_scores_one_per_tile(start, play, ev):
    # U r0 at (1,0) extends D's road east: road D + U = 2 tiles, open at both ends.
    # The game ends after this (only) tile: incomplete road = 1 per tile = 2.
    s = start("U")
    play(s, "U 1,0 r0", "road:E")
    assert s.is_over
    road = ev(s, kind="road")
    assert len(road) == 1 and road[0].player == 0 and road[0].points == 2 and road[0].final
    assert set(road[0].tiles) == {(0, 0), (1, 0)}
    assert s.scores.tolist() == [2, 0]
