"""Progress off a terminal: plain lines at the quarters and at least once a minute, never
carriage-return updates."""

from __future__ import annotations

import time

import pytest

from carcassonne_rl.cli.main import main
from carcassonne_rl.runtime import progress
from carcassonne_rl.runtime.progress import (
    PlainLines,
    count,
    duration,
    progress_bar,
    rate,
    watchdog,
)


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _wait_for(capsys, text: str, seconds: float = 10.0) -> str:
    """stderr so far, once it holds ``text`` (a background thread writes it)."""
    seen = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen += capsys.readouterr().err
        if text in seen:
            return seen
        time.sleep(0.01)
    raise AssertionError(f"{text!r} never came; got {seen!r}")


def test_plain_lines_at_the_quarters(capsys) -> None:
    lines = PlainLines(100, "arena", "game", clock=FakeClock())  # no time passes
    for _ in range(100):
        lines.update(1)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == [
        "arena: 25/100 games",
        "arena: 50/100 games",
        "arena: 75/100 games",
        "arena: 100/100 games",
    ]
    jump = PlainLines(4, "training", "step", clock=FakeClock())
    jump.update(4)  # one update past every quarter: one line
    assert capsys.readouterr().err.count("\n") == 1


def test_plain_lines_at_least_once_a_minute(capsys) -> None:
    clock = FakeClock()
    lines = PlainLines(100, "training", "step", clock=clock)
    for _ in range(20):  # 20 steps of 25 s each: 500 s, the first quarter at step 25
        clock.now += 25.0
        lines.update(1)
    err = capsys.readouterr().err.splitlines()
    # a line once 60 s have passed since the last one: at 75 s, 150 s, 225 s, ...
    assert [line.split(" (")[0] for line in err] == [f"training: {n}/100 steps"
                                                     for n in (3, 6, 9, 12, 15, 18)]  # fmt: skip
    assert err[0] == "training: 3/100 steps (75 s, 2.4 steps/min, about 40.4 min left)"
    assert err[-1] == "training: 18/100 steps (7.5 min, 2.4 steps/min, about 34.2 min left)"


def test_plain_lines_say_done_rate_and_time_left(capsys) -> None:
    clock = FakeClock()
    lines = PlainLines(4, "arena", "game", clock=clock)
    for _ in range(4):
        clock.now += 10.0
        lines.update(1)
    err = capsys.readouterr().err.splitlines()
    # 1 of 4 games in 10 s: 3 left at 10 s each
    assert err[0] == "arena: 1/4 games (10 s, 6.0 games/min, about 30 s left)"
    assert err[2] == "arena: 3/4 games (30 s, 6.0 games/min, about 10 s left)"
    assert err[3] == "arena: 4/4 games (40 s, 6.0 games/min)"
    fast = PlainLines(1000, "training", "step", clock=clock)
    clock.now += 2.0
    fast.update(250)
    assert (
        capsys.readouterr().err == "training: 250/1000 steps (2 s, 125 steps/s, about 6 s left)\n"
    )


def test_tick_writes_a_line_while_no_update_comes(capsys) -> None:
    clock = FakeClock()
    lines = PlainLines(10, "teacher games", "game", clock=clock)
    clock.now = 59.0
    lines.tick()
    assert capsys.readouterr().err == ""
    clock.now = 61.0
    lines.tick()
    assert capsys.readouterr().err == "teacher games: 0/10 games (61 s, no game done yet)\n"
    lines.tick()  # the minute starts again at the line
    assert capsys.readouterr().err == ""
    lines.update(10)
    clock.now = 1000.0
    lines.tick()  # done: nothing more
    assert capsys.readouterr().err.count("\n") == 1


def test_the_heartbeat_writes_during_a_long_update_and_stops_at_close(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "_CHECK_S", 0.01)
    clock = FakeClock()
    lines = PlainLines(10, "arena", "game", clock=clock, heartbeat=True)
    lines.update(1)
    clock.now = 65.0  # a minute without an update (a long game)
    err = _wait_for(capsys, "arena: 1/10 games (65 s, 0.9 games/min, about 9.8 min left)")
    assert err.count("\n") == 1  # one line a minute, not one per check
    lines.close()
    clock.now = 1000.0
    time.sleep(0.1)
    assert capsys.readouterr().err == ""


def test_the_heartbeat_stops_at_the_total(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "_CHECK_S", 0.01)
    lines = PlainLines(2, "arena", "game", clock=FakeClock(), heartbeat=True)
    lines.update(2)  # never closed
    assert lines._ticker is None


def test_watchdog_speaks_when_a_phase_is_quiet_for_a_minute(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "_CHECK_S", 0.01)
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    clock = FakeClock()
    with watchdog("training carcassonne", clock=clock):
        clock.now = 30.0
        time.sleep(0.05)
        progress.phase("a phase line")  # output: the minute starts again
        time.sleep(0.05)
        clock.now = 80.0
        time.sleep(0.05)
        assert "still running" not in capsys.readouterr().err
        clock.now = 150.0
        err = _wait_for(capsys, "training carcassonne: still running (2.5 min so far)")
        assert err.count("\n") == 1
    clock.now = 1000.0
    time.sleep(0.1)
    assert capsys.readouterr().err == ""  # over with the block


def test_watchdog_is_silent_on_a_terminal(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "_CHECK_S", 0.01)
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    clock = FakeClock()
    with watchdog("x", clock=clock):
        clock.now = 1000.0
        time.sleep(0.1)
    assert capsys.readouterr().err == ""


def test_sb3_callback_closes_its_lines() -> None:
    pytest.importorskip("stable_baselines3")
    callback = progress.plain_training_progress(100)
    callback.num_timesteps = 0
    callback._on_training_start()
    assert callback.lines._ticker is not None
    callback.num_timesteps = 8
    callback._on_step()
    assert callback.lines.done == 8
    callback._on_training_end()
    assert callback.lines._ticker is None


def test_counter_turns_game_callbacks_into_lines(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    clock = FakeClock()
    on_game = progress.Counter("teacher games", "game", clock=clock, heartbeat=False)
    for done in range(1, 5):
        clock.now += 10.0
        on_game(done, 4)
    for done in (1, 2):  # the next iteration's games: a new bar, from the end of the last
        clock.now += 30.0
        on_game(done, 2)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "teacher games: 1/4 games (10 s, 6.0 games/min, about 30 s left)"
    assert err[3] == "teacher games: 4/4 games (40 s, 6.0 games/min)"
    assert err[4:] == ["teacher games: 1/2 games (30 s, 2.0 games/min, about 30 s left)",
                       "teacher games: 2/2 games (60 s, 2.0 games/min)"]  # fmt: skip
    quiet = progress.Counter("teacher games", "game", enabled=False)
    quiet(1, 1)
    assert capsys.readouterr().err == ""


def test_redirected_output_gets_plain_lines(capsys) -> None:
    bar = progress_bar(3, "x", "game")  # capsys: not a terminal
    assert isinstance(bar, PlainLines) and bar._ticker is not None
    bar.close()


def test_arena_redirected_writes_no_carriage_returns(tmp_path, capsys) -> None:
    argv = ["arena", "--agents", "random,random", "--deals", "8", "--workers", "1"]
    assert main([*argv, "--out", str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    for n in (4, 8, 12, 16):  # the quarters (a slow machine may add lines a minute apart)
        assert f"arena: {n}/16 games (" in err


def test_count_duration_rate() -> None:
    assert (count(1, "deal"), count(0, "deal"), count(20, "deal")) == (
        "1 deal",
        "0 deals",
        "20 deals",
    )
    assert [duration(s) for s in (0.4, 119, 120, 5400, 7200)] == [
        "0 s", "119 s", "2.0 min", "90.0 min", "2.0 h"
    ]  # fmt: skip
    assert rate(0, 10, "game") == "" and rate(5, 0, "game") == ""
    assert rate(3, 1, "game") == "3.0 games/s" and rate(1, 120, "game") == "0.5 games/min"


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
