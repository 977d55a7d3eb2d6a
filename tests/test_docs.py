"""The docs hold what they promise: the rules in the repo (nothing outside it), the tile
table and the decisions as the code has them, working links, tables that render."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from carcassonne_rl.games.carcassonne.tiles import CITY, FIELD, KIND_NAMES, ROAD, TILE_TYPES
from carcassonne_rl.games.cardcassonne import DECISIONS

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "docs" / "rules"
OUTSIDE = "shared" + "/"  # spelled in two parts so that this file passes its own check


def test_nothing_points_outside_the_repo() -> None:
    folders = ["README.md", "docs", "carcassonne_rl", "tests", "notebooks"]
    found = subprocess.run(
        ["grep", "-rnI", "--exclude-dir=__pycache__", OUTSIDE, *folders],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert found.returncode == 1, found.stdout  # grep: 1 = no line found


def _tile_row(tile) -> str:
    features = []
    for segment in tile.segments:
        kind = KIND_NAMES[segment.kind]
        if segment.kind in (CITY, ROAD):
            pennant = " (pennant)" if segment.pennant else ""
            features.append(f"{kind} {'+'.join(segment.sides)}{pennant}")
        elif segment.kind == FIELD:
            cities = " & ".join(f"city {'+'.join(tile.segments[c].sides)}" for c in segment.cities)
            features.append(
                f"field {' '.join(segment.halves)}" + (f" next to {cities}" * bool(cities))
            )
        else:
            features.append(kind)
    return f"| {tile.letter} | {tile.count} | {' '.join(tile.edges)} | {'; '.join(features)} |"


def test_the_tile_table_of_the_rules_is_the_engines() -> None:
    text = (RULES / "carcassonne.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| [A-Y] \| \d+ \|", line)]
    assert rows == [_tile_row(t) for t in TILE_TYPES]


def test_every_card_game_decision_is_listed() -> None:
    text = (RULES / "cardcassonne.md").read_text()
    listed = re.findall(r"^\| `(\w+)` \|", text, flags=re.MULTILINE)
    assert listed == list(DECISIONS)


def test_every_file_with_a_decision_is_linked_from_the_rules() -> None:
    docs = (RULES / "carcassonne.md").read_text() + (RULES / "cardcassonne.md").read_text()
    games = REPO / "carcassonne_rl" / "games"
    with_decisions = [p for p in games.rglob("*.py") if "Decision" in p.read_text()]
    assert with_decisions
    for path in with_decisions:
        assert f"]({Path('../..') / path.relative_to(REPO)})" in docs, path


def test_links_of_the_docs_resolve() -> None:
    for page in [*RULES.glob("*.md"), REPO / "docs" / "engine_api.md", REPO / "README.md"]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if not target.startswith("http"):
                assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_markdown_tables_are_not_split_by_blank_lines() -> None:
    for page in [*RULES.glob("*.md"), REPO / "docs" / "engine_api.md", REPO / "README.md"]:
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            # a table row right after a blank line must start a table (header + separator)
            if line.startswith("|") and i > 0 and not lines[i - 1].strip():
                follows = lines[i + 1] if i + 1 < len(lines) else ""
                assert re.match(r"\|[-:| ]+\|$", follows), f"{page.name}:{i + 1}: {line}"


def test_the_python_examples_of_the_docs_run(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # nothing they write lands in the repo
    for page in (REPO / "README.md", REPO / "docs" / "engine_api.md"):
        for block in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.DOTALL):
            exec(compile(block, str(page), "exec"), {})
