"""Malformed or illegal input gives a clear error."""

import json
import random

import pytest
from helpers.card import random_playout

from carcassonne_rl.games.cardcassonne import (
    GameConfig,
    IllegalActionError,
    NotationError,
    SavedGameError,
    determinize,
    load_json,
    new_game,
    replay,
)


def turn_state():
    s = new_game(GameConfig(players=2, seed=0))
    while s.phase != "turn":
        s.apply_code(int(s.legal_action_codes()[0]))
    return s


@pytest.mark.parametrize(
    "text, match",
    [
        ("", "empty"),
        ("play XX Y up", "unknown card 'XX'"),
        ("play R1 purple up", "unknown row 'purple'"),
        ("play R1 R sideways", "'down' or 'up'"),
        ("assign unicorns", "unknown species"),
        ("jump", "cannot parse action 'jump'"),
    ],
)
def test_notation_errors(text, match):
    s = turn_state()
    with pytest.raises(NotationError, match=match):
        s.apply(text)
    assert issubclass(NotationError, ValueError)


def test_illegal_actions_name_action_phase_and_count():
    s = turn_state()
    with pytest.raises(IllegalActionError, match=r"'keep'.*phase 'turn'.*legal actions"):
        s.apply("keep")
    with pytest.raises(IllegalActionError, match="setup"):
        s.apply("setup Y")
    with pytest.raises(NotationError, match="out of range"):
        s.apply(999)
    with pytest.raises(IllegalActionError, match="not a turn action"):
        s.apply_code(999)
    with pytest.raises(NotationError):
        s.apply(3.5)
    s.apply("follower Y")
    s.apply(int(s.legal_action_codes()[0]))
    with pytest.raises(IllegalActionError, match="placed the follower"):
        s.apply("follower R")


def test_game_over_refuses_actions():
    s = new_game(GameConfig(players=2, seed=1))
    random_playout(s, random.Random(1))
    assert s.legal_actions() == [] and len(s.legal_action_codes()) == 0
    with pytest.raises(IllegalActionError, match="game is over"):
        s.apply("follower Y")


def test_bad_config_and_card_order():
    with pytest.raises(ValueError, match="players must be one of"):
        GameConfig(players=6)
    with pytest.raises(ValueError, match="seed"):
        GameConfig(seed="x")
    with pytest.raises(NotationError, match="130 cards"):
        new_game(GameConfig(), ["R1"] * 10)
    with pytest.raises(NotationError, match="0 x Y1, the game has 8"):
        new_game(GameConfig(), ["R1"] * 130)


def test_bad_saved_games_name_the_field():
    s = turn_state()
    rec = json.loads(s.to_json())
    with pytest.raises(SavedGameError, match="not valid JSON"):
        load_json("{")
    for field, value, match in [
        ("game", "chess", "'game'"),
        ("format", 7, "'format'"),
        ("card_order", ["R1"], "'card_order'"),
        ("actions", "x", "'actions'"),
        ("actions", ["keep"], r"'actions'\[0\]"),
        ("actions", ["zzz"], r"'actions'\[0\]"),
        ("config", {"players": 9, "seed": 0}, "'config'"),
        ("config", {"seed": 0}, "'players'"),
    ]:
        bad = dict(rec, **{field: value})
        with pytest.raises(SavedGameError, match=match):
            replay(bad)
    with pytest.raises(SavedGameError, match="determinize"):
        determinize(s, 0, random.Random(0)).to_json()
