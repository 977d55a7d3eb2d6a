"""The tile kernels' cache guard (the shared one of ``games.jit_cache``) drops cached
kernels compiled from other sources, and only the tile game's."""

from __future__ import annotations

from carcassonne_rl.games import jit_cache as guard
from carcassonne_rl.games.carcassonne import jit_cache


def test_stale_tile_kernels_are_deleted(tmp_path) -> None:
    cache = tmp_path / "carcassonne_cache"
    cache.mkdir()
    stale = cache / "kernels.apply_action-120.py311.nbi"
    prefix = cache / "kernels_other.f-1.py311.nbi"  # another module whose name starts alike
    stale.write_text("x")
    prefix.write_text("x")
    (cache / jit_cache._STAMP).write_text("another digest")
    guard.ensure_fresh_cache(jit_cache.SOURCES, jit_cache._STAMP, "carcassonne", [cache])
    assert not stale.exists() and prefix.exists()
    digest = guard.sources_digest(jit_cache.SOURCES)
    assert (cache / jit_cache._STAMP).read_text() == digest
    fresh = cache / "batch.play_code-80.py311.nbi"
    fresh.write_text("x")
    guard.ensure_fresh_cache(jit_cache.SOURCES, jit_cache._STAMP, "carcassonne", [cache])
    assert fresh.exists()  # the same sources: nothing deleted
