"""A small multilayer perceptron evaluated with numpy, stored as tensors only (``.npz``).

Trained agents that must load anywhere (no torch, no pickle, no network) keep their weights
in an ``.npz`` file: arrays ``w0, b0, w1, b1, ...`` plus ``meta``, a JSON document encoded as
a uint8 array. Loading uses ``np.load(..., allow_pickle=False)``: a model file can hold
numbers and that JSON text, never code.

Hidden layers use ``meta["activation"]`` (``relu``, the default, or ``tanh``); the output
layer is linear, optionally followed by ``tanh`` (``meta["output"]``).

Each output row is computed by the same sums in the same order whatever the batch holds
(:func:`affine`, not BLAS, whose kernels differ with the batch size in the last bit): a
position is valued identically alone or among many, so batched self-play and tie-breaks
are reproducible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numba import njit


def single_threaded_blas() -> None:
    """Make numpy's BLAS single-threaded in this process (once).

    The value networks multiply small matrices (tens of rows): on one thread that takes
    microseconds, while a multi-threaded BLAS spends milliseconds handing work to threads
    and, with one process per core, oversubscribes the cores."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
        _BLAS_LIMITED = True


_BLAS_LIMITED = False


@njit(cache=True, nogil=True)
def affine(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ w + b`` in float32, each row summed over the inputs in their order (so a row's
    result does not depend on the other rows of the batch)."""
    n, k = x.shape
    m = w.shape[1]
    out = np.empty((n, m), np.float32)
    for i in range(n):
        row = out[i]
        row[:] = b
        for p in range(k):
            xv = x[i, p]
            if xv != 0.0:
                for j in range(m):
                    row[j] += xv * w[p, j]
    return out


@njit(cache=True, nogil=True)
def unique_rows(bits: np.ndarray, first: np.ndarray, inverse: np.ndarray) -> int:
    """The distinct rows of ``bits`` (``uint32[n, k]``, a float32 batch's bit patterns):
    returns their count ``u``, the first row of each in ``first[:u]`` (in order of first
    appearance) and each row's distinct row in ``inverse`` (a hash table of the rows, equal
    bits compared in full)."""
    n, k = bits.shape
    size = 2
    while size < 2 * n:
        size *= 2
    table = np.full(size, -1, np.int64)
    u = 0
    for i in range(n):
        h = np.uint64(14695981039346656037)
        for j in range(k):
            h = (h ^ np.uint64(bits[i, j])) * np.uint64(1099511628211)
        slot = np.int64(h & np.uint64(size - 1))
        while True:
            d = table[slot]
            if d < 0:
                table[slot] = u
                first[u] = i
                inverse[i] = u
                u += 1
                break
            r = first[d]
            same = True
            for j in range(k):
                if bits[r, j] != bits[i, j]:
                    same = False
                    break
            if same:
                inverse[i] = d
                break
            slot = (slot + 1) & (size - 1)
    return u


class ModelFileError(ValueError):
    """A model file that is missing, unreadable or not what the caller expects."""


def write_model_file(
    target: str | Path | BinaryIO, arrays: dict[str, np.ndarray], meta: dict
) -> None:
    """Tensors + ``meta`` (JSON as a uint8 array) as an ``.npz``: to a binary file object, or
    to a path through a temporary name renamed into place."""
    arrays = {**arrays, "meta": np.frombuffer(json.dumps(meta).encode(), np.uint8)}
    if hasattr(target, "write"):
        np.savez(target, **arrays)
        return
    path = Path(target)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
    tmp.replace(path)


def read_model_file(path: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    """``(arrays, meta)`` of a model file (``allow_pickle=False``); :class:`ModelFileError`
    if there is none at ``path`` or it is not one of this package."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"no model file at {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            arrays = {k: data[k] for k in data.files if k != "meta"}
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{path} is not a model file of this package: {exc}") from None
    return arrays, meta


class MLP:
    """``layers`` = [(weight[in, out], bias[out]), ...]; ``meta`` describes the model."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
        self.layers = [(np.ascontiguousarray(w, np.float32), np.asarray(b, np.float32))
                       for w, b in layers]  # fmt: skip
        self.meta = dict(meta)
        for (w, b), (w2, _) in zip(self.layers, self.layers[1:], strict=False):
            if w.shape[1] != w2.shape[0] or b.shape != (w.shape[1],):
                raise ModelFileError("layer shapes do not chain")
        if self.meta.get("activation", "relu") not in ("relu", "tanh"):
            raise ModelFileError(f"unknown activation {self.meta.get('activation')!r}")

    @property
    def inputs(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def outputs(self) -> int:
        return int(self.layers[-1][0].shape[1])

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Outputs for a batch ``x[batch, inputs]`` (float32). Rows that are the same are
        evaluated once (many options of a decision have the same afterstate features): a
        row's outputs do not depend on the batch, so this changes no number."""
        h = np.ascontiguousarray(x, np.float32)
        if len(h) > 1:
            first = np.empty(len(h), np.int64)
            inverse = np.empty(len(h), np.int64)
            u = unique_rows(h.view(np.uint32), first, inverse)
            if u < len(h):
                return self._forward(h[first[:u]])[inverse]
        return self._forward(h)

    def _forward(self, h: np.ndarray) -> np.ndarray:
        last = len(self.layers) - 1
        relu = self.meta.get("activation", "relu") == "relu"
        for i, (w, b) in enumerate(self.layers):
            h = affine(h, w, b)
            if i < last:
                if relu:
                    np.maximum(h, 0.0, out=h)
                else:
                    np.tanh(h, out=h)
        if self.meta.get("output") == "tanh":
            np.tanh(h, out=h)
        return h

    # ------------------------------------------------------------------ files
    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"] = w
            out[f"b{i}"] = b
        return out

    def save(self, target: str | Path | BinaryIO) -> None:
        """Write the ``.npz`` to a path (a temporary name first, then renamed into place) or
        to a binary file object."""
        write_model_file(target, self.arrays(), self.meta)

    @classmethod
    def load(cls, path: str | Path, kind: str | None = None) -> MLP:
        """Read a model file; ``kind`` checks ``meta["kind"]``."""
        arrays, meta = read_model_file(path)
        n = sum(1 for k in arrays if k.startswith("w"))
        try:
            layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
        except KeyError as exc:
            raise ModelFileError(f"{path} is not a model file of this package: {exc}") from None
        if not layers:
            raise ModelFileError(f"{path} holds no layers")
        if kind is not None and meta.get("kind") != kind:
            raise ModelFileError(f"{path} holds a {meta.get('kind')!r} model, not {kind!r}")
        return cls(layers, meta)
