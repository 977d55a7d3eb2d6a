"""The package's layering: rooms import only rooms on lower floors, no module takes part in
an import circle, and no module grows past ~450 lines (docs/import_graph.py reads the
imports from the source, lazy and ``TYPE_CHECKING`` ones included)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 450


def _load_import_graph():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "docs" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module
    spec.loader.exec_module(module)
    return module


graph_module = _load_import_graph()


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return graph_module.module_graph()


def test_the_graph_sees_the_imports_it_must(graph) -> None:
    """The reader resolves absolute, relative and lazy imports (known edges of the package)."""
    assert (
        "carcassonne_rl.games.carcassonne.kernels"
        in graph["carcassonne_rl.games.carcassonne.position"]
    )
    assert "carcassonne_rl.agents.base" in graph["carcassonne_rl.agents.tile.greedy"]
    # a lazy import inside a function of the registry
    assert "carcassonne_rl.agents.pretrained" in graph["carcassonne_rl.agents.registry"]
    assert "carcassonne_rl.arena.match" in graph["carcassonne_rl.cli.arena"]


def test_every_room_is_on_a_floor() -> None:
    rooms = {p.name for p in (ROOT / "carcassonne_rl").iterdir() if (p / "__init__.py").exists()}
    assert rooms <= set(graph_module.FLOOR_OF), rooms - set(graph_module.FLOOR_OF)


def test_imports_run_downwards_only(graph) -> None:
    assert graph_module.room_violations(graph) == []


def test_no_import_circles(graph) -> None:
    assert graph_module.module_cycles(graph) == []


def test_a_planted_upward_import_or_circle_is_caught(graph) -> None:
    """The checks are not vacuous: an engine importing the envs, and two engine modules
    importing each other, are both reported."""
    planted = {k: set(v) for k, v in graph.items()}
    planted["carcassonne_rl.games.carcassonne.tiles"].add("carcassonne_rl.envs.game_env")
    planted["carcassonne_rl.games.carcassonne.layout"].add("carcassonne_rl.games.carcassonne.state")
    violations = graph_module.room_violations(planted)
    assert violations == [
        "carcassonne_rl.games.carcassonne.tiles imports carcassonne_rl.envs.game_env: "
        "games may not import envs"
    ]
    circles = graph_module.module_cycles(planted)
    assert len(circles) == 1
    assert {
        "carcassonne_rl.games.carcassonne.layout",
        "carcassonne_rl.games.carcassonne.state",
    } <= set(circles[0])
    sideways = {k: set(v) for k, v in graph.items()}
    sideways["carcassonne_rl.play.server"].add("carcassonne_rl.training.plots")
    assert graph_module.room_violations(sideways) == [
        "carcassonne_rl.play.server imports carcassonne_rl.training.plots: "
        "play may not import training"
    ]


def test_modules_stay_small() -> None:
    long = {
        name: n
        for name, path in graph_module.modules().items()
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_picture_is_drawn_from_the_code(tmp_path) -> None:
    out = graph_module.draw(tmp_path / "graph.png")
    assert out.stat().st_size > 20_000
    assert set(graph_module.room_lines()) >= {"games", "envs", "agents", "arena", "cli"}
