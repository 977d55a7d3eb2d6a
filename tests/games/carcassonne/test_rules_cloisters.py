"""Cloisters: 9 points when all 8 neighbours are placed; 1 + neighbours at the end.

Tiles used: B = F F F F (cloister, all field), any rotation;  A = F F R F (cloister, road S);
U r0 = F R F R (road W-E);  E = C F F F, E r2 = F F C F (city S, the other sides fields).
"""

# Cloister B at (0,1) (its N side, a field, meets D's S field).  Its 8 neighbours:
#   (-1,0) (0,0) (1,0)
#   (-1,1)  [B]  (1,1)
#   (-1,2) (0,2) (1,2)
# (0,0) is the start tile.  The other 7, in this order (every touching side checked):
#   U r0 (1,0): W road meets D's E road; S field meets nothing yet.
#   U r0 (-1,0): E road meets D's W road.
#   B (1,1): N meets U(1,0)'s S field, W meets the cloister's E field.
#   B (-1,1): N meets U(-1,0)'s S field, E meets the cloister's W field.
#   B (0,2): N meets the cloister's S field.
#   E r2 (1,2): N field meets B(1,1), W field meets B(0,2); city S open.
#   E r2 (-1,2): N field meets B(-1,1), E field meets B(0,2); city S open.
CLOISTER_MOVES = [
    "B 0,1 r0",
    "U 1,0 r0",
    "U -1,0 r0",
    "B 1,1 r0",
    "B -1,1 r0",
    "B 0,2 r0",
    "E 1,2 r2",
    "E -1,2 r2",
]


def test_cloister_completed_by_all_eight_neighbours_scores_9(start, play, ev):
    s = start("BUUBBBEEU")  # a 9th tile keeps the game running
    play(s, CLOISTER_MOVES[0], "cloister")  # seat 0 monk
    for move in CLOISTER_MOVES[1:-1]:
        play(s, move, "none")
    # 7 of 8 neighbours (the start tile + 6 placed): not complete yet
    assert ev(s, kind="cloister") == []
    assert s.followers_left[0] == 6
    assert s.current_player == 1  # turn 8 is seat 1's
    play(s, CLOISTER_MOVES[-1], "none")
    cl = ev(s, kind="cloister")
    # the monk's owner scores, although seat 1 completed it
    assert len(cl) == 1 and cl[0].player == 0 and cl[0].points == 9 and not cl[0].final
    assert s.scores.tolist() == [9, 0]
    assert s.followers_left[0] == 7
    assert not s.is_over


def test_incomplete_cloister_at_end_scores_one_plus_neighbours(start, play, ev):
    # B at (0,1) with a monk; then U r0 at (1,0).  Neighbours present: D(0,0), U(1,0) -> 1 + 2 = 3.
    s = start("BU")
    play(s, "B 0,1 r0", "cloister", "U 1,0 r0", "none")
    assert s.is_over
    cl = ev(s, kind="cloister")
    assert len(cl) == 1 and cl[0].player == 0 and cl[0].points == 3 and cl[0].final
    assert s.scores.tolist() == [3, 0]


def test_cloister_with_road_tile_a(start, play):
    # A r1 at (1,0) (cloister, road ending W at D's road).  Monk of seat 0; seat 1 adds
    # U r0 at (-1,0).  Neighbours of (1,0) present at the end: (0,0) only -> 1 + 1 = 2.
    # (U(-1,0) is two cells away.)  The unoccupied road scores nobody.
    s = start("AU")
    play(s, "A 1,0 r1", "cloister", "U -1,0 r0", "none")
    assert s.is_over
    assert s.scores.tolist() == [2, 0]
