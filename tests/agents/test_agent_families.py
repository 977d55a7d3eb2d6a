"""Agent families added from above (``register_agent_family``), and the message when a known
one (``openspiel``) is not loaded."""

from __future__ import annotations

import pytest

from carcassonne_rl.agents import make_agent, registry
from carcassonne_rl.agents.random_agent import RandomAgent


def test_a_registered_family_builds_agents_from_its_spec(monkeypatch) -> None:
    seen = []

    def factory(params, game, seed):
        seen.append((params, game, seed))
        return RandomAgent(seed)

    monkeypatch.setitem(registry.FAMILIES, "dice", factory)
    agent = make_agent("Dice:3:x", "carcassonne", seed=5)
    assert seen == [(["3", "x"], "carcassonne", 5)] and agent.name == "dice:3:x"


def test_builtin_names_cannot_be_taken() -> None:
    with pytest.raises(ValueError, match="built-in"):
        registry.register_agent_family("greedy", lambda *a: None)


def test_openspiel_specs_say_how_to_load_them_when_absent(monkeypatch) -> None:
    monkeypatch.delitem(registry.FAMILIES, "openspiel", raising=False)
    with pytest.raises(ValueError, match=r"import carcassonne_rl\.openspiel"):
        make_agent("openspiel:mcts:10", "carcassonne")
