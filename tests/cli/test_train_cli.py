"""The training commands of the CLI on tiny budgets (the main job included)."""

from __future__ import annotations

import json

import pytest

from carcassonne_rl.cli.main import main


def test_train_then_evaluate_commands(tmp_path, capsys) -> None:
    run = tmp_path / "card"
    args = ["train", "--game", "cardcassonne", "--timesteps", "64", "--out", str(run)]
    sets = ["--set", "warm_start_games=1", "--set", "hidden=32", "--set", "learning_rate=1e-3"]
    assert main(args + ["--envs", "1", "--eval-every", "0", "--no-progress", *sets]) == 0
    printed = capsys.readouterr().out
    assert "warm start: 1 greedy game to imitate" in printed
    history = json.loads((run / "eval_history.json").read_text())
    final = history[-1]["random"]  # the table printed at the end is the last evaluation
    assert f"final evaluation at {history[-1]['timesteps']} steps" in printed
    rate = f"{100 * final['win_rate']:.0f}%"
    assert f"evaluation at {history[-1]['timesteps']} steps: vs random {rate}" in printed
    assert (
        f"| random | {final['deals']} | {final['games']} | {100 * final['win_rate']:.1f}% |"
        in printed
    )
    config = json.loads((run / "config.json").read_text())
    assert config["game"] == "cardcassonne" and config["timesteps"] == 64
    assert (config["warm_start_games"], config["hidden"], config["learning_rate"]) == (1, 32, 1e-3)
    assert (run / "final_model.zip").exists()
    assert main(["evaluate", str(run), "--deals", "1", "--opponents", "random"]) == 0
    out = capsys.readouterr().out
    assert "| random | 1 | 2 |" in out  # one deal, played from both seats
    rows = json.loads((run / "evaluation.json").read_text())
    assert rows[0]["opponent"] == "random" and rows[0]["games"] == 2
    # --resume goes on with the saved settings (the --set values need not be repeated)
    assert (
        main(["train", "--out", str(run), "--resume", "--timesteps", "128", "--no-progress"]) == 0
    )
    state = json.loads((run / "trainer_state.json").read_text())
    assert (
        state["timesteps"] >= 128 and json.loads((run / "config.json").read_text())["hidden"] == 32
    )
    # --overwrite starts afresh
    assert main(args + ["--envs", "1", "--no-progress", "--overwrite", *sets]) == 0
    assert json.loads((run / "trainer_state.json").read_text())["timesteps"] == 256


def test_bad_training_arguments_are_rejected(tmp_path) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--game", "chess", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        main(["train", "--timesteps", "0", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        main(["train", "--expansions", "dragons", "--out", str(tmp_path)])
    assert main(["train", "--set", "chanels=3", "--out", str(tmp_path)]) == 2
    assert main(["evaluate", str(tmp_path / "missing")]) == 2


def test_main_job_on_a_tiny_budget(tmp_path) -> None:
    out = tmp_path / "main"
    args = ["main", "--scale", "0.002", "--eval-deals", "1", "--out", str(out)]
    assert main(args + ["--no-progress", "--workers", "1"]) == 0
    summary = json.loads((out / "results.json").read_text())
    assert set(summary["games"]) == {"carcassonne", "cardcassonne"}
    for game in ("carcassonne", "cardcassonne"):
        rows = summary["games"][game]["vs"]
        assert [r["opponent"] for r in rows] == ["random", "greedy"]
    assert (out / "cardcassonne" / "final_model.zip").exists()  # MaskablePPO
    assert (out / "carcassonne" / "final_model.npz").exists()  # afterstate values
    assert "### carcassonne" in (out / "results.md").read_text()
    # resuming the finished job trains nothing more and reports the training time it took
    assert main(args + ["--no-progress", "--workers", "1", "--resume"]) == 0
    again = json.loads((out / "results.json").read_text())
    for game in ("carcassonne", "cardcassonne"):
        first, second = summary["games"][game], again["games"][game]
        assert second["timesteps"] == first["timesteps"]
        assert second["train_seconds"] >= first["train_seconds"] > 0


def test_train_device_option_reaches_the_model(tmp_path, monkeypatch) -> None:
    """``--device cpu`` is the run's config device and the model's (training replaced by
    building the model); ``--device`` is refused where it has no meaning."""
    import torch

    from carcassonne_rl.training.ppo import selfplay

    seen = {}

    def build_only(config, out, resume=False, progress=True):
        env = selfplay.make_vec_env(config)
        try:
            seen["device"] = selfplay.new_model(config, env, None).device
        finally:
            env.close()
        config.save(out / "config.json")

    monkeypatch.setattr(selfplay, "train", build_only)
    run = tmp_path / "run"
    args = ["train", "--game", "cardcassonne", "--out", str(run), "--envs", "1", "--no-progress"]
    assert main([*args, "--device", "cpu", "--set", "hidden=32"]) == 0
    assert seen["device"] == torch.device("cpu")
    assert json.loads((run / "config.json").read_text())["device"] == "cpu"
    assert main([*args, "--overwrite", "--device", "gpu"]) == 2  # one line, no traceback
    tile = ["train", "--out", str(tmp_path / "a"), "--no-progress", "--device", "cpu"]
    assert main([*tile, "--backend", "rllib"]) == 2
    # the afterstate learner and its self-play evaluations: a device name it knows, here
    after = ["train", "--algo", "afterstate", "--out", str(tmp_path / "b"), "--no-progress"]
    assert main([*after, "--device", "gpu"]) == 2
    if not torch.cuda.is_available():
        assert main([*after, "--device", "cuda"]) == 2  # no GPU here: one line
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())
