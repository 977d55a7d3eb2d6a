"""The tile ``features`` policy: two small MLPs that score every legal option of one
``carcassonne_v1`` observation from its option features (numpy, no torch).

The option features (``agents/tile/obs_policy/features.py``) are computed from the observation dict
alone: the roads, cities, cloisters and followers rebuilt from the board planes, and for a
placement what the turned tile would join, complete and leave open there. One MLP scores
placements, one scores follower options; the policy is the softmax of the scores over the
legal options. Trained by ``carcassonne-rl distill`` (``training/distill``) on the values
that a teacher gives every legal option.

File format (``.npz``, read with ``allow_pickle=False``): ``place.{i}.weight``/``bias`` and
``follow.{i}.weight``/``bias`` for the linear layers (ReLU between them), plus ``meta``, a
JSON document as a uint8 array (``kind``: ``tile_obs_policy``, ``net``: ``features``,
``window``, ``messages``: false, ``place_features``, ``follow_features``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from carcassonne_rl.agents.common.value_net import ModelFileError, write_model_file
from carcassonne_rl.agents.tile.obs_policy.features import (
    FOLLOW_FEATURES,
    NUM_FOLLOW,
    NUM_PLACE,
    PLACE_FEATURES,
    option_features,
)

TILE_OBS_POLICY_KIND = "tile_obs_policy"
HEADS = ("place", "follow")


class TileFeatureNet:
    """The two option-scoring MLPs and their numpy forward pass (see the module)."""

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        self.meta = dict(meta)
        if self.meta.get("kind") != TILE_OBS_POLICY_KIND or self.meta.get("net") != "features":
            raise ModelFileError("not a tile features policy")
        if (
            tuple(self.meta.get("place_features", ())) != PLACE_FEATURES
            or tuple(self.meta.get("follow_features", ())) != FOLLOW_FEATURES
        ):
            raise ModelFileError(
                "the policy was trained on other option features than this version computes"
            )
        self.p = {k: np.ascontiguousarray(v, np.float32) for k, v in arrays.items()}
        self.layers: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        for head, width in zip(HEADS, (NUM_PLACE, NUM_FOLLOW), strict=True):
            layers = []
            i = 0
            while f"{head}.{i}.weight" in self.p:
                layers.append((self.p[f"{head}.{i}.weight"], self.p[f"{head}.{i}.bias"]))
                i += 2  # torch Sequential numbering: Linear, ReLU, Linear, ...
            if not layers or layers[0][0].shape[1] != width or layers[-1][0].shape[0] != 1:
                raise ModelFileError(f"tile features policy without a complete {head} network")
            self.layers[head] = layers
        self.window = int(self.meta["window"])
        self.messages = False

    def scores(self, head: str, rows: np.ndarray) -> np.ndarray:
        """The ``head`` MLP's score of every row of option features."""
        x = np.asarray(rows, np.float32)
        layers = self.layers[head]
        for i, (w, b) in enumerate(layers):
            x = x @ w.T + b
            if i < len(layers) - 1:
                x = np.maximum(x, 0.0)
        return x[:, 0]

    def option_logits(self, board: np.ndarray, glob: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Logits of the ``legal`` action indices (placements or follower options)."""
        head, rows = option_features(board, glob, legal)
        return self.scores(head, rows)

    def save(self, target: str | Path | BinaryIO) -> None:
        write_model_file(target, self.p, self.meta)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], window: int, source: str = ""
                    ) -> TileFeatureNet:  # fmt: skip
        """A policy of these head tensors, with the meta of this version's features."""
        meta = {
            "kind": TILE_OBS_POLICY_KIND, "game": "carcassonne", "net": "features",
            "window": int(window), "messages": False, "place_features": list(PLACE_FEATURES),
            "follow_features": list(FOLLOW_FEATURES), "source": source,
        }  # fmt: skip
        return cls(arrays, meta)
