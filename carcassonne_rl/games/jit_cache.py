"""Keep Numba's on-disk cache of a game's kernels consistent with their sources.

Numba invalidates a cached function only when *its own* source file changes, not when a
kernel it calls in another module or a table or layout constant it captured changes: a
stale cache would silently run old rules. So, before a game's kernels compile, every Numba
source that reads its arrays is hashed, and their cache files are deleted when the hash
differs from the one stamped at the last run. Each game names its sources and its stamp
(``games.carcassonne.jit_cache``, ``games.cardcassonne.jit_cache``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # carcassonne_rl/


def sources_digest(sources: Sequence[str]) -> str:
    """The sha256 of the ``sources`` (paths relative to the package), names included."""
    h = hashlib.sha256()
    for name in sources:
        h.update(name.encode())
        path = PACKAGE / name
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()


def cache_dirs(sources: Sequence[str]) -> list[Path]:
    """Where Numba keeps the cache files of the kernels of ``sources``."""
    dirs = sorted({(PACKAGE / name).parent / "__pycache__" for name in sources})
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        dirs.append(Path(custom))
    return dirs


def ensure_fresh_cache(
    sources: Sequence[str], stamp: str, marker: str, dirs: Sequence[Path] | None = None
) -> None:
    """Delete the cached kernels of ``sources`` (files of a source's module whose path holds
    ``marker``) in ``dirs`` (default :func:`cache_dirs`) that were compiled from other
    sources than the current ones; ``stamp`` names the file that keeps the digest."""
    digest = sources_digest(sources)
    stems = tuple(Path(name).stem + "." for name in sources)
    for d in cache_dirs(sources) if dirs is None else dirs:
        stamp_file = d / stamp
        try:
            if stamp_file.read_text() == digest:
                continue
        except OSError:
            pass
        if d.is_dir():
            for f in list(d.rglob("*.nbi")) + list(d.rglob("*.nbc")):
                if f.name.startswith(stems) and marker in str(f):
                    f.unlink(missing_ok=True)
        try:
            d.mkdir(parents=True, exist_ok=True)
            stamp_file.write_text(digest)
        except OSError:
            pass  # read-only install: Numba will not write a cache there either
