"""``carcassonne-rl expert-loop --rank-weight``: the loop's fit with the ranking term, as
``expert-iteration --rank-weight`` fits, recorded in the run's settings."""

from __future__ import annotations

import json

import numpy as np
from training.test_expert_loop import TINY

from carcassonne_rl.agents.tile.afterstate import load_value_net
from carcassonne_rl.cli.main import main


def _run(folder, *extra: str) -> None:
    argv = ["expert-loop", str(folder), *TINY, "--candidates", "2", "--gate-threshold", "0",
            "--seed", "4"]  # fmt: skip (two searched options a placement: something to rank)
    assert main([*argv, "--no-progress", *extra]) == 0


def test_the_loop_fits_with_the_ranking_term_it_records(tmp_path, capsys) -> None:
    plain, ranked = (tmp_path / "plain").resolve(), (tmp_path / "ranked").resolve()
    _run(plain)
    _run(ranked, "--rank-weight", "2", "--rank-tau", "0.5")
    capsys.readouterr()
    config = json.loads((ranked / "loop.json").read_text())["config"]
    assert (config["rank_weight"], config["rank_tau"]) == (2.0, 0.5)
    assert json.loads((plain / "loop.json").read_text())["config"]["rank_weight"] == 0.0
    # the same teacher games, another fit
    for a, b in zip(sorted((plain / "iteration_0" / "teacher").glob("game_*.npz")),
                    sorted((ranked / "iteration_0" / "teacher").glob("game_*.npz")),
                    strict=True):  # fmt: skip
        with np.load(a) as za, np.load(b) as zb:
            np.testing.assert_array_equal(za["target"], zb["target"])
    nets = [load_value_net(r / "iteration_0" / "network.npz") for r in (plain, ranked)]
    meta = nets[1].meta["expert_iteration"]
    assert (meta["rank_weight"], meta["rank_tau"]) == (2.0, 0.5)
    assert "rank_weight" not in nets[0].meta["expert_iteration"]
    x = np.random.default_rng(0).normal(size=(8, nets[0].inputs)).astype(np.float32)
    assert not np.allclose(nets[0].forward(x), nets[1].forward(x))
    logs = [(r / "iteration_0" / "fit_log.jsonl").read_text().splitlines() for r in (plain, ranked)]
    assert "train_rank_loss" in json.loads(logs[1][-1]) and "train_rank_loss" not in logs[0][-1]
    # the run keeps its settings; the card game's loop and a bad weight get one message
    assert main(["expert-loop", str(plain), "--rank-weight", "0.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "other settings (rank_weight: 0.0 there, 0.5 here)" in err and len(err.splitlines()) == 1
    card = tmp_path / "card"
    assert main(["expert-loop", str(card), "--game", "cardcassonne", "--rank-weight", "1"]) == 2
    assert "does not take the tile game's settings: rank_weight" in capsys.readouterr().err
    assert main(["expert-loop", str(card), "--game", "cardcassonne", "--rank-tau", "2"]) == 2
    assert "does not take the tile game's settings: rank_tau" in capsys.readouterr().err
    assert main(["expert-loop", str(tmp_path / "bad"), "--rank-weight", "-1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "the ranking term needs a weight >= 0 and tau > 0, got -1.0 and 1.0" in err
    assert len(err.splitlines()) == 1
    assert not card.exists() and not (tmp_path / "bad").exists()
