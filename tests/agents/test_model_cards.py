"""The model cards: generated from ``models.json`` (the committed pages are what the generator
writes now), every shipped file described with its sha256, every row with the command that
replays it, and facts only (no dates, no "until"/"since" histories)."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path

import pytest

from carcassonne_rl.agents.model_cards import main, model_card, write_model_cards
from carcassonne_rl.agents.pretrained import model_dir, model_info
from carcassonne_rl.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
CARDS = REPO / "docs" / "models"
HISTORY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b(until|since)\b", re.IGNORECASE)


def test_the_committed_cards_are_what_the_generator_writes(tmp_path: Path) -> None:
    written = write_model_cards(tmp_path)
    assert {p.name for p in written} == {f"{key}.md" for key in model_info()} | {"index.md"}
    committed = {p.name for p in CARDS.glob("*.md")}
    assert committed == {p.name for p in written}, "regenerate: python -m " + (
        "carcassonne_rl.agents.model_cards docs/models"
    )
    for path in written:
        assert (CARDS / path.name).read_text() == path.read_text(), path.name


def test_every_model_file_exists_with_its_sha256_and_size() -> None:
    info = model_info()
    assert {entry["file"] for entry in info.values()} == {p.name for p in model_dir().glob("*.npz")}
    for key, entry in info.items():
        data = (model_dir() / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], key
        assert len(data) == entry["bytes"], key
        assert entry["file"] == f"{key}.npz", key  # a key names its file, whatever plays it


def test_every_row_has_an_arena_command_the_command_line_accepts() -> None:
    parser = build_parser()
    for key, entry in model_info().items():
        assert entry["rows"], key
        for row in entry["rows"]:
            assert set(row) == {"what", "result", "games", "command"}, (key, row)
            assert row["command"].startswith("carcassonne-rl "), (key, row["command"])
            assert isinstance(row["games"], int) and row["games"] > 0, (key, row)
            assert re.match(r"\d+(\.\d+)?%", row["result"]), (key, row["result"])
            args = parser.parse_args(shlex.split(row["command"])[1:])
            assert args.command == "arena", (key, row["command"])


def test_each_entry_holds_the_facts_a_card_shows() -> None:
    for key, entry in model_info().items():
        for field in ("file", "kind", "features", "method", "trained_by", "exported_by"):
            assert isinstance(entry[field], str) and entry[field], (key, field)
        assert entry["trained_by"].startswith("carcassonne-rl "), key
        assert Path(REPO / entry["training_log"]).is_dir(), (key, entry["training_log"])
        assert "measured" not in entry and "plays" not in entry, key
        for table in entry["tables"]:
            assert set(table) == {"agent", "at", "how"}, (key, table)


def test_no_dates_or_histories_in_models_json_or_the_cards() -> None:
    texts = {"models.json": (model_dir() / "models.json").read_text()}
    texts.update({p.name: p.read_text() for p in CARDS.glob("*.md")})
    for name, text in texts.items():
        found = [m.group(0) for m in HISTORY.finditer(text)]
        assert found == [], (name, found)


def test_the_history_check_catches_dates_and_histories() -> None:
    for bad in ["played it until it was replaced", "Since then", "on 2026-11-28"]:
        assert HISTORY.search(bad), bad
    assert not HISTORY.search("the untiled board, sincere, 2026-11")


def test_a_card_shows_the_file_the_command_and_the_rows() -> None:
    entry = model_info()["cardcassonne_netleaf"]
    card = model_card("cardcassonne_netleaf")
    unwrapped = card.replace(" \\\n  ", " ")  # the console blocks' continued lines
    assert card.startswith("# cardcassonne_netleaf\n")
    assert entry["sha256"] in card and "`cardcassonne_netleaf.npz`" in card
    assert entry["trained_by"] in unwrapped
    blocks = [block.split("```")[0] for block in card.split("```console\n")[1:]]
    long = [line for block in blocks for line in block.splitlines() if len(line) > 88]
    assert long and all(" --" not in line.strip() for line in long)  # one option a line
    for row in entry["rows"]:
        assert f"```console\n{row['command']}\n```" in unwrapped
        assert f"| {row['what']} | {row['result']} | {row['games']:,} |" in card
    assert "| `pretrained` | 2-5 players |" in card
    json.dumps(entry)  # plain JSON, nothing else


def test_an_unknown_model_gets_one_message() -> None:
    with pytest.raises(KeyError, match="no shipped model 'nope': one of .*carcassonne_2p"):
        model_card("nope")


def test_the_module_writes_the_cards_into_the_folder_named(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "cards")]) == 0
    assert (tmp_path / "cards" / "index.md").is_file()
    assert "carcassonne_2p.md" in capsys.readouterr().out
    assert main([]) == 2 and "usage:" in capsys.readouterr().err
