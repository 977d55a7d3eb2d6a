"""``--address``: a clear error within seconds, never a hang or a traceback (with or
without Ray installed). Only loopback addresses are used."""

from __future__ import annotations

import importlib.util
import time

import pytest

from carcassonne_rl.cli.main import main
from carcassonne_rl.runtime.ray_session import ClusterError, host_and_port

HAS_RAY = importlib.util.find_spec("ray") is not None
EXPECTED = "cannot reach a Ray cluster" if HAS_RAY else "Ray is not installed"


def user_error(argv: list[str], capsys) -> str:
    """Run the CLI; it must fail as a user error (status 2, one line, no traceback)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ["arena", "--game", "cardcassonne", "--agents", "random,greedy", "--deals", "1"],
        ["train", "--backend", "rllib", "--game", "cardcassonne", "--timesteps", "10"],
    ],
)
def test_unreachable_address_fails_fast_with_one_message(tmp_path, argv, capsys):
    t0 = time.monotonic()
    err = user_error(argv + ["--address", "127.0.0.1:1", "--out", str(tmp_path / "out")], capsys)
    assert time.monotonic() - t0 < 10
    assert EXPECTED in err
    assert not (tmp_path / "out").exists()  # nothing written


def test_bad_address_text_is_named(monkeypatch, capsys):
    with pytest.raises(ClusterError, match="bad Ray address 'nohost'"):
        host_and_port("nohost")
    assert host_and_port("ray://127.0.0.1:10001") == ("127.0.0.1", 10001)
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    argv = ["arena", "--game", "cardcassonne", "--agents", "random,greedy", "--deals", "1"]
    assert EXPECTED in user_error(argv, capsys)  # RAY_ADDRESS counts as --address


def test_ray_options_are_checked_before_training(tmp_path, capsys):
    out = ["--out", str(tmp_path / "run")]
    expected = "--address needs --backend rllib or --algo afterstate"
    assert expected in user_error(["train", "--address", "127.0.0.1:1", *out], capsys)
    argv = ["train", "--algo", "afterstate", "--address", "127.0.0.1:1", *out]
    assert "cannot reach a Ray cluster at '127.0.0.1:1'" in user_error(argv, capsys)
    argv = ["train", "--backend", "rllib", "--num-env-runners", "-1", *out]
    assert "--num-env-runners must be >= 0, got -1" in user_error(argv, capsys)
    assert not (tmp_path / "run").exists()


def test_distill_with_an_unreachable_address_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # the default of --address
    demos = tmp_path / "demos"
    argv = ["distill", str(demos), "--games", "1", "--out", str(tmp_path / "p.npz")]
    assert EXPECTED in user_error(argv, capsys)
    assert not list(demos.glob("game_*.npz")) and not (tmp_path / "p.npz").exists()
