"""The single-agent Gymnasium view, and MaskablePPO training a few hundred steps on it."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.envs.single_agent import SingleAgentEnv


def test_single_agent_view_plays_whole_games():
    calls = []

    def first_legal(state, player):
        calls.append(player)
        return int(state.legal_action_codes()[0])

    env = SingleAgentEnv("cardcassonne", opponents=[first_legal, first_legal], players=3)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    done = False
    while not done:
        assert env.game_state.current_player == info["seat"]
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        obs, reward, done, _, step_info = env.step(int(np.flatnonzero(mask)[0]))
    assert set(calls) == set(range(3)) - {info["seat"]}
    assert reward in (-1.0, 0.0, 1.0)
    assert reward == (1.0 if step_info["winners"] == [info["seat"]] else reward)


def test_illegal_action_ends_the_episode():
    env = SingleAgentEnv("carcassonne", learner_seat=1, players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and info["illegal_action"] == illegal


@pytest.mark.parametrize(
    "game,kwargs",
    [("cardcassonne", {"players": 2}), ("carcassonne", {"players": 2, "window": 9})],
)
def test_maskable_ppo_trains(game, kwargs):
    import warnings

    MaskablePPO = pytest.importorskip("sb3_contrib").MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: SingleAgentEnv(game, **kwargs) for _ in range(2)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small test window: overflow warnings are expected
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=64,
            batch_size=64,
            n_epochs=1,
            policy_kwargs={"net_arch": [16]},
            seed=0,
        )
        model.learn(256)
    assert model.num_timesteps >= 256


def test_maskable_ppo_with_subprocesses():
    MaskablePPO = pytest.importorskip("sb3_contrib").MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv(
        [lambda: SingleAgentEnv("cardcassonne", players=2) for _ in range(2)],
        start_method="spawn",
    )
    try:
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=32,
            batch_size=64,
            n_epochs=1,
            policy_kwargs={"net_arch": [8]},
            seed=0,
        )
        model.learn(64)
        assert model.num_timesteps >= 64
    finally:
        venv.close()
