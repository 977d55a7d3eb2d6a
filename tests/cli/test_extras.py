"""A command that needs a missing extra names the ``pip install`` that brings it, in one
line; the core commands need none of them; the package says its version and ships py.typed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import carcassonne_rl
from carcassonne_rl.cli import train as train_cli
from carcassonne_rl.cli.extras import EXTRAS, missing_extra
from carcassonne_rl.cli.main import build_parser, main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_flask(monkeypatch):
    """Flask (and what imports it) as if not installed: ``import flask`` fails."""
    monkeypatch.setitem(sys.modules, "flask", None)
    monkeypatch.delitem(sys.modules, "carcassonne_rl.play.server", raising=False)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_play_and_replay_without_flask_name_the_play_extra(no_flask, tmp_path, capsys) -> None:
    games = tmp_path / "games"
    argv = ["play", "--no-browser", "--port", "0", "--save-dir", str(games)]
    assert main(argv) == 2
    err = _one_line(capsys)
    assert "the play page needs flask, which is not installed" in err
    assert "pip install 'carcassonne-rl[play]'" in err and "--tui" in err
    assert main(["replay", str(tmp_path / "game.json"), "--no-browser"]) == 2
    assert "the replay page needs flask" in _one_line(capsys)
    assert not games.exists()


def test_the_core_commands_need_no_flask(no_flask, tmp_path, capsys) -> None:
    build_parser()  # every sub-command's parser, play's included
    argv = ["arena", "--agents", "random,greedy", "--deals", "1", "--workers", "1",
            "--no-progress", "--bootstrap", "0", "--out", str(tmp_path / "report")]  # fmt: skip
    assert main(argv) == 0
    assert (tmp_path / "report" / "arena.json").exists()


def test_a_missing_training_extra_is_named(monkeypatch, tmp_path, capsys) -> None:
    def needs_sb3(args):
        raise ModuleNotFoundError("No module named 'stable_baselines3'", name="stable_baselines3")

    monkeypatch.setattr(train_cli, "run_train", needs_sb3)
    assert main(["train", "--out", str(tmp_path / "run")]) == 2
    err = _one_line(capsys)
    assert err.startswith("carcassonne-rl train: error: stable_baselines3 is not installed")
    assert "pip install 'carcassonne-rl[train]'" in err


def test_a_missing_module_of_no_extra_is_a_real_error(monkeypatch, tmp_path) -> None:
    def broken(args):
        raise ModuleNotFoundError("No module named 'carcassonne_rl.nothing'", name="nothing")

    monkeypatch.setattr(train_cli, "run_train", broken)
    with pytest.raises(ModuleNotFoundError):
        main(["train", "--out", str(tmp_path / "run")])


def test_every_extra_named_is_one_of_pyproject() -> None:
    text = (REPO / "pyproject.toml").read_text()
    declared = set(re.findall(r"^([a-z]+) = \[", text.split("[project.optional-dependencies]")[1]
                              .split("\n[")[0], re.MULTILINE))  # fmt: skip
    assert set(EXTRAS.values()) <= declared and "play" in declared
    assert missing_extra(ModuleNotFoundError(name="ray.rllib")).endswith(
        "the ray extra: pip install 'carcassonne-rl[ray]' (in a clone: pip install -e \".[ray]\")"
    )
    core = text.split("dependencies = [")[1].split("]")[0]
    assert "flask" not in core  # the play page is an extra


def test_version_and_typed_marker() -> None:
    pyproject = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    assert carcassonne_rl.__version__ == pyproject.group(1)
    assert (Path(carcassonne_rl.__file__).parent / "py.typed").is_file()


def test_version_of_a_source_tree_that_is_not_installed(monkeypatch) -> None:
    from importlib.metadata import PackageNotFoundError

    def not_installed(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(carcassonne_rl, "version", not_installed)
    assert carcassonne_rl._version() == carcassonne_rl.__version__  # pyproject's
