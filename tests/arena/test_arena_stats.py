"""Arena schedule, statistics on cases with a known answer, report files and the CLI."""

from __future__ import annotations

import json
import math

import pytest

from carcassonne_rl.arena.match import Setup, entry_labels, lineups, run_jobs, schedule
from carcassonne_rl.arena.ratings import (
    bradley_terry,
    elo_ratings,
    entry_stats,
    mean_ci,
    pairwise,
)
from carcassonne_rl.arena.report import summarize, write_report
from carcassonne_rl.cli.arena import main as arena_main


def test_duplicate_schedule_rotates_every_deal_over_the_seats() -> None:
    jobs = schedule(Setup("cardcassonne", 3), ["a", "b", "c"], deals=2)
    assert len(jobs) == 6
    for deal in {j.deal for j in jobs}:
        seats = [j.labels for j in jobs if j.deal == deal]
        for s in range(3):
            assert sorted(x[s] for x in seats) == ["a", "b", "c"]  # each entry once per seat
    assert len({j.deal for j in schedule(Setup(), ["a", "b"], 5, duplicate=False)}) == 5
    assert lineups(4, 2) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert lineups(2, 4) == [(0, 1, 0, 1)]
    assert entry_labels(["random", "random", "greedy"]) == ["random", "random#2", "greedy"]


def test_agent_against_itself_is_about_even() -> None:
    specs = ["random", "random"]
    results = run_jobs(schedule(Setup("cardcassonne"), specs, deals=60), progress=False)
    stats = entry_stats(results, entry_labels(specs))
    for s in stats.values():
        lo, hi = s["win_rate_ci95"]
        assert lo <= 0.5 <= hi
        assert abs(s["win_rate"] - 0.5) < 0.15
        assert s["games"] == 120
    # duplicate: the two copies get mirror-image luck, so the win shares add up to 1
    a, b = stats.values()
    assert a["win_rate"] + b["win_rate"] == pytest.approx(1.0)
    elo = elo_ratings(pairwise(results, entry_labels(specs)))
    assert abs(elo["random#2"]) < 100


def test_greedy_beats_random_in_the_stats() -> None:
    specs = ["greedy", "random"]
    results = run_jobs(schedule(Setup("cardcassonne"), specs, deals=10), progress=False)
    stats = entry_stats(results, specs)
    assert stats["greedy"]["win_rate"] > 0.8 and stats["greedy"]["mean_margin"] > 0
    assert stats["random"]["win_rate"] + stats["greedy"]["win_rate"] == pytest.approx(1.0)
    assert set(stats["greedy"]["seat_win_rate"]) == {"0", "1"}


def test_bradley_terry_recovers_a_known_strength_ratio() -> None:
    table = {"a": {"a": 0, "b": 7500}, "b": {"a": 2500, "b": 0}}
    gamma = bradley_terry(table, prior=0.0)
    assert gamma["a"] / gamma["b"] == pytest.approx(3.0, rel=1e-3)
    elo = elo_ratings(table, anchor="b")
    assert elo["a"] == pytest.approx(400 * math.log10(3), abs=1.0)  # 190.8
    assert elo["b"] == 0.0


def test_mean_ci() -> None:
    mean, lo, hi = mean_ci([0, 1] * 50)
    assert mean == 0.5 and lo == pytest.approx(0.5 - 1.96 * 0.5025 / 10, abs=1e-3) and hi > 0.59


def test_report_files(tmp_path) -> None:
    specs = ["greedy", "random", "random"]
    setup = Setup("cardcassonne", 2)
    results = run_jobs(schedule(setup, specs, deals=3), workers=2, progress=False)
    assert len(results) == 3 * 3 * 2  # 3 pairings x 3 deals x 2 rotations
    summary = summarize(results, entry_labels(specs), setup, bootstrap=20)
    paths = write_report(summary, results, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["entries"]["greedy"]["elo"] > data["entries"]["random"]["elo"] == 0.0
    assert len(data["results"]) == 18
    assert paths["csv"].read_text().count("\n") == 19
    assert "| greedy |" in paths["markdown"].read_text()
    assert paths["plot"].read_bytes()[:4] == b"\x89PNG"


def test_cli(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    argv = ["--game", "carcassonne", "--agents", "random,greedy", "--games", "2"]
    assert arena_main(argv + ["--workers", "1", "--out", str(out), "--no-progress"]) == 0
    assert "| greedy |" in capsys.readouterr().out
    data = json.loads((out / "arena.json").read_text())
    assert data["games"] == 4 and data["agents"] == ["random", "greedy"]


def test_cli_parser_registration() -> None:
    import argparse

    from carcassonne_rl.cli.arena import add_arena_parser

    parser = argparse.ArgumentParser()
    add_arena_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["arena", "--agents", "random,mcts:50", "--deals", "3"])
    assert args.func.__name__ == "run_arena" and args.deals == 3 and args.duplicate


def test_versus_schedule_seats_the_agent_once_against_copies_of_the_opponent() -> None:
    jobs = schedule(Setup("cardcassonne", 4), ["a", "b"], deals=2, opponents=["g"])
    assert len(jobs) == 2 * 2 * 4  # 2 agents x 2 deals x 4 rotations
    for lineup, agent in ((0, "a"), (1, "b")):
        mine = [j for j in jobs if j.lineup == lineup]
        assert all(sorted(j.labels) == sorted([agent, "g", "g", "g"]) for j in mine)
        for deal in {j.deal for j in mine}:  # the agent sits once in every seat of a deal
            seats = sorted(j.labels.index(agent) for j in mine if j.deal == deal)
            assert seats == [0, 1, 2, 3]
    # both agents meet the same deals
    assert {j.deal for j in jobs if j.lineup == 0} == {j.deal for j in jobs if j.lineup == 1}
    # the same agent as opponent gets its own label
    assert schedule(Setup(), ["greedy"], 1, opponents=["greedy"])[0].labels == (
        "greedy",
        "greedy#2",
    )


def test_versus_cli_reports_the_agent_with_its_fair_share(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    argv = ["--game", "cardcassonne", "--agents", "greedy,random", "--opponents", "random"]
    argv += ["--players", "3", "--games", "4", "--workers", "1", "--out", str(out)]
    assert arena_main(argv + ["--no-progress", "--bootstrap", "0"]) == 0
    printed = capsys.readouterr().out
    assert "| greedy | 2 x random#2 | 3 | 12 |" in printed
    data = json.loads((out / "arena.json").read_text())
    rows = {r["agent"]: r for r in data["versus"]}
    assert set(rows) == {"greedy", "random"} and data["opponents"] == ["random"]
    greedy = rows["greedy"]
    assert greedy["opponent"] == "random#2" and greedy["fair_share"] == pytest.approx(1 / 3)
    games = [r for r in data["results"] if r["lineup"] == 0]
    assert len(games) == 12
    # win rate recomputed from the games: mean over deals of the agent's win shares
    shares = {}
    for g in games:
        seat = g["seats"].index("greedy")
        w = 1 / len(g["winners"]) if seat in g["winners"] else 0.0
        shares.setdefault(g["deal"], []).append(w)
    expect = sum(sum(v) / len(v) for v in shares.values()) / len(shares)
    assert greedy["win_rate"] == pytest.approx(expect)
    assert greedy["win_rate"] > 1 / 3  # greedy beats random
    lo, hi = greedy["win_rate_ci95"]
    assert lo <= greedy["win_rate"] <= hi
    assert greedy["opponent_win_rate_per_seat"] == pytest.approx((1 - expect) / 2, abs=1e-9)
