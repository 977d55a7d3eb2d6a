"""An observation-only tile-game policy network evaluated with numpy (``.npz``, no torch).

The network is the MaskablePPO tile policy (``training/ppo/policies.py``: ``TilePlanes`` or
``TileBoardNet`` features, ``TileActionHead`` logits) exported tensor by tensor
(``training/export.py``). It reads one ``carcassonne_v1`` observation, the dict
``{"board": uint8 (46, W, W), "globals": float32 (113,)}``, and its action mask, nothing
else: :meth:`TileObsPolicyAgent.decide` takes exactly what a PettingZoo agent sees, and
:meth:`TileObsPolicyAgent.act` only builds that view of the state for its seat
(:class:`~carcassonne_rl.encoders.tile.encoder_v1.TileEncoderV1`) and maps the chosen index
back to an engine code.

File format: arrays named after the torch parameters (``stem.weight``, ``trunk.0.weight``,
...) plus ``meta``, a JSON document encoded as a uint8 array (``kind``:
``tile_obs_policy``, ``net``: ``board`` or ``planes``, ``window``, ``messages``,
``pool_block``, ``last_plane``), read with ``allow_pickle=False``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.value_net import (
    ModelFileError,
    read_model_file,
    single_threaded_blas,
    write_model_file,
)
from carcassonne_rl.agents.tile.obs_policy.feature_net import TILE_OBS_POLICY_KIND, TileFeatureNet
from carcassonne_rl.encoders.tile.kernels import G_PRESENT

NETS = ("board", "planes")


def conv3x3(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """3x3 convolution with zero padding 1 of ``x (C, H, W)``; ``weight (O, C, 3, 3)``: nine
    matrix products with the shifted input (no im2col copy of the whole window)."""
    c, h, w = x.shape
    o = weight.shape[0]
    padded = np.zeros((c, h + 2, w + 2), np.float32)
    padded[:, 1:-1, 1:-1] = x
    out = np.empty((o, h * w), np.float32)
    out[:] = bias[:, None]
    for ky in range(3):
        for kx in range(3):
            shifted = np.ascontiguousarray(padded[:, ky : ky + h, kx : kx + w]).reshape(c, -1)
            out += np.ascontiguousarray(weight[:, :, ky, kx]) @ shifted
    return out.reshape(o, h, w)


def conv1x1(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """1x1 convolution of ``x (C, H, W)``; ``weight (O, C, 1, 1)``."""
    c, h, w = x.shape
    out = weight.reshape(weight.shape[0], c) @ x.reshape(c, h * w) + bias[:, None]
    return out.reshape(weight.shape[0], h, w)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


class TileObsNet:
    """The policy network's tensors and its numpy forward pass (see the module)."""

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        self.meta = dict(meta)
        if self.meta.get("kind") != TILE_OBS_POLICY_KIND:
            raise ModelFileError(f"not a tile observation policy: {self.meta.get('kind')!r}")
        if self.meta.get("net") not in NETS:
            raise ModelFileError(f"unknown network {self.meta.get('net')!r}; one of {NETS}")
        self.p = {k: np.ascontiguousarray(v, np.float32) for k, v in arrays.items()}
        required = ["stem.weight", "global_bias.weight", "place_head.weight", "summary.0.weight",
                    "other.weight"]  # fmt: skip
        missing = [k for k in required if k not in self.p]
        if missing:
            raise ModelFileError(f"tile observation policy without {missing}")
        self.trunk = sum(1 for k in self.p if k.startswith("trunk.") and k.endswith(".weight"))
        self.window = int(self.meta["window"])
        self.messages = bool(self.meta.get("messages", False))

    def logits(self, board: np.ndarray, glob: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation (encoder index order)."""
        p = self.p
        board = np.asarray(board, np.float32)
        g = np.log1p(np.asarray(glob, np.float32))
        bias = p["global_bias.weight"] @ g + p["global_bias.bias"]
        h = _relu(conv3x3(board, p["stem.weight"], p["stem.bias"]) + bias[:, None, None])
        board_net = self.meta["net"] == "board"
        for i in range(self.trunk):
            update = conv3x3(h, p[f"trunk.{i}.weight"], p[f"trunk.{i}.bias"])
            if board_net and i == int(self.meta["pool_block"]):
                update += self._pooled_bias(h, "trunk_pool")
            h = _relu(h + update)
        if board_net:
            top = conv1x1(h, p["place_hidden.weight"], p["place_hidden.bias"])
            top = _relu(top + self._pooled_bias(h, "place_pool"))
        else:
            top = h
        place = conv1x1(top, p["place_head.weight"], p["place_head.bias"])
        place = place.transpose(1, 2, 0).reshape(-1)  # index (wy * W + wx) * 4 + rotation
        last = board[int(self.meta["last_plane"])]
        at_last = (h * last).sum(axis=(1, 2))
        pooled = np.concatenate([h.mean(axis=(1, 2)), h.max(axis=(1, 2)), at_last, g])
        summary = _relu(p["summary.0.weight"] @ pooled + p["summary.0.bias"])
        other = p["other.weight"] @ summary + p["other.bias"]
        return np.concatenate([place, other])

    def _pooled_bias(self, h: np.ndarray, name: str) -> np.ndarray:
        pooled = np.concatenate([h.mean(axis=(1, 2)), h.max(axis=(1, 2))])
        out = self.p[f"{name}.linear.weight"] @ pooled + self.p[f"{name}.linear.bias"]
        return out[:, None, None]

    def option_logits(self, board: np.ndarray, glob: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Logits of the ``legal`` action indices."""
        return self.logits(board, glob)[legal]

    # ------------------------------------------------------------------ files
    def save(self, target: str | Path | BinaryIO) -> None:
        """Write the ``.npz`` (to a temporary name first, then renamed into place)."""
        write_model_file(target, self.p, self.meta)

    @classmethod
    def load(cls, path: str | Path) -> TileObsNet:
        return cls(*read_model_file(path))


def load_tile_obs_policy(path: str | Path) -> TileObsNet | TileFeatureNet:
    """The observation policy in ``path``: a board network or a features network."""
    arrays, meta = read_model_file(path)
    if meta.get("net") == "features":
        return TileFeatureNet(arrays, meta)
    return TileObsNet(arrays, meta)


def is_tile_obs_policy(path: str | Path) -> bool:
    """Whether the ``.npz`` at ``path`` holds a tile observation policy (by its meta)."""
    try:
        return read_model_file(path)[1].get("kind") == TILE_OBS_POLICY_KIND
    except ModelFileError:
        return False


class TileObsPolicyAgent(BaseAgent):
    """Plays the most likely legal action of a :class:`TileObsNet` (``deterministic``) or
    samples from its masked softmax."""

    game = "carcassonne"

    def __init__(
        self,
        net: TileObsNet | TileFeatureNet,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "pretrained-obs",
        tables: dict[int, TileObsNet | TileFeatureNet] | None = None,
    ) -> None:
        from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

        super().__init__(seed)
        self.net = net
        self.tables = dict(tables or {})  # players -> the network that plays that table
        self.encoder = TileEncoderV1(net.window, messages=net.messages)
        self.deterministic = deterministic
        self.name = name
        single_threaded_blas()

    def probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy's action probabilities for a ``carcassonne_v1`` observation dict
        (``board``, ``globals``, ``action_mask``): zero off the mask."""
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError("the observation's action mask is empty: nothing to decide")
        legal = np.flatnonzero(mask)
        glob = observation["globals"]
        players = int(np.count_nonzero(glob[G_PRESENT : G_PRESENT + 5]))
        net = self.tables.get(players, self.net)
        logits = net.option_logits(observation["board"], glob, legal)
        logits = np.asarray(logits, np.float64)
        probs = np.zeros(len(mask))
        probs[legal] = np.exp(logits - logits.max())
        return probs / probs.sum()

    def choose_index(self, observation: dict[str, np.ndarray]) -> int:
        """The action index chosen for an observation dict (what the env hands an agent)."""
        probs = self.probabilities(observation)
        if self.deterministic:
            return int(np.argmax(probs))
        index = int(np.searchsorted(np.cumsum(probs), self.rng.random(), side="right"))
        return min(index, int(np.flatnonzero(probs)[-1]))

    def check_expansions(self, expansions: tuple[str, ...]) -> None:
        """``ValueError`` if the policy cannot play games with ``expansions``: a network
        trained without The Messages has no outputs for its actions."""
        if "messages" in expansions and not self.net.messages:
            raise ValueError(
                f"{self.name} was trained without The Messages (its actions do not include "
                "them): it plays the base game and the Labyrinth"
            )

    def decide(self, v: Any, legal: list[int] | None = None) -> int:
        """The agent protocol: an action code from the seat's view ``v`` (a TileView). Given
        an observation dict instead (what the env hands a PettingZoo agent): the env action
        index :meth:`choose_index` picks."""
        if isinstance(v, dict):
            return self.choose_index(v)
        state, player = v.public_world(), v.player  # the seat's view: order sorted
        self.check_expansions(tuple(state.config.expansions))
        legal = state.legal_action_codes()
        if len(legal) == 1:  # nothing to decide (e.g. no follower can be placed)
            return int(legal[0])
        observation = self.encoder.encode(state, player)  # the seat's own view
        observation["action_mask"] = self.encoder.action_mask(state)
        if not observation["action_mask"].any():
            raise RuntimeError("no legal action is expressible for the policy (window overflow)")
        return int(self.encoder.code_of(state, self.choose_index(observation)))
