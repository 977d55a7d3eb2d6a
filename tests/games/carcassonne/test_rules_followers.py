"""Followers: 7 per player, returned from scored roads/cities/cloisters (reusable from the
next turn), farmers stay, no follower on an occupied feature, none when the supply is empty.

Tiles used (printed N E S W): A = F F R F (cloister, road S), A r1 = F F F R;
A r3 = F R F F; A r0 = F F R F.  U = F R F R: U r0 road W-E, U r1 = R F R F road N-S.
B = F F F F (cloister).  E = C F F F: E r1 = F C F F (city E), E r2 = F F C F (city S),
E r3 = F F F C (city W).
"""

import pytest

from carcassonne_rl.games.carcassonne import IllegalActionError


def test_start_supply_and_follower_options_on_a_road_tile(start, play):
    s = start("UU")
    assert s.followers_left.tolist() == [7, 7]
    assert s.phase == "place_tile" and s.current_player == 0 and s.current_tile == "U"
    play(s, "U 1,0 r0")
    assert s.phase == "place_follower" and s.current_player == 0
    # U r0 at (1,0): one road (sides E, W -> canonical road:E), the north field
    # {WNW NNW NNE ENE} (canonical field:NNW) and the south field {ESE SSE SSW WSW}
    # (canonical field:ESE).  No city, no cloister.  Nothing is occupied yet.
    legal = sorted(str(a) for a in s.legal_actions())
    assert legal == sorted(["none", "road:E", "field:NNW", "field:ESE"])
    play(s, "road:W")  # the same road, named by its other side
    assert s.followers_left.tolist() == [6, 7]
    pf = s.placed_followers()
    assert len(pf) == 1
    assert (pf[0].player, pf[0].x, pf[0].y) == (0, 1, 0)
    assert pf[0].location == "road:E"
    assert pf[0].kind == "road"
    assert s.current_player == 1 and s.phase == "place_tile"


def test_follower_forbidden_on_an_occupied_road(start, play):
    # Seat 0's knight on the road D + U(1,0).  Seat 1 extends it with U r0 at (2,0):
    # the road is occupied, the fields are not.
    s = start("UU")
    play(s, "U 1,0 r0", "road:E", "U 2,0 r0")
    legal = [str(a) for a in s.legal_actions()]
    assert "road:E" not in legal
    assert "field:NNW" in legal and "field:ESE" in legal and "none" in legal
    with pytest.raises(IllegalActionError):
        s.apply("road:E")
    with pytest.raises(IllegalActionError):
        s.apply("road:W")
    assert s.followers_left.tolist() == [6, 7]
    play(s, "field:ESE")
    assert s.followers_left.tolist() == [6, 6]


def test_follower_returns_after_scoring_and_is_reused_next_turn(start, play):
    # T1 seat 0: A r1 at (1,0), knight on the road -> 6 left.
    # T2 seat 1: A r3 at (-1,0) closes the road A-D-A: 3 points to seat 0, knight back -> 7.
    # T3 seat 0: U r1 at (2,0): road N-S; its W side is a field, as is A(1,0)'s E side.
    #            The returned knight is placed again -> 6.  This one-tile road is incomplete
    #            at the end: 1 point.  Total 3 + 1 = 4.
    s = start("AAU")
    play(s, "A 1,0 r1", "road:W")
    assert s.followers_left[0] == 6
    play(s, "A -1,0 r3", "none")
    assert s.followers_left[0] == 7
    assert s.scores.tolist() == [3, 0]
    assert s.placed_followers() == []
    play(s, "U 2,0 r1", "road:N")
    assert s.is_over
    assert s.scores.tolist() == [4, 0]


def test_farmer_stays_when_its_city_is_completed(start, play):
    # E r2 at (0,-1) with a farmer closes D's city (scored by nobody: no knight).
    # The farmer is not returned.
    s = start("EU")
    play(s, "E 0,-1 r2", "field:NNW")
    assert not s.is_over
    assert s.followers_left.tolist() == [6, 7]
    assert len(s.placed_followers()) == 1


# Seat 0 spends all 7 followers on separate features while seat 1 extends D's road west:
#   seat 0: B (0,1) monk, B (1,1) monk, B (2,1) monk, B (3,1) monk (a row of all-field tiles,
#           each W side meets the previous one's E field; (0,1)'s N meets D's S field),
#           A r0 (4,1) monk, A r0 (5,1) monk (W/N/E sides fields, road S into the void),
#           E r1 (6,1): city E (W side field meets A(5,1)'s E field) knight -> 0 left.
#   seat 1: U r0 at (-1,0) ... (-7,0), each E road meets the road to its east, no follower.
# T15 seat 0: E r2 at (0,2) (N field meets B(0,1)'s S field): no follower left.
# T16 seat 1: E r3 at (7,1): city W meets E(6,1)'s city E -> 2-tile city = 4 for seat 0,
#             whose knight comes back (1 left).
# T17 seat 0: U r0 at (-8,0), the returned knight on the (free) long road -> 0 left.
# Final scoring (seat 0):
#   monk (0,1): neighbours (-1,0) U, (0,0) D, (1,1) B, (0,2) E      -> 1 + 4 = 5
#   monk (1,1): neighbours (0,0) D, (0,1) B, (2,1) B, (0,2) E        -> 1 + 4 = 5
#   monks (2,1), (3,1), (4,1), (5,1): 2 neighbours each (row)       -> 4 x 3 = 12
#   road D(0,0) + U(-1..-8,0): 9 tiles, open both ends              -> 9
# Total seat 0: 4 + 5 + 5 + 12 + 9 = 35; seat 1: 0.
EXHAUST_ORDER = "BUBUBUBUAUAUEUEEU"
EXHAUST_MOVES = [
    ("B 0,1 r0", "cloister"),
    ("U -1,0 r0", "none"),
    ("B 1,1 r0", "cloister"),
    ("U -2,0 r0", "none"),
    ("B 2,1 r0", "cloister"),
    ("U -3,0 r0", "none"),
    ("B 3,1 r0", "cloister"),
    ("U -4,0 r0", "none"),
    ("A 4,1 r0", "cloister"),
    ("U -5,0 r0", "none"),
    ("A 5,1 r0", "cloister"),
    ("U -6,0 r0", "none"),
    ("E 6,1 r1", "city:E"),
    ("U -7,0 r0", "none"),
]


def test_no_follower_when_supply_is_empty_then_returned_one_is_reusable(start, play, ev):
    s = start(EXHAUST_ORDER)
    for tile_move, follower_move in EXHAUST_MOVES:
        play(s, tile_move, follower_move)
    assert s.followers_left.tolist() == [0, 7]
    assert s.scores.tolist() == [0, 0]
    play(s, "E 0,2 r2")  # seat 0, city S free, but no follower left
    if s.phase == "place_follower":
        assert [str(a) for a in s.legal_actions()] == ["none"]
    with pytest.raises(IllegalActionError):
        s.apply("city:S")
    if s.phase == "place_follower":
        play(s, "none")
    assert s.current_player == 1
    play(s, "E 7,1 r3", "none")  # seat 1 closes seat 0's 2-tile city
    assert s.scores.tolist() == [4, 0]
    assert s.followers_left.tolist() == [1, 7]
    assert s.current_player == 0
    play(s, "U -8,0 r0")
    assert "road:E" in [str(a) for a in s.legal_actions()]
    play(s, "road:E")
    assert s.is_over
    final0 = sum(e.points for e in ev(s, player=0, final=True))
    assert final0 == 5 + 5 + 12 + 9
    assert sorted(e.points for e in ev(s, kind="cloister", player=0)) == [3, 3, 3, 3, 5, 5]
    assert s.scores.tolist() == [35, 0]
