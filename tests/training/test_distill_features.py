"""``carcassonne-rl distill``: the features policy fitted to the teacher's option values
(``training/distill``), its numpy export, and the command's resumable demonstrations."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile_obs_features import TileFeatureNet
from carcassonne_rl.agents.tile_obs_net import TileObsPolicyAgent
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.cli.main import main
from carcassonne_rl.encoders.obs_features import NUM_FOLLOW, NUM_PLACE
from carcassonne_rl.training.distill.demos import HeadRows
from carcassonne_rl.training.distill.fit import (
    FeaturePolicy,
    _group_log_softmax,
    group_targets,
    to_numpy,
)


def test_group_softmax_and_targets_are_per_decision():
    x = torch.tensor([1.0, 2.0, 0.5, -1.0, 3.0])
    group = torch.tensor([0, 0, 1, 1, 1])
    got = _group_log_softmax(x, group, 2)
    expected = torch.cat([torch.log_softmax(x[:2], 0), torch.log_softmax(x[2:], 0)])
    torch.testing.assert_close(got, expected)
    values = np.array([0.30, 0.31, 0.5, 0.5, 0.1], np.float32)
    data = HeadRows(np.zeros((5, 1), np.float32), values, np.array([0, 2]), np.array([2, 3]),
                    np.array([0, 0]))  # fmt: skip
    targets = group_targets(data, 0.01)
    first = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()  # values 0.30, 0.31 at T=0.01
    np.testing.assert_allclose(targets[:2], first, rtol=1e-5)
    np.testing.assert_allclose(targets[2:], [0.5, 0.5, np.exp(-40) / 2], rtol=1e-4, atol=1e-12)


def test_numpy_scores_equal_the_torch_heads():
    torch.manual_seed(0)
    model = FeaturePolicy(hidden=16, layers=2)
    net = to_numpy(model, window=29)
    rng = np.random.default_rng(0)
    for head, width in (("place", NUM_PLACE), ("follow", NUM_FOLLOW)):
        rows = rng.random((7, width), dtype=np.float32)
        with torch.no_grad():
            expected = model.head(head)(torch.from_numpy(rows)).squeeze(1).numpy()
        np.testing.assert_allclose(net.scores(head, rows), expected, rtol=1e-5, atol=1e-6)


def test_a_file_for_other_features_is_refused(tmp_path):
    net = to_numpy(FeaturePolicy(hidden=4, layers=1), window=29)
    net.meta["place_features"] = net.meta["place_features"][:-1]
    path = tmp_path / "old.npz"
    net.save(path)
    with pytest.raises(ValueError, match="other option features"):
        make_agent(f"policy:{path}", "carcassonne")


def test_distill_plays_fits_exports_and_resumes(tmp_path, capsys):
    demos, out = tmp_path / "demos", tmp_path / "features.npz"
    argv = ["distill", str(demos), "--games", "2", "--epochs", "2", "--hidden", "8",
            "--validation", "0.5", "--seed", "3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()
             if line.startswith("{")]  # fmt: skip
    assert [r["epoch"] for r in lines] == [1, 2]
    assert 0.0 <= lines[-1]["place_held_accuracy"] <= 1.0 and lines[-1]["place_loss"] > 0
    files = sorted(demos.glob("game_*.npz"))
    assert [f.name for f in files] == ["game_33757.npz", "game_33758.npz"]  # 3 * 7919 + 10000
    stamps = [f.stat().st_mtime_ns for f in files]
    agent = make_agent(f"policy:{out}", "carcassonne", seed=0)
    assert isinstance(agent, TileObsPolicyAgent) and isinstance(agent.net, TileFeatureNet)
    result = play_game(Job(Setup("carcassonne", 2), (f"policy:{out}", "random"),
                           (f"policy:{out}", "random"), 3, 0, 0, 1))  # fmt: skip
    assert sum(result.decisions) > 40
    assert main(argv[:3] + ["3"] + argv[4:]) == 0  # one more game: the first two are kept
    assert len(list(demos.glob("game_*.npz"))) == 3
    assert [f.stat().st_mtime_ns for f in files] == stamps


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--out", "policy.txt"], "--out must name a .npz file"),
        (["--games", "0", "--out", "p.npz"], "no demonstration games"),
        (["--teacher", "greedy", "--out", "p.npz"], "does not value its options"),
        (["--teacher", "nobody", "--out", "p.npz"], "--teacher"),
    ],
)
def test_bad_distill_arguments_are_one_line(tmp_path, capsys, extra, message):
    demos = tmp_path / "demos"
    demos.mkdir()
    argv = ["distill", str(demos)] + [a if not a.endswith(("npz", "txt")) else str(tmp_path / a)
                                      for a in extra]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(demos.iterdir()) and not list(tmp_path.glob("p*.npz"))


def test_a_validation_share_outside_0_1_is_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["distill", "d", "--out", "p.npz", "--validation", "1.5"])
    assert exc.value.code == 2
    assert "must be in [0, 1)" in capsys.readouterr().err
