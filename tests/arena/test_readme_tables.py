"""The README's leaderboard tables are the committed leaderboards, rendered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carcassonne_rl.arena.readme_tables import BLOCK, BOARDS, main, readme_table, render

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_tables_are_the_committed_leaderboards() -> None:
    readme = (ROOT / "README.md").read_text()
    names = [m.group(2) for m in BLOCK.finditer(readme)]
    assert {"carcassonne-2p", "cardcassonne-2p"} <= set(names), names
    assert render(readme, ROOT) == readme, (
        "README's leaderboard tables are stale: python -m carcassonne_rl.arena.readme_tables "
        "README.md"
    )
    for name in names:  # each block shows every agent of its report, best first
        board = json.loads((ROOT / BOARDS / name / "leaderboard.json").read_text())
        block = next(m.group(3) for m in BLOCK.finditer(readme) if m.group(2) == name)
        assert board["command"] in block
        ranks = [line.split("|")[1].strip() for line in block.splitlines() if line[:2] == "| "]
        assert ranks[1:] == [str(k) for k in range(1, len(board["agents"]) + 1)]


BOARD = {
    "game": "cardcassonne",
    "players": 2,
    "deals": 3,
    "games": 18,
    "anchor": "greedy",
    "command": "carcassonne-rl leaderboard --game cardcassonne --deals 3 --seed 1",
    "ratings": [
        {"agent": "pretrained", "rank": 1, "rating": 312.4, "rating_ci95": [201.0, None],
         "cpu_ms_per_decision": 0.512},
        {"agent": "greedy", "rank": 2, "rating": 0.0, "rating_ci95": [0.0, 0.0],
         "cpu_ms_per_decision": 0.25},
        {"agent": "random", "rank": 3, "rating": -150.0, "rating_ci95": [-260.0, -40.0],
         "cpu_ms_per_decision": 12.34},
    ],
    "resolved": {"pretrained": {"pinned": "card-net-v4", "what": "a network"},
                 "greedy": {"pinned": None, "what": "one move ahead"},
                 "random": {"pinned": None, "what": "a | uniform move"}},
}  # fmt: skip


def test_a_table_names_pinned_agents_and_shows_the_intervals() -> None:
    lines = readme_table(BOARD, "docs/leaderboard/x/leaderboard.md").splitlines()
    assert lines[0] == (
        "**Cardcassonne, 2 players**, 3 deals, 18 games ([report](docs/leaderboard/x/"
        "leaderboard.md)): `carcassonne-rl leaderboard --game cardcassonne --deals 3 --seed 1`"
    )
    rows = [line for line in lines if line.startswith("| ") and line[2].isdigit()]
    assert rows == [
        "| 1 | `card-net-v4` (`pretrained`) | a network | +312 [+201, ∞] | 0.51 |",
        "| 2 | `greedy` | one move ahead | 0 (anchor) | 0.25 |",
        "| 3 | `random` | a / uniform move | -150 [-260, -40] | 12.3 |",
    ]


def test_main_rewrites_a_block_and_names_a_missing_report(tmp_path, capsys) -> None:
    board_dir = tmp_path / BOARDS / "demo"
    board_dir.mkdir(parents=True)
    (board_dir / "leaderboard.json").write_text(json.dumps(BOARD))
    readme = tmp_path / "README.md"
    readme.write_text("top\n<!-- leaderboard:demo -->\nold\n<!-- /leaderboard -->\nend\n")
    assert main([str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("top\n<!-- leaderboard:demo -->\n**Cardcassonne, 2 players**, 3 deals")
    assert "old" not in text and text.endswith("<!-- /leaderboard -->\nend\n")
    readme.write_text("<!-- leaderboard:nothing -->\n<!-- /leaderboard -->\n")
    assert main([str(readme)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: README block leaderboard:nothing: no report")
    assert len(err.strip().splitlines()) == 1
    assert readme.read_text() == "<!-- leaderboard:nothing -->\n<!-- /leaderboard -->\n"


@pytest.mark.parametrize("argv", [[], ["a", "b"]])
def test_main_needs_one_readme(argv, capsys) -> None:
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err
