"""The card kernels' cache guard drops cached kernels compiled from other sources."""

from __future__ import annotations

from carcassonne_rl.games.cardcassonne import jit_cache


def test_stale_card_kernels_are_deleted(tmp_path, monkeypatch) -> None:
    cache = tmp_path / "cardcache"
    cache.mkdir()
    monkeypatch.setattr(jit_cache, "cache_dirs", lambda: [cache])
    stale = cache / "batch_kernels.play_code-380.py311.nbi"
    other = cache / "encoder.something-1.py311.nbi"  # not a card kernel: kept
    stale.write_text("x")
    other.write_text("x")
    (cache / jit_cache._STAMP).write_text("another digest")
    jit_cache.ensure_fresh_cache()
    assert not stale.exists() and other.exists()
    assert (cache / jit_cache._STAMP).read_text() == jit_cache.sources_digest()
    fresh = cache / "card_vector._step_game-60.py311.nbi"
    fresh.write_text("x")
    jit_cache.ensure_fresh_cache()  # the same sources: nothing deleted
    assert fresh.exists()
