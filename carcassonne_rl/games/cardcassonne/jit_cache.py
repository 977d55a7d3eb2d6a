"""Keep Numba's on-disk cache of the card-game kernels consistent with their sources.

Numba invalidates a cached function only when *its own* source file changes, not when a
kernel it calls in another module (the rules of ``batch_kernels`` called by the vector env's
step) or a layout constant it captured changes: a stale cache would silently run old rules.
So, before the kernels compile, every Numba source that reads the batched card game's
arrays is hashed, and their cache files are deleted when the hash differs from the last run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent.parent  # carcassonne_rl/
SOURCES = (
    "games/cardcassonne/batch_layout.py",
    "games/cardcassonne/batch_kernels.py",
    "games/cardcassonne/batch.py",
    "encoders/card/batch.py",
    "envs/card_vector_kernels.py",
    "envs/card_vector.py",
)
_STAMP = "cardcassonne_kernels.sha256"


def sources_digest() -> str:
    h = hashlib.sha256()
    for name in SOURCES:
        h.update(name.encode())
        path = PACKAGE / name
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()


def cache_dirs() -> list[Path]:
    """Where Numba keeps the cache files of these kernels."""
    dirs = sorted({(PACKAGE / name).parent / "__pycache__" for name in SOURCES})
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        dirs.append(Path(custom))
    return dirs


def ensure_fresh_cache() -> None:
    """Delete cached card kernels compiled from other sources than the current ones."""
    digest = sources_digest()
    stems = tuple(Path(name).stem + "." for name in SOURCES)
    for d in cache_dirs():
        stamp = d / _STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        if d.is_dir():
            for f in list(d.rglob("*.nbi")) + list(d.rglob("*.nbc")):
                if f.name.startswith(stems) and ("card" in str(f)):
                    f.unlink(missing_ok=True)
        try:
            d.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass  # read-only install: Numba will not write a cache there either
