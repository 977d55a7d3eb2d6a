"""The Numba sources of the tile-game kernels, for the compile-cache guard of
:mod:`carcassonne_rl.games.jit_cache`: every Numba source of the package that reads the
engine's arrays (engine, tile encoder, vector env, tile heuristics, afterstate features and
the observation policy's features)."""

from __future__ import annotations

from .. import jit_cache

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
    "encoders/features/follower_options.py",
    "agents/tile/potentials_options.py",
    "agents/tile/obs_policy/board.py",
    "agents/tile/obs_policy/features.py",
)
_STAMP = "carcassonne_kernels.sha256"


def ensure_fresh_cache() -> None:
    """Delete cached tile kernels compiled from other sources than the current ones."""
    jit_cache.ensure_fresh_cache(SOURCES, _STAMP, "carcassonne")
