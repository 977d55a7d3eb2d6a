"""The Labyrinth (docs/rules/carcassonne.md section 5): follower exceptions, network
completion and bonus, the end-of-game value, two labyrinths in one network.

Every expected number is computed by hand from the rules, never by asking the engine.

Tile Y (labyrinth): R R R R, the four roads meet in the labyrinth (follower location
`labyrinth`), four corner fields.  In every test Y lies at (1,0) r0: its W exit meets the
start tile D's E road, so D's road is the labyrinth's west arm (open at D's W side unless
something closes it at (-1,0)).

Other tiles (printed N E S W; rotation r shows the printed side (s - r) mod 4 at side s):
  A = F F R F (road S ends at a cloister): A r0 road S, A r2 = R F F F road N, A r3 road E.
  U = F R F R: U r0 road W-E, U r1 = R F R F road N-S.
  V = F F R R (curve S+W): V r0 S+W, V r1 = R F F R (W+N), V r3 = F R R F (E+S).
  W = F R R R (three roads ending at a junction): W r0 = F R R R, W r2 = R R F R,
      W r3 = R R R F.
  L = C R R R (city N, roads E, S, W ending at a junction): L r0.
Roads ending at a cloister (A) or a junction (W, L) are closed there.
"""

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, IllegalActionError, new_game


def _game(draw_order, players=2, labyrinth_tiles=2):
    cfg = GameConfig(players=players, expansions=("labyrinth",), labyrinth_tiles=labyrinth_tiles)
    return new_game(cfg, draw_order=draw_order)


def _play(s, *moves):
    for m in moves:
        s.apply(m)


def _legal(s):
    return [str(a) for a in s.legal_actions()]


def _lab_events(s):
    return [e for e in s.score_events if e.kind == "labyrinth"]


def test_seed_example_eight_tiles_five_followers_tied_majority_scores_18_each():
    # 3 players, followers 2 (seat 0) - 2 (seat 1) - 1 (seat 2):
    # T1 s0 U(-1,0) r0 + follower on the road {D, U(-1,0)} (no labyrinth yet).
    # T2 s1 Y(1,0) + follower on the labyrinth, although the connected road is occupied.
    # T3 s2 U(1,-1) r1 (road N-S) at the N exit + follower: that arm is empty.
    # T4 s0 W(2,0) r0 at the E exit (its W road ends at the junction) + follower: empty arm.
    # T5 s1 W(1,1) r2 at the S exit (its N road ends at the junction) + follower: empty arm.
    # T6 s2 A(-2,0) r3 closes the W arm (A(-2,0), U(-1,0), D).
    # T7 s0 A(1,-2) r0 closes the N arm (U(1,-1), A(1,-2)): every road is complete.
    # Network tiles: Y, D, U(-1,0), A(-2,0), U(1,-1), A(1,-2), W(2,0), W(1,1) = 8.
    # Seats 0 and 1 tie with 2 followers: each scores 8 + 2 x 5 followers = 18; seat 2: 0.
    s = _game("UYUWWAA", players=3)
    _play(s, "U -1,0 r0", "road:E")
    _play(s, "Y 1,0 r0")
    assert "labyrinth" in _legal(s)
    _play(s, "labyrinth")
    _play(s, "U 1,-1 r1")
    assert "road:N" in _legal(s)
    _play(s, "road:N")
    _play(s, "W 2,0 r0")
    assert "road:W" in _legal(s)
    _play(s, "road:W")
    _play(s, "W 1,1 r2")
    assert "road:N" in _legal(s)
    _play(s, "road:N")
    assert s.followers_left.tolist() == [5, 5, 6]
    _play(s, "A -2,0 r3", "none")
    assert _lab_events(s) == []  # the N arm is still open
    _play(s, "A 1,-2 r0", "none")
    lab = _lab_events(s)
    assert sorted((e.player, e.points) for e in lab) == [(0, 18), (1, 18)]
    network = {(1, 0), (0, 0), (-1, 0), (-2, 0), (1, -1), (1, -2), (2, 0), (1, 1)}
    assert all(set(e.tiles) == network and not e.final for e in lab)
    assert [e for e in s.score_events if e.kind == "road"] == []
    assert s.followers_left.tolist() == [7, 7, 7]
    assert s.is_over
    assert s.scores.tolist() == [18, 18, 0]


def test_follower_exceptions_both_ways_and_end_of_game_value():
    # T1 s0 Y(1,0) + follower on the labyrinth.
    # T2 s1 U(1,-1) r1 at the N exit: its arm is empty -> follower allowed (centre occupied).
    # T3 s0 U(2,-1) r1: an ordinary N-S road next to U(1,-1) (fields meet), not connected to
    #       anything: follower allowed as usual.
    # T4 s1 U(1,-2) r1 extends the N arm, occupied by seat 1's own follower -> no follower.
    # T5 s0 V(2,0) r1 (W+N): at the E exit, but its road also joins the ordinary road of
    #       U(2,-1), occupied -> no follower on that road (the normal rule).
    # T6 s1 W(1,1) r2 at the S exit: allowed although the labyrinth, the N arm and the E arm
    #       are occupied (its arm is empty).
    # The game ends with the network incomplete (W arm open at D, N arm open at U(1,-2),
    # E arm open at U(2,-1)'s N side).  Network: Y, D, U(1,-1), U(1,-2), V(2,0), U(2,-1),
    # W(1,1) = 7 tiles.  Followers 2 - 2: a tie, each scores 1 per tile = 7, no bonus.
    s = _game("YUUUVW")
    _play(s, "Y 1,0 r0", "labyrinth")
    _play(s, "U 1,-1 r1")
    assert "road:N" in _legal(s)
    _play(s, "road:N")
    _play(s, "U 2,-1 r1")
    assert "road:N" in _legal(s)
    _play(s, "road:N")
    _play(s, "U 1,-2 r1")
    assert "road:N" not in _legal(s)
    with pytest.raises(IllegalActionError):
        s.apply("road:S")
    _play(s, "none")
    _play(s, "V 2,0 r1")
    legal = _legal(s)
    assert "road:N" not in legal and "road:W" not in legal
    with pytest.raises(IllegalActionError):
        s.apply("road:W")
    _play(s, "none")
    _play(s, "W 1,1 r2")
    assert "road:N" in _legal(s)
    _play(s, "road:N")
    assert s.is_over
    lab = _lab_events(s)
    assert sorted((e.player, e.points) for e in lab) == [(0, 7), (1, 7)]
    network = {(1, 0), (0, 0), (1, -1), (1, -2), (2, 0), (2, -1), (1, 1)}
    assert all(set(e.tiles) == network and e.final for e in lab)
    # nothing else scores: W(1,1)'s E and W roads are empty, no farmers
    assert s.scores.tolist() == [7, 7]


def test_incomplete_labyrinth_with_one_follower_at_the_end():
    # Y(1,0) + seat 0's follower; nothing else.  Network: Y and D (the W arm) = 2 tiles,
    # incomplete -> 2 points, no bonus for the follower.
    s = _game("Y")
    _play(s, "Y 1,0 r0", "labyrinth")
    assert s.is_over
    (e,) = _lab_events(s)
    assert (e.player, e.points, e.final) == (0, 2, True)
    assert set(e.tiles) == {(1, 0), (0, 0)}
    assert s.scores.tolist() == [2, 0]


def test_completed_network_majority_scores_tiles_and_bonus():
    # T1 s0 Y(1,0) + labyrinth.  T2 s1 A(1,-1) r0 (road S ends at its cloister) at the N
    # exit + follower on that road (empty arm).  T3 s0 A(1,1) r2 at the S exit + follower.
    # T4 s1 W(2,0) r0 closes the E arm, no follower.  The W arm (D) is still open: no score.
    # T5 s0 L(-1,0) r0 (roads end at its junction) closes the W arm.  Complete network:
    # Y, D, L(-1,0), A(1,-1), A(1,1), W(2,0) = 6 tiles; followers: seat 0 two, seat 1 one.
    # Seat 0 alone: 6 + 2 x 3 followers = 12.  Seat 1 (minority): nothing.
    s = _game("YAAWL")
    _play(s, "Y 1,0 r0", "labyrinth", "A 1,-1 r0", "road:S", "A 1,1 r2", "road:N")
    _play(s, "W 2,0 r0", "none")
    assert _lab_events(s) == []
    assert s.followers_left.tolist() == [5, 6]
    _play(s, "L -1,0 r0", "none")
    (e,) = _lab_events(s)
    assert (e.player, e.points, e.final) == (0, 12, False)
    assert set(e.tiles) == {(1, 0), (0, 0), (-1, 0), (1, -1), (1, 1), (2, 0)}
    assert s.followers_left.tolist() == [7, 7]  # every follower of the network returns
    assert s.is_over
    assert s.scores.tolist() == [12, 0]


def test_two_labyrinths_form_one_network_scored_once():
    # T1 s0 Y(1,0) + labyrinth.
    # T2 s1 Y(2,0): its W exit meets Y(1,0)'s E exit; follower on this labyrinth is allowed
    #       although the connected labyrinth is occupied (placer's exception).
    # T3 s0 W(3,0) r0 at Y(2,0)'s E exit + follower (empty arm).
    # T4 s1 L(-1,0) r0 closes the W arm (D).  T5 s0 A(1,-1) r0, T6 s1 W(2,-1) r3 (W side F on
    # A's E side F), T7 s0 A(1,1) r2, T8 s1 W(2,1) r3 close the four N/S exits.
    # One network: Y, Y, D, L(-1,0), A(1,-1), W(2,-1), A(1,1), W(2,1), W(3,0) = 9 tiles.
    # Followers: seat 0 two (Y(1,0), W(3,0)), seat 1 one (Y(2,0)) -> seat 0: 9 + 2 x 3 = 15,
    # scored once (one event).
    s = _game("YYWLAWAW")
    _play(s, "Y 1,0 r0", "labyrinth", "Y 2,0 r0")
    assert "labyrinth" in _legal(s)
    _play(s, "labyrinth", "W 3,0 r0")
    assert "road:W" in _legal(s)
    _play(s, "road:W", "L -1,0 r0", "none", "A 1,-1 r0", "none", "W 2,-1 r3", "none")
    _play(s, "A 1,1 r2", "none")
    assert _lab_events(s) == []
    _play(s, "W 2,1 r3", "none")
    lab = _lab_events(s)
    assert [(e.player, e.points) for e in lab] == [(0, 15)]
    network = {(1, 0), (2, 0), (0, 0), (-1, 0), (1, -1), (2, -1), (1, 1), (2, 1), (3, 0)}
    assert set(lab[0].tiles) == network and len(lab[0].tiles) == 9
    assert s.followers_left.tolist() == [7, 7]
    assert s.is_over
    assert s.scores.tolist() == [15, 0]


def test_road_looping_from_one_exit_to_another_is_part_of_the_network():
    # T1 s0 Y(1,0) + labyrinth.
    # T2 s1 V(1,-1) r3 (E+S) at the N exit + follower (empty arm).
    # T3 s0 V(2,-1) r0 (S+W).  T4 s1 V(2,0) r1 (W+N): the road N exit -> V -> V -> V -> E exit
    # returns to the labyrinth.  It is not an ordinary closed loop (no road scoring), and V(2,0)
    # extends the occupied arm -> no follower on its road.
    # T5 s0 L(-1,0) r0 closes the W arm; T6 s1 W(1,1) r2 closes the S exit: network complete.
    # Tiles: Y, V(1,-1), V(2,-1), V(2,0), D, L(-1,0), W(1,1) = 7; followers 1 - 1 (tie):
    # each scores 7 + 2 x 2 = 11.
    s = _game("YVVVLW")
    _play(s, "Y 1,0 r0", "labyrinth", "V 1,-1 r3", "road:E", "V 2,-1 r0", "none")
    _play(s, "V 2,0 r1")
    assert "road:N" not in _legal(s) and "road:W" not in _legal(s)
    _play(s, "none")
    assert [e for e in s.score_events if not e.final] == []
    _play(s, "L -1,0 r0", "none")
    assert _lab_events(s) == []
    _play(s, "W 1,1 r2", "none")
    lab = _lab_events(s)
    assert sorted((e.player, e.points) for e in lab) == [(0, 11), (1, 11)]
    network = {(1, 0), (1, -1), (2, -1), (2, 0), (0, 0), (-1, 0), (1, 1)}
    assert all(set(e.tiles) == network for e in lab)
    assert [e for e in s.score_events if e.kind == "road"] == []
    assert s.scores.tolist() == [11, 11]


def test_labyrinth_tile_fits_only_with_roads_and_its_fields_are_ordinary():
    # Y has roads on all four sides: it cannot lie south of D (D's S side is a field) nor
    # north of D (city).  East of D every rotation fits (Y looks the same in each).
    # Its corner fields are ordinary fields: a farmer on field:NNE of Y(1,0) is allowed.
    s = _game("Y")
    legal = _legal(s)
    assert "Y 1,0 r0" in legal and "Y -1,0 r0" in legal
    assert not any(a.split()[1] in ("0,1", "0,-1") for a in legal)
    _play(s, "Y 1,0 r0")
    assert "field:NNE" in _legal(s)
    _play(s, "field:NNE")
    assert s.is_over
    # final: no completed city -> the farmer scores 0; the empty network scores nobody
    assert s.scores.tolist() == [0, 0]


def test_labyrinth_tile_count_is_configurable():
    # The seed's material is 2 labyrinth tiles (rules decision: both shuffled in by default).
    with pytest.raises(ValueError):
        _game("YYY")
    s = _game("YYY", labyrinth_tiles=3)
    assert s.current_tile == "Y"
    # without the expansion there is no labyrinth tile to draw
    with pytest.raises(ValueError):
        new_game(GameConfig(players=2), draw_order="Y")
    deck = new_game(GameConfig(players=2, seed=5, expansions=("labyrinth",))).draw_order
    assert len(deck) == 73 and deck.count("Y") == 2
    assert "Y" not in new_game(GameConfig(players=2, seed=5)).draw_order


def test_labyrinth_placed_into_a_ready_pocket_completes_at_once():
    # Every exit of (1,0) is prepared before the labyrinth comes:
    # T1 s0 L(-1,0) r0: its E road meets D's W road: road {L, D} ends at L's junction.
    # T2 s1 E(0,-1) r2 closes D's city (no follower).
    # T3 s0 A(1,-1) r0 (road S, W side F on E's E side F) + follower on its road.
    # T4 s1 B(2,-1) (fields only).  T5 s0 W(2,0) r0 (N side F on B) + follower on its W road.
    # T6 s1 B(0,1).  T7 s0 A(1,1) r2 (road N; W side F on B(0,1)) + follower on its road.
    # T8 s1 Y(1,0): all four sides meet roads; follower on the labyrinth is allowed though
    #    every connected road is occupied.  The network is complete at once:
    #    Y, D, L(-1,0), A(1,-1), W(2,0), A(1,1) = 6 tiles, followers: seat 0 three, seat 1
    #    one -> seat 0 alone: 6 + 2 x 4 = 14.
    s = _game("LEABWBAY")
    _play(s, "L -1,0 r0", "none", "E 0,-1 r2", "none", "A 1,-1 r0", "road:S")
    _play(s, "B 2,-1 r0", "none", "W 2,0 r0", "road:W", "B 0,1 r0", "none")
    _play(s, "A 1,1 r2", "road:N")
    assert s.score_events == []
    _play(s, "Y 1,0 r0")
    assert "labyrinth" in _legal(s)
    _play(s, "labyrinth")
    (e,) = _lab_events(s)
    assert (e.player, e.points, e.final) == (0, 14, False)
    assert set(e.tiles) == {(1, 0), (0, 0), (-1, 0), (1, -1), (2, 0), (1, 1)}
    assert s.followers_left.tolist() == [7, 7]
    assert s.scores.tolist() == [14, 0]


def test_exit_tile_joining_an_empty_ordinary_road_may_take_a_follower():
    # T1 s0 Y(1,0) + labyrinth.  T2 s1 U(1,-1) r1 at the N exit, no follower.
    # T3 s0 U(2,-1) r1: an ordinary N-S road, no follower.
    # T4 s1 V(2,0) r1 (W+N) at the E exit joins U(2,-1)'s road: that arm (V, U(2,-1)) is
    # empty -> a follower is allowed although the labyrinth is occupied.
    s = _game("YUUV")
    _play(s, "Y 1,0 r0", "labyrinth", "U 1,-1 r1", "none", "U 2,-1 r1", "none")
    _play(s, "V 2,0 r1")
    assert "road:N" in _legal(s)
    _play(s, "road:N")
    assert [(f.player, f.x, f.y) for f in s.placed_followers() if f.player == 1] == [(1, 2, 0)]
