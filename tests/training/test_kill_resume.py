"""A training run killed with SIGKILL at random moments resumes and finishes intact."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from carcassonne_rl.training.run_files import TEMPORARY_PATTERN, list_checkpoints

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

TIMESTEPS = 3072
KEEP = 2
TRAIN = [
    "train", "--game", "cardcassonne", "--timesteps", str(TIMESTEPS), "--envs", "1",
    "--eval-every", "1536", "--eval-deals", "1", "--snapshot-every", "128", "--no-progress",
    "--set", "n_steps=64", "--set", "batch_size=64", "--set", "n_epochs=1",
    "--set", "checkpoint_every=64", "--set", f"keep_checkpoints={KEEP}", "--set", "hidden=16",
    "--set", "warm_start_games=1", "--set", "warm_start_epochs=1",
]  # fmt: skip


def _command(out: Path, resume: bool) -> list[str]:
    cmd = [sys.executable, "-m", "carcassonne_rl.cli.main", *TRAIN, "--out", str(out)]
    return cmd + (["--resume"] if resume else [])


def _stamp(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return None


def _assert_nothing_corrupt(out: Path) -> None:
    """Every JSON file parses and every model file is a complete zip archive."""
    for path in out.rglob("*.json"):
        json.loads(path.read_text())
    for path in out.rglob("*.zip"):
        with zipfile.ZipFile(path) as archive:
            assert archive.testzip() is None, path
    state_file = out / "trainer_state.json"
    if state_file.exists():
        state = json.loads(state_file.read_text())
        assert (out / state["checkpoint"]).exists()  # the state's checkpoint is never pruned
        for snapshot in state["snapshots"]:
            assert Path(snapshot).exists()  # nor the pool's snapshots


def test_sigkill_at_random_moments_then_resume(tmp_path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    rng = random.Random()
    kills: list[float] = []
    progress: list[int] = []
    for _ in range(3):
        resume = (out / "config.json").exists()  # killed before it was written: start again
        proc = subprocess.Popen(_command(out, resume), env=env, stdout=subprocess.DEVNULL)
        started = time.monotonic()
        before = _stamp(out / "trainer_state.json")
        while _stamp(out / "trainer_state.json") == before and proc.poll() is None:
            assert time.monotonic() - started < 300, "the run wrote no checkpoint"
            time.sleep(0.05)  # until this session's first checkpoint: the kill lands in training
        delay = rng.uniform(0.0, 3.0)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills.append(round(delay, 1))
        _assert_nothing_corrupt(out)
        state_file = out / "trainer_state.json"
        if state_file.exists():
            progress.append(json.loads(state_file.read_text())["timesteps"])
    print("killed (s after a checkpoint):", kills, "last checkpoint after each kill:", progress)
    assert kills, "the run finished before any kill: raise TIMESTEPS"
    finish = subprocess.run(
        _command(out, (out / "config.json").exists()),
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert finish.returncode == 0, finish.stderr[-2000:]
    _assert_nothing_corrupt(out)
    state = json.loads((out / "trainer_state.json").read_text())
    assert state["timesteps"] == TIMESTEPS, kills
    assert state["checkpoint"] == f"checkpoints/step_{TIMESTEPS}.zip"
    steps = [s for s, _ in list_checkpoints(out / "checkpoints")]
    assert steps[-1] == TIMESTEPS and len(steps) <= KEEP, steps
    assert (out / "checkpoints" / "latest.zip").read_bytes() == (
        out / "checkpoints" / f"step_{TIMESTEPS}.zip"
    ).read_bytes()
    assert json.loads((out / "eval_history.json").read_text())[-1]["timesteps"] == TIMESTEPS
    assert [p for p in out.rglob("*") if TEMPORARY_PATTERN.match(p.name)] == []
    assert (out / "plots" / "training.png").read_bytes().startswith(b"\x89PNG")

    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(out / "final_model.zip", device="cpu")
    assert model.num_timesteps == TIMESTEPS


def test_resume_before_the_first_checkpoint_starts_over_and_prunes(tmp_path) -> None:
    from carcassonne_rl.training.ppo.selfplay import train
    from carcassonne_rl.training.train_config import TrainConfig

    config = TrainConfig(
        game="cardcassonne", timesteps=64, n_envs=1, n_steps=64, batch_size=64, n_epochs=1,
        warm_start_games=0, eval_every=0, eval_deals=1, snapshot_every=32,
        checkpoint_every=16, keep_checkpoints=2, hidden=16,
    )  # fmt: skip
    out = tmp_path / "run"
    config.save(out / "config.json")  # the run was killed right after it started
    (out / "snapshots").mkdir()
    (out / "snapshots" / ".step_32.zip.tmp-999").write_bytes(b"half a model")
    model = train(config, out, resume=True, progress=False)
    assert model.num_timesteps == 64
    assert [s for s, _ in list_checkpoints(out / "checkpoints")] == [48, 64]  # 16, 32 pruned
    state = json.loads((out / "trainer_state.json").read_text())
    assert [Path(p).name for p in state["snapshots"]] == ["step_32.zip", "step_64.zip"]
    assert sorted(p.name for p in (out / "snapshots").iterdir()) == ["step_32.zip", "step_64.zip"]
