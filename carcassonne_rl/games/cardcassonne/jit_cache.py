"""The Numba sources of the card-game kernels, for the compile-cache guard of
:mod:`carcassonne_rl.games.jit_cache` (the rules of ``batch_kernels`` are called by the
vector env's step and by the card agents' compiled search, option features and inference in
other modules, so a change there must drop their caches too)."""

from __future__ import annotations

from pathlib import Path

from .. import jit_cache

SOURCES = (
    "games/cardcassonne/batch_layout.py",
    "games/cardcassonne/batch_kernels.py",
    "games/cardcassonne/batch.py",
    "encoders/card/batch.py",
    "envs/card_vector_kernels.py",
    "envs/card_vector.py",
    "encoders/features/card_options.py",
    "agents/card/heuristic_kernels.py",
    "agents/card/search_kernels.py",
    "agents/card/inference_kernels.py",
)
_STAMP = "cardcassonne_kernels.sha256"


def sources_digest() -> str:
    """The hash of :data:`SOURCES` the stamp records."""
    return jit_cache.sources_digest(SOURCES)


def cache_dirs() -> list[Path]:
    """Where Numba keeps the cache files of these kernels."""
    return jit_cache.cache_dirs(SOURCES)


def ensure_fresh_cache() -> None:
    """Delete cached card kernels compiled from other sources than the current ones."""
    jit_cache.ensure_fresh_cache(SOURCES, _STAMP, "card", cache_dirs())
