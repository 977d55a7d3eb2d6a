"""Turn order, draws, unplaceable tiles, the end of the game and the winners."""

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, IllegalActionError, new_game

# Tile counts of the box (rules section 2); the start tile is one of the 4 D.
BOX = dict(
    A=2,
    B=4,
    C=1,
    D=4,
    E=5,
    F=2,
    G=1,
    H=3,
    I=2,
    J=3,
    K=3,
    L=3,
    M=2,
    N=3,
    O=2,
    P=3,
    Q=1,
    R=3,
    S=2,
    T=1,
    U=8,
    V=9,
    W=4,
    X=1,
)


def test_start_tile_and_first_turn(start):
    s = start("U")
    assert s.tile_at(0, 0) == ("D", 0)
    assert s.tile_at(1, 0) is None
    assert s.current_player == 0 and s.phase == "place_tile" and s.current_tile == "U"
    assert s.turn == 0
    assert s.scores.tolist() == [0, 0]
    assert not s.is_over and s.winners() == []
    # U (F R F R) next to D (C R F R): east of D needs a road on U's W side: r0 (and r2,
    # the same edges) fit, r1 (W = printed S = F) does not; north of D needs a city.
    legal = [str(a) for a in s.legal_actions()]
    assert "U 1,0 r0" in legal and "U -1,0 r0" in legal and "U 0,1 r0" in legal
    assert "U 1,0 r1" not in legal
    assert not any(a.split()[1] == "0,-1" for a in legal)


def test_players_take_turns_in_seat_order_three_players(start, play):
    # A road of U r0 tiles east and west of D; nobody places followers.
    s = start("UUUU", players=3)
    seen = []
    for move in ["U 1,0 r0", "U 2,0 r0", "U 3,0 r0", "U -1,0 r0"]:
        seen.append(s.current_player)
        play(s, move)
        assert s.current_player == seen[-1]  # the same player decides on the follower
        play(s, "none")
    assert seen == [0, 1, 2, 0]
    assert s.scores.tolist() == [0, 0, 0]
    assert s.tile_at(3, 0) == ("U", 0)


def test_unplaceable_tile_is_discarded_and_the_player_draws_again(start, play):
    # After E r2 at (0,-1) (closing D's city), every open edge of the board is a road or a
    # field:  E(0,-1) shows fields N, E, W; D shows road E, road W, field S.  Every empty
    # cell next to the board touches at least one of them, and C (C C C C) needs a city on
    # every touching side -> C fits nowhere.  Seat 1 draws C, it is removed, seat 1 draws U.
    s = start("ECU")
    play(s, "E 0,-1 r2", "none")
    assert s.discarded == ["C"]
    assert s.current_player == 1
    assert s.current_tile == "U"
    assert s.phase == "place_tile"
    assert s.remaining_tiles().get("C", 0) == 0
    play(s, "U 1,0 r0", "none")
    assert s.is_over
    assert s.discarded == ["C"]
    assert s.tile_at(1, 0) == ("U", 0)


def test_game_ends_when_only_unplaceable_tiles_remain(start, play):
    # Same board; the last tile C fits nowhere -> discarded, the stack is empty: game over.
    s = start("EC")
    play(s, "E 0,-1 r2", "city:S")
    assert s.discarded == ["C"]
    assert s.is_over
    assert s.scores.tolist() == [4, 0]  # the 2-tile city, scored during the turn


def test_game_ends_after_the_turn_of_the_last_tile(start, play):
    s = start("AA")
    play(s, "A 1,0 r1", "none", "A -1,0 r3")
    assert not s.is_over  # the follower decision of the last turn is still to come
    assert s.phase == "place_follower"
    play(s, "none")
    assert s.is_over
    assert s.phase == "game_over"
    assert s.current_player == -1
    assert s.current_tile is None
    assert s.turn == 2
    assert list(s.legal_actions()) == []
    with pytest.raises(IllegalActionError):
        s.apply("none")
    with pytest.raises(IllegalActionError):
        s.apply("A 2,0 r0")


def test_single_winner(start, play):
    # Road A-D-A with seat 1's knight: 3 points for seat 1 -> seat 1 wins alone.
    s = start("AA")
    play(s, "A 1,0 r1", "none", "A -1,0 r3", "road:E")
    assert s.scores.tolist() == [0, 3]
    assert s.winners() == [1]


def test_all_zero_is_a_tie_of_everybody(start, play):
    s = start("U", players=3)
    play(s, "U 1,0 r0", "none")
    assert s.is_over
    assert sorted(s.winners()) == [0, 1, 2]


def test_draw_order_limits_follow_the_box():
    new_game(GameConfig(players=2), draw_order="DDD")  # 3 D besides the start tile
    with pytest.raises(ValueError):
        new_game(GameConfig(players=2), draw_order="DDDD")
    with pytest.raises(ValueError):
        new_game(GameConfig(players=2), draw_order="AAA")  # the box has 2 A
    with pytest.raises(ValueError):
        new_game(GameConfig(players=2), draw_order="CC")  # and 1 C
    with pytest.raises(ValueError):
        new_game(GameConfig(players=2), draw_order="UZ")  # no such tile type


def test_shuffled_game_has_the_71_remaining_tiles_of_the_box():
    s = new_game(GameConfig(players=2, seed=0))
    pile = dict(s.remaining_tiles())
    pile[s.current_tile] = pile.get(s.current_tile, 0) + 1
    expected = dict(BOX)
    expected["D"] -= 1
    assert {k: v for k, v in pile.items() if v} == expected
    assert sum(pile.values()) == 71
    assert s.followers_left.tolist() == [7, 7]
    # the same seed deals the same game
    t = new_game(GameConfig(players=2, seed=0))
    assert t.current_tile == s.current_tile and t.remaining_tiles() == s.remaining_tiles()


def test_one_tile_completes_a_road_and_a_city_at_once(start, play, ev):
    # T1 seat 0: A r1 at (1,0): road {D, A} closed at A's cloister, open at D's W end.
    #            Knight of seat 0 on it.
    # T2 seat 1: E r2 at (0,-1) closes D's city with a knight of seat 1 -> 4 for seat 1.
    # T3 seat 0: E r2 at (-1,-1): E side F meets E(0,-1)'s W field; city S open towards
    #            (-1,0).  Knight of seat 0.
    # T4 seat 1: L r0 at (-1,0) = C R R R (roads E, S, W end at its junction):
    #            N city meets E(-1,-1)'s S city -> city {E(-1,-1), L} closed: 2 x 2 = 4;
    #            E road meets D's W road and ends at the junction -> road {L, D, A} closed: 3.
    # Both go to seat 0 (on seat 1's turn): 3 + 4 = 7; seat 1 keeps its 4.
    s = start("AEEL")
    play(s, "A 1,0 r1", "road:W")
    play(s, "E 0,-1 r2", "city:S")
    assert s.scores.tolist() == [0, 4]
    play(s, "E -1,-1 r2", "city:S")
    assert s.followers_left.tolist() == [5, 7]
    play(s, "L -1,0 r0", "none")
    got = sorted((e.player, e.kind, e.points) for e in s.score_events)
    assert got == [(0, "city", 4), (0, "road", 3), (1, "city", 4)]
    assert s.followers_left.tolist() == [7, 7]
    assert s.scores.tolist() == [7, 4]
    assert s.winners() == [0]
