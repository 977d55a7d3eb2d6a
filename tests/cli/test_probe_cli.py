"""``carcassonne-rl probe``: one JSON line per agent, then the paired gain of the exploiter."""

from __future__ import annotations

import json

import pytest

from carcassonne_rl.cli.main import main


def test_probe_prints_each_agent_and_the_gain(capsys) -> None:
    argv = ["probe", "--target", "greedy", "--sims", "4", "--games", "2", "--seed", "1"]
    assert main([*argv, "--cheat", "--no-progress"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["role"] for r in lines] == ["exploiter", "reference", "ceiling", "exploit_gain"]
    rows = {r["role"]: r for r in lines}
    assert rows["exploiter"]["agent"] == "exploit:4:greedy"
    assert rows["reference"]["agent"] == "mcts:4" and rows["ceiling"]["agent"] == "cheat-mcts:4"
    for role in ("exploiter", "reference", "ceiling"):
        row = rows[role]
        assert row["opponent"] == "greedy" and row["games"] == 4  # 2 deals x 2 seats
        assert row["above_fair_share"] == pytest.approx(row["win_rate"] - 0.5)
    gain = rows["exploit_gain"]
    # both played every deal from both seats: the paired mean is the difference of the means
    assert gain["gain"] == pytest.approx(
        rows["exploiter"]["win_rate"] - rows["reference"]["win_rate"]
    )
    diff = rows["exploiter"]["mean_margin"] - rows["reference"]["mean_margin"]
    assert gain["margin_gain"] == pytest.approx(diff)
