"""Atomic writes and checkpoint retention of run folders (``training.run_files``)."""

from __future__ import annotations

import io
import json
import os

import pytest

from carcassonne_rl.training import run_files
from carcassonne_rl.training.run_files import (
    atomic_link,
    atomic_save_model,
    atomic_write_json,
    atomic_write_text,
    checkpoint_path,
    list_checkpoints,
    prune_checkpoints,
    remove_temporaries,
)


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path) -> None:
    path = tmp_path / "sub" / "state.json"
    atomic_write_json(path, {"a": 1})
    atomic_write_json(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]


def test_a_write_cut_short_keeps_the_old_file(tmp_path, monkeypatch) -> None:
    path = tmp_path / "state.json"
    atomic_write_text(path, "old")

    def killed(src, dst):  # the process dies between writing and renaming
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # temporary removed


def test_remove_temporaries_clears_what_a_kill_left(tmp_path) -> None:
    (tmp_path / ".latest.zip.tmp-123").write_bytes(b"half")
    (tmp_path / "step_5.zip").write_bytes(b"whole")
    (tmp_path / "notes.tmp").write_bytes(b"not ours")
    removed = remove_temporaries(tmp_path)
    assert [p.name for p in removed] == [".latest.zip.tmp-123"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.tmp", "step_5.zip"]


def test_atomic_save_model_and_link(tmp_path) -> None:
    class Model:
        def save(self, file: io.BufferedIOBase) -> None:
            file.write(b"weights")

    path = atomic_save_model(Model(), checkpoint_path(tmp_path, 12))
    assert path.name == "step_12.zip" and path.read_bytes() == b"weights"
    latest = atomic_link(path, tmp_path / "latest.zip")
    assert latest.read_bytes() == b"weights"
    path.unlink()  # pruning the step file leaves the other name intact
    assert latest.read_bytes() == b"weights"


def test_prune_keeps_the_newest_and_the_protected(tmp_path) -> None:
    for step in (100, 20, 3, 40, 5000):
        checkpoint_path(tmp_path, step).write_bytes(b"x")
    (tmp_path / "latest.zip").write_bytes(b"x")
    assert [s for s, _ in list_checkpoints(tmp_path)] == [3, 20, 40, 100, 5000]  # numeric order
    removed = prune_checkpoints(tmp_path, keep=2, protect=[checkpoint_path(tmp_path, 3)])
    assert sorted(p.name for p in removed) == ["step_20.zip", "step_40.zip"]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["latest.zip", "step_100.zip", "step_3.zip", "step_5000.zip"]
    assert prune_checkpoints(tmp_path, keep=0) == []  # 0 keeps everything
    assert run_files.list_checkpoints(tmp_path / "missing") == []
