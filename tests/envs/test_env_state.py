"""PettingZoo's global state (``env.state()`` in ``env.state_space``) of every env and
configuration, checked at every step of random games, in the style of PettingZoo's api_test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.test.state_test import test_state_space as pz_state_space_test

from carcassonne_rl.encoders.card.encoder import CARD_OBS_SIZE, NK, CardEncoder
from carcassonne_rl.encoders.tile.encoder import NUM_PLANES, TileEncoder
from carcassonne_rl.envs import carcassonne_v0, carcassonne_v1, cardcassonne_v0
from carcassonne_rl.games.cardcassonne import redeal_unseen

ENVS = {"carcassonne_v0": carcassonne_v0, "carcassonne_v1": carcassonne_v1}
CONFIGS = [
    *[("cardcassonne_v0", {"players": n}) for n in (2, 3, 4, 5)],
    *[("carcassonne_v0", {"players": n}) for n in (2, 3, 4, 5)],
    ("carcassonne_v0", {"players": 3, "expansions": ("messages",)}),
    ("carcassonne_v0", {"players": 2, "expansions": ("labyrinth",), "window": 31}),
    ("carcassonne_v1", {"players": 2}),
    ("carcassonne_v1", {"players": 4, "expansions": ("messages", "labyrinth")}),
]


def _make(name: str, kwargs: dict):
    module = cardcassonne_v0 if name == "cardcassonne_v0" else ENVS[name]
    return module.env(**kwargs)


def _expected(name: str, raw) -> np.ndarray:
    """The global state computed afresh from the engine state (no observation cache)."""
    state = raw.game_state
    if name == "cardcassonne_v0":
        enc = CardEncoder()
        pile = np.zeros(NK, np.float32)
        for k in state.deck_cards():
            pile[k] += 1
        return np.concatenate([*(enc.encode(state, p) for p in range(raw.players)), pile])
    return TileEncoder(raw.encoder.window, raw.encoder.messages).encode(state, 0)


def _check(env, name: str, before: np.ndarray | None) -> np.ndarray:
    raw = env.unwrapped
    s = env.state()
    assert isinstance(s, np.ndarray) and s.shape == env.state_space.shape
    assert s.dtype == env.state_space.dtype and env.state_space.contains(s)
    assert np.array_equal(s, _expected(name, raw))
    if before is not None:
        assert not np.array_equal(s, before)  # every action moves the game on
    selected = raw.agent_selection
    for agent in raw.possible_agents:  # whoever is selected, the same state
        raw.agent_selection = agent
        assert np.array_equal(env.state(), s)
    raw.agent_selection = selected
    return s


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS)
def test_state_at_every_step_of_a_random_game(name: str, kwargs: dict) -> None:
    env = _make(name, kwargs)
    raw = env.unwrapped
    players = kwargs["players"]
    space = env.state_space
    assert isinstance(space, spaces.Box) and space.is_bounded("below")
    if name == "cardcassonne_v0":
        assert space.shape == (players * CARD_OBS_SIZE + NK,) and space.dtype == np.float32
    else:
        w = kwargs.get("window", 29)
        assert space.shape == (NUM_PLANES, w, w) and space.dtype == np.uint8
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    s = _check(env, name, None)
    steps = 0
    while not raw.game_state.is_over:
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        s = _check(env, name, s)
        steps += 1
    assert steps > 20


@pytest.mark.parametrize(("name", "kwargs"), [CONFIGS[1], CONFIGS[5], CONFIGS[8], CONFIGS[11]])
def test_state_changes_neither_observations_nor_games(name: str, kwargs: dict) -> None:
    """The same seed and moves with and without ``state()`` calls: the same observations of
    every seat, rewards and game record."""
    records = []
    for call_state in (False, True):
        env = _make(name, kwargs)
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        seen = []
        for _agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if call_state:
                env.state()
            seen.append((reward, *(env.observe(a) for a in env.agents)))
            action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]))
            env.step(None if action is None else int(action))
        records.append((seen, env.unwrapped.game_state.to_json()))
    (plain, plain_json), (probed, probed_json) = records
    assert plain_json == probed_json and len(plain) == len(probed)
    for a, b in zip(plain, probed, strict=True):
        assert a[0] == b[0]
        for x, y in zip(a[1:], b[1:], strict=True):
            for key in x:
                assert np.array_equal(x[key], y[key])


@pytest.mark.parametrize("players", [2, 4])
def test_card_state_holds_the_hidden_cards(players: int) -> None:
    """A position that seat 0 cannot tell apart (others' hands, face-down cards and the pile
    redealt) gives seat 0 the same observation but another global state."""
    env = cardcassonne_v0.env(players=players)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    raw = env.unwrapped
    for _ in range(4 * players):  # into the round: face-down cards on the rows
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = raw.game_state
    seat0, full = raw.observe_seat(0), env.state()
    other = redeal_unseen(state, 0, 5)
    raw.game_state = other
    assert np.array_equal(raw.observe_seat(0), seat0)
    assert np.array_equal(env.observe("player_0")["observation"], seat0)
    changed = env.state()
    assert not np.array_equal(changed, full)
    assert np.array_equal(changed[:CARD_OBS_SIZE], full[:CARD_OBS_SIZE])  # seat 0's block
    assert np.array_equal(changed, _expected("cardcassonne_v0", raw))


def test_tile_state_leaves_out_the_pile_order_and_matches_between_versions() -> None:
    v0, v1 = carcassonne_v0.env(players=3), carcassonne_v1.env(players=3)
    v0.reset(seed=5)
    v1.reset(seed=5)
    assert v0.state_space == v1.state_space
    assert np.array_equal(v0.state(), v1.state())
    before = v0.state()
    raw = v0.unwrapped
    raw.game_state = raw.game_state.resample_hidden(1)
    assert np.array_equal(v0.state(), before)  # the same tiles left, in another order


def test_observe_seat_is_the_observation_without_the_mask() -> None:
    for env in (cardcassonne_v0.env(players=3), carcassonne_v1.env(players=2)):
        env.reset(seed=2)
        raw = env.unwrapped
        for seat, agent in enumerate(raw.possible_agents):
            obs = env.observe(agent)
            mine = raw.observe_seat(seat)
            parts = mine if isinstance(mine, dict) else {"observation": mine}
            assert set(parts) | {"action_mask"} == set(obs)
            assert all(np.array_equal(parts[k], obs[k]) for k in parts)


def test_state_before_reset_and_pettingzoo_state_test() -> None:
    env = carcassonne_v0.env()
    with pytest.raises(AssertionError, match="reset"):
        env.state()
    with pytest.raises(AssertionError, match="reset"):
        env.unwrapped.state()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the card vectors' unbounded high, illegal moves
        for env in (cardcassonne_v0.env(players=3), carcassonne_v1.env(players=2)):
            pz_state_space_test(env)
            pz_state_test(env, num_cycles=20)
