"""Playout-cap randomisation of the tile teacher: a share of the placements searched deep
(more continuations per reply), only those recorded; share 0 is the teacher before it."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from carcassonne_rl.agents.tile.search import ExpectimaxAgent
from carcassonne_rl.training.expert_iteration import positions
from carcassonne_rl.training.expert_iteration.positions import (
    ROW_FIELDS,
    collect,
    load_positions,
    play_teacher_game,
    teacher_deal,
)
from carcassonne_rl.training.expert_iteration.teachers import DEEP_SEED_OFFSET, deep_placements

CHEAP, DEEP = "pretrained:search=2:1", "pretrained:search=2:3"  # S = 1, S2 = 3
DEAL, SEED, PLACEMENTS = teacher_deal(5, 0), 3, 6


def _game(**kw) -> dict:
    return play_teacher_game(CHEAP, DEAL, SEED, keep=4, placements=PLACEMENTS, **kw)


def _assert_same_rows(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_share_0_is_the_teacher_without_a_deep_search() -> None:
    plain = _game()
    _assert_same_rows(_game(deep_samples=3, deep_share=0.0), plain)
    assert sorted(set(plain["decision"].tolist())) == list(range(PLACEMENTS))


def test_share_1_is_the_deep_search_in_every_seat() -> None:
    """Every placement searched deep: the game and rows of a teacher whose search has
    ``S2`` continuations, seeded as the deep search is."""
    deep = _game(deep_samples=3, deep_share=1.0)
    direct = play_teacher_game(DEEP, DEAL, SEED + DEEP_SEED_OFFSET, keep=4, placements=PLACEMENTS)
    _assert_same_rows(deep, direct)
    cheap = _game()
    assert not np.array_equal(deep["target"], cheap["target"], equal_nan=True)


def test_a_share_records_the_deep_searchs_placements_only(monkeypatch) -> None:
    calls: list[tuple[int, np.ndarray, int]] = []  # (samples, refined, options) per search
    real = ExpectimaxAgent.search

    def logged(self, state, player):
        out = real(self, state, player)
        calls.append((self.samples, out[2].copy(), len(out[0])))
        return out

    monkeypatch.setattr(ExpectimaxAgent, "search", logged)
    rows = _game(deep_samples=3, deep_share=0.5)
    draws = deep_placements(DEAL, SEED)
    deep = [draws.random() < 0.5 for _ in range(PLACEMENTS)]
    assert [c[0] for c in calls] == [3 if d else 1 for d in deep]  # which search, where
    assert 0 < sum(deep) < PLACEMENTS
    searched = [k for k, c in enumerate(calls) if c[2] > 1]
    assert searched == list(range(PLACEMENTS))  # every placement here has options
    assert sorted(set(rows["decision"].tolist())) == [k for k in searched if deep[k]]
    for k in set(rows["decision"].tolist()):  # the targets are that deep search's values
        mine = rows["target"][rows["decision"] == k]
        refined = calls[k][1]
        np.testing.assert_array_equal(np.sort(mine[np.isfinite(mine)]),
                                      np.sort(refined[np.isfinite(refined)]))  # fmt: skip
        chosen = mine[rows["chosen"][rows["decision"] == k]]
        assert len(chosen) == 1 and chosen[0] == refined.max()
    calls.clear()
    _assert_same_rows(_game(deep_samples=3, deep_share=0.5), rows)  # same seeds, same game
    other = play_teacher_game(CHEAP, DEAL, SEED + 1, keep=4, placements=PLACEMENTS,
                              deep_samples=3, deep_share=0.5)  # fmt: skip
    assert not np.array_equal(other["decision"], rows["decision"]) or not np.array_equal(
        other["target"], rows["target"], equal_nan=True)  # fmt: skip


def test_bad_deep_settings_are_named(tmp_path) -> None:
    for samples, share, told in ((3, 1.5, "deep share must be in [0, 1]"),
                                 (1, 0.5, "deep samples above the teacher's samples"),
                                 (None, 0.5, "S2 > S = 1), got None")):  # fmt: skip
        with pytest.raises(ValueError, match=re.escape(told)):
            _game(deep_samples=samples, deep_share=share)
        with pytest.raises(ValueError, match=re.escape(told)):
            collect(tmp_path / "t", 1, CHEAP, deep_samples=samples, deep_share=share)
    with pytest.raises(ValueError, match="the deep search .* is the tile game's"):
        collect(tmp_path / "t", 1, "heuristic:search=2:2", game="cardcassonne",
                deep_samples=3, deep_share=0.5)  # fmt: skip
    assert not (tmp_path / "t").exists()


def test_a_folder_records_its_deep_search(tmp_path, monkeypatch) -> None:
    seen = []

    def fake_game(spec, deal, seed, keep, limit, expansions, players, **deep):
        seen.append(deep)
        return {k: np.zeros((0, 103) if k == "x" else 0) for k in ROW_FIELDS}

    monkeypatch.setattr(positions, "play_teacher_game", fake_game)
    folder = tmp_path / "t"
    assert collect(folder, 2, CHEAP, seed=1, deep_samples=3, deep_share=0.25) == 2
    assert seen == [{"deep_samples": 3, "deep_share": 0.25}] * 2
    held = json.loads((folder / "positions.json").read_text())
    assert (held["deep_samples"], held["deep_share"]) == (3, 0.25)
    with pytest.raises(ValueError, match="deep_share"):  # the folder holds other games
        collect(folder, 2, CHEAP, seed=1, deep_samples=3, deep_share=0.5)
    with pytest.raises(ValueError, match="deep_samples"):
        collect(folder, 2, CHEAP, seed=1)
    plain = tmp_path / "plain"
    assert collect(plain, 1, CHEAP, seed=1, deep_samples=3) == 1  # share 0: no deep search
    assert "deep_share" not in json.loads((plain / "positions.json").read_text())
    assert seen[-1] == {}  # the teacher game's call without a deep search
    assert load_positions(plain)["files"] == 1


def test_the_noise_benchmark_reports_every_search(capsys) -> None:
    """benchmarks/teacher_noise.py: one row per search kind and per pair, and the run's."""
    from helpers.benchmarks import benchmark

    noise = benchmark("teacher_noise")
    argv = ["--games", "1", "--placements", "3", "--every", "1", "--candidates", "2",
            "--samples", "1", "--deep", "2,3"]  # fmt: skip
    assert noise.main(argv) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    searches = [r for r in rows if r["result"] == "search"]
    assert [r["samples"] for r in searches] == [1, 2, 3]
    assert all(r["placements"] == 3 and r["cpu_s_per_placement"] > 0 for r in searches)
    assert all(r["noise_points"] >= 0 and 0 <= r["share_gap_below"] <= 1 for r in searches)
    assert searches[-1]["regret_points"] >= 0
    pairs = [(r["a"], r["b"]) for r in rows if r["result"] == "agree"]
    assert pairs == [("S=1", "S=1"), ("S=1", "S=2"), ("S=2", "S=2"), ("S=1", "S=3"),
                     ("S=3", "S=3"), ("S=2", "S=3")]  # fmt: skip
    assert all(0 <= r["agree"] <= 1 for r in rows if r["result"] == "agree")
    assert rows[-1]["result"] == "run" and rows[-1]["placements"] == 3
    with pytest.raises(SystemExit):
        noise.main(["--deep", "1", "--samples", "2"])
    assert "every --deep above --samples" in capsys.readouterr().err
