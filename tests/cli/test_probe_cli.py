"""``carcassonne-rl probe``: one JSON line per agent, then the paired gain of the exploiter."""

from __future__ import annotations

import json

import pytest

from carcassonne_rl.cli.deals import GAMES_NOTE
from carcassonne_rl.cli.main import main


def _rows(capsys) -> tuple[dict[str, dict], str]:
    """The printed rows by role, times per decision left out, and what went to stderr."""
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    timeless = [{k: v for k, v in r.items() if "ms_per_decision" not in k} for r in lines]
    return {r["role"]: r for r in timeless}, captured.err


def test_probe_prints_each_agent_and_the_gain(capsys) -> None:
    argv = ["probe", "--target", "greedy", "--sims", "4", "--deals", "2", "--seed", "1"]
    assert main([*argv, "--cheat", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert GAMES_NOTE not in captured.err
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [r["role"] for r in lines] == ["exploiter", "reference", "ceiling", "exploit_gain"]
    rows = {r["role"]: r for r in lines}
    assert rows["exploiter"]["agent"] == "exploit(target=greedy, sims=4)"
    assert rows["reference"]["agent"] == "mcts(sims=4)"
    assert rows["ceiling"]["agent"] == "cheat-mcts(sims=4)"
    for role in ("exploiter", "reference", "ceiling"):
        row = rows[role]
        assert row["opponent"] == "greedy" and row["games"] == 4  # 2 deals x 2 seats
        assert row["deals"] == 2
        assert row["above_fair_share"] == pytest.approx(row["win_rate"] - 0.5)
    gain = rows["exploit_gain"]
    # both played every deal from both seats: the paired mean is the difference of the means
    assert gain["gain"] == pytest.approx(
        rows["exploiter"]["win_rate"] - rows["reference"]["win_rate"]
    )
    diff = rows["exploiter"]["mean_margin"] - rows["reference"]["mean_margin"]
    assert gain["margin_gain"] == pytest.approx(diff)


def test_games_is_the_deprecated_alias_of_deals(capsys) -> None:
    """``--games N`` plays the games of ``--deals N`` and says once that it is deprecated."""
    argv = ["probe", "--target", "greedy", "--sims", "3", "--seed", "2", "--no-progress"]
    assert main([*argv, "--deals", "1"]) == 0
    new, err = _rows(capsys)
    assert GAMES_NOTE not in err
    assert main([*argv, "--games", "1"]) == 0
    old, err = _rows(capsys)
    assert err.count(GAMES_NOTE) == 1
    assert old == new and old["reference"]["games"] == 2
    with pytest.raises(SystemExit):  # the two are exclusive
        main([*argv, "--deals", "1", "--games", "1"])


def test_a_named_or_positional_target_is_nested_in_the_exploiter(capsys) -> None:
    """A target with parentheses, or a deprecated positional one, becomes the exploiter's
    ``target=``; the frozen seats play the target as given."""
    base = ["probe", "--sims", "2", "--deals", "1", "--no-progress"]
    for target, nested in [
        ("search(base=heuristic, worlds=2, candidates=2)",
         "search(base=heuristic, worlds=2, candidates=2)"),
        ("heuristic:search=2:2:1:0", "search(base=heuristic, worlds=2, candidates=2, leaf=0)"),
    ]:  # fmt: skip
        assert main([*base, "--target", target]) == 0
        rows, _ = _rows(capsys)
        assert rows["exploiter"]["agent"] == f"exploit(target={nested}, sims=2)"
        assert rows["exploiter"]["opponent"] == target
        assert rows["exploit_gain"]["target"] == target
