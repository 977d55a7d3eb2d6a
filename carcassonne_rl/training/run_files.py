"""Crash-safe files of a run folder: atomic writes and checkpoint retention.

Every file is written to a temporary file in the same folder, flushed to disk, then renamed
over its final name (``os.replace``, atomic on POSIX and Windows): a run killed at any
moment leaves either the old file or the new one, never a half-written one. A killed
write can leave a temporary file (``.NAME.tmp-PID``); :func:`remove_temporaries` clears them.

Checkpoints are ``checkpoints/step_N.zip``; :func:`prune_checkpoints` keeps the newest
``keep`` of them (and any the caller protects, e.g. the one the trainer state points to).
Snapshots of the opponent pool live in ``snapshots/`` and are never pruned.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CHECKPOINT_PATTERN = re.compile(r"^step_(\d+)\.zip$")
TEMPORARY_PATTERN = re.compile(r"^\..+\.tmp-\d+$")


def _temporary_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary_path(path)
    try:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, data: Any, indent: int | None = 2) -> Path:
    """Write ``data`` as JSON to ``path`` atomically."""
    return atomic_write_text(path, json.dumps(data, indent=indent))


def atomic_save_npz(path: str | Path, arrays: dict[str, Any]) -> Path:
    """Write ``arrays`` as a compressed ``.npz`` to ``path`` atomically."""
    import numpy as np

    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return atomic_write_bytes(path, buffer.getvalue())


def check_folder_settings(folder: Path, record: str, settings: dict, holds: str) -> None:
    """Record ``settings`` in ``folder / record``, or check that they are those already
    recorded there (``ValueError``, naming what the folder ``holds``: one folder, one kind
    of game)."""
    path = folder / record
    if path.exists():
        held = json.loads(path.read_text())
        if held != settings:
            raise ValueError(
                f"{folder} holds {holds} of {held}, not {settings}: use another folder"
            )
        return
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, settings)


def atomic_save_model(model: Any, path: str | Path) -> Path:
    """Save an SB3 model (anything whose ``save`` accepts a binary file object) atomically:
    it is serialised in memory, then written with :func:`atomic_write_bytes`."""
    buffer = io.BytesIO()
    model.save(buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def atomic_link(source: str | Path, path: str | Path) -> Path:
    """Make ``path`` a second name of the existing file ``source``, atomically (a hard link
    renamed into place; a copy where hard links are not supported)."""
    source, path = Path(source), Path(path)
    temporary = _temporary_path(path)
    temporary.unlink(missing_ok=True)
    try:
        try:
            os.link(source, temporary)
        except OSError:
            shutil.copyfile(source, temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)
    return path


def remove_temporaries(folder: str | Path) -> list[Path]:
    """Delete the temporary files left in ``folder`` (not recursive) by killed writes."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    removed = []
    for path in folder.iterdir():
        if path.is_file() and TEMPORARY_PATTERN.match(path.name):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def checkpoint_path(folder: str | Path, step: int) -> Path:
    """``folder/step_N.zip``."""
    return Path(folder) / f"step_{int(step)}.zip"


def list_checkpoints(folder: str | Path) -> list[tuple[int, Path]]:
    """``(step, path)`` of every ``step_N.zip`` in ``folder``, oldest first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        match = CHECKPOINT_PATTERN.match(path.name)
        if match and path.is_file():
            found.append((int(match.group(1)), path))
    return sorted(found)


def prune_checkpoints(
    folder: str | Path, keep: int, protect: Iterable[str | Path] = ()
) -> list[Path]:
    """Delete all but the newest ``keep`` checkpoints of ``folder`` (``keep`` <= 0 keeps
    all); files in ``protect`` are never deleted. Returns the deleted paths."""
    if keep <= 0:
        return []
    protected = {Path(p).resolve() for p in protect}
    removed = []
    for _, path in list_checkpoints(folder)[:-keep]:
        if path.resolve() not in protected:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed
