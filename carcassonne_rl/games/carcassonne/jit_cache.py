"""Keep Numba's on-disk cache of the tile-game kernels consistent with their sources.

Numba invalidates a cached function only when *its own* source file changes, not when a
kernel it calls (in another module) or a table or layout constant it captured changes: a
stale cache would silently run old rules. So, before the kernels are compiled, we hash every
Numba source of the package that reads the engine's arrays (engine, tile encoder, tile
heuristics) and wipe their cache files when the hash differs from the last run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent.parent  # carcassonne_rl/
SOURCES = (
    "games/carcassonne/tiles.py",
    "games/carcassonne/layout.py",
    "games/carcassonne/board_kernels.py",
    "games/carcassonne/scoring_kernels.py",
    "games/carcassonne/message_kernels.py",
    "games/carcassonne/kernels.py",
    "games/carcassonne/batch.py",
    "encoders/tile/kernels.py",
    "encoders/tile/batch.py",
    "envs/vector/kernels.py",
    "agents/tile/potentials.py",
    "encoders/features/afterstate.py",
    "encoders/features/table.py",
    "encoders/features/afterstate_options.py",
    "agents/tile/potentials_options.py",
)
_STAMP = "carcassonne_kernels.sha256"


def sources_digest() -> str:
    h = hashlib.sha256()
    for name in SOURCES:
        h.update(name.encode())
        path = PACKAGE / name
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()


def cache_dirs() -> list[Path]:
    """Where Numba keeps the cache files of this package's kernels."""
    dirs = sorted({(PACKAGE / name).parent / "__pycache__" for name in SOURCES})
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        dirs.append(Path(custom))
    return dirs


def ensure_fresh_cache() -> None:
    """Delete cached kernels compiled from other sources than the current ones."""
    digest = sources_digest()
    stems = tuple(Path(name).stem for name in SOURCES)
    for d in cache_dirs():
        stamp = d / _STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        if d.is_dir():
            for f in list(d.rglob("*.nbi")) + list(d.rglob("*.nbc")):
                if f.name.startswith(stems) and "carcassonne" in str(f):
                    f.unlink(missing_ok=True)
        try:
            d.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass  # read-only install: Numba will not write a cache there either
