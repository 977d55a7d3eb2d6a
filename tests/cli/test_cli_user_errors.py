"""Every user error of the CLI: non-zero exit, one clear line on stderr, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from carcassonne_rl.cli.main import main
from carcassonne_rl.cli.main_job import CARD_STEPS, TILE_STEPS, game_config
from carcassonne_rl.training.train_config import TrainConfig


def fake_run(folder: Path, config: TrainConfig, timesteps_done: int = 256) -> Path:
    """A run folder as the trainer leaves it (config + trainer state), without training."""
    folder.mkdir(parents=True, exist_ok=True)
    config.save(folder / "config.json")
    state = {"timesteps": timesteps_done, "wall_s": 12.0}
    (folder / "trainer_state.json").write_text(json.dumps(state))
    return folder


def user_error(capsys, argv: list[str], *expected: str) -> str:
    """Run the CLI in-process; it must exit 2 with one stderr line holding ``expected``."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"carcassonne-rl {argv[0]}: error: "), lines[0]
    for text in expected:
        assert text in lines[0], lines[0]
    assert "Traceback" not in captured.err + captured.out
    return lines[0]


def test_train_into_a_folder_holding_a_run(tmp_path, capsys) -> None:
    run = fake_run(tmp_path / "run", TrainConfig())
    before = (run / "config.json").read_text()
    user_error(capsys, ["train", "--out", str(run)], "already holds a run", "--resume",
               "--overwrite")  # fmt: skip
    assert (run / "config.json").read_text() == before  # nothing changed


def test_train_resume_with_nothing_to_resume(tmp_path, capsys) -> None:
    user_error(capsys, ["train", "--out", str(tmp_path / "new"), "--resume"],
               "nothing to resume", "leave out --resume")  # fmt: skip
    assert not (tmp_path / "new").exists()


def test_train_resume_with_a_damaged_run(tmp_path, capsys) -> None:
    run = fake_run(tmp_path / "run", TrainConfig())
    (run / "trainer_state.json").write_text('{"timesteps": 25')
    user_error(capsys, ["train", "--out", str(run), "--resume"], "is damaged", "--overwrite")
    (run / "trainer_state.json").write_text("{}")
    (run / "config.json").write_text("[1, 2")
    user_error(capsys, ["train", "--out", str(run), "--resume"], "not a readable run config")


def test_train_resume_with_other_settings(tmp_path, capsys) -> None:
    run = fake_run(tmp_path / "run", TrainConfig(game="carcassonne", seed=3))
    line = user_error(
        capsys,
        ["train", "--out", str(run), "--resume", "--game", "cardcassonne", "--seed", "3"],
        "other settings",
        "game 'carcassonne' -> 'cardcassonne'",
    )
    assert "seed" not in line.split("other settings")[1].split(")")[0]  # the same seed is fine


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--set", "chanels=3"], "--set 'chanels=3': expected FIELD=VALUE"),
        (["--set", "channels=many"], "'many' is not a valid int"),
        (["--set", "players=9"], "bad training settings: players must be 2-5"),
        (["--game", "cardcassonne", "--expansions", "messages"], "only for the tile game"),
    ],
)
def test_train_bad_settings(tmp_path, capsys, argv, expected) -> None:
    user_error(capsys, ["train", "--out", str(tmp_path / "run"), *argv], expected)
    assert not (tmp_path / "run").exists()


def test_resume_and_overwrite_exclude_each_other(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as err:
        main(["train", "--out", str(tmp_path), "--resume", "--overwrite"])
    assert err.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_evaluate_errors(tmp_path, capsys) -> None:
    user_error(capsys, ["evaluate", str(tmp_path / "missing")], "no model at")
    run = tmp_path / "run"
    run.mkdir()
    (run / "final_model.zip").write_bytes(b"")
    user_error(capsys, ["evaluate", str(run)], "no config.json next to")
    (run / "config.json").write_text("{not json")
    user_error(capsys, ["evaluate", str(run)], "config.json is not valid JSON")
    (run / "config.json").write_text('{"game": "chess"}')
    user_error(capsys, ["evaluate", str(run)], "names no game")
    TrainConfig().save(run / "config.json")
    user_error(capsys, ["evaluate", str(run), "--opponents", "random,mcts:many"],
               "--opponents: bad mcts spec 'mcts:many'")  # fmt: skip
    user_error(capsys, ["evaluate", str(run), "--opponents", "policy:" + str(tmp_path / "x.zip")],
               "--opponents: no model at")  # fmt: skip


def test_arena_errors(tmp_path, capsys) -> None:
    argv = ["arena", "--agents", "random,greedy", "--deals", "1", "--workers", "1"]
    user_error(capsys, [*argv[:1], "--agents", "random,wizard"], "--agents: unknown agent")
    user_error(capsys, [*argv[:1], "--agents", " , "], "--agents names no agent")
    user_error(capsys, [*argv[:1], "--agents", "greedy"], "--agents names one agent")
    user_error(capsys, [*argv, "--opponents", "greedy,wizard"], "--opponents: unknown agent")
    out = tmp_path / "report"
    out.mkdir()
    (out / "arena.md").write_text("an earlier report")
    user_error(capsys, [*argv, "--out", str(out)], "already holds files", "--overwrite")
    assert (out / "arena.md").read_text() == "an earlier report"
    user_error(capsys, [*argv, "--game", "cardcassonne", "--expansions", "messages"],
               "only for the tile game")  # fmt: skip


def test_probe_errors(capsys) -> None:
    argv = ["probe", "--sims", "2", "--deals", "1", "--no-progress"]
    user_error(capsys, [*argv, "--target", "wizard"], "--target: unknown agent 'wizard'")
    user_error(capsys, [*argv, "--target", "greedy,random"], "--target names one agent")
    user_error(capsys, [*argv, "--target", "greedy", "--game", "carcassonne"],
               "--target: exploit plays the card game (cardcassonne) only")  # fmt: skip


def test_arena_default_report_folders_never_overwrite(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["arena", "--agents", "random,random", "--deals", "1", "--workers", "1"]
    assert main([*argv, "--no-progress"]) == 0
    assert main([*argv, "--no-progress", "--seed", "1"]) == 0
    reports = sorted((tmp_path / "runs" / "arena").iterdir())
    assert len(reports) == 2 and all(r.name.startswith("carcassonne-") for r in reports)
    seeds = [json.loads((r / "arena.json").read_text())["seed"] for r in reports]
    fresh = next(s for s in seeds if s != 1)  # no --seed: a fresh 128-bit seed, reported
    assert 1 in seeds and 2**64 < fresh < 2**128
    assert f"deal seed: {fresh} (--seed {fresh} plays" in capsys.readouterr().out
    assert main([*argv, "--no-progress", "--out", str(reports[0]), "--overwrite"]) == 0
    assert json.loads((reports[0] / "arena.json").read_text())["seed"] not in (fresh, 1)
    capsys.readouterr()


def test_main_job_folder_errors(tmp_path, capsys) -> None:
    out = tmp_path / "main"
    for game, steps in (("cardcassonne", CARD_STEPS), ("carcassonne", TILE_STEPS)):
        fake_run(out / game, game_config(game, steps, 1.0, 0))
    user_error(capsys, ["main", "--out", str(out)], "already holds a main-job run", "--resume")
    user_error(capsys, ["main", "--out", str(out), "--resume", "--scale", "2"],
               "other settings", "snapshot_every", "--scale and --seed")  # fmt: skip
    user_error(capsys, ["main", "--out", str(tmp_path / "none"), "--resume"], "nothing to resume")
    user_error(capsys, ["main", "--out", str(out / "cardcassonne" / "config.json")], "is a file")


def test_bench_expansions_of_the_card_game(capsys) -> None:
    user_error(capsys, ["bench", "engine", "--game", "cardcassonne", "--expansions", "messages"],
               "only for the tile game")  # fmt: skip


def test_console_script_prints_one_line_and_no_traceback(tmp_path) -> None:
    run = fake_run(tmp_path / "run", TrainConfig())
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo), *sys.path]))
    for argv, expected in (
        (["train", "--out", str(run)], "already holds a run"),
        (["evaluate", str(tmp_path / "missing")], "no model at"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "carcassonne_rl.cli.main", *argv],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_output_cut_short_by_its_reader_is_no_traceback(tmp_path) -> None:
    """``carcassonne-rl arena ... | head -1``: the reader leaves, the command stops quietly."""
    cmd = [sys.executable, "-m", "carcassonne_rl.cli.main", "arena", "--agents", "greedy,random",
           "--deals", "2", "--seed", "0", "--workers", "1", "--no-progress", "--bootstrap", "0",
           "--out", str(tmp_path / "report")]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does once it has its line
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert first == "4 games on 2 deals.\n"  # the report's first line
    assert "Traceback" not in err and "BrokenPipeError" not in err
