"""The arena times decisions after a warm-up (a throwaway agent per spec and process), so a
first run's compiling is not counted, and the games played do not change."""

from __future__ import annotations

import time

import pytest

from carcassonne_rl.agents import registry
from carcassonne_rl.agents.random_agent import RandomAgent
from carcassonne_rl.arena import match
from carcassonne_rl.arena.match import Setup, play_game, schedule

COMPILE_S = 0.3


class SlowStart(RandomAgent):
    """A random agent whose first decision in the process takes ``COMPILE_S`` (compiling)."""

    compiled = False

    def act(self, state, player: int) -> int:
        if not SlowStart.compiled:
            time.sleep(COMPILE_S)
            SlowStart.compiled = True
        return super().act(state, player)


@pytest.fixture
def fresh_process(monkeypatch):
    """No spec warmed up yet, a ``slowstart`` family that has not compiled."""
    monkeypatch.setattr(match, "_warmed", set())
    monkeypatch.setattr(SlowStart, "compiled", False)
    monkeypatch.setitem(registry.FAMILIES, "slowstart", lambda p, g, seed: SlowStart(seed))


def test_the_first_decision_of_a_process_is_compiled_before_timing(fresh_process) -> None:
    job = schedule(Setup(), ["slowstart", "random"], deals=1)[0]
    first = play_game(job)
    assert SlowStart.compiled and first.seconds[0] < COMPILE_S / 3
    assert ("slowstart", Setup()) in match._warmed


def test_without_warm_up_the_compiling_is_timed(fresh_process) -> None:
    job = schedule(Setup(), ["slowstart", "random"], deals=1)[0]
    assert play_game(job, warm=False).seconds[0] >= COMPILE_S


@pytest.mark.parametrize(
    ("setup", "specs"),
    [(Setup(), ["greedy", "mcts:10"]), (Setup("cardcassonne", 3), ["mcts:10", "random"])],
)
def test_the_warm_up_changes_no_game(fresh_process, setup: Setup, specs: list[str]) -> None:
    jobs = schedule(setup, specs, deals=1, seed=2, save_records=True)[:2]
    cold = [play_game(job, warm=False) for job in jobs]
    assert not match._warmed
    warm = [play_game(job) for job in jobs]  # the first one warms both specs up
    assert {(s, setup) for s in specs} <= match._warmed
    for a, b in zip(warm, cold, strict=True):
        assert a.record == b.record and a.scores == b.scores and a.decisions == b.decisions
