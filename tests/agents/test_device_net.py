"""The value networks on a torch device: the same outputs as the numpy network to float32
tolerance, the CPU path unchanged, and a clear message for a device that is not there."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from helpers.benchmarks import benchmark

from carcassonne_rl.agents.common.device_net import (
    DeviceMLP,
    check_device,
    on_device,
    process_pool,
    resolve_device,
)
from carcassonne_rl.agents.common.value_net import MLP

torch = pytest.importorskip("torch")


def _net(activation: str, output: str | None, seed: int = 0) -> MLP:
    rng = np.random.default_rng(seed)
    sizes = [17, 32, 16, 1]
    layers = [
        (rng.normal(0, 0.5, (a, b)), rng.normal(0, 0.1, b))
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)
    ]
    meta = {"activation": activation, **({"output": output} if output else {})}
    return MLP(layers, meta)


def _reference(net: MLP, x: np.ndarray) -> np.ndarray:
    """The network's function in float64 numpy, written out (independent of both paths)."""
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(net.layers):
        h = h @ w.astype(np.float64) + b
        if i < len(net.layers) - 1:
            h = np.maximum(h, 0) if net.meta["activation"] == "relu" else np.tanh(h)
    return np.tanh(h) if net.meta.get("output") == "tanh" else h


@pytest.mark.parametrize(
    ("activation", "output"), [("relu", None), ("tanh", "tanh"), ("relu", "tanh")]
)
def test_torch_forward_matches_numpy(activation: str, output: str | None) -> None:
    net = _net(activation, output)
    x = np.random.default_rng(1).normal(0, 1, (300, net.inputs)).astype(np.float32)
    x[x < -0.5] = 0.0  # sparse rows, as the afterstate features are
    dev = DeviceMLP(net, "cpu")
    got, ref = dev.forward(x), net.forward(x)
    assert got.dtype == np.float32 and got.shape == (300, 1)
    np.testing.assert_allclose(got, _reference(net, x), atol=1e-4)
    np.testing.assert_allclose(ref, _reference(net, x), atol=1e-4)
    assert dev.forward(x[:0]).shape == (0, 1)
    assert (dev.inputs, dev.outputs, dev.meta) == (net.inputs, net.outputs, net.meta)


def test_cpu_is_the_numpy_network_itself() -> None:
    net = _net("relu", None)
    assert on_device(net, "cpu") is net
    if not torch.cuda.is_available():
        assert resolve_device("auto") == "cpu"
        assert on_device(net, "auto") is net


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "", "CPU", 0])
def test_bad_device_names_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="device must be one of"):
        check_device(bad)  # type: ignore[arg-type]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_missing_gpu_is_named() -> None:
    with pytest.raises(ValueError, match="'cuda:1'.*no CUDA GPU"):
        on_device(_net("relu", None), "cuda:1")


def test_workers_of_a_device_run_are_spawned(monkeypatch: pytest.MonkeyPatch) -> None:
    """CUDA cannot run in a process forked from one that has initialised it (the learner
    on the GPU): a pool for a device other than the CPU spawns its workers."""
    with process_pool(1, "cpu") as pool:
        assert pool._mp_context.get_start_method() == "fork"
    import carcassonne_rl.agents.common.device_net as device_net

    monkeypatch.setattr(device_net, "resolve_device", lambda device: "cuda")
    with process_pool(1, "cuda") as pool:
        assert pool._mp_context.get_start_method() == "spawn"
        assert pool.submit(check_device, "mps").result() == "mps"  # the package imports


def test_device_script_prints_a_line_per_batch(capsys: pytest.CaptureFixture[str]) -> None:
    module = benchmark("device_values")
    module.main(["--seconds", "0.01", "--sizes", "8,64", "--device", "cpu", "--torch-cpu"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["game"], r["batch"]) for r in rows] == [
        ("carcassonne", 8),
        ("carcassonne", 64),
        ("cardcassonne", 8),
        ("cardcassonne", 64),
    ]
    assert all(r["max_abs_difference"] < 1e-4 and r["cpu_positions_per_s"] > 0 for r in rows)


def test_pgx_comparison_says_when_pgx_is_missing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pgx", None)  # import pgx raises ImportError
    rows = benchmark("pgx_compare").main(["--seconds", "0.01"])
    assert rows == [json.loads(capsys.readouterr().out)]
    assert "pgx is not installed" in rows[0]["skipped"]


@pytest.mark.parametrize("threads", ["0", "two", "1,,2"])
def test_pgx_comparison_rejects_bad_threads(
    threads: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        benchmark("pgx_compare").main(["--threads", threads])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--threads" in err and repr(threads) in err and "Traceback" not in err
