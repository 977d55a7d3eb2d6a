"""The run folder of a command that plays its games into a game log (``arena``,
``leaderboard``): where it goes, what ``--out``, ``--overwrite`` and ``--resume`` do, the
deal seed a resumed run keeps, and the play of the games the log still lacks
(:mod:`carcassonne_rl.arena.game_log`)."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from carcassonne_rl.arena.game_log import GameLog, GameLogError
from carcassonne_rl.arena.match import run_jobs

from .args import UserError


def stand_alone(
    name: str,
    doc: str | None,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
    argv: list[str] | None,
) -> int:
    """``python -m carcassonne_rl.cli.NAME ...``: the sub-command ``name`` parsed from
    ``argv`` and run; a ``UserError`` is one line on stderr and exit status 2."""
    p = argparse.ArgumentParser(prog=f"carcassonne-rl {name}", description=doc)
    add_arguments(p)
    try:
        return run(p.parse_args(argv))
    except UserError as err:
        print(f"carcassonne-rl {name}: error: {err}", file=sys.stderr)
        return 2


def run_folder(out: Path | None, runs: Path, name: str, overwrite: bool, resume: bool) -> Path:
    """Where the run's files go: ``out``, or a new dated folder ``runs/NAME-DATE-TIME``.
    ``UserError`` if ``out`` already holds files and neither ``overwrite`` nor ``resume``
    is set, or ``resume`` is set without ``out``."""
    if resume and out is None:
        raise UserError("--resume needs --out: the folder of the match to go on with")
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        folder = runs / f"{name}-{stamp}"
        n = 2
        while folder.exists():
            folder = runs / f"{name}-{stamp}-{n}"
            n += 1
        return folder
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (overwrite or resume):
        raise UserError(
            f"--out {out} already holds files: add --overwrite to write over them, or choose "
            "another --out"
        )
    return out


def cluster_address(address: str | None) -> str | None:
    """``--address`` resolved (``ray_session.resolve_address``) and reachable, checked before
    anything is written; ``None``: the games run on this machine."""
    from carcassonne_rl.runtime.ray_session import ClusterError, check_reachable, resolve_address

    try:
        resolved = resolve_address(address)
        if resolved:
            check_reachable(resolved)
    except ClusterError as err:
        raise UserError(str(err)) from None
    return resolved


def open_log(
    out: Path, seed: int | None, resume: bool, settings: Callable[[int], dict[str, Any]]
) -> tuple[int, GameLog]:
    """The deal seed (``seed``; resumed: the log's; else a fresh 128-bit one) and the game
    log of ``out`` holding ``settings(seed)`` (resumed: they must be the log's)."""
    try:
        if seed is None and resume:
            seed = GameLog.saved_settings(out).get("seed")
        seed = secrets.randbits(128) if seed is None else seed
        return seed, GameLog(out, settings(seed), resume=resume)
    except GameLogError as err:
        raise UserError(str(err)) from None


def play_pending(
    log: GameLog,
    jobs: Sequence[Any],
    args: argparse.Namespace,
    address: str | None,
    again: str,
    **run_kwargs: Any,
) -> tuple[int, float] | None:
    """Play the ``jobs`` the log lacks (``args.workers``, ``args.progress``), each result
    appended to it; returns (games resumed, seconds this took), or ``None`` when interrupted
    (a line says how to go on: the same command plus ``again``)."""
    from carcassonne_rl.runtime.ray_session import ClusterError

    todo = log.pending(jobs)
    if args.resume:
        print(f"resuming {log.folder}: {len(jobs) - len(todo)} of {len(jobs)} games "
              "already played")  # fmt: skip
    t0 = time.perf_counter()
    try:
        run_jobs(todo, workers=args.workers, progress=args.progress, address=address,
                 on_result=log.append, **run_kwargs)  # fmt: skip
    except ClusterError as err:
        raise UserError(str(err)) from None
    except KeyboardInterrupt:
        print(f"interrupted: {len(log.done)} of {len(jobs)} games are in {log.path}; the same "
              f"command plus {again} plays the others", file=sys.stderr)  # fmt: skip
        return None
    return len(jobs) - len(todo), round(time.perf_counter() - t0, 1)
