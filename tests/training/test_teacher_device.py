"""The tile teacher's network evaluations on a torch device: the same rows to float32
tolerance as the numpy network's (torch's CPU kernels stand in for a GPU here), and a clear
message for a device that is not there or a game that has none."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.agents.common.device_net import DeviceMLP
from carcassonne_rl.cli.main import main
from carcassonne_rl.training.expert_iteration import positions
from carcassonne_rl.training.expert_iteration.positions import (
    collect,
    play_teacher_game,
    teacher_deal,
)

torch = pytest.importorskip("torch")

TEACHER = "pretrained:search=2:1"  # one turn ahead, one sampled continuation a reply


def _on_torch_cpu(monkeypatch: pytest.MonkeyPatch) -> list:
    """Make the device ``cuda`` mean torch's CPU kernels; the networks it was asked for."""
    made = []

    def on_device(net, device):
        made.append(DeviceMLP(net, "cpu"))
        return made[-1]

    monkeypatch.setattr(positions, "resolve_device", lambda device: device)
    monkeypatch.setattr(positions, "on_device", on_device)
    return made


def test_the_teacher_on_a_device_records_the_same_rows(monkeypatch) -> None:
    deal = teacher_deal(7, 0)
    cpu = play_teacher_game(TEACHER, deal, seed=3, keep=4, placements=8)
    made = _on_torch_cpu(monkeypatch)
    dev = play_teacher_game(TEACHER, deal, seed=3, keep=4, placements=8, device="cuda")
    assert len(made) == 1 and isinstance(made[0], DeviceMLP)  # the search evaluated there
    assert cpu["x"].shape == dev["x"].shape and len(cpu["x"]) > 8
    np.testing.assert_array_equal(cpu["decision"], dev["decision"])
    np.testing.assert_array_equal(cpu["chosen"], dev["chosen"])  # the same games
    np.testing.assert_allclose(dev["x"], cpu["x"], atol=1e-6)
    np.testing.assert_allclose(dev["network"], cpu["network"], atol=1e-5)
    np.testing.assert_allclose(dev["target"], cpu["target"], atol=1e-5)


def test_a_missing_device_or_the_card_game_is_refused(tmp_path, capsys) -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        collect(tmp_path / "a", 1, TEACHER, placements=1, device="cuda")
    with pytest.raises(ValueError, match="card teacher evaluates on the CPU"):
        collect(tmp_path / "b", 1, "search", game="cardcassonne", device="cuda")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    for argv, said in (
        (["--device", "cuda"], "--device: device 'cuda': torch sees no CUDA GPU"),
        (["--device", "gpu"], "--device: device must be one of"),
        (["--device", "cuda", "--game", "cardcassonne"], "the card game's loop runs on the CPU"),
    ):
        run = tmp_path / "run"
        assert main(["expert-loop", str(run), "--games", "1", *argv]) == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err
        assert not run.exists()
