"""The README's leaderboard tables, generated from the committed leaderboards.

Each table in README.md sits between ``<!-- leaderboard:NAME -->`` and
``<!-- /leaderboard -->``, where ``docs/leaderboard/NAME/leaderboard.json`` is the report
of ``carcassonne-rl leaderboard`` that the table shows. Regenerate the tables after a new
leaderboard with ``python -m carcassonne_rl.arena.readme_tables README.md`` (run from the
repository root); a test checks that they agree with the committed reports.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from .leaderboard import bound, cpu_ms

#: a generated block: its report's folder name, then the block
BLOCK = re.compile(r"(<!-- leaderboard:([\w.-]+) -->\n)(.*?)(<!-- /leaderboard -->)", re.S)
#: where the committed leaderboards lie, relative to the README
BOARDS = Path("docs/leaderboard")


def readme_table(board: dict[str, Any], link: str) -> str:
    """One leaderboard as the README shows it: a line naming the table and the command that
    regenerates it, then rank, agent (its pinned name when it has one), what it is, rating
    with its interval and CPU ms per decision. ``link``: the report's path from the README."""
    resolved = board.get("resolved", {})
    game = "tile game" if board["game"] == "carcassonne" else "Cardcassonne"
    head = (
        f"**{game}, {board['players']} players**, {board['deals']} deals, {board['games']} "
        f"games ([report]({link})): `{board['command']}`\n"
    )
    rows = [
        head,
        "| rank | agent | what it is | rating [95% interval] | CPU ms per decision |",
        "|---:|---|---|---|---:|",
    ]
    for r in board["ratings"]:
        info = resolved.get(r["agent"], {})
        pinned = info.get("pinned")
        name = f"`{pinned}`" if pinned else f"`{r['agent']}`"
        if pinned and pinned != r["agent"]:
            name += f" (`{r['agent']}`)"
        if r["agent"] == board["anchor"]:
            rating = "0 (anchor)"
        else:
            ci = r["rating_ci95"]
            rating = f"{r['rating']:+.0f}"
            if ci:
                rating += f" [{bound(ci[0], 'lo')}, {bound(ci[1], 'hi')}]"
        what = str(info.get("what", "")).replace("|", "/")
        rows.append(
            f"| {r['rank']} | {name} | {what} | {rating} | {cpu_ms(r.get('cpu_ms_per_decision'))} |"
        )
    return "\n".join(rows) + "\n"


def render(readme: str, root: Path) -> str:
    """``readme`` with every generated block rewritten from ``root / BOARDS / NAME``."""

    def block(m: re.Match[str]) -> str:
        path = root / BOARDS / m.group(2) / "leaderboard.json"
        if not path.is_file():
            raise ValueError(f"README block leaderboard:{m.group(2)}: no report {path}")
        board = json.loads(path.read_text())
        link = (BOARDS / m.group(2) / "leaderboard.md").as_posix()
        return m.group(1) + readme_table(board, link) + m.group(4)

    return BLOCK.sub(block, readme)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the README's leaderboard tables in place."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m carcassonne_rl.arena.readme_tables README.md", file=sys.stderr)
        return 2
    path = Path(args[0])
    try:
        text = render(path.read_text(), path.resolve().parent)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
