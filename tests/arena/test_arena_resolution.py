"""Every report says what each spec resolved to: an arena run of ``pretrained`` records its
pinned name, the sha256 of each model file it loads and the package version in arena.json,
arena.md and games.csv (still one parseable row per game, and ``--resume`` still works), and
``evaluate``'s rows and table carry the same record; the reports count deals and games."""

from __future__ import annotations

import csv
import hashlib
import json

from carcassonne_rl.agents.catalog import PINNED
from carcassonne_rl.agents.pretrained import model_dir
from carcassonne_rl.arena.evaluation import evaluate_spec, markdown_rows
from carcassonne_rl.cli.main import main


def _version() -> str:
    from importlib import metadata

    import carcassonne_rl

    return getattr(carcassonne_rl, "__version__", None) or metadata.version("carcassonne-rl")


def _sha256(name: str) -> str:
    return hashlib.sha256((model_dir() / name).read_bytes()).hexdigest()


def test_an_arena_run_of_pretrained_records_what_it_resolved_to(tmp_path, capsys) -> None:
    out = tmp_path / "report"
    argv = ["arena", "--game", "carcassonne", "--agents", "pretrained", "--opponents", "greedy",
            "--games", "1", "--seed", "3", "--workers", "1", "--out", str(out), "--no-progress",
            "--bootstrap", "0"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads((out / "arena.json").read_text())
    assert (data["deals"], data["games"]) == (1, 2)
    record = data["resolved"]["pretrained"]
    assert record["pinned"] == "tile-net-v8" and record["named"] == "pretrained"
    files = PINNED["tile-net-v8"].files
    assert [f["file"] for f in record["files"]] == list(files)
    assert {f["file"]: f["sha256"] for f in record["files"]} == {n: _sha256(n) for n in files}
    assert record["version"] == _version()
    assert data["resolved"]["greedy"]["pinned"] is None
    assert data["resolved"]["greedy"]["files"] == []

    md = (out / "arena.md").read_text()
    assert "2 games on 1 deal." in md
    assert "| pretrained | `pretrained` | tile-net-v8 | carcassonne_2p_expert5.npz (" in md
    assert _sha256("carcassonne_2p_expert5.npz")[:12] in md and _version() in md

    with open(out / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2
    for row in rows:
        seat = "seat0" if row["seat0_agent"] == "pretrained" else "seat1"
        assert row[f"{seat}_pinned"] == "tile-net-v8"
        models = dict(x.split("=") for x in row[f"{seat}_models"].split())
        assert models == {n: _sha256(n) for n in files}
        assert row["version"] == _version()

    capsys.readouterr()
    assert main([*argv, "--resume"]) == 0  # nothing left to play: the report again
    assert "2 of 2 games already played" in capsys.readouterr().out
    again = json.loads((out / "arena.json").read_text())
    assert again["resolved"] == data["resolved"] and again["results"] == data["results"]


def test_evaluate_rows_record_the_agent_as_resolved() -> None:
    rows = evaluate_spec("policy:cardcassonne_dmc.npz", "cardcassonne", opponents=["greedy"],
                         deals=1, progress=False)  # fmt: skip
    (row,) = rows
    assert (row["deals"], row["games"]) == (1, 2)
    record = row["resolved"]
    assert record["pinned"] == "card-net-v3" and record["named"] == "policy(model=cardcassonne_dmc)"
    assert record["files"] == [{"file": "cardcassonne_dmc.npz", "shipped": True,
                                "sha256": _sha256("cardcassonne_dmc.npz")}]  # fmt: skip
    table = markdown_rows(rows, "dmc")
    assert "pinned card-net-v3" in table and _sha256("cardcassonne_dmc.npz") in table
    assert "| deals | games |" in table
