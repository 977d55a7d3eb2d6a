"""CPU time per decision: ``play_game`` records each seat's CPU seconds beside its
wall-clock seconds, the stats turn them into CPU ms per decision, and a log written before
the field existed still reads and resumes (its CPU column left blank)."""

from __future__ import annotations

import json
import time

import carcassonne_rl.arena.match as match
import carcassonne_rl.cli.leaderboard as board_cli
from carcassonne_rl.arena.game_log import LOG_FILE, read_log
from carcassonne_rl.arena.match import Setup, play_game, schedule
from carcassonne_rl.arena.ratings import entry_stats

SLEEP_S = 0.004


class Sleepy:
    """Greedy's moves after a sleep: wall-clock time without CPU time."""

    def __init__(self, agent) -> None:
        self.agent = agent

    def act(self, state, player):
        time.sleep(SLEEP_S)
        return self.agent.act(state, player)


def test_cpu_time_leaves_out_the_time_an_agent_waits(monkeypatch) -> None:
    build = match.make_agent

    def make(spec, game, seed=None):
        if spec == "sleepy":
            return Sleepy(build("greedy", game, seed=seed))
        return build(spec, game, seed=seed)

    monkeypatch.setattr(match, "make_agent", make)
    (job,) = schedule(Setup("cardcassonne"), ["sleepy", "greedy"], 1, duplicate=False)
    res = play_game(job, warm=False)
    sleepy = res.seats.index("sleepy")
    assert len(res.cpu_seconds) == len(res.seconds) == 2 and res.decisions[sleepy] > 5
    assert res.seconds[sleepy] >= SLEEP_S * res.decisions[sleepy]  # the wall clock waited
    assert res.cpu_seconds[sleepy] < 0.5 * res.seconds[sleepy]  # the CPU did not
    assert all(c > 0 for c in res.cpu_seconds)
    stats = entry_stats([res], ["sleepy", "greedy"])["sleepy"]
    assert stats["cpu_ms_per_decision"] == 1000 * res.cpu_seconds[sleepy] / res.decisions[sleepy]
    assert stats["ms_per_decision"] > stats["cpu_ms_per_decision"]


def strip_cpu_times(log) -> None:
    """The log as a version without ``cpu_seconds`` wrote it."""
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert all("cpu_seconds" in line for line in lines)
    log.write_text("".join(json.dumps({k: v for k, v in line.items() if k != "cpu_seconds"})
                           + "\n" for line in lines))  # fmt: skip


def test_a_log_without_cpu_times_reads_and_resumes(tmp_path, capsys) -> None:
    out = tmp_path / "lb"
    argv = ["--game", "cardcassonne", "--agents", "random,greedy", "--deals", "1", "--seed",
            "3", "--workers", "1", "--no-progress", "--bootstrap", "20",
            "--out", str(out)]  # fmt: skip
    assert board_cli.main(argv) == 0
    before = json.loads((out / "leaderboard.json").read_text())["ratings"]
    strip_cpu_times(out / LOG_FILE)
    old = read_log(out / LOG_FILE)
    assert len(old) == 2 and all(r.cpu_seconds == [] and r.seconds for r in old)
    stats = entry_stats(old, ["random", "greedy"])
    assert stats["greedy"]["cpu_ms_per_decision"] is None
    assert stats["greedy"]["ms_per_decision"] is not None
    capsys.readouterr()
    assert board_cli.main([*argv, "--resume"]) == 0
    assert "2 of 2 games already played" in capsys.readouterr().out
    after = json.loads((out / "leaderboard.json").read_text())["ratings"]
    assert [r["rating"] for r in after] == [r["rating"] for r in before]
    assert all(r["cpu_ms_per_decision"] is None for r in after)
    rows = [line for line in (out / "leaderboard.md").read_text().splitlines()
            if line.startswith("| 1 | ") or line.startswith("| 2 | ")]  # fmt: skip
    assert len(rows) == 2 and all(row.endswith("|  |") for row in rows)  # blank CPU ms
