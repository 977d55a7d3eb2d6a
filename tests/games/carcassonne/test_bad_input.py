"""Bad input: illegal actions, unreadable notation and broken saved games raise the named
error (all are ValueError subclasses) with a message, and leave the state unchanged."""

import json

import pytest

from carcassonne_rl.games.carcassonne import (
    GameConfig,
    IllegalActionError,
    NotationError,
    SavedGameError,
    load_json,
    new_game,
)


def _start(order="EUU"):
    return new_game(GameConfig(players=2), draw_order=order)


def _snapshot(s):
    return (
        s.phase,
        s.current_player,
        s.current_tile,
        s.turn,
        s.scores.tolist(),
        s.followers_left.tolist(),
        len(s.placed_followers()),
    )


@pytest.mark.parametrize(
    "move",
    [
        "E 0,-1 r0",  # E r0 shows a field S, D shows a city N: sides do not match
        "E 1,0 r0",  # E r0 W side is a field, D's E side a road
        "E 5,5 r2",  # not next to any tile
        "E 1,1 r0",  # only diagonal to D
        "E 0,0 r2",  # occupied cell (the start tile)
    ],
)
def test_illegal_tile_placement(move):
    s = _start()
    before = _snapshot(s)
    with pytest.raises(IllegalActionError) as info:
        s.apply(move)
    assert str(info.value)  # a message naming the problem
    assert _snapshot(s) == before
    assert s.tile_at(*map(int, move.split()[1].split(","))) in (None, ("D", 0))


def test_placing_another_tile_than_the_drawn_one():
    s = _start()  # E was drawn
    with pytest.raises((IllegalActionError, NotationError)):
        s.apply("U 1,0 r0")
    s.apply("E 0,-1 r2")  # the right one works
    assert s.tile_at(0, -1) == ("E", 2)


def test_letter_may_be_omitted():
    s = _start()
    s.apply("0,-1 r2")
    assert s.tile_at(0, -1) == ("E", 2)


@pytest.mark.parametrize(
    "text",
    [
        "Q 9,9 r7",  # rotation out of range
        "E 0,-1 r4",
        "Z 0,-1 r2",  # no tile Z
        "E 0;-1 r2",
        "E 0,-1",
        "",
        "hello",
    ],
)
def test_unreadable_notation_in_the_tile_phase(text):
    s = _start()
    before = _snapshot(s)
    with pytest.raises(NotationError) as info:
        s.apply(text)
    assert str(info.value)
    assert _snapshot(s) == before


@pytest.mark.parametrize(
    "text", ["city:Z", "field:NN", "field:N", "road:NNW", "monastery", "farm:SSE", "", "city"]
)
def test_unreadable_notation_in_the_follower_phase(text):
    s = _start()
    s.apply("E 0,-1 r2")
    before = _snapshot(s)
    with pytest.raises(NotationError, match="city:Z" if text == "city:Z" else None):
        s.apply(text)
    assert _snapshot(s) == before


def test_unreadable_follower_text_in_the_tile_phase():
    # both "unreadable" and "wrong phase" describe it; either named error is fine
    s = _start()
    with pytest.raises((NotationError, IllegalActionError)):
        s.apply("city:Z")


def test_errors_are_value_errors():
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(NotationError, ValueError)
    assert issubclass(SavedGameError, ValueError)


def test_wrong_phase():
    s = _start()
    with pytest.raises(IllegalActionError):
        s.apply("none")  # a follower decision while a tile must be placed
    with pytest.raises(IllegalActionError):
        s.apply("city:S")
    s.apply("E 0,-1 r2")
    with pytest.raises(IllegalActionError):
        s.apply("E 1,-1 r3")  # a tile while the follower decision is pending


@pytest.mark.parametrize("text", ["cloister", "road:E", "city:N", "road:S"])
def test_follower_on_a_feature_the_tile_does_not_have(text):
    # E r2 at (0,-1): city S, one field; no road, no cloister; its N side is a field.
    s = _start()
    s.apply("E 0,-1 r2")
    before = _snapshot(s)
    with pytest.raises((IllegalActionError, NotationError)):
        s.apply(text)
    assert _snapshot(s) == before


def test_follower_on_an_occupied_feature():
    # Seat 0 places a farmer on U(1,0)'s north field; seat 1's U r0 at (2,0) joins it.
    s = new_game(GameConfig(players=2), draw_order="UU")
    s.apply("U 1,0 r0")
    s.apply("field:NNW")
    s.apply("U 2,0 r0")
    before = _snapshot(s)
    with pytest.raises(IllegalActionError) as info:
        s.apply("field:WNW")
    assert str(info.value)
    assert _snapshot(s) == before
    s.apply("field:SSE")  # the south field is free


def test_text_codes_and_objects_agree():
    s = _start()
    texts = sorted(str(a) for a in s.legal_actions())
    codes = [int(c) for c in s.legal_action_codes()]
    assert sorted(int(s.parse_action(t)) for t in texts) == sorted(codes)
    assert sorted(s.action_to_string(c) for c in codes) == texts
    s.apply(int(s.parse_action("E 0,-1 r2")))  # an integer code is accepted by apply
    assert s.tile_at(0, -1) == ("E", 2)
    assert s.phase == "place_follower"


# ---- saved games -------------------------------------------------------------------


def _played():
    s = new_game(GameConfig(players=2), draw_order="EUU")
    for move in ["E 0,-1 r2", "city:S", "U 1,0 r0", "road:E"]:
        s.apply(move)
    return s


def test_save_and_load_round_trip():
    s = _played()
    t = load_json(s.to_json())
    assert t.scores.tolist() == s.scores.tolist() == [4, 0]
    assert t.current_player == s.current_player == 0
    assert t.current_tile == "U"
    assert t.tile_at(1, 0) == ("U", 0)
    assert t.followers_left.tolist() == [7, 6]
    assert len(t.score_events) == len(s.score_events)


def test_saved_game_not_json():
    with pytest.raises(SavedGameError):
        load_json("this is not json {")
    with pytest.raises(SavedGameError):
        load_json("[1, 2, 3]")


def test_saved_game_with_a_missing_field():
    record = json.loads(_played().to_json())
    for key in list(record):
        broken = {k: v for k, v in record.items() if k != key}
        with pytest.raises(SavedGameError, match=key):
            load_json(json.dumps(broken))


def test_saved_game_edited_to_an_illegal_action():
    record = json.loads(_played().to_json())
    actions = record["actions"]
    assert actions[0] == "E 0,-1 r2"
    record["actions"] = ["E 0,-1 r0"] + actions[1:]  # E with its field against D's city
    with pytest.raises(SavedGameError, match="E 0,-1 r0"):
        load_json(json.dumps(record))
    record["actions"] = actions[:3] + ["city:N"]  # U has no city
    with pytest.raises(SavedGameError):
        load_json(json.dumps(record))
    record["actions"] = actions[:3] + ["city:Z"]  # unreadable
    with pytest.raises(SavedGameError):
        load_json(json.dumps(record))


def test_saved_game_with_an_invalid_draw_order():
    record = json.loads(_played().to_json())
    record["draw_order"] = "EUUUUUUUUU"  # 9 U, the box has 8
    with pytest.raises(SavedGameError):
        load_json(json.dumps(record))


def test_saved_game_with_a_bad_player_count():
    record = json.loads(_played().to_json())
    record["config"]["players"] = 9
    with pytest.raises(SavedGameError):
        load_json(json.dumps(record))
