"""A trained MaskablePPO policy as an agent (the common protocol: ``act(state, player)``).

The agent encodes the state from its own seat with the same encoder the policy was trained
on (the encoders show a player nothing hidden from it), masks illegal actions and maps the
chosen index back to an engine code. ``deterministic=True`` (default) plays the most
likely legal action; ``False`` samples.

Two model formats: a MaskablePPO ``.zip`` (SB3 trainer) and a ``torch.export`` program
``.pt2`` of ``(observations, masks) -> masked logits`` for a batch of one (the RLlib
backend's export, :class:`ExportedPolicy`), which needs torch only: no Ray, no SB3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent, world_of

SPEC_FILE = "policy_spec.json"
_MODELS: dict[tuple[str, float], Any] = {}  # loaded models by (path, mtime), per process


def make_encoder(
    game: str,
    expansions: tuple[str, ...] = (),
    window: int | None = None,
    observation: str = "v0",
) -> Any:
    """The encoder a policy for ``game`` reads (tile: window and Messages actions matter;
    ``observation="v1"``: ``carcassonne_v1``'s board + globals dict)."""
    if observation not in ("v0", "v1") or (observation == "v1" and game != "carcassonne"):
        raise ValueError(f"unknown observation {observation!r} for {game}")
    if game == "carcassonne":
        from carcassonne_rl.encoders.tile.encoder import DEFAULT_WINDOW, TileEncoder
        from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

        kind = TileEncoderV1 if observation == "v1" else TileEncoder
        return kind(window or DEFAULT_WINDOW, messages="messages" in expansions)
    if game == "cardcassonne":
        from carcassonne_rl.encoders.card.encoder import CardEncoder

        return CardEncoder()
    raise ValueError(f"unknown game {game!r}")


def write_spec(
    folder: Path,
    game: str,
    expansions: tuple[str, ...],
    window: int | None,
    observation: str = "v0",
) -> None:
    """Record next to a model what it plays, so it can be loaded as an agent later."""
    spec = {"game": game, "expansions": list(expansions), "window": window}
    if observation != "v0":  # older spec files have no key: v0
        spec["observation"] = observation
    (Path(folder) / SPEC_FILE).write_text(json.dumps(spec, indent=2))


def read_spec(model_path: Path) -> dict:
    for folder in (model_path.parent, model_path.parent.parent):
        f = folder / SPEC_FILE
        if f.exists():
            return json.loads(f.read_text())
    raise FileNotFoundError(
        f"no {SPEC_FILE} next to {model_path}: cannot tell which game/encoder it plays"
    )


class ExportedPolicy:
    """A ``torch.export`` policy file (``.pt2``): masked logits of one observation."""

    def __init__(self, path: Path) -> None:
        import torch

        self.module = torch.export.load(str(path)).module()

    def probabilities(
        self, obs: np.ndarray | dict[str, np.ndarray], mask: np.ndarray
    ) -> np.ndarray:
        """Action probabilities (zero where ``mask`` is False); ``obs``: one observation (an
        array, or ``carcassonne_v1``'s dict)."""
        import torch

        if isinstance(obs, dict):
            batch = {key: torch.as_tensor(part)[None] for key, part in obs.items()}
        else:
            batch = torch.as_tensor(obs)[None]
        with torch.no_grad():
            logits = self.module(batch, torch.as_tensor(mask, dtype=torch.int8)[None])
            probs = torch.softmax(logits[0].double(), dim=0).numpy()
        probs = np.where(mask, probs, 0.0)
        return probs / probs.sum()


def _load_model(path: Path) -> Any:
    if path.suffix == ".pt2":
        return ExportedPolicy(path)
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu")


class PolicyAgent(BaseAgent):
    """Plays with a saved (or in-memory) MaskablePPO model, or an exported ``.pt2`` policy."""

    def __init__(
        self,
        model: Any,
        game: str,
        expansions: tuple[str, ...] = (),
        window: int | None = None,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "policy",
        observation: str = "v0",
    ) -> None:
        super().__init__(seed)
        self.model = model
        self.game = game
        self.encoder = make_encoder(game, tuple(expansions), window, observation)
        self.deterministic = deterministic
        self.name = name

    @classmethod
    def load(cls, path: str | Path, deterministic: bool = True, seed: int | None = None):
        """Load ``path`` (a model .zip or .pt2 saved by a trainer) with its recorded spec."""
        import torch

        torch.set_num_threads(1)
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no model at {path}")
        spec = read_spec(path)
        key = (str(path.resolve()), path.stat().st_mtime)
        model = _MODELS.get(key)
        if model is None:
            if len(_MODELS) >= 8:
                _MODELS.pop(next(iter(_MODELS)))
            model = _MODELS[key] = _load_model(path)
        return cls(
            model,
            spec["game"],
            tuple(spec.get("expansions", ())),
            spec.get("window"),
            deterministic=deterministic,
            seed=seed,
            name=f"policy:{path}",
            observation=spec.get("observation", "v0"),
        )

    def decide(self, v: Any, legal: list[int]) -> int:
        state, player = world_of(v), v.player
        obs = self.encoder.encode(state, player)
        mask = self.encoder.action_mask(state).astype(bool)
        if not mask.any():
            raise RuntimeError("no legal action is expressible for the policy (window overflow)")
        if isinstance(self.model, ExportedPolicy):
            probs = self.model.probabilities(obs, mask)
            if self.deterministic:
                index = int(np.argmax(probs))
            else:
                index = int(np.searchsorted(np.cumsum(probs), self.rng.random(), side="right"))
                index = min(index, int(np.flatnonzero(mask)[-1]))
            return int(self.encoder.code_of(state, index))
        if not isinstance(obs, dict) and len(self.model.observation_space.shape) == 1:
            obs = obs.reshape(-1)  # the tile policy reads flattened v0 planes
        if self.deterministic:
            index, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        else:
            index = self._sample(obs, mask)
        return int(self.encoder.code_of(state, int(index)))

    def _sample(self, obs: np.ndarray, mask: np.ndarray) -> int:
        import torch

        policy = self.model.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(tensor, action_masks=mask[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs /= probs.sum()
        return int(np.searchsorted(np.cumsum(probs), self.rng.random() * probs.sum()))
