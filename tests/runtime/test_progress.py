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


def test_plain_lines_say_the_time_left(capsys, monkeypatch) -> None:
    clock = iter([0.0, 10.0, 20.0, 30.0, 40.0])
    monkeypatch.setattr("carcassonne_rl.runtime.progress.time.perf_counter", lambda: next(clock))
    lines = PlainLines(4, "arena", "game")
    for _ in range(4):
        lines.update(1)
    err = capsys.readouterr().err.splitlines()
    # 1 of 4 games in 10 s: 3 left at 10 s each
    assert err[0] == "arena: 1/4 games (10 s, about 30 s left)"
    assert err[2] == "arena: 3/4 games (30 s, about 10 s left)"
    assert err[3] == "arena: 4/4 games (40 s)"


def test_main_job_remaining_time_follows_this_machine() -> None:
    from carcassonne_rl.cli.main_job import REFERENCE_MINUTES, RemainingTime

    clock = RemainingTime(scale=1.0, eval_deals=100)
    assert "11.0-25.0 min" in clock.line()
    card_train = REFERENCE_MINUTES[("cardcassonne", "train")]
    clock.finished("cardcassonne", "train", 2 * card_train * 60)  # twice as slow
    rest = sum(REFERENCE_MINUTES.values()) - card_train
    assert f"expected remaining: about {2 * rest:.1f} min" in clock.line()
    assert "2.00x the reference time" in clock.line()
    half = RemainingTime(scale=0.5, eval_deals=50)  # half the budget, half the deals
    assert "5.5-12.5 min" in half.line()
