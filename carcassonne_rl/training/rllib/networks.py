"""The actor-critic network of the RLlib backend, built from the SB3 trainer's classes.

Tile game: :class:`~carcassonne_rl.training.ppo.policies.TilePlanes` (board CNN),
``TileLatent`` and ``TileActionHead`` of ``training.ppo.policies``; card game: SB3's
``MlpExtractor`` with the trainer's layer sizes and tanh, as ``MlpPolicy`` builds it. Torch
only (no Ray), so that a trained network can be exported (:func:`export_policy`,
``torch.export``), which ``PolicyAgent`` loads with torch alone.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn

FLOAT_MIN = -3.4e38


class ActorCriticNet(nn.Module):
    """``features -> (latent_pi, latent_vf) -> (logits, value)``, SB3's policy structure.

    ``obs_shape``: the shape of a tensor observation (tile planes, card vector), or the
    ``Dict`` space of ``carcassonne_v1``'s ``{"board", "globals"}`` (read as it is)."""

    def __init__(
        self,
        game: str,
        obs_shape: tuple[int, ...] | gym.spaces.Dict,
        num_actions: int,
        channels: int = 32,
        conv_layers: int = 3,
        hidden: int = 256,
    ) -> None:
        super().__init__()
        if isinstance(obs_shape, gym.spaces.Dict):
            if game != "carcassonne":
                raise ValueError("a dict observation (carcassonne_v1) is the tile game's")
            from carcassonne_rl.training.ppo.policies import (
                TileActionHead,
                TileLatent,
                TilePlanes,
            )

            fx = TilePlanes(obs_shape, channels=channels, layers=conv_layers)
            self.features = fx
            self.latent = TileLatent(4 * fx.cells, fx.hidden)
            self.action_net = TileActionHead(4 * fx.cells, fx.hidden, num_actions)
            self.value_net = nn.Linear(fx.hidden, 1)
            return
        flat = gym.spaces.Box(0, 255, (int(np.prod(obs_shape)),), np.uint8)
        if game == "carcassonne":
            from carcassonne_rl.training.ppo.policies import (
                TileActionHead,
                TileLatent,
                TilePlanes,
            )

            fx = TilePlanes(flat, tuple(obs_shape), channels=channels, layers=conv_layers)
            self.features = fx
            self.latent = TileLatent(4 * fx.cells, fx.hidden)
            self.action_net = TileActionHead(4 * fx.cells, fx.hidden, num_actions)
            self.value_net = nn.Linear(fx.hidden, 1)
        else:
            from stable_baselines3.common.torch_layers import MlpExtractor

            from carcassonne_rl.training.ppo.policies import CARD_NET_ARCH

            arch = {"pi": [hidden, hidden], "vf": [hidden, hidden]} if hidden else CARD_NET_ARCH
            self.features = nn.Flatten()
            self.latent = MlpExtractor(int(np.prod(obs_shape)), arch, nn.Tanh)
            self.action_net = nn.Linear(self.latent.latent_dim_pi, num_actions)
            self.value_net = nn.Linear(self.latent.latent_dim_vf, 1)

    def logits_and_value_latent(
        self, obs: torch.Tensor | dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked logits and the critic's latent of a batch of observations."""
        features = self.features(obs if isinstance(obs, dict) else obs.float())
        latent_pi, latent_vf = self.latent(features)
        return self.action_net(latent_pi), latent_vf

    def value(self, latent_vf: torch.Tensor) -> torch.Tensor:
        return self.value_net(latent_vf).squeeze(-1)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with the illegal actions (mask 0) pushed to the float minimum."""
    return torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))


class _MaskedPolicy(nn.Module):
    """What is exported: ``(observations, masks) -> masked logits``."""

    def __init__(self, net: ActorCriticNet) -> None:
        super().__init__()
        self.net = net

    def forward(
        self, obs: torch.Tensor | dict[str, torch.Tensor], mask: torch.Tensor
    ) -> torch.Tensor:
        logits, _ = self.net.logits_and_value_latent(obs)
        return masked(logits, mask)


def _zeros(space: gym.Space) -> torch.Tensor | dict[str, torch.Tensor]:
    """A batch of one all-zero observation of ``space`` (a Box, or a Dict of Boxes)."""
    if isinstance(space, gym.spaces.Dict):
        return {key: _zeros(sub) for key, sub in space.spaces.items()}
    return torch.zeros((1, *space.shape), dtype=_TORCH_DTYPES[space.dtype])


def export_policy(
    net: ActorCriticNet, observation_space: gym.Space, num_actions: int, path: Path
) -> Path:
    """Save ``net``'s masked policy for a batch of one with ``torch.export`` at ``path``
    (``.pt2``; written to a temporary file, then renamed: a reader never sees half a file).
    A ``Dict`` observation space (``carcassonne_v1``) makes the program take a dict."""
    policy = _MaskedPolicy(net).eval()
    obs = _zeros(observation_space)
    mask = torch.ones((1, num_actions), dtype=torch.int8)
    with torch.no_grad():
        program = torch.export.export(policy, (obs, mask))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.pt2")  # torch.export wants the .pt2 ending
    torch.export.save(program, str(tmp))
    tmp.replace(path)
    return path


_TORCH_DTYPES = {np.dtype(np.uint8): torch.uint8, np.dtype(np.float32): torch.float32}
