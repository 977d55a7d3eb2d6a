"""The fuzzer: 10^4 random decisions per standard config with no crash and no broken
invariant; and it does notice broken invariants, crashes and accepted bad actions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.cli.main import main
from carcassonne_rl.testing import fuzz as fuzz_module
from carcassonne_rl.testing.fuzz import STANDARD_CONFIGS, FuzzConfig, fuzz, fuzz_many

SHORT = 10_000


@pytest.mark.parametrize("config", STANDARD_CONFIGS, ids=lambda c: c.name)
def test_short_fuzz_finds_nothing(config: FuzzConfig) -> None:
    result = fuzz(config, SHORT, seed=1)
    assert result["decisions"] == SHORT and result["games"] >= 10
    assert (result["crashes"], result["invariant_breaks"]) == (0, 0), result["messages"]
    assert result["window_overflows"] == 0
    checks = result["sampled_checks"]
    assert checks["refusals"] >= SHORT // fuzz_module.ILLEGAL_CHECK_EVERY
    assert checks["copy_continued"] >= 10


def test_a_mask_missing_a_legal_move_is_an_invariant_break(monkeypatch) -> None:
    from carcassonne_rl.encoders.card.encoder import CardEncoder

    real = CardEncoder.action_mask

    def drops_the_last_move(self, state):
        mask = real(self, state)
        legal = np.flatnonzero(mask)
        if len(legal) > 1:
            mask[legal[-1]] = 0
        return mask

    monkeypatch.setattr(CardEncoder, "action_mask", drops_the_last_move)
    result = fuzz(FuzzConfig("cardcassonne", 2), 300, seed=0)
    assert result["invariant_breaks"] > 0 and "mask codes" in result["messages"][0]


def test_a_score_without_its_event_is_an_invariant_break(monkeypatch) -> None:
    from carcassonne_rl.games.cardcassonne.state import State

    real = State._score

    def extra_point(self, p, pts, kind, cards):
        real(self, p, pts, kind, cards)
        self._scores[p] += 1

    monkeypatch.setattr(State, "_score", extra_point)
    result = fuzz(FuzzConfig("cardcassonne", 3), 2000, seed=0)
    assert result["invariant_breaks"] > 0
    assert any("score events" in m for m in result["messages"])


def test_points_that_are_not_integers_are_an_invariant_break(monkeypatch) -> None:
    """Whole points, as the rules score them: a float that equals them is caught too (an
    agent's float set values once reached the engine's scores through a shared cache)."""
    from carcassonne_rl.games.cardcassonne.state import State

    real = State._score
    monkeypatch.setattr(State, "_score", lambda self, p, pts, kind, cards: real(
        self, p, float(pts), kind, cards))  # fmt: skip
    result = fuzz(FuzzConfig("cardcassonne", 2), 2000, seed=0)
    assert result["invariant_breaks"] > 0
    assert any("has points of type float" in m for m in result["messages"])


def test_an_accepted_float_action_is_an_invariant_break(monkeypatch) -> None:
    from carcassonne_rl.envs import classic_wrapper

    monkeypatch.setattr(classic_wrapper, "check_action_index", lambda a, n, agent: int(a))
    monkeypatch.setattr(fuzz_module, "BAD_ENV_ACTIONS", (lambda a, n: float(a),))
    result = fuzz(FuzzConfig("cardcassonne", 2), 200, seed=0)
    assert result["invariant_breaks"] > 0
    assert any("was accepted" in m for m in result["messages"])


def test_a_crash_is_counted_and_the_run_goes_on(monkeypatch) -> None:
    from carcassonne_rl.games.cardcassonne.state import State

    real = State._end_round
    calls = {"n": 0}

    def sometimes_crash(self):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("boom")
        real(self)

    monkeypatch.setattr(State, "_end_round", sometimes_crash)
    result = fuzz(FuzzConfig("cardcassonne", 2), 1000, seed=0)
    assert result["crashes"] == 1 and result["decisions"] == 1000
    assert "boom" in result["messages"][0]


def test_results_file_makes_runs_resumable(tmp_path) -> None:
    results = tmp_path / "fuzz.jsonl"
    configs = [FuzzConfig("cardcassonne", 2), FuzzConfig("cardcassonne", 3)]
    lines: list[str] = []
    first = fuzz_many(configs[:1], 500, seed=0, results=results, emit=lines.append)
    assert len(first) == 1
    with open(results, "a") as out:
        out.write('{"config": "cardcassonne_v0 p3", "decis')  # a line cut short by a kill
    second = fuzz_many(configs, 500, seed=0, results=results, emit=lines.append)
    assert [r["config"] for r in second] == ["cardcassonne_v0 p3"]  # p2 skipped
    rows = [json.loads(line) for line in lines]
    assert [r["config"] for r in rows] == ["cardcassonne_v0 p2", "cardcassonne_v0 p3"]
    assert fuzz_many(configs, 500, seed=1, results=results, emit=lines.append)  # other seed


def test_fuzz_command_prints_one_json_line(capsys) -> None:
    assert main(["fuzz", "--game", "carcassonne", "--expansions", "messages", "--decisions",
                 "300", "--seed", "4"]) == 0  # fmt: skip
    row = json.loads(capsys.readouterr().out.strip())
    assert row["config"] == "carcassonne_v0 p2 messages" and row["decisions"] == 300
    assert row["crashes"] == 0 and row["invariant_breaks"] == 0 and row["decisions_per_s"] > 0
