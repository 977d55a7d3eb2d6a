"""Both games through OpenSpiel: its own random-simulation checks (with serialization round
trips) in every configuration, chance outcomes against the draws so far, and whole games
replayed in our PettingZoo envs (same legal actions, observations and returns)."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install -e '.[openspiel]')"
)
import carcassonne_rl.openspiel  # noqa: E402,F401
from carcassonne_rl.envs import carcassonne_v0, cardcassonne_v0  # noqa: E402
from carcassonne_rl.games.carcassonne.config import GameConfig, draw_pile_counts  # noqa: E402
from carcassonne_rl.games.carcassonne.tiles import LETTERS  # noqa: E402
from carcassonne_rl.games.cardcassonne import KIND_COUNTS, KIND_NAMES  # noqa: E402

TILE_CONFIGS = [
    (players, messages, labyrinth)
    for players in (2, 3, 4, 5)
    for messages in (False, True)
    for labyrinth in (False, True)
]


def tile_game(players: int, messages: bool = False, labyrinth: bool = False, **more):
    params = {"players": players, "messages": messages, "labyrinth": labyrinth, **more}
    return pyspiel.load_game("python_carcassonne", params)


def play_random(game, seed: int):
    """A random game: ((state, action) at each decision, chance outcomes in order, final
    state)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    decisions, outcomes = [], []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(actions, probs)[0]
            outcomes.append(int(action))
        else:
            action = rng.choice(state.legal_actions())
            decisions.append((state.clone(), action))
        state.apply_action(action)
    return decisions, outcomes, state


@pytest.mark.parametrize(("players", "messages", "labyrinth"), TILE_CONFIGS)
def test_tile_game_passes_openspiel_random_simulation_with_serialization(
    players: int, messages: bool, labyrinth: bool
) -> None:
    game = tile_game(players, messages, labyrinth)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    env = carcassonne_v0.raw_env(players=players, expansions=game.config.expansions)
    assert game.num_distinct_actions() == env.num_actions
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_card_game_passes_openspiel_random_simulation_with_serialization(players: int) -> None:
    game = pyspiel.load_game("python_cardcassonne", {"players": players})
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_distinct_actions() == cardcassonne_v0.raw_env(players=players).num_actions
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_types_tell_utilities_and_reward_model() -> None:
    two, three = tile_game(2), tile_game(3, reward_mode="score_diff")
    assert two.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert two.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert three.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert (two.min_utility(), two.max_utility()) == (-1.0, 1.0)
    assert two.max_chance_outcomes() == 25 and tile_game(2, True).max_chance_outcomes() == 33
    assert two.max_game_length() == 2 * 71


def test_bad_parameters_are_refused_with_their_name() -> None:
    for params, word in [
        ({"players": 6}, "players"),
        ({"messages": 1}, "messages"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"figure_choice": "robot", "messages": True}, "figure_choice"),
        ({"figure_choice": "auto"}, "needs messages=True"),
        ({"labyrinth_tiles": 4}, "needs labyrinth=True"),
        ({"window": 4}, "window"),
        ({"colour": "red"}, "colour"),
    ]:
        with pytest.raises(Exception, match=word):
            pyspiel.load_game("python_carcassonne", params)
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("python_cardcassonne", {"players": 1})


@pytest.mark.parametrize(("players", "messages", "labyrinth"), [(2, True, True), (3, True, False)])
def test_tile_chance_outcomes_are_the_tiles_and_messages_left(
    players: int, messages: bool, labyrinth: bool
) -> None:
    """Recounted from the box contents and the outcomes drawn so far, not from the engine."""
    game = tile_game(players, messages, labyrinth)
    config = GameConfig(players=players, expansions=game.config.expansions)
    pile = Counter(draw_pile_counts(config))
    cards = set(range(1, 9))
    rng = random.Random(players)
    state = game.new_initial_state()
    chance_nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = dict(state.chance_outcomes())
            assert sum(outcomes.values()) == pytest.approx(1.0)
            if min(outcomes) >= 25:  # a message card
                assert {a - 24 for a in outcomes} == cards
                assert all(p == pytest.approx(1 / len(cards)) for p in outcomes.values())
            else:
                total = sum(pile.values())
                expected = {i: pile[c] / total for i, c in enumerate(LETTERS) if pile[c]}
                assert outcomes == pytest.approx(expected)
            action = rng.choices(list(outcomes), list(outcomes.values()))[0]
            if action >= 25:
                cards.discard(action - 24)
            else:
                pile[LETTERS[action]] -= 1
            chance_nodes += 1
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    assert sum(pile.values()) == 0 and chance_nodes >= sum(draw_pile_counts(config).values())


def test_card_chance_outcomes_are_the_cards_left() -> None:
    game = pyspiel.load_game("python_cardcassonne", {"players": 3})
    left = list(KIND_COUNTS)
    rng = random.Random(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = dict(state.chance_outcomes())
            total = sum(left)
            assert outcomes == pytest.approx({k: c / total for k, c in enumerate(left) if c})
            action = rng.choices(list(outcomes), list(outcomes.values()))[0]
            left[action] -= 1
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    per_round, rounds = 5, 8  # 3 players: 10 setup cards, then 8 rounds of 5 cards each
    assert sum(KIND_COUNTS) - sum(left) == 10 + per_round * rounds * 3


def _replay_in_env(env, decisions, final, mode: str) -> None:
    """Step the env with the OpenSpiel game's actions; masks, observations and returns agree."""
    rewards = np.zeros(len(env.possible_agents))
    for i, (os_state, action) in enumerate(decisions):
        agent = env.agent_selection
        p = env.possible_agents.index(agent)
        assert p == os_state.current_player()
        obs = env.observe(agent)
        assert np.flatnonzero(obs["action_mask"]).tolist() == os_state.legal_actions()
        if i % 7 == 0:
            for q in {p, (p + 1) % len(rewards)}:
                mine = np.asarray(os_state.observation_tensor(q), np.float32)
                theirs = env.observe(env.possible_agents[q])["observation"]
                assert np.array_equal(mine, theirs.reshape(-1).astype(np.float32))
        env.step(action)
        rewards += [env.rewards[a] for a in env.possible_agents]
    assert all(env.terminations.values())
    assert final.returns() == pytest.approx(rewards.tolist())
    assert env.unwrapped.game_state.scores.tolist() == final.engine.scores.tolist()


@pytest.mark.parametrize(
    ("players", "messages", "labyrinth", "mode"),
    [(2, False, False, "win_loss"), (3, True, True, "score_diff"), (4, True, False, "win_loss")],
)
def test_tile_game_replayed_in_our_env_agrees(players, messages, labyrinth, mode) -> None:
    game = tile_game(players, messages, labyrinth, reward_mode=mode)
    decisions, outcomes, final = play_random(game, seed=players)
    draws = "".join(LETTERS[a] for a in outcomes if a < 25)
    cards = "".join(str(a - 24) for a in outcomes if a >= 25)
    options = {"draw_order": draws}
    if messages:
        options["message_order"] = cards + "".join(c for c in "12345678" if c not in cards)
    env = carcassonne_v0.raw_env(
        players=players, expansions=game.config.expansions, reward_mode=mode
    )
    env.reset(seed=0, options=options)
    _replay_in_env(env, decisions, final, mode)


@pytest.mark.parametrize(("players", "mode"), [(2, "win_loss"), (5, "score_diff")])
def test_card_game_replayed_in_our_env_agrees(players: int, mode: str) -> None:
    game = pyspiel.load_game("python_cardcassonne", {"players": players, "reward_mode": mode})
    decisions, outcomes, final = play_random(game, seed=players)
    rest = Counter({k: c for k, c in enumerate(KIND_COUNTS)})
    rest.subtract(outcomes)
    order = [KIND_NAMES[k] for k in outcomes] + [KIND_NAMES[k] for k in rest.elements()]
    env = cardcassonne_v0.raw_env(players=players, reward_mode=mode)
    env.reset(seed=0, options={"card_order": order})
    _replay_in_env(env, decisions, final, mode)


def test_serialization_goes_through_our_records_even_between_draws() -> None:
    game = tile_game(2, True, True)
    state = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(40):
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    while not state.is_chance_node():  # stop at a pending action (after its player's move)
        state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.chance_outcomes() == state.chance_outcomes()
    assert state2.history() == state.history()
    assert state2.engine.to_json() == state.engine.to_json()
    record = pickle.dumps(state._frozen)
    assert b"carcassonne-rl/record" in record  # the engine's JSON record, not its arrays


def test_action_strings_use_our_notation() -> None:
    decisions, _, _ = play_random(tile_game(2), seed=3)
    state = decisions[0][0]
    action = state.legal_actions()[0]
    code = state.get_game().encoder.code_of(state.engine, action)
    assert state.action_to_string(action) == state.engine.action_to_string(code)
    start = tile_game(2).new_initial_state()
    assert start.action_to_string(pyspiel.PlayerId.CHANCE, 21) == "draw V"
    card = pyspiel.load_game("python_cardcassonne").new_initial_state()
    assert card.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "card Y1"
