"""``--address``: a clear error within seconds, never a hang or a traceback (with or
without Ray installed). Only loopback addresses are used."""

from __future__ import annotations

import importlib.util
import time

import pytest

from carcassonne_rl.training.cli import main
from carcassonne_rl.training.ray_backend.cluster import ClusterError, host_and_port

HAS_RAY = importlib.util.find_spec("ray") is not None
EXPECTED = "cannot reach a Ray cluster" if HAS_RAY else "Ray is not installed"


@pytest.mark.parametrize(
    "argv",
    [
        ["arena", "--game", "cardcassonne", "--agents", "random,greedy", "--games", "1"],
        ["train", "--backend", "rllib", "--game", "cardcassonne", "--timesteps", "10"],
    ],
)
def test_unreachable_address_fails_fast_with_one_message(tmp_path, argv):
    t0 = time.monotonic()
    with pytest.raises(SystemExit) as err:
        main(argv + ["--address", "127.0.0.1:1", "--out", str(tmp_path / "out")])
    assert time.monotonic() - t0 < 10
    assert EXPECTED in str(err.value)
    assert not (tmp_path / "out").exists()  # nothing written


def test_bad_address_text_is_named(monkeypatch):
    with pytest.raises(ClusterError, match="bad Ray address 'nohost'"):
        host_and_port("nohost")
    assert host_and_port("ray://127.0.0.1:10001") == ("127.0.0.1", 10001)
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    with pytest.raises(SystemExit, match=EXPECTED):  # RAY_ADDRESS counts as --address
        main(["arena", "--game", "cardcassonne", "--agents", "random,greedy", "--games", "1"])


def test_ray_options_are_checked_before_training(tmp_path):
    out = ["--out", str(tmp_path / "run")]
    with pytest.raises(SystemExit, match="need --backend rllib"):
        main(["train", "--address", "127.0.0.1:1", *out])
    with pytest.raises(SystemExit, match="--num-env-runners must be >= 0, got -1"):
        main(["train", "--backend", "rllib", "--num-env-runners", "-1", *out])
    assert not (tmp_path / "run").exists()
