"""The arena's game log: a match that is cut short goes on where it stopped.

While a match runs, each finished game is appended to ``OUT/games.jsonl`` (one JSON line,
flushed to disk before the next game is counted), and the match's settings (game, seats,
expansions, agents, opponents, deals, format, seed) are in ``OUT/match.json`` from the start.
``carcassonne-rl arena ... --out OUT --resume`` reads both, checks that the command asks for
the same match, and plays only the games the log lacks; the report then covers every game,
the same games a run that was never cut would have played (a game depends only on its deal,
seat rotation and agents, not on when or where it is played). A line cut off by a kill is
ignored (its game is played again).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .match import GameResult, Job

SETTINGS_FILE = "match.json"
LOG_FILE = "games.jsonl"

Key = tuple[int, int, int]  # (lineup, deal, rotation): one game of a schedule


def job_key(item: Job | GameResult) -> Key:
    """The game's place in its match: lineup, deal and seat rotation."""
    return (item.lineup, item.deal, item.rotation)


class GameLogError(ValueError):
    """A game log that cannot be resumed (another match's, or damaged); the message says
    what is wrong."""


def _result(line: str, where: str) -> GameResult:
    try:
        data = json.loads(line)
        return GameResult(**data)
    except (ValueError, TypeError) as err:
        raise GameLogError(f"{where}: not a game of the arena ({err})") from None


def read_log(path: Path) -> list[GameResult]:
    """The games of a log; a last line without its newline (cut by a kill) is dropped, any
    other unreadable line is a :class:`GameLogError` naming it."""
    if not path.is_file():
        return []
    complete = path.read_text().split("\n")[:-1]  # the last piece: "" unless a write was cut
    return [_result(line, f"{path}:{i + 1}") for i, line in enumerate(complete) if line.strip()]


class GameLog:
    """The log of one match in ``folder``: new (``resume=False``: the settings written, the
    log emptied) or resumed (the settings must equal ``settings``; ``GameLogError`` with
    the differences otherwise)."""

    def __init__(self, folder: Path, settings: dict[str, Any], resume: bool = False) -> None:
        self.folder = Path(folder)
        self.settings_path = self.folder / SETTINGS_FILE
        self.path = self.folder / LOG_FILE
        self.done: dict[Key, GameResult] = {}
        if resume:
            saved = self.saved_settings(self.folder)
            wanted = json.loads(json.dumps(settings))  # tuples as JSON lists
            keys = sorted(set(saved) | set(wanted))
            diff = [f"{k}: {saved.get(k)!r} in {SETTINGS_FILE}, {wanted.get(k)!r} now"
                    for k in keys if saved.get(k) != wanted.get(k)]  # fmt: skip
            if diff:
                raise GameLogError("--resume: this is not the match in " + f"{self.folder}: "
                                   + "; ".join(diff))  # fmt: skip
            games = read_log(self.path)
            self.done = {job_key(r): r for r in games}
            self._rewrite(games)  # drop a cut last line before appending after it
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.settings_path.write_text(json.dumps(settings, indent=1) + "\n")
            self.path.write_text("")

    @staticmethod
    def saved_settings(folder: Path) -> dict[str, Any]:
        """The settings of the match logged in ``folder`` (``GameLogError`` if none)."""
        path = Path(folder) / SETTINGS_FILE
        try:
            saved = json.loads(path.read_text())
        except FileNotFoundError:
            raise GameLogError(f"--resume: {folder} holds no match ({SETTINGS_FILE} is missing)"
                               ) from None  # fmt: skip
        except ValueError as err:
            raise GameLogError(f"--resume: {path} is not JSON ({err})") from None
        if not isinstance(saved, dict):
            raise GameLogError(f"--resume: {path} is not a match's settings")
        return saved

    def _rewrite(self, games: Iterable[GameResult]) -> None:
        self.path.write_text("".join(self._line(r) for r in games))

    @staticmethod
    def _line(result: GameResult) -> str:
        data = result.to_dict()
        if result.record is not None:
            data["record"] = result.record
        return json.dumps(data) + "\n"

    def pending(self, jobs: Sequence[Job]) -> list[Job]:
        """The jobs whose games the log lacks, in schedule order."""
        return [j for j in jobs if job_key(j) not in self.done]

    def append(self, result: GameResult) -> None:
        """Log a finished game (flushed and synced before returning)."""
        with open(self.path, "a") as out:
            out.write(self._line(result))
            out.flush()
            os.fsync(out.fileno())
        self.done[job_key(result)] = result

    def results(self, jobs: Sequence[Job]) -> list[GameResult]:
        """Every job's game, in schedule order (``GameLogError`` if one is missing)."""
        missing = self.pending(jobs)
        if missing:
            raise GameLogError(f"{len(missing)} games of the match are not in {self.path}")
        return [self.done[job_key(j)] for j in jobs]
