"""Golden playthroughs: every recorded game replays step for step (see tests/golden/)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from carcassonne_rl.testing.golden import COLUMNS, STANDARD_SPECS, first_difference

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.mark.parametrize("spec", STANDARD_SPECS, ids=lambda s: s.file_name[:-5])
def test_golden_playthrough_replays_identically(spec) -> None:
    path = GOLDEN / spec.file_name
    assert path.exists(), f"{path} missing: python tests/golden/regenerate.py --confirm"
    problem = first_difference(json.loads(path.read_text()))
    assert problem is None, f"{path.name}: {problem}"


def test_every_golden_file_is_a_standard_spec() -> None:
    names = {s.file_name for s in STANDARD_SPECS}
    assert {p.name for p in GOLDEN.glob("*.json")} == names


def test_a_changed_step_is_reported_with_its_step_and_column() -> None:
    golden = json.loads((GOLDEN / "cardcassonne_v0_p2_seed0.json").read_text())
    tampered = copy.deepcopy(golden)
    tampered["steps"][17][COLUMNS.index("masks")] = "0" * 16
    assert first_difference(tampered).startswith("step 17: masks differs")
    tampered = copy.deepcopy(golden)
    tampered["steps"][40][COLUMNS.index("scores")][1] += 1
    assert first_difference(tampered).startswith("step 40: scores differs")
    tampered = copy.deepcopy(golden)
    tampered["steps"].append(tampered["steps"][-1])
    assert "steps" in first_difference(tampered)


V1_SPECS = [s for s in STANDARD_SPECS if s.env == "carcassonne_v1"]


@pytest.mark.parametrize("spec", V1_SPECS, ids=lambda s: s.file_name[:-5])
def test_v1_golden_plays_the_v0_game_move_for_move(spec) -> None:
    """carcassonne_v1 changes the observation only: its golden game has v0's agents,
    actions, masks, rewards and scores at every step (the observations differ)."""
    v0_name = spec.file_name.replace("carcassonne_v1", "carcassonne_v0")
    v1 = json.loads((GOLDEN / spec.file_name).read_text())["steps"]
    v0 = json.loads((GOLDEN / v0_name).read_text())["steps"]
    assert len(v1) == len(v0) > 0
    same = [COLUMNS.index(c) for c in ("agent", "action", "masks", "rewards", "scores")]
    for row1, row0 in zip(v1, v0, strict=True):
        assert [row1[i] for i in same] == [row0[i] for i in same]
        assert row1[COLUMNS.index("observations")] != row0[COLUMNS.index("observations")]


@pytest.mark.parametrize("env", ["carcassonne_v0", "carcassonne_v1", "cardcassonne_v0"])
def test_illegal_index_golden_ends_the_game_with_minus_one(env) -> None:
    """The classic-wrapper rule is part of the goldens: an illegal in-range index ends the
    game at once, -1 for its maker and 0 for the others, scores unchanged."""
    spec = next(s for s in STANDARD_SPECS if s.env == env and s.illegal_at is not None)
    steps = json.loads((GOLDEN / spec.file_name).read_text())["steps"]
    agent, action, _, _, rewards, scores = steps[spec.illegal_at]
    assert action is not None
    assert rewards[agent] == -1.0 and sum(rewards) == -1.0
    assert scores == steps[spec.illegal_at - 1][COLUMNS.index("scores")]
    assert all(row[COLUMNS.index("action")] is None for row in steps[spec.illegal_at + 1 :])
    assert len(steps) == spec.illegal_at + 1 + 2  # then each seat steps None once
