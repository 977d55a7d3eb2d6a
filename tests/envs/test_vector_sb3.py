"""The SB3 VecEnv over the vector envs: the learner is to move in every game between steps,
rewards and dones are the learner seat's, and MaskablePPO trains on it (both games)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from carcassonne_rl.envs.vector.sb3 import SB3VecEnv  # noqa: E402


def test_the_learner_moves_in_every_game_between_steps() -> None:
    env = SB3VecEnv("carcassonne_v1", num_envs=6, learner_seat=1, players=3, seed=3)
    obs = env.reset()
    assert set(obs) == {"board", "globals"} and obs["board"].shape[0] == 6
    rng = np.random.default_rng(0)
    ends = wins = 0
    for _ in range(400):
        assert (env.venv.seats == 1).all()
        masks = np.stack(env.env_method("action_masks"))
        assert masks.any(axis=1).all()
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        env.step_async(np.array(actions))
        obs, reward, done, infos = env.step_wait()
        for i in np.flatnonzero(done):
            ends += 1
            scores = infos[i]["scores"]
            assert reward[i] in (-1.0, 0.0, 1.0)
            wins += reward[i] == 1.0
            assert (reward[i] == 1.0) == (
                scores[1] == max(scores) and scores.count(max(scores)) == 1
            )
            assert set(infos[i]["terminal_observation"]) == {"board", "globals"}
        assert (reward[~done] == 0).all()  # win_loss: nothing before the end
    assert ends >= 6


def test_an_opponent_callable_plays_the_other_seats() -> None:
    calls = []

    def first_legal(obs, masks, games):
        calls.append(len(games))
        return [int(np.flatnonzero(masks[i])[0]) for i in games]

    env = SB3VecEnv("carcassonne_v0", num_envs=3, opponent=first_legal, seed=1)
    obs = env.reset()
    assert obs.shape == (3, 159, 29, 29)
    for _ in range(3):  # the learner's tile, its follower: then the opponent's turn
        env.step_async(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
        env.step_wait()
        assert (env.venv.seats == 0).all()
    assert calls == [3, 3]  # the opponent's tile and follower, in the 3 games at once
    with pytest.raises(ValueError, match="learner_seat"):
        SB3VecEnv("carcassonne_v1", num_envs=2, learner_seat=2)


def test_maskable_ppo_trains_on_64_games() -> None:
    from sb3_contrib import MaskablePPO

    env = SB3VecEnv("carcassonne_v1", num_envs=64, seed=0)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=8, batch_size=128, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]}, device="cpu",
    )  # fmt: skip
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    changed = [
        not np.allclose(a.numpy(), b.detach().numpy())
        for a, b in zip(before, model.policy.parameters(), strict=True)
    ]
    assert any(changed)


def test_maskable_ppo_trains_on_the_card_game() -> None:
    from sb3_contrib import MaskablePPO

    env = SB3VecEnv("cardcassonne_v0", num_envs=16, learner_seat=1, players=3, seed=2)
    obs = env.reset()
    assert obs.shape == (16, 1620) and (env.venv.seats == 1).all()
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]}, device="cpu",
    )  # fmt: skip
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and (env.venv.seats == 1).all()
    changed = [
        not np.allclose(a.numpy(), b.detach().numpy())
        for a, b in zip(before, model.policy.parameters(), strict=True)
    ]
    assert any(changed)
