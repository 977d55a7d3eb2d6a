"""PettingZoo api_test, seed_test and pickle round-trips for every env config."""

from __future__ import annotations

import pickle
import sys
import warnings

import numpy as np
import pytest

from carcassonne_rl.envs import carcassonne_v0, carcassonne_v1, cardcassonne_v0

with warnings.catch_warnings():
    # pettingzoo.test imports pettingzoo.classic.connect_four_v3 itself, through the creation
    # API that PettingZoo 1.27 deprecates; our code uses the registry (bench_env.make_env)
    warnings.filterwarnings("ignore", "The old environment creation API", DeprecationWarning)
    from pettingzoo.test import api_test, seed_test


TILE_CONFIGS = [(n, e) for n in (2, 3, 4, 5) for e in ((), ("messages", "labyrinth"))]

# Warnings api_test gives for any env with a dict observation, explained rather than fixed:
# {"observation", "action_mask"} is the convention of PettingZoo's own classic games, which
# api_test exempts from these two warnings by name (see the test below). The third is
# api_test's probe reset(options={"options": 1}), an unknown option our envs warn about (an
# unknown key is ignored with a warning, see GameEnv._check_options).
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)
api_test_warnings = pytest.mark.filterwarnings(
    *(f"ignore:{text}:UserWarning" for text in DICT_OBSERVATION_WARNINGS),
    "ignore:ignored unknown reset option\\(s\\) \\['options'\\]:UserWarning",
)


def test_pettingzoo_exempts_its_own_games_by_name() -> None:
    api_module = sys.modules[api_test.__module__]
    assert "connect_four_v3" in api_module.env_obs_dicts
    assert "connect_four_v3" in api_module.env_obs_space


@api_test_warnings
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_card_api_and_seed(players):
    api_test(cardcassonne_v0.env(players=players), num_cycles=300)
    seed_test(lambda: cardcassonne_v0.env(players=players), num_cycles=100)


@api_test_warnings
@pytest.mark.parametrize("players,expansions", TILE_CONFIGS)
def test_tile_api_and_seed(players, expansions):
    api_test(carcassonne_v0.env(players=players, expansions=expansions), num_cycles=150)
    seed_test(lambda: carcassonne_v0.env(players=players, expansions=expansions), num_cycles=60)


@api_test_warnings
# api_test reads the mask of a dict without an "observation" key (it skips v0's): a seat that
# is not to move, and every seat once the game is over, has an all-zero mask, as documented
@pytest.mark.filterwarnings("ignore:Action mask numpy array is all zeros:UserWarning")
@pytest.mark.parametrize("players,expansions", TILE_CONFIGS)
def test_tile_v1_api_and_seed(players, expansions):
    api_test(carcassonne_v1.env(players=players, expansions=expansions), num_cycles=150)
    seed_test(lambda: carcassonne_v1.env(players=players, expansions=expansions), num_cycles=60)


def _observations_equal(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def _play(env, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                return
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize(
    "make",
    [lambda n=n: cardcassonne_v0.env(players=n) for n in (2, 3, 4, 5)]
    + [lambda n=n, e=e: carcassonne_v0.env(players=n, expansions=e) for n, e in TILE_CONFIGS]
    + [lambda n=n, e=e: carcassonne_v1.env(players=n, expansions=e) for n, e in TILE_CONFIGS],
)
def test_pickle_round_trip(make):
    env = make()
    env.reset(seed=3)
    _play(env, 25, seed=1)
    copy = pickle.loads(pickle.dumps(env))
    for agent in env.agents:
        assert _observations_equal(env.observe(agent), copy.observe(agent))
    assert copy.agent_selection == env.agent_selection
    assert copy.unwrapped.game_state.history == env.unwrapped.game_state.history
    # both continue identically
    _play(env, 30, seed=2)
    _play(copy, 30, seed=2)
    assert copy.unwrapped.game_state.history == env.unwrapped.game_state.history


def test_registered_in_pettingzoo_registry():
    import pettingzoo

    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is None:
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", "carcassonne_rl/cardcassonne-v0", players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert "carcassonne_rl/carcassonne-v0" in registry
    v1 = pettingzoo.make("aec", "carcassonne_rl/carcassonne-v1", players=2)
    v1.reset(seed=0)
    assert set(v1.observe("player_0")) == {"board", "globals", "action_mask"}
