"""The game registry: names, setup checks, a new game by name, and loading either game's
records (the versioned header of both engines, and the old headers)."""

from __future__ import annotations

import json
import random

import pytest

from carcassonne_rl.games import carcassonne, cardcassonne, registry
from carcassonne_rl.games.errors import SavedGameError
from carcassonne_rl.games.record_header import LEGACY_HEADERS


def _played(state, moves: int, seed: int = 0):
    rng = random.Random(seed)
    for _ in range(moves):
        codes = state.legal_codes()
        state.apply_code(codes[rng.randrange(len(codes))])
    return state


def _legacy(record: dict) -> dict:
    """The same game under the header its engine wrote before version 2."""
    body = {k: v for k, v in record.items() if k not in ("format", "version", "game")}
    return {**LEGACY_HEADERS[record["game"]], **body}


def test_the_games_and_their_specs() -> None:
    assert registry.GAMES == ("carcassonne", "cardcassonne")
    tile, card = registry.game_spec("carcassonne"), registry.game_spec("cardcassonne")
    assert tile.engine is carcassonne and card.engine is cardcassonne
    assert tile.config_class is carcassonne.GameConfig
    assert card.config_class is cardcassonne.GameConfig
    assert tile.expansions == ("messages", "labyrinth") and card.expansions == ()
    assert tile.players == card.players == registry.PLAYER_COUNTS == (2, 3, 4, 5)
    assert card.players == cardcassonne.RULES.player_counts
    assert registry.EXPANSION_GAMES == ("carcassonne",)


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("expansions", [(), ("labyrinth", "messages")])
def test_a_new_tile_game_by_name_is_the_engines(players, expansions) -> None:
    by_name = registry.new_game("carcassonne", players, 11, expansions)
    config = carcassonne.GameConfig(players=players, seed=11, expansions=expansions)
    own = carcassonne.new_game(config)
    assert by_name.config == config
    assert by_name.to_json() == own.to_json()
    assert _played(by_name, 30).to_json() == _played(own, 30).to_json()


@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_new_card_game_by_name_is_the_engines(players) -> None:
    by_name = registry.new_game("cardcassonne", players, 7)
    own = cardcassonne.new_game(cardcassonne.GameConfig(players=players, seed=7))
    assert by_name.to_json() == own.to_json()
    assert _played(by_name, 40).to_json() == _played(own, 40).to_json()
    # no seed: the engine's default (seed 0 in the card game)
    assert (
        registry.new_game("cardcassonne").to_json()
        == cardcassonne.new_game(cardcassonne.GameConfig()).to_json()
    )
    assert registry.new_game("carcassonne").config.seed is None  # a fresh tile shuffle


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (("chess", 2, ()), "unknown game 'chess'; expected one of carcassonne, cardcassonne"),
        (("carcassonne", 6, ()), "players must be 2-5, got 6"),
        (("cardcassonne", 1, ()), "players must be 2-5, got 1"),
        (("carcassonne", True, ()), "players must be 2-5, got True"),
        (("carcassonne", "3", ()), "players must be 2-5, got '3'"),
        (("cardcassonne", 2, ("messages",)), "expansions exist only for the tile game "
                                             "(carcassonne)"),
        (("carcassonne", 2, ("dragons",)), "unknown expansions ['dragons']; "
                                           "available: messages, labyrinth"),
    ],
)  # fmt: skip
def test_check_setup_has_one_message_per_problem(setup, message) -> None:
    with pytest.raises(ValueError) as err:
        registry.check_setup(*setup)
    assert str(err.value) == message
    with pytest.raises(ValueError) as err:
        registry.new_game(setup[0], setup[1], expansions=setup[2])
    assert str(err.value) == message


def test_good_setups_pass() -> None:
    for game in registry.GAMES:
        for players in registry.PLAYER_COUNTS:
            registry.check_setup(game, players, ())
    registry.check_setup("carcassonne", 4, ("messages", "labyrinth"))
    assert registry.check_expansions("carcassonne", "messages,labyrinth") == (
        "messages",
        "labyrinth",
    )
    assert registry.check_players(None, 5) == 5
    with pytest.raises(ValueError, match="players must be 2-5, got 9"):
        registry.check_players(None, 9)


@pytest.mark.parametrize("game", registry.GAMES)
def test_both_engines_write_the_one_versioned_header(game) -> None:
    state = _played(registry.new_game(game, 3, 5), 25)
    record = json.loads(state.to_json())
    assert list(record)[:3] == ["format", "version", "game"]
    assert (record["format"], record["version"], record["game"]) == (
        "carcassonne-rl/record",
        2,
        game,
    )
    for loaded in (registry.load_record(state.to_json()), registry.load_record(record)):
        assert type(loaded) is type(state)
        assert loaded.to_json() == state.to_json()
    assert registry.game_spec(game).engine.load_json(state.to_json()).to_json() == state.to_json()


@pytest.mark.parametrize("game", registry.GAMES)
def test_records_with_the_old_headers_still_load(game) -> None:
    state = _played(registry.new_game(game, 2, 3), 25)
    old = _legacy(json.loads(state.to_json()))
    assert "game" not in old if game == "carcassonne" else old["format"] == 1
    for loaded in (
        registry.load_record(old),
        registry.load_record(json.dumps(old)),
        registry.game_spec(game).engine.load_json(json.dumps(old)),
    ):
        assert loaded.to_json() == state.to_json()  # and saved again with the new header


def test_a_literal_old_card_record_loads() -> None:
    """A record as the card engine wrote it before version 2 (header, then its fields)."""
    own = cardcassonne.new_game(cardcassonne.GameConfig(players=2, seed=4))
    order = json.loads(own.to_json())["card_order"]
    text = json.dumps({"game": "cardcassonne", "format": 1, "config": {"players": 2, "seed": 4},
                       "card_order": order, "actions": ["setup G"]})  # fmt: skip
    state = registry.load_record(text)
    assert state.history == [cardcassonne.parse_action_code("setup G")]
    assert json.loads(state.to_json())["actions"] == ["setup G"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: "{not json", "not valid JSON"),
        (lambda r: [1, 2], "must be a JSON object, got list"),
        (lambda r: {k: v for k, v in r.items() if k != "format"}, "no 'format' field"),
        (lambda r: {**r, "format": "chess/record"}, "field 'format' is 'chess/record'"),
        (lambda r: {**r, "version": 3}, "field 'version' is 3"),
        (lambda r: {k: v for k, v in r.items() if k != "game"}, "no 'game' field"),
        (lambda r: {**r, "game": "chess"}, "field 'game' is 'chess'"),
        (lambda r: {**r, "game": ["chess"]}, "field 'game' is \\['chess'\\]"),
        (lambda r: {**_legacy(r), "version": 7}, "field 'version' is 7, expected 1"),
        (lambda r: {**r, "actions": "x"}, "actions"),
    ],
)
def test_malformed_records_raise_one_clear_saved_game_error(change, words) -> None:
    record = json.loads(_played(registry.new_game("carcassonne", 2, 1), 10).to_json())
    bad = change(record)
    with pytest.raises(SavedGameError, match=words):
        registry.load_record(bad if isinstance(bad, str) else json.dumps(bad))


def test_an_engine_refuses_the_other_games_record() -> None:
    card = registry.new_game("cardcassonne", 2, 1).to_json()
    tile = registry.new_game("carcassonne", 2, 1).to_json()
    with pytest.raises(SavedGameError, match="field 'game' is 'cardcassonne', expected 'carc"):
        carcassonne.load_json(card)
    with pytest.raises(SavedGameError, match="field 'game' is 'carcassonne', expected 'card"):
        cardcassonne.load_json(tile)
