"""``carcassonne-rl leaderboard``: the rating fit against closed forms, the anchor, the
schedule, the report files, resume after a cut, the same seed's games, and bad arguments."""

from __future__ import annotations

import csv
import json
import math
from contextlib import nullcontext
from pathlib import Path

import pytest

import carcassonne_rl.cli.leaderboard as board_cli
import carcassonne_rl.cli.run_folder as run_folder
from carcassonne_rl.agents.catalog import ALIASES, PINNED
from carcassonne_rl.agents.registry import WHAT
from carcassonne_rl.agents.spec import split_specs
from carcassonne_rl.arena.game_log import LOG_FILE
from carcassonne_rl.arena.leaderboard import (
    cpu_ms,
    fit,
    leaderboard_jobs,
    markdown,
    pairs,
    resolved_agents,
    score_table,
    separated_groups,
    what_it_is,
)
from carcassonne_rl.arena.match import GameResult, Setup, run_jobs, schedule
from carcassonne_rl.arena.ratings import bradley_terry, default_anchor, elo_ratings
from carcassonne_rl.cli.main import main as cli_main

RUN = ["--game", "cardcassonne", "--agents", "random,greedy", "--deals", "2", "--seed", "5",
       "--workers", "1", "--no-progress", "--bootstrap", "50"]  # fmt: skip


def table_of(wins: dict[tuple[str, str], float]) -> dict[str, dict[str, float]]:
    labels = sorted({x for pair in wins for x in pair})
    return {a: {b: wins.get((a, b), 0.0) for b in labels} for a in labels}


def test_two_agents_rating_is_400_log10_of_wins_over_losses() -> None:
    # 26 wins, 6 losses and 8 draws (half a win each): 30 to 10
    table = table_of({("a", "b"): 26 + 8 / 2, ("b", "a"): 6 + 8 / 2})
    elo = elo_ratings(table, anchor="b", prior=0.0)
    assert elo["a"] == pytest.approx(400 * math.log10(30 / 10), abs=1e-6)
    assert elo["b"] == 0.0
    assert elo_ratings(table, anchor="a", prior=0.0)["b"] == pytest.approx(-elo["a"], abs=1e-6)


def test_three_agents_with_results_at_their_expectation_recover_the_strengths() -> None:
    # strengths 1, 2, 4 and 30 games per pair with wins exactly n * g_a / (g_a + g_b): the
    # likelihood equations hold at these strengths, so they are the maximum
    table = table_of({("a", "b"): 10, ("b", "a"): 20, ("a", "c"): 6, ("c", "a"): 24,
                      ("b", "c"): 10, ("c", "b"): 20})  # fmt: skip
    elo = elo_ratings(table, anchor="a", prior=0.0)
    assert elo["b"] == pytest.approx(400 * math.log10(2), abs=1e-6)
    assert elo["c"] == pytest.approx(400 * math.log10(4), abs=1e-6)


def test_the_fit_solves_the_likelihood_equations() -> None:
    table = table_of({("a", "b"): 7, ("b", "a"): 3, ("a", "c"): 2.5, ("c", "a"): 9.5,
                      ("b", "c"): 4, ("c", "b"): 1, ("d", "a"): 5, ("a", "d"): 5,
                      ("d", "c"): 1, ("c", "d"): 6})  # fmt: skip
    g = bradley_terry(table, prior=0.0)
    for a in table:  # observed wins = expected wins, agent by agent
        expected = sum((table[a][b] + table[b][a]) * g[a] / (g[a] + g[b]) for b in table if b != a)
        assert expected == pytest.approx(sum(table[a].values()), rel=1e-9)
    # the prior keeps a perfect record finite
    perfect = elo_ratings(table_of({("a", "b"): 10, ("b", "a"): 0}), anchor="b")
    assert 0 < perfect["a"] < math.inf


def game(lineup: int, deal: int, seats: list[str], scores: list[int]) -> GameResult:
    best = max(scores)
    winners = [i for i, s in enumerate(scores) if s == best]
    return GameResult(deal, 0, lineup, seats, scores, winners, [10] * len(seats),
                      [0.01] * len(seats), cpu_seconds=[0.005] * len(seats))  # fmt: skip


def test_greedy_is_the_anchor_and_ratings_rank_the_agents() -> None:
    assert default_anchor(["heuristic", "random", "greedy"], ("greedy", "random")) == "greedy"
    assert default_anchor(["heuristic", "random"], ("greedy", "random")) == "random"
    assert default_anchor(["x", "y"], ("greedy", "random")) == "x"
    specs = ["random", "greedy", "heuristic"]
    results = []
    for deal in range(6):  # greedy beats random 4 of 6, heuristic beats greedy 5 of 6...
        results.append(game(0, deal, ["random", "greedy"], [1, 2] if deal < 4 else [2, 1]))
        results.append(game(1, deal, ["random", "heuristic"], [1, 2] if deal < 5 else [2, 1]))
        results.append(game(2, deal, ["greedy", "heuristic"], [1, 2] if deal < 5 else [2, 2]))
    board = fit(results, specs, players=2, samples=100)
    rows = {r["agent"]: r for r in board["ratings"]}
    assert board["anchor"] == "greedy"
    assert rows["greedy"]["rating"] == 0.0 and rows["greedy"]["rating_ci95"] == [0.0, 0.0]
    assert [r["agent"] for r in board["ratings"]] == ["heuristic", "greedy", "random"]
    assert [r["rank"] for r in board["ratings"]] == [1, 2, 3]
    for r in board["ratings"]:
        lo, hi = r["rating_ci95"]
        assert lo <= r["rating"] <= hi and r["games"] == 12 and r["record"] is None
        assert r["ms_per_decision"] == pytest.approx(1.0)
        assert r["cpu_ms_per_decision"] == pytest.approx(0.5)
    # the same table anchored at random: the same gaps
    shifted = elo_ratings(board["pairwise_wins"], anchor="random")
    gap = rows["heuristic"]["rating"] - rows["random"]["rating"]
    assert shifted["heuristic"] - shifted["random"] == pytest.approx(gap)
    pair = next(p for p in board["pairs"] if p["opponent"] == "heuristic" and
                p["agent"] == "greedy")  # fmt: skip
    assert (pair["wins"], pair["losses"], pair["draws"], pair["games"]) == (0, 5, 1, 6)
    assert pair["score"] == pytest.approx(0.5 / 6)
    cross = score_table(board)  # rows and columns by rank: heuristic, greedy, random
    assert cross[-3:] == ["| 1. heuristic |  | 91.7% | 83.3% |",
                          "| 2. greedy | 8.3% |  | 66.7% |",
                          "| 3. random | 16.7% | 33.3% |  |"]  # fmt: skip


def test_a_perfect_record_has_an_open_interval() -> None:
    results = [game(0, d, ["random", "greedy"], [0, 5]) for d in range(4)]
    rows = {r["agent"]: r for r in fit(results, ["random", "greedy"], 2, 20)["ratings"]}
    assert rows["random"]["record"] == "all lost" and rows["random"]["rating_ci95"][0] is None
    assert rows["greedy"]["record"] is None  # the anchor


def test_results_that_split_the_agents_into_ordered_groups_are_named() -> None:
    # a and b beat each other; c drew d once; c and d lost every game to a and b
    table = table_of({("a", "b"): 3, ("b", "a"): 1, ("a", "c"): 2, ("b", "c"): 2,
                      ("a", "d"): 2, ("b", "d"): 1, ("c", "d"): 1.5, ("d", "c"): 0.5})  # fmt: skip
    assert separated_groups(table, ["a", "b", "c", "d"]) == [["a", "b"], ["c", "d"]]
    table["d"]["a"] = 1  # d beat a once: one group, through d -> a -> b -> c -> d
    assert separated_groups(table, ["a", "b", "c", "d"]) == [["a", "b", "c", "d"]]
    results = [game(0, d, ["random", "greedy"], [0, 5]) for d in range(4)]
    results += [game(1, d, ["random", "heuristic"], [0, 5]) for d in range(4)]
    results += [game(2, d, ["greedy", "heuristic"], [5, 5 - d % 2]) for d in range(4)]
    board = fit(results, ["random", "greedy", "heuristic"], 2, 20)
    assert board["separated_groups"] == [["greedy", "heuristic"], ["random"]]
    note = markdown(board, "t", "c")
    assert "2 groups, each of which won every comparison" in note
    assert "greedy, heuristic > random" in note


def test_the_schedule_pairs_every_agent_from_every_seat_on_shared_deals() -> None:
    assert pairs(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert pairs(3, 3) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    specs = ["a", "b", "c"]
    jobs = leaderboard_jobs(Setup("cardcassonne", 3), specs, deals=2, seed=9)
    assert len(jobs) == 6 * 2 * 3  # ordered pairs x deals x rotations
    for li, (a, b) in enumerate(pairs(3, 3)):
        mine = [j for j in jobs if j.lineup == li]
        assert all(sorted(j.labels) == sorted([specs[a], specs[b], specs[b]]) for j in mine)
        for deal in {j.deal for j in mine}:  # the agent sits once in every seat of a deal
            assert sorted(j.labels.index(specs[a]) for j in mine if j.deal == deal) == [0, 1, 2]
    assert len({j.deal for j in jobs}) == 2  # every pair meets the same deals
    # a pair's games are the arena's versus match of the two agents
    versus = schedule(Setup("cardcassonne", 3), ["b"], 2, seed=9, opponents=["a"])
    assert [(j.deal, j.rotation, j.specs, j.agent_seed) for j in jobs if j.lineup == 2] == [
        (j.deal, j.rotation, j.specs, j.agent_seed) for j in versus
    ]
    with pytest.raises(ValueError, match="named twice: a"):
        leaderboard_jobs(Setup("cardcassonne"), ["a", "b", "a"], 1, 0)


def test_split_specs_keeps_commas_inside_parentheses() -> None:
    split = split_specs  # the spec language's, which --agents uses
    assert split("greedy, search(worlds=8, candidates=3),mcts:50,") == [
        "greedy",
        "search(worlds=8, candidates=3)",
        "mcts:50",
    ]
    assert split("cheat(search(worlds=2, leaf=net)),random") == [
        "cheat(search(worlds=2, leaf=net))",
        "random",
    ]


def games_of(folder: Path) -> list[list[str]]:
    with open(folder / "games.csv") as f:
        return list(csv.reader(f))


def test_a_tiny_leaderboard_writes_its_files(tmp_path, capsys) -> None:
    out = tmp_path / "lb"
    assert cli_main(["leaderboard", *RUN, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    text = (out / "leaderboard.md").read_text()
    command = ("carcassonne-rl leaderboard --game cardcassonne --players 2 --agents "
               "random,greedy --deals 2 --seed 5")  # fmt: skip
    assert command in text and text in printed
    assert "| 1 | greedy |  | 0 (anchor) | 4 |" in text
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["command"] == command and data["seed"] == 5 and data["games"] == 4
    assert data["deals"] == 2 and data["anchor"] == "greedy" and data["players"] == 2
    assert [r["agent"] for r in data["ratings"]] == ["greedy", "random"]
    assert {r["games"] for r in data["ratings"]} == {4}
    assert data["pairs"][0]["games"] == 4
    assert sum(data["pairs"][0][k] for k in ("wins", "losses", "draws")) == 4
    assert len(games_of(out)) == 1 + 4
    assert (out / "leaderboard.png").read_bytes()[:4] == b"\x89PNG"
    # what each agent resolved to, in the json and (pinned name, what it is, version) the md
    greedy = data["resolved"]["greedy"]
    assert greedy["pinned"] is None and greedy["files"] == [] and greedy["what"] == WHAT["greedy"]
    assert f"| greedy |  | {WHAT['greedy']} |  |" in text
    assert f"carcassonne-rl {greedy['version']}." in text
    assert all(r["cpu_ms_per_decision"] > 0 for r in data["ratings"])
    assert games_of(out)[0][:7] == ["lineup", "deal", "rotation", "seat0_agent", "seat0_score",
                                    "seat0_pinned", "seat0_models"]  # fmt: skip


def test_pinned_names_and_baselines_say_what_they_are() -> None:
    resolved = resolved_agents(["card-net-v1", "pretrained", "mcts(sims=1000)", "random"],
                               "cardcassonne")  # fmt: skip
    assert resolved["card-net-v1"]["pinned"] == "card-net-v1"
    assert resolved["card-net-v1"]["what"] == PINNED["card-net-v1"].what
    assert resolved["pretrained"]["pinned"] == "card-net-v4"  # the alias, resolved
    assert resolved["pretrained"]["what"] == PINNED["card-net-v4"].what
    assert [f["file"] for f in resolved["pretrained"]["files"]] == ["cardcassonne_netleaf.npz"]
    assert resolved["mcts(sims=1000)"]["what"] == WHAT["mcts"]
    assert resolved["random"]["what"] == WHAT["random"]
    assert what_it_is({"spec": "x", "error": "no such agent"}) == "not resolved: no such agent"
    results = [game(0, d, ["card-net-v1", "random"], [2, 1]) for d in range(3)]
    board = {**fit(results, ["card-net-v1", "random"], 2, samples=20),
             "resolved": {k: resolved[k] for k in ("card-net-v1", "random")}}  # fmt: skip
    text = markdown(board, "t", "cmd")
    sha = resolved["card-net-v1"]["files"][0]["sha256"][:12]
    assert f"| card-net-v1 | card-net-v1 | {PINNED['card-net-v1'].what} | " in text
    assert f"cardcassonne_2p.npz ({sha})" in text
    assert "| 1 | card-net-v1 | card-net-v1 | +" in text and "| 0.50 |" in text
    assert [cpu_ms(x) for x in (None, 0.014, 12.34)] == ["", "0.01", "12.3"]


def test_the_default_agents_are_pinned_names_and_baselines() -> None:
    for game_name, specs in board_cli.DEFAULT_AGENTS.items():
        resolved = resolved_agents(specs, game_name)
        pinned = {s for s, r in resolved.items() if r["pinned"]}
        # each pinned one by its name, or by an alias (the card heuristic)
        assert pinned == {s for s in specs if s in PINNED or s in ALIASES[game_name]}
        assert all(r["pinned"] == ALIASES[game_name][s] for s, r in resolved.items()
                   if s in ALIASES[game_name])  # fmt: skip
        assert all(r["what"] and "error" not in r for r in resolved.values())
    assert "card-net-v1" in board_cli.DEFAULT_AGENTS["cardcassonne"]


def test_the_same_seed_plays_the_same_games(tmp_path) -> None:
    one, two, other = tmp_path / "1", tmp_path / "2", tmp_path / "3"
    assert board_cli.main([*RUN, "--out", str(one)]) == 0
    assert board_cli.main([*RUN, "--out", str(two)]) == 0
    assert games_of(one) == games_of(two)
    # the same table but for the CPU ms column (the last one of the ratings table)
    tables = [[line.rsplit("|", 2)[0] if line.startswith("| ") and line.count("|") == 8
               else line for line in (f / "leaderboard.md").read_text().splitlines()]
              for f in (one, two)]  # fmt: skip
    assert tables[0] == tables[1]
    seed = RUN.index("--seed") + 1
    assert board_cli.main([*RUN[:seed], "6", *RUN[seed + 1 :], "--out", str(other)]) == 0
    assert games_of(other)[1:] != games_of(one)[1:]


TIMES = ("ms_per_decision", "cpu_ms_per_decision")


class CutError(Exception):
    """The kill of the test's run."""


def test_a_cut_run_resumes_to_the_games_of_an_uncut_one(tmp_path, monkeypatch, capsys) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    three = [*RUN[:3], "random,greedy,heuristic", *RUN[4:]]  # 3 pairs x 2 deals x 2 seats
    assert board_cli.main([*three, "--out", str(whole)]) == 0
    played: list[int] = []

    def cut_after_5(jobs, **kwargs):
        played.append(len(jobs))
        run_jobs(jobs[:5], **kwargs)
        raise CutError

    monkeypatch.setattr(run_folder, "run_jobs", cut_after_5)
    with pytest.raises(CutError):
        board_cli.main([*three, "--out", str(cut)])
    assert not (cut / "leaderboard.json").exists()

    def counting(jobs, **kwargs):
        played.append(len(jobs))
        return run_jobs(jobs, **kwargs)

    monkeypatch.setattr(run_folder, "run_jobs", counting)
    at = three.index("--seed")
    seedless = three[:at] + three[at + 2 :]  # the seed comes from the log's settings
    capsys.readouterr()
    assert board_cli.main([*seedless, "--out", str(cut), "--resume"]) == 0
    assert "5 of 12 games already played" in capsys.readouterr().out
    assert played == [12, 7]
    assert games_of(cut) == games_of(whole)
    assert len((cut / LOG_FILE).read_text().splitlines()) == 12
    # the same ratings (the bootstrap's seed is fixed); times differ from run to run
    ratings = [
        [{k: v for k, v in r.items() if k not in TIMES} for r in json.loads(
            (f / "leaderboard.json").read_text())["ratings"]] for f in (cut, whole)
    ]  # fmt: skip
    assert ratings[0] == ratings[1] and len(ratings[0]) == 3
    # another run's settings are refused, the folder left as it was
    before = {p.name: p.read_bytes() for p in cut.iterdir()}
    deals = three.index("--deals") + 1
    assert board_cli.main([*three[:deals], "3", *three[deals + 1 :], "--out", str(cut),
                           "--resume"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "not the match" in err and "deals: 2" in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in cut.iterdir()} == before


def test_three_players_rate_each_agent_against_copies_of_the_other(tmp_path) -> None:
    out = tmp_path / "lb3"
    argv = [*RUN[:4], "--players", "3", "--deals", "1", *RUN[6:], "--out", str(out)]
    assert board_cli.main(argv) == 0
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["games"] == 2 * 3 and data["fair_share"] == pytest.approx(1 / 3)
    for p in data["pairs"]:  # the agent against 2 opponent seats in each of 3 games
        assert p["games"] == 3 and p["opponent_seats"] == 2
        assert p["wins"] + p["losses"] + p["draws"] == 6
    assert "fair share 33.3%" in (out / "leaderboard.md").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agents", "random"], "a leaderboard needs at least 2"),
        (["--agents", "random,random"], "names random twice"),
        (["--agents", "random,nonsense"], "--agents:"),
        (["--agents", "random,search(worlds=8"], "a '(' without its ')'"),
        (["--resume"], "--resume needs --out"),
        (["--deals", "0"], "--deals"),
        (["--address", "127.0.0.1:1"], "Ray"),  # not installed, or nothing listens there
    ],
)
def test_bad_arguments_are_one_line(args, message, tmp_path, capsys) -> None:
    argv = ["leaderboard", "--game", "cardcassonne", "--agents", "random,greedy", *args]
    if "--resume" not in args:
        argv += ["--out", str(tmp_path / "x")]
    with pytest.raises(SystemExit) if args[0] == "--deals" else nullcontext():
        assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("carcassonne-rl leaderboard: error:")
    assert not (tmp_path / "x").exists()
