"""How the card inference turns its candidate worlds' log-likelihoods into the worlds searched:
tempered importance weights (:func:`tempered`, :func:`ess`), then ``W`` worlds drawn by weight,
with repeats (:func:`resample`, systematic resampling) or without (:func:`draw_distinct`,
Gumbel top-k): :data:`DRAWS`, by name (``InferenceSearchAgent(draw=...)``; no spec key)."""

from __future__ import annotations

import math
import random

import numpy as np


def ess(weights: np.ndarray) -> float:
    """The effective sample size ``(sum w)^2 / sum w^2``."""
    total = float(weights.sum())
    return total * total / float((weights * weights).sum()) if total > 0 else 0.0


def tempered(log_w: np.ndarray, min_ess: float) -> tuple[np.ndarray, float]:
    """``(weights, a)``: ``exp(a * log_w)`` normalised with the largest ``a`` in [0, 1] whose
    effective sample size is at least ``min_ess`` (``a = 1``: the weights themselves; 0:
    uniform, also when no weight is finite)."""
    finite = np.isfinite(log_w)
    if not finite.any():
        return np.full(len(log_w), 1.0 / len(log_w)), 0.0
    lw = np.where(finite, log_w - log_w[finite].max(), -np.inf)

    def at(a: float) -> np.ndarray:
        w = np.exp(a * lw) if a > 0 else finite.astype(np.float64)
        return w / w.sum()

    if ess(at(1.0)) >= min_ess:
        return at(1.0), 1.0
    lo, hi = 0.0, 1.0
    for _ in range(20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ess(at(mid)) >= min_ess else (lo, mid)
    return at(lo), lo


def resample(weights: np.ndarray, count: int, rng: random.Random) -> list[int]:
    """``count`` indices drawn by systematic resampling of the normalised ``weights``."""
    edges = np.cumsum(weights)
    edges[-1] = 1.0
    start = rng.random() / count
    return [int(np.searchsorted(edges, start + i / count, side="right")) for i in range(count)]


def draw_distinct(weights: np.ndarray, count: int, rng: random.Random) -> list[int]:
    """``count`` different indices drawn by weight without repeats (Gumbel top-k: the
    ``count`` largest ``log w + Gumbel noise``; indices of zero weight come last, in order)."""
    keys = [math.log(w) - math.log(-math.log(rng.random() or 1e-300)) if w > 0 else -math.inf
            for w in weights]  # fmt: skip
    return sorted(range(len(weights)), key=lambda i: -keys[i])[:count]


#: how the worlds searched are drawn from the weighted candidates, by name
DRAWS = {"resample": resample, "distinct": draw_distinct}


__all__ = ["DRAWS", "draw_distinct", "ess", "resample", "tempered"]
