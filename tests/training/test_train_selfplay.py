"""Tiny self-play runs: the model trains, checkpoints, resumes, evaluates and plays."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.arena.evaluation import evaluate_model_file
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.training.ppo.opponent_pool import OpponentPool, PoolSchedule
from carcassonne_rl.training.ppo.selfplay import train
from carcassonne_rl.training.train_config import TrainConfig

TINY = dict(
    n_envs=1, n_steps=64, batch_size=64, n_epochs=1, snapshot_every=64, eval_every=128,
    checkpoint_every=128, eval_deals=1, channels=8, conv_layers=2, hidden=32,
    warm_start_games=1, warm_start_epochs=1,
)  # fmt: skip


@pytest.mark.parametrize("game", ["cardcassonne", "carcassonne"])
def test_tiny_run_trains_checkpoints_resumes_evaluates_and_plays(tmp_path, game: str) -> None:
    out = tmp_path / game
    config = TrainConfig(game=game, timesteps=128, **TINY)
    model = train(config, out, progress=False)
    assert model.num_timesteps == 128
    for name in ("config.json", "policy_spec.json", "final_model.zip", "eval_history.json",
                 "checkpoints/latest.zip", "trainer_state.json", "plots/training.png"):  # fmt: skip
        assert (out / name).exists(), name
    state = json.loads((out / "trainer_state.json").read_text())
    assert state["timesteps"] == 128
    assert len(state["snapshots"]) == 3  # the warm start, then at 64 and 128 steps
    assert state["warm_start"]["games"] == 1 and state["warm_start"]["samples"] > 10
    history = json.loads((out / "eval_history.json").read_text())
    assert history[-1]["timesteps"] == 128
    assert 0.0 <= history[-1]["random"]["win_rate"] <= 1.0

    # resume: the step count continues from the checkpoint, not from zero
    config.timesteps = 256
    resumed = train(config, out, resume=True, progress=False)
    assert resumed.num_timesteps == 256
    assert json.loads((out / "trainer_state.json").read_text())["timesteps"] == 256
    with pytest.raises(FileExistsError):
        train(TrainConfig(game=game, timesteps=64, **TINY), out, progress=False)

    # the trained model is an agent: it plays legal full games in the arena
    spec = f"policy:{out / 'final_model.zip'}"
    agent = make_agent(spec, game)
    assert agent.game == game
    result = play_game(Job(Setup(game, 2), (spec, "random"), (spec, "random"), 3, 0, 0, 1))
    assert len(result.scores) == 2 and result.decisions[0] > 10
    rows = evaluate_model_file(out / "final_model.zip", game, deals=1, progress=False)
    assert [r["opponent"] for r in rows] == ["random", "greedy"]
    assert all(r["games"] == 2 for r in rows)


def test_resume_refuses_another_config(tmp_path) -> None:
    config = TrainConfig(game="cardcassonne", timesteps=64, **TINY)
    train(config, tmp_path / "run", progress=False)
    other = TrainConfig(game="cardcassonne", timesteps=128, **{**TINY, "n_epochs": 2})
    with pytest.raises(ValueError, match="another config"):
        train(other, tmp_path / "run", resume=True, progress=False)
    with pytest.raises(FileNotFoundError):
        train(config, tmp_path / "nothing", resume=True, progress=False)


def test_warm_start_imitates_the_demonstrations() -> None:
    """Behaviour cloning drives the policy towards the demonstrated actions."""
    from carcassonne_rl.training.ppo.selfplay import make_vec_env, new_model
    from carcassonne_rl.training.ppo.warm_start import collect, pretrain

    tiny = {**TINY, "hidden": 64, "learning_rate": 1e-3}
    config = TrainConfig(game="cardcassonne", timesteps=64, **tiny)
    data = collect(config, games=2, seed=5)
    n = len(data["actions"])
    assert n > 100 and data["obs"].shape[0] == data["masks"].shape[0] == n
    assert data["masks"][np.arange(n), data["actions"]].all()  # demonstrated moves are legal
    assert set(np.unique(data["returns"]).round(6)) - {-1.0, 0.0, 1.0}  # shaped returns
    env = make_vec_env(config)
    model = new_model(config, env, None)
    env.close()
    before = pretrain(model, data, epochs=1)
    after = pretrain(model, data, epochs=20)
    assert after["bc_loss"] < before["bc_loss"] - 0.2
    assert after["value_loss"] < before["value_loss"] / 2


def test_pool_schedule_frequencies() -> None:
    """The documented mixture: 50% latest, 30% older snapshots, 20% baselines."""
    pool = OpponentPool("cardcassonne", PoolSchedule(0.5, 0.3, ("random", "greedy")), seed=1)
    assert {pool.pick() for _ in range(50)} <= {"random", "greedy"}  # no snapshot yet
    pool.set_snapshots(["a.zip", "b.zip", "c.zip"])
    picks = [pool.pick() for _ in range(20_000)]
    freq = {k: picks.count(k) / len(picks) for k in set(picks)}
    assert abs(freq["c.zip"] - 0.5) < 0.02
    assert abs(freq["a.zip"] + freq["b.zip"] - 0.3) < 0.02
    assert abs(freq["a.zip"] - freq["b.zip"]) < 0.02
    assert abs(freq["random"] + freq["greedy"] - 0.2) < 0.02


def test_train_config_validation() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        TrainConfig(game="chess")
    with pytest.raises(ValueError, match="expansions"):
        TrainConfig(game="cardcassonne", expansions=("messages",))
    with pytest.raises(ValueError, match="timesteps"):
        TrainConfig(timesteps=0)
    with pytest.raises(ValueError, match="sum to"):
        PoolSchedule(0.8, 0.5)
    assert np.isclose(TrainConfig().pool_latest + TrainConfig().pool_past, 0.8)


def test_train_config_device_round_trip_and_old_configs(tmp_path) -> None:
    """``device`` is saved in config.json; a config.json written before it existed loads
    with SB3's default ``auto``; a name torch does not know is refused."""
    config = TrainConfig(game="cardcassonne", device="cpu", n_envs=1)
    config.save(tmp_path / "config.json")
    assert json.loads((tmp_path / "config.json").read_text())["device"] == "cpu"
    assert TrainConfig.load(tmp_path / "config.json") == config
    old = config.to_dict()
    del old["device"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    loaded = TrainConfig.load(tmp_path / "old.json")
    assert loaded.device == "auto" and TrainConfig().device == "auto"
    assert TrainConfig(device="cuda:1").device == "cuda:1"
    for bad in ("gpu", "cuda:", "", "CPU "):
        with pytest.raises(ValueError, match="device must be"):
            TrainConfig(device=bad)


def test_new_model_takes_the_config_device() -> None:
    import torch

    from carcassonne_rl.training.ppo.selfplay import make_vec_env, new_model

    config = TrainConfig(game="cardcassonne", device="cpu", **TINY)
    env = make_vec_env(config)
    try:
        model = new_model(config, env, None)
    finally:
        env.close()
    assert model.device == torch.device("cpu")
    assert next(model.policy.parameters()).device == torch.device("cpu")
