"""Model cards of the shipped models, generated from ``pretrained_models/models.json``.

One Markdown page per model: what it is, its file with sha256 and size, how it was trained
(method and command), its measured rows with the arena command that replays each, and what
the shipped agents play it at. Regenerate the committed pages with
``python -m carcassonne_rl.agents.model_cards docs/models``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.pretrained import model_info

#: what each ``kind`` of models.json is, in words
KINDS = {
    "tile_afterstate_value": (
        "tile game",
        "a value network over afterstates: it values the position after each legal move and "
        "the agent plays the best",
    ),
    "tile_obs_policy": (
        "tile game",
        "a policy network that decides from the environment's observation alone",
    ),
    "card_search_value": (
        "card game",
        "a search-value network: of the card heuristic's best turn options it ranks the "
        "candidates by the value it gives each afterstate",
    ),
    "card_policy": ("card game", "a MaskablePPO policy network exported to numpy"),
}
FEATURES = {
    "two_player": "the 2-player afterstate features (`two_player`)",
    "table": "the table features, every opponent in its own slot (`table`)",
}
PROGRAMS = ("carcassonne-rl", "cp", "python")
SIZE_NAMES = {
    "positions": "positions learned from",
    "games": "games",
    "steps": "environment steps",
    "decisions": "decisions",
    "teacher_games": "teacher games",
    "teacher_decisions": "teacher decisions",
}


def _cell(text: Any) -> str:
    """``text`` safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _players(entry: dict[str, Any]) -> str:
    players = entry.get("players")
    if players is None:
        return "trained at mixed tables: " + ", ".join(entry.get("trained_tables", []))
    expansions = entry.get("expansions")
    base = "" if expansions is None else (", base game" if not expansions else "")
    return f"trained for {players} players{base}"


def _prose(text: str) -> str:
    """``text`` with its command-line options as code (not typeset: ``--out``, not a dash)."""
    return re.sub(r"(?<![\w`])(--[a-z][\w-]*(?: [\w.]+=[\w.,]+)?)", r"`\1`", text)


def _wall(entry: dict[str, Any]) -> str:
    wall = entry.get("wall_seconds")
    if isinstance(wall, int | float):
        return f"{wall:,} s ({wall / 3600:.1f} h)"
    return str(wall)


def _wrap(command: str, width: int = 88) -> str:
    """``command`` broken before its options into lines of at most ``width`` characters
    where it can be, each continued with a backslash (the same command in a shell)."""
    parts = command.split(" --")
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + len(part) + 3 > width - 2:
            lines.append("  --" + part)
        else:
            lines[-1] += " --" + part
    return " \\\n".join(lines)


def _commands(text: str) -> list[str]:
    """The lines of a console block for ``text``: its ``; ``-separated commands, the parts
    that are words rather than commands ("then the same with --resume") as comments."""
    parts = [part.strip() for part in text.split("; ")]
    return [_wrap(part) if part.split(" ", 1)[0] in PROGRAMS else f"# {part}" for part in parts]


def model_card(key: str, info: dict[str, Any] | None = None) -> str:
    """The Markdown model card of the shipped model ``key`` (a key of ``models.json``)."""
    info = model_info() if info is None else info
    if key not in info:
        raise KeyError(f"no shipped model {key!r}: one of {', '.join(sorted(info))}")
    entry = info[key]
    game, what = KINDS.get(entry["kind"], ("", entry["kind"]))
    lines = [
        f"# {key}",
        "",
        f"A {game} model, {what} (`{entry['kind']}`). Inputs: "
        f"{FEATURES.get(entry['features'], entry['features'])}; {_players(entry)}.",
        "",
        "| | |",
        "|---|---|",
        f"| file | `{entry['file']}` |",
        f"| sha256 | `{entry['sha256']}` |",
        f"| size | {entry['bytes']:,} bytes |",
        "",
        "## How it was trained",
        "",
        _prose(entry["method"]),
        "",
        "```console",
        *_commands(entry["trained_by"]),
        "```",
        "",
        f"Exported by: {_prose(entry['exported_by'])}.",
        "",
        "| | |",
        "|---|---|",
    ]
    for name, value in entry.get("sizes", {}).items():
        lines.append(f"| {SIZE_NAMES.get(name, name)} | {value:,} |")
    lines += [
        f"| wall time | {_cell(_wall(entry))} |",
        f"| machine | {_cell(entry['machine'])} |",
        f"| training log | `{entry['training_log']}` |",
        "",
        "## What plays it",
        "",
    ]
    if entry["tables"]:
        lines += ["| agent | at | how |", "|---|---|---|"]
        for table in entry["tables"]:
            lines.append(f"| `{table['agent']}` | {_cell(table['at'])} | {_cell(table['how'])} |")
        lines.append("")
    else:
        lines += ["No shipped agent plays it by default.", ""]
    lines += ["Agent specs that play this file: " + ", ".join(f"`{s}`" for s in entry["specs"])]
    lines += [
        "",
        "## Measured",
        "",
        "Win rate of the agent's seats [95% interval] and mean margin, each run's rows below "
        "its command: the command replays them (the same `--seed`, the same games).",
    ]
    runs: dict[str, list[dict[str, Any]]] = {}
    for row in entry["rows"]:
        runs.setdefault(row["command"], []).append(row)
    for command, rows in runs.items():
        lines += ["", "```console", _wrap(command), "```", "", "| what | result | games |"]
        lines.append("|---|---|---:|")
        for row in rows:
            lines.append(f"| {_cell(row['what'])} | {_cell(row['result'])} | {row['games']:,} |")
    return "\n".join(lines) + "\n"


def index_page(info: dict[str, Any] | None = None) -> str:
    """``docs/models/index.md``: one line per shipped model and the table of contents."""
    info = model_info() if info is None else info
    lines = [
        "# Model cards",
        "",
        "Every model file shipped in `carcassonne_rl/agents/pretrained_models/` has a card,",
        "generated from `models.json` there "
        "(`python -m carcassonne_rl.agents.model_cards docs/models`).",
        "",
        "| model | game | file | what plays it |",
        "|---|---|---|---|",
    ]
    for key, entry in info.items():
        game = KINDS.get(entry["kind"], ("", ""))[0]
        agents = [f"`{t['agent']}`" for t in entry["tables"]] or ["none by default"]
        lines.append(f"| [{key}]({key}.md) | {game} | `{entry['file']}` | {', '.join(agents)} |")
    lines += ["", "```{toctree}", ":hidden:", "", *info, "```"]
    return "\n".join(lines) + "\n"


def write_model_cards(out_dir: str | Path) -> list[Path]:
    """Write ``<key>.md`` for every shipped model and ``index.md`` into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = model_info()
    written = []
    for key in info:
        path = out / f"{key}.md"
        path.write_text(model_card(key, info))
        written.append(path)
    index = out / "index.md"
    index.write_text(index_page(info))
    return [*written, index]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m carcassonne_rl.agents.model_cards OUT_DIR", file=sys.stderr)
        return 2
    for path in write_model_cards(args[0]):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
