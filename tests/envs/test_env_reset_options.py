"""Starting an env from a chosen position: ``reset(options={...})`` for both games."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from carcassonne_rl.encoders.card.encoder import CardEncoder
from carcassonne_rl.encoders.tile.encoder import TileEncoder
from carcassonne_rl.envs import carcassonne_v0, cardcassonne_v0
from carcassonne_rl.envs.single_agent import SingleAgentEnv
from carcassonne_rl.games import cardcassonne as card
from carcassonne_rl.games.carcassonne import GameConfig, load_json, new_game
from carcassonne_rl.games.carcassonne.config import draw_pile_counts

BOTH = ("messages", "labyrinth")
SETUP = ["Y1", "R1", "G1", "B1", "Y2", "R2", "G2", "B2", "YA", "RA"]
HANDS = {0: ["R3", "R3", "R3", "G3", "G3", "G3"], 1: ["B3", "B3", "B3", "Y3", "Y3", "Y3"]}


def _random_moves(state, moves: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        codes = state.legal_action_codes()
        state.apply_code(int(codes[rng.randrange(len(codes))]))


def _tile_obs(config: GameConfig, state, player: int) -> np.ndarray:
    return TileEncoder.for_config(config).encode(state, player)


def test_tile_reset_from_a_draw_order_and_message_order() -> None:
    env = carcassonne_v0.env(players=2, expansions=BOTH)
    env.reset(seed=3, options={"draw_order": "VUYK", "message_order": "81234567"})
    state = env.unwrapped.game_state
    assert state.draw_order == "VUYK" and state.message_order == "81234567"
    assert state.current_tile == "V"
    same = new_game(GameConfig(2, expansions=BOTH), draw_order="VUYK", message_order="81234567")
    obs, *_ = env.last()
    assert np.array_equal(obs["observation"], _tile_obs(same.config, same, 0))
    mask = np.zeros_like(obs["action_mask"])
    encoder = env.unwrapped.encoder
    mask[[encoder.index_of(same, int(c)) for c in same.legal_action_codes()]] = 1
    assert np.array_equal(obs["action_mask"], mask)


def test_tile_reset_with_fill_pile_goes_on_to_a_full_game() -> None:
    env = carcassonne_v0.env(players=2, expansions=("labyrinth",))
    env.reset(seed=5, options={"draw_order": "YY", "fill_pile": True})
    order = env.unwrapped.game_state.draw_order
    assert order.startswith("YY") and len(order) == 73
    counts = draw_pile_counts(GameConfig(2, expansions=("labyrinth",)))
    assert {c: order.count(c) for c in counts} == counts


def test_tile_reset_from_a_saved_game_plays_on() -> None:
    saved = new_game(GameConfig(3, seed=11, expansions=BOTH))
    _random_moves(saved, 25, seed=1)
    text = saved.to_json()
    env = carcassonne_v0.env(players=3, expansions=BOTH, reward_mode="score_diff")
    for record in (text, json.loads(text)):
        env.reset(seed=0, options={"record": record})
        state = env.unwrapped.game_state
        assert state.history == saved.history
        agent = env.agent_selection
        assert agent == f"player_{saved.current_player}"
        obs, reward, term, trunc, _ = env.last()
        assert (reward, term, trunc) == (0.0, False, False)
        copy = load_json(text)
        seat = saved.current_player
        assert np.array_equal(obs["observation"], _tile_obs(copy.config, copy, seat))
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # and the game goes on
    assert len(env.unwrapped.game_state.history) == len(saved.history) + 1


def test_card_reset_from_a_chosen_deal() -> None:
    order = card.deal_order(2, SETUP, [(1, HANDS)])
    env = cardcassonne_v0.env(players=2)
    env.reset(seed=9, options={"card_order": order})
    state = env.unwrapped.game_state
    same = card.new_game(card.GameConfig(players=2), order)
    assert state.hands == same.hands
    assert sorted(card.card_name(k) for k in range(24) for _ in range(state.hands[0][k])) == (
        sorted(HANDS[0])
    )
    obs, *_ = env.last()
    assert np.array_equal(obs["observation"], CardEncoder().encode(same, same.current_player))


def test_card_reset_from_a_saved_game() -> None:
    saved = card.new_game(card.GameConfig(players=3, seed=4))
    _random_moves(saved, 30, seed=2)
    env = cardcassonne_v0.env(players=3)
    env.reset(options={"record": saved.to_json()})
    assert env.unwrapped.game_state.history == saved.history
    obs, *_ = env.last()
    seat = saved.current_player
    assert env.agent_selection == f"player_{seat}"
    assert np.array_equal(obs["observation"], CardEncoder().encode(saved, seat))


def test_single_agent_env_passes_the_options_on() -> None:
    env = SingleAgentEnv("carcassonne", learner_seat=0)
    obs, _ = env.reset(seed=0, options={"draw_order": "UUV"})
    assert env.game_state.draw_order == "UUV"
    assert np.array_equal(obs, _tile_obs(GameConfig(), new_game(draw_order="UUV"), 0))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"draw_order": "UY"}, "the Labyrinth is not on"),
        ({"message_order": "12345678"}, "The Messages are not on"),
        ({"draw_order": "UUUUUUUUU"}, "U x9 (the game has 8)"),
        ({"draw_order": "UZ"}, "unknown tile letters ['Z']"),
        ({"fill_pile": True}, "fill_pile needs a draw_order"),
        ({"record": "{", "draw_order": "U"}, "cannot be combined with ['draw_order']"),
        ({"record": "not json"}, "not valid JSON"),
        ({"record": 7}, "must be the JSON text of a saved game or its dict"),
        ("UU", "reset options must be a dict"),
    ],
)
def test_tile_reset_rejects_bad_options_and_changes_nothing(options, message) -> None:
    env = carcassonne_v0.env(players=2)
    env.reset(seed=1)
    before = env.unwrapped.game_state
    history = list(before.history)
    with pytest.raises(ValueError) as err:
        env.reset(seed=2, options=options)
    assert message in str(err.value)
    assert env.unwrapped.game_state is before and before.history == history


def test_tile_reset_rejects_a_record_of_another_config_or_a_finished_game() -> None:
    env = carcassonne_v0.env(players=2)
    other = new_game(GameConfig(3, seed=1)).to_json()
    with pytest.raises(ValueError, match="is a game of .*'players': 3"):
        env.reset(options={"record": other})
    finished = new_game(GameConfig(2, seed=1), draw_order="U")
    _random_moves(finished, 2, seed=0)
    assert finished.is_over
    with pytest.raises(ValueError, match="already over"):
        env.reset(options={"record": finished.to_json()})


@pytest.mark.parametrize(
    "options, message",
    [
        ({"card_order": ["R1"] * 130}, "card_order"),
        ({"card_order": "R1 R2"}, "must be a list of the 130 card notations"),
        ({"record": card.new_game(card.GameConfig(players=3)).to_json()}, "this env plays 2"),
    ],
)
def test_card_reset_rejects_bad_options(options, message) -> None:
    env = cardcassonne_v0.env(players=2)
    env.reset(seed=1)
    before = env.unwrapped.game_state
    with pytest.raises(ValueError) as err:
        env.reset(options=options)
    assert message in str(err.value)
    assert env.unwrapped.game_state is before


@pytest.mark.parametrize("make", [carcassonne_v0.env, cardcassonne_v0.env])
def test_an_unknown_reset_option_warns_with_the_accepted_ones(make) -> None:
    env = make(players=2)
    with pytest.warns(UserWarning, match=r"ignored unknown reset option\(s\) \['draw_ordr'\]"):
        env.reset(seed=0, options={"draw_ordr": "UU"})
    shuffled = make(players=2)
    shuffled.reset(seed=0)
    assert env.unwrapped.game_state.history == shuffled.unwrapped.game_state.history
    assert env.unwrapped.game_state.to_json() == shuffled.unwrapped.game_state.to_json()


def test_deal_order_rejects_impossible_deals() -> None:
    with pytest.raises(ValueError, match="round 1 is dealt by seat 1"):
        card.deal_order(2, SETUP, [(0, HANDS)])
    with pytest.raises(ValueError, match="must be dealt 6 cards"):
        card.deal_order(2, SETUP, [(1, {0: ["R3"], 1: HANDS[1]})])
    with pytest.raises(ValueError, match="no DR left"):
        card.deal_order(2, SETUP, [(1, {0: ["DR"] * 6, 1: HANDS[1]})])
    with pytest.raises(ValueError, match="setup must list 10 cards"):
        card.deal_order(2, SETUP[:9])
    shuffled = card.deal_order(2, SETUP, seed=1)
    assert shuffled[:10] == SETUP and shuffled != card.deal_order(2, SETUP)


def test_a_replaced_state_never_gives_a_stale_observation() -> None:
    env = carcassonne_v0.env(players=2)
    env.reset(seed=0)
    first, *_ = env.last()  # fills the observer cache
    tile = env.unwrapped.game_state.current_tile
    other = next(  # same history length, another tile to place
        s for s in (new_game(GameConfig(2, seed=k)) for k in range(50)) if s.current_tile != tile
    )
    env.unwrapped.game_state = other
    obs, *_ = env.last()
    assert not np.array_equal(obs["observation"], first["observation"])
    assert np.array_equal(obs["observation"], _tile_obs(other.config, other, 0))
    card_env = cardcassonne_v0.env(players=2)
    card_env.reset(seed=0)
    first, *_ = card_env.last()
    other_deal = card.new_game(card.GameConfig(players=2, seed=99))
    card_env.unwrapped.game_state = other_deal
    obs, *_ = card_env.last()
    seat = int(card_env.agent_selection[-1])
    assert not np.array_equal(obs["observation"], first["observation"])
    assert np.array_equal(obs["observation"], CardEncoder().encode(other_deal, seat))


def test_expansion_settings_without_their_expansion_are_rejected() -> None:
    with pytest.raises(ValueError, match="labyrinth_tiles=3 is given, but the Labyrinth is not on"):
        carcassonne_v0.env(players=2, labyrinth_tiles=3)
    with pytest.raises(ValueError, match="figure_choice='auto' is given, but The Messages"):
        carcassonne_v0.env(players=2, figure_choice="auto")
    env = carcassonne_v0.env(players=2, expansions=BOTH, labyrinth_tiles=3, figure_choice="auto")
    env.reset(seed=0)
    assert env.unwrapped.game_state.draw_order.count("Y") == 3
