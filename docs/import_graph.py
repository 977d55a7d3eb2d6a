"""The package's import graph, read from the source (no module is imported).

Every ``import`` statement counts, wherever it stands: at the top, inside a function, or
under ``if TYPE_CHECKING:``; a circle that only a lazy import hides is still a circle.

- :func:`module_graph`: module -> the package modules it imports.
- :func:`room_violations`: imports that run from a lower room up to a higher one (or
  sideways between two rooms of the same floor).
- :func:`module_cycles`: the import circles between modules.
- :func:`draw`: the rooms as boxes, one row per floor, arrows for the imports between them
  (run as a script: ``python docs/import_graph.py OUT.png``; the docs build runs it).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = "carcassonne_rl"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

# Floors, lowest first: a room may import only rooms on a lower floor (and itself).
FLOORS: list[tuple[str, ...]] = [
    ("games", "runtime"),
    ("encoders",),
    ("envs",),
    ("agents", "testing"),
    ("arena", "openspiel"),
    ("training", "play"),
    ("cli",),
]
FLOOR_OF = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
ROOM_TEXT = {
    "games": "rules engines",
    "runtime": "progress, user errors, Ray session, seeds",
    "encoders": "state -> tensors, action codes",
    "envs": "PettingZoo / Gymnasium envs",
    "agents": "random, greedy, MCTS, trained",
    "testing": "fuzzer, goldens, env benchmark",
    "arena": "schedules, plays, rates games",
    "openspiel": "OpenSpiel games and bots",
    "training": "PPO, afterstate, RLlib",
    "play": "web and terminal play",
    "cli": "the carcassonne-rl command",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> file."""
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def module_graph() -> dict[str, set[str]]:
    """module -> the modules of the package it imports (itself excluded)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, path.name == "__init__.py", node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in known else base)
        graph[name] = {t for t in targets if t in known and t != name}
    return graph


def room_of(module: str) -> str | None:
    """The room (first sub-package) of a module; None for the package's own ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def room_violations(graph: dict[str, set[str]] | None = None) -> list[str]:
    """One line per import that does not run downwards between rooms."""
    graph = module_graph() if graph is None else graph
    found = []
    for source, targets in sorted(graph.items()):
        here = room_of(source)
        if here is None:
            continue
        if here not in FLOOR_OF:
            found.append(f"{source}: room {here!r} is on no floor (add it to FLOORS)")
            continue
        for target in sorted(targets):
            there = room_of(target)
            if there is None or there == here:
                continue
            if there not in FLOOR_OF or FLOOR_OF[there] >= FLOOR_OF[here]:
                found.append(f"{source} imports {target}: {here} may not import {there}")
    return found


def module_cycles(graph: dict[str, set[str]] | None = None) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    graph = module_graph() if graph is None else graph
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def room_edges(graph: dict[str, set[str]] | None = None) -> dict[tuple[str, str], int]:
    """(room, room it imports) -> number of module imports behind that arrow."""
    graph = module_graph() if graph is None else graph
    edges: dict[tuple[str, str], int] = defaultdict(int)
    for source, targets in graph.items():
        for target in targets:
            a, b = room_of(source), room_of(target)
            if a and b and a != b:
                edges[(a, b)] += 1
    return dict(edges)


def room_lines() -> dict[str, int]:
    """Lines of code per room."""
    lines: dict[str, int] = defaultdict(int)
    for name, path in modules().items():
        room = room_of(name)
        if room:
            lines[room] += len(path.read_text().splitlines())
    return dict(lines)


def draw(out: str | Path) -> Path:
    """The rooms as boxes (one row per floor, lowest at the bottom) and their imports."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    graph = module_graph()
    edges = room_edges(graph)
    lines = room_lines()
    present = [tuple(r for r in rooms if r in lines) for rooms in FLOORS]
    width, box_w, box_h, row_h = 12.0, 3.2, 0.9, 1.5
    centre: dict[str, tuple[float, float]] = {}
    for level, rooms in enumerate(present):
        for i, room in enumerate(rooms):
            x = width * (i + 1) / (len(rooms) + 1)
            centre[room] = (x, level * row_h)
    fig, ax = plt.subplots(figsize=(11, 1.3 * len(present) + 0.6))
    bad = {(a, b) for a, b in edges if FLOOR_OF.get(b, 99) >= FLOOR_OF.get(a, -1)}
    for (a, b), count in sorted(edges.items()):
        (xa, ya), (xb, yb) = centre[a], centre[b]
        # leave and enter each box on the side facing the other one (less crossing)
        shift = max(-box_w * 0.4, min(box_w * 0.4, (xb - xa) * 0.3))
        ax.add_patch(FancyArrowPatch(
            (xa + shift, ya - box_h / 2), (xb - shift, yb + box_h / 2), arrowstyle="-|>",
            mutation_scale=10, color="#c0392b" if (a, b) in bad else "#7f8c8d", alpha=0.6,
            linewidth=0.6 + 0.25 * min(count, 8), connectionstyle="arc3,rad=0.05", zorder=1,
        ))  # fmt: skip
    for room, (x, y) in centre.items():
        ax.add_patch(FancyBboxPatch(
            (x - box_w / 2, y - box_h / 2), box_w, box_h, boxstyle="round,pad=0.03",
            facecolor="#eaf2f8", edgecolor="#2e4053", linewidth=1.2, zorder=2,
        ))  # fmt: skip
        ax.text(x, y + 0.15, f"{room}/", ha="center", va="center", fontsize=11, weight="bold",
                zorder=3)  # fmt: skip
        ax.text(x, y - 0.2, f"{ROOM_TEXT.get(room, '')} ({lines[room]:,} lines)",
                ha="center", va="center", fontsize=7.5, zorder=3)  # fmt: skip
    ax.set_xlim(0, width)
    ax.set_ylim(-row_h / 2 - 0.2, (len(present) - 1) * row_h + row_h / 2)
    ax.axis("off")
    title = f"{PACKAGE}: rooms and their imports (each arrow points at the room imported)"
    if bad:
        title += f" - {len(bad)} UPWARD"
    ax.set_title(title, fontsize=10)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    """Draw the graph to the given PNG; print the upward imports and circles found."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="docs/_build/import_graph.png",
                        help="the PNG to write (default: %(default)s)")  # fmt: skip
    args = parser.parse_args(argv)
    if not args.out.endswith(".png"):
        parser.error(f"the picture is written as PNG: {args.out!r} does not end in .png")
    print(draw(args.out))
    for line in room_violations():
        print("upward:", line)
    for group in module_cycles():
        print("circle:", " <-> ".join(group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
