"""Progress off a terminal: a few plain lines, never carriage-return updates."""

from __future__ import annotations

from carcassonne_rl.cli.main import main
from carcassonne_rl.runtime.progress import PlainLines, count, progress_bar


def test_plain_lines_at_the_quarters(capsys) -> None:
    lines = PlainLines(100, "arena", "game")
    for _ in range(100):
        lines.update(1)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == [
        "arena: 25/100 games",
        "arena: 50/100 games",
        "arena: 75/100 games",
        "arena: 100/100 games",
    ]
    jump = PlainLines(4, "training", "step")
    jump.update(4)  # one update past every quarter: one line
    assert capsys.readouterr().err.count("\n") == 1


def test_redirected_output_gets_plain_lines(capsys) -> None:
    assert isinstance(progress_bar(3, "x", "game"), PlainLines)  # capsys: not a terminal


def test_arena_redirected_writes_no_carriage_returns(tmp_path, capsys) -> None:
    argv = ["arena", "--agents", "random,random", "--games", "8", "--workers", "1"]
    assert main([*argv, "--out", str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.count("\n") == 4 and "arena: 16/16 games" in err


def test_count() -> None:
    assert (count(1, "deal"), count(0, "deal"), count(20, "deal")) == (
        "1 deal",
        "0 deals",
        "20 deals",
    )
