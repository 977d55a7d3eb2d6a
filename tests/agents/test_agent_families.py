"""Agent families: the built-in ones and those added from above (``register_agent_family``)
all go through one table; optional ones load from their entry point in a fresh process, and a
known one that cannot load says how to install it."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata

import pytest

from carcassonne_rl.agents import make_agent, registry
from carcassonne_rl.agents.card.greedy import CardGreedyAgent
from carcassonne_rl.agents.random_agent import CardRandomAgent, RandomAgent
from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
from carcassonne_rl.agents.tile.mcts import TileMCTSAgent


def test_a_registered_family_builds_agents_from_its_spec(monkeypatch) -> None:
    seen = []

    def factory(params, game, seed):
        seen.append((params, game, seed))
        return RandomAgent(seed)

    monkeypatch.setitem(registry.FAMILIES, "dice", factory)
    agent = make_agent("Dice:3:x", "carcassonne", seed=5)
    assert seen == [(["3", "x"], "carcassonne", 5)] and agent.name == "dice:3:x"


def test_builtin_names_cannot_be_taken() -> None:
    for name in (*registry.NAMES, "policy"):
        with pytest.raises(ValueError, match="built-in"):
            registry.register_agent_family(name, lambda *a: None)


def test_builtin_specs_build_their_agent_per_game_and_are_named_once() -> None:
    cases = [
        (" Random ", "carcassonne", RandomAgent, "random"),
        ("random", "cardcassonne", CardRandomAgent, "random"),
        ("greedy", "carcassonne", TileGreedyAgent, "greedy"),
        ("GREEDY", "cardcassonne", CardGreedyAgent, "greedy"),
        ("mcts:20:0.5", "carcassonne", TileMCTSAgent, "mcts:20:0.5"),
    ]
    for spec, game, cls, name in cases:
        agent = make_agent(spec, game, seed=3)
        assert type(agent) is cls and agent.name == name
    mcts = make_agent("mcts:20:0.5", "carcassonne")
    assert (mcts.simulations, mcts.time_limit) == (20, 0.5)


@pytest.mark.parametrize(
    ("spec", "game", "message"),
    [
        ("wizard", "carcassonne", "unknown agent 'wizard'; expected one of random, greedy"),
        ("random:3", "carcassonne", "agent 'random' takes no parameters, got 'random:3'"),
        ("heuristic:2", "cardcassonne", "agent 'heuristic' takes no parameters"),
        ("pretrained-obs", "cardcassonne", "pretrained-obs plays the tile game"),
        ("mcts:0", "carcassonne", "bad mcts spec 'mcts:0': expected mcts[:sims[:seconds]]"),
        ("pretrained:x", "carcassonne", "bad spec 'pretrained:x': SIMS must be an integer"),
        ("pretrained:blend=2", "carcassonne", "bad spec 'pretrained:blend=2': expected pretrained"),
        ("pretrained:search=0", "carcassonne", "bad spec 'pretrained:search=0': expected"),
        ("policy", "carcassonne", "bad spec 'policy': policy needs exactly one of path= and"),
        ("policy:", "carcassonne", "bad spec: expected policy:PATH"),
        ("cheat-mcts:10", "carcassonne", "cheat-mcts measures the card game (cardcassonne) only"),
        ("cheat-mcts:0", "cardcassonne", "bad spec 'cheat-mcts:0': expected cheat-mcts[:sims]"),
        ("exploit:10:greedy", "carcassonne", "exploit measures the card game (cardcassonne)"),
        ("exploit", "cardcassonne", "bad spec 'exploit': exploit needs target; the keys of"),
        ("exploit:50", "cardcassonne", "bad spec 'exploit:50': expected exploit[:sims]:TARGET"),
        ("exploit:-3:greedy", "cardcassonne", "bad spec 'exploit:-3:greedy': expected exploit"),
        ("exploit:9:wizard", "cardcassonne", "bad spec 'exploit:9:wizard': its target: unknown"),
        ("random", "chess", "unknown game 'chess'"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, game: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        make_agent(spec, game)


def test_a_family_without_entry_point_names_its_extra(monkeypatch) -> None:
    monkeypatch.delitem(registry.FAMILIES, "openspiel", raising=False)
    monkeypatch.setattr(metadata, "entry_points", lambda **kw: [])
    with pytest.raises(ValueError, match=r"is not loaded: .*pip install -e '\.\[openspiel\]'"):
        make_agent("openspiel:mcts:10", "carcassonne")


def test_openspiel_specs_say_how_to_install_it_when_absent(monkeypatch) -> None:
    """The entry point is found but OpenSpiel cannot be imported: the package's install line."""
    monkeypatch.delitem(registry.FAMILIES, "openspiel", raising=False)
    for module in [m for m in sys.modules if m.startswith("carcassonne_rl.openspiel")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    with pytest.raises(ValueError, match=r"not loaded: .*needs OpenSpiel: pip install"):
        make_agent("openspiel:mcts:10", "carcassonne")


def test_a_fresh_process_resolves_openspiel_specs_from_the_entry_point() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed")
    code = (
        "import sys; from carcassonne_rl.agents import make_agent; "
        "print(make_agent('openspiel:mcts:50', 'carcassonne', seed=0).name, "
        "'carcassonne_rl.openspiel' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["openspiel:mcts:50", "True"]
