"""The tile game's expert loop at tables of 3-5 players: the search over the table network
teaches it, and the gate plays each table against ``PLAYERS - 1`` seats of the network
before (tiny budgets)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.benchmarks import benchmark

from carcassonne_rl.agents.pretrained import TABLE_MODEL_FILE, model_dir
from carcassonne_rl.agents.tile.afterstate import load_value_net
from carcassonne_rl.cli.main import main
from carcassonne_rl.training.expert_iteration import loop
from carcassonne_rl.training.expert_iteration.loop import LoopConfig
from carcassonne_rl.training.expert_iteration.positions import play_teacher_game, teacher_deal

#: one candidate, no sampling, 6 placements a game, 2 games, 1 epoch, 2 gate deals
TINY = ["--games", "2", "--candidates", "1", "--samples", "0", "--placements", "6", "--epochs",
        "1", "--batch-size", "16", "--validation", "0", "--gate-deals", "2"]  # fmt: skip


def test_a_loop_at_three_players_teaches_the_table_network(tmp_path, capsys) -> None:
    run = (tmp_path / "run").resolve()
    argv = ["expert-loop", str(run), "--tables", "3", *TINY, "--gate-threshold", "0.6",
            "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    summary = json.loads((run / "loop.json").read_text())
    (entry,) = summary["iterations"]
    assert entry["teacher"] == f"pretrained:search=1:0@{TABLE_MODEL_FILE}"
    teacher = run / "iteration_0" / "teacher"
    held = json.loads((teacher / "positions.json").read_text())
    assert held["tables"] == [3] and held["teacher"] == entry["teacher"]
    # the rows are the table network's features at 3 seats, valued by that network
    table = load_value_net(model_dir() / TABLE_MODEL_FILE)
    seed = summary["config"]["seed"]
    deal = teacher_deal(loop.seeds.expert_loop_seed(seed, 0), 0)
    with np.load(teacher / f"game_{deal}.npz") as z:
        x, network, scores = z["x"], z["network"], z["scores"]
    assert x.shape[1] == table.inputs and len(scores) == 3
    np.testing.assert_allclose(network, table.forward(x)[:, 0], rtol=1e-5)
    # the candidate is a table network fine-tuned from it, reading the same features
    candidate = load_value_net(run / "iteration_0" / "network.npz")
    assert candidate.inputs == table.inputs
    assert candidate.meta["feature_set"] == table.meta["feature_set"]
    assert candidate.meta["tables"] == table.meta["tables"]
    assert candidate.meta["expert_iteration"]["init_model"] == TABLE_MODEL_FILE
    # the gate: 2 deals from each of the 3 seats, in units of the fair share
    result = json.loads((run / "iteration_0" / "gate.json").read_text())
    assert result["against"] == f"policy:{TABLE_MODEL_FILE}"
    three = result["tables"]["3"]
    assert three["games"] == 6 and three["fair_share"] == pytest.approx(1 / 3)
    assert result["times_fair_share"] == pytest.approx(3 * three["win_rate"])
    assert result["accepted"] == (3 * three["win_rate"] >= 1.2)
    assert entry["accepted"] == result["accepted"]
    # its iteration curve: the table network it started from and the candidate, at 3 seats
    assert benchmark("expert_loop_curve").main([str(run), "--deals", "1", "--seed", "2"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["iteration"], r["spec"]) for r in rows] == [
        (-1, f"policy:{TABLE_MODEL_FILE}"),
        (0, f"policy:{run / 'iteration_0' / 'network.npz'}"),
    ]
    assert all(r["players"] == 3 and r["games"] == 3 for r in rows)


def test_a_table_teacher_game_is_played_at_its_table() -> None:
    rows = play_teacher_game("pretrained:search=1:0", deal=5, seed=0, keep=2, placements=4,
                             players=4)  # fmt: skip
    assert len(rows["scores"]) == 4
    # at 4 players pretrained:search searches the table network pretrained plays there
    from carcassonne_rl.agents.pretrained import TABLE_MODEL_FILES

    net = load_value_net(model_dir() / TABLE_MODEL_FILES[4])
    np.testing.assert_allclose(rows["network"], net.forward(rows["x"])[:, 0], rtol=1e-5)


def test_the_tile_tables_teach_one_network(tmp_path, capsys) -> None:
    assert main(["expert-loop", str(tmp_path / "mixed"), "--tables", "2,3"]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        "tables of 2 players (the 2-player network) or of 3-5 (the table network), not both (2,3)"
    ) in err and len(err.splitlines()) == 1
    assert not (tmp_path / "mixed").exists()
    with pytest.raises(ValueError, match="target blend"):
        LoopConfig(tables=(3, 4), target="blend")
    assert LoopConfig(tables=(3, 5)).first_network() == TABLE_MODEL_FILE
    assert LoopConfig().first_network() is None
    assert LoopConfig(tables=(4,), init_model="x.npz").first_network() == "x.npz"
