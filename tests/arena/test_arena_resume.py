"""``arena --resume``: a match cut short goes on where it stopped and ends with the games a
match that was never cut plays; a log of another match, or none, is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import carcassonne_rl.cli.arena as arena_cli
import carcassonne_rl.cli.run_folder as run_folder
from carcassonne_rl.arena.game_log import LOG_FILE, SETTINGS_FILE
from carcassonne_rl.arena.match import run_jobs

MATCH = ["--game", "cardcassonne", "--agents", "random,greedy", "--deals", "3", "--seed", "5",
         "--workers", "1", "--no-progress", "--bootstrap", "0"]  # fmt: skip


def games(folder: Path) -> list[tuple]:
    """Each game of a report (seats, scores, winners, decisions), in report order."""
    results = json.loads((folder / "arena.json").read_text())["results"]
    return [(r["lineup"], r["deal"], r["rotation"], tuple(r["seats"]), tuple(r["scores"]),
             tuple(r["winners"]), tuple(r["decisions"])) for r in results]  # fmt: skip


class CutError(Exception):
    """The kill of the test's match."""


def cut_after(n: int, played: list[int]):
    """A ``run_jobs`` that plays the first ``n`` jobs, then is killed; ``played``: how
    many jobs each call was handed."""

    def run(jobs, **kwargs):
        played.append(len(jobs))
        run_jobs(jobs[:n], **kwargs)
        raise CutError

    return run


def counting(played: list[int]):
    def run(jobs, **kwargs):
        played.append(len(jobs))
        return run_jobs(jobs, **kwargs)

    return run


def test_a_cut_match_resumes_to_the_games_of_an_uncut_one(tmp_path, monkeypatch, capsys) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert arena_cli.main([*MATCH, "--out", str(whole)]) == 0
    played: list[int] = []
    monkeypatch.setattr(run_folder, "run_jobs", cut_after(4, played))
    with pytest.raises(CutError):
        arena_cli.main([*MATCH, "--out", str(cut)])
    assert len((cut / LOG_FILE).read_text().splitlines()) == 4
    assert not (cut / "arena.json").exists()
    with (cut / LOG_FILE).open("a") as log:  # a game whose line a kill cut in the middle
        log.write('{"deal": 12, "rotation"')
    monkeypatch.setattr(run_folder, "run_jobs", counting(played))
    at = MATCH.index("--seed")
    seedless = MATCH[:at] + MATCH[at + 2 :]  # the seed comes from match.json
    assert arena_cli.main([*seedless, "--out", str(cut), "--resume"]) == 0
    assert "4 of 6 games already played" in capsys.readouterr().out
    assert played == [6, 2]  # the resumed run played only the 2 games the log lacked
    assert games(cut) == games(whole)
    assert len(games(cut)) == 6
    lines = (cut / LOG_FILE).read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line)["scores"] for line in lines)


def test_another_match_or_none_is_refused_and_left_as_it_was(tmp_path, capsys) -> None:
    out = tmp_path / "m"
    assert arena_cli.main([*MATCH, "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    other = [*MATCH[:5], "4", *MATCH[6:]]  # --deals 4
    assert arena_cli.main([*other, "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "not the match" in err and "deals_per_lineup: 3" in err and "4 now" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert arena_cli.main([*MATCH, "--resume"]) == 2
    assert "--resume needs --out" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert arena_cli.main([*MATCH, "--out", str(empty), "--resume"]) == 2
    assert f"{SETTINGS_FILE} is missing" in capsys.readouterr().err
    (out / LOG_FILE).write_text("not json\n")
    assert arena_cli.main([*MATCH, "--out", str(out), "--resume"]) == 2
    assert f"{LOG_FILE}:1: not a game of the arena" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        arena_cli.main([*MATCH, "--out", str(out), "--resume", "--overwrite"])


def test_an_interrupted_match_says_how_to_go_on(tmp_path, monkeypatch, capsys) -> None:
    def interrupted(jobs, **kwargs):
        run_jobs(jobs[:3], **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(run_folder, "run_jobs", interrupted)
    out = tmp_path / "m"
    assert arena_cli.main([*MATCH, "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert f"3 of 6 games are in {out / LOG_FILE}" in err and "--resume" in err
    assert len((out / LOG_FILE).read_text().splitlines()) == 3
