"""The package's layering: rooms import only rooms on lower floors, no module takes part in
an import circle, and no module grows past ~450 lines (docs/import_graph.py reads the
imports from the source, lazy and ``TYPE_CHECKING`` ones included)."""

from __future__ import annotations

import ast
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


def _private_imports(module: str, is_package: bool, source: str) -> list[str]:
    """``module imports target.name`` for every underscore name (``_x``, not ``__x__``) that
    ``source`` imports from a module of the package (relative imports resolved)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: None if is_package else -1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            target, names = "", [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            dotted = f"{target}.{name}" if target else name
            private = [p for p in name.split(".") if p.startswith("_") and not p.endswith("__")]
            if dotted.split(".")[0] == graph_module.PACKAGE and private:
                found.append(f"{module} imports {dotted}")
    return found


def test_no_module_imports_a_private_name_of_another() -> None:
    """A name shared between modules is public and documented: no ``from x import _y``."""
    found = [
        line
        for name, path in graph_module.modules().items()
        for line in _private_imports(name, path.name == "__init__.py", path.read_text())
    ]
    assert found == []


def test_a_planted_private_import_is_caught() -> None:
    """The check is not vacuous: absolute, relative (from a package's ``__init__`` too) and
    ``import a._b`` forms are reported; public names, dunders and other packages are not."""
    source = (
        "from carcassonne_rl.envs.tile_picture import _rot_pts, city_shapes\n"
        "from ..envs.palette import _font as font\n"
        "from .tile_payload import tile_payload, __all__\n"
        "import carcassonne_rl.envs._hidden\n"
        "from numpy import _globals\n"
        "def lazy():\n"
        "    from . import _secret\n"
    )
    assert _private_imports("carcassonne_rl.play.tile_art", False, source) == [
        "carcassonne_rl.play.tile_art imports carcassonne_rl.envs.tile_picture._rot_pts",
        "carcassonne_rl.play.tile_art imports carcassonne_rl.envs.palette._font",
        "carcassonne_rl.play.tile_art imports carcassonne_rl.envs._hidden",
        "carcassonne_rl.play.tile_art imports carcassonne_rl.play._secret",
    ]
    package = _private_imports("carcassonne_rl.play", True, "from .tile_art import _round\n")
    assert package == ["carcassonne_rl.play imports carcassonne_rl.play.tile_art._round"]


# ---------------------------------------------------------------- one game registry
GAME_NAMES = {"carcassonne", "cardcassonne"}


def _game_rule_sites(path: Path, source: str) -> dict[str, list[str]]:
    """Where ``source`` spells out a game-registry rule: the game-name tuple/list literal,
    a 2..5 player range (``2 <= n <= 5``, ``range(2, 6)``, a ``(2, 3, 4, 5)`` assigned to
    a name), an error raised or printed about expansions and the tile game, and an
    ``expansions and game != "carcassonne"`` test."""
    found: dict[str, list[str]] = {"names": [], "players": [], "expansions": []}

    def const(node: ast.AST, value: object) -> bool:
        return isinstance(node, ast.Constant) and node.value == value

    for node in ast.walk(ast.parse(source)):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if len(values) == len(node.elts) == 2 and set(values) == GAME_NAMES:
                found["names"].append(where)
        elif isinstance(node, ast.Compare) and len(node.ops) == 2:
            if const(node.left, 2) and const(node.comparators[1], 5):
                found["players"].append(where)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range":
            if len(node.args) == 2 and const(node.args[0], 2) and const(node.args[1], 6):
                found["players"].append(where)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
            if [getattr(e, "value", None) for e in node.value.elts] == [2, 3, 4, 5]:
                found["players"].append(where)
        elif isinstance(node, ast.Raise) or getattr(getattr(node, "func", None), "id", "") in (
            "print",
        ):
            texts = [n.value.lower() for n in ast.walk(node) if isinstance(n, ast.Constant)
                     and isinstance(n.value, str)]  # fmt: skip
            if any("expansion" in t and "tile game" in t for t in texts):
                found["expansions"].append(where)
        elif isinstance(node, ast.BoolOp):
            inner = [n for v in node.values for n in ast.walk(v)]
            names = {getattr(n, "id", getattr(n, "attr", None)) for n in inner}
            games = {n.value for n in inner if isinstance(n, ast.Constant)}
            if "expansions" in names and games & GAME_NAMES:
                found["expansions"].append(where)
    return found


def test_the_game_rules_are_written_once() -> None:
    """The game names, the 2..5 seat range and "expansions are for the tile game" each live
    in one place (games/registry.py and the tile engine's config); every room asks it."""
    sites: dict[str, list[str]] = {"names": [], "players": [], "expansions": []}
    for path in graph_module.modules().values():
        for key, where in _game_rule_sites(path, path.read_text()).items():
            sites[key] += where
    assert [w.split(":")[0] for w in sites["names"]] == ["carcassonne_rl/games/registry.py"]
    assert [w.split(":")[0] for w in sites["players"]] == [
        "carcassonne_rl/games/carcassonne/config.py"
    ]
    assert [w.split(":")[0] for w in sites["expansions"]] == ["carcassonne_rl/games/registry.py"]


def test_the_game_rule_scan_finds_the_old_copies() -> None:
    """The scan is not vacuous: the copies the registry replaced are each found."""
    old = (
        'GAMES = ("carcassonne", "cardcassonne")\n'
        'p.add_argument("--game", choices=["cardcassonne", "carcassonne"])\n'
        "if not 2 <= self.players <= 5:\n    pass\n"
        'p.add_argument("--players", type=int, choices=range(2, 6))\n'
        'if self.expansions and self.game != "carcassonne":\n'
        '    raise ValueError("expansions exist only for the tile game")\n'
        'print("error: --expansions are for the tile game (--game carcassonne)")\n'
    )
    found = _game_rule_sites(ROOT / "x.py", old)
    assert [len(found[k]) for k in ("names", "players", "expansions")] == [2, 2, 3]
