"""The tile ``features`` policy inside MaskablePPO (``--set tile_net=features``).

The policy scores the legal options of each observation from their option features
(``agents/tile/obs_policy/features.py``) with the two heads of the distilled policy
(``training/obs_policy/heads.py``), so PPO can start from a ``distill`` result
(``--set warm_start_init=FILE.npz``) and its result exports back to the same numpy file.
The option features need the legal options: :class:`TileFeaturePolicy` hands the action
masks that MaskablePPO passes it to the extractor before each forward pass. The value reads
the globals and the mean of each board plane through a small MLP of its own.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from carcassonne_rl.agents.tile.obs_policy.feature_net import HEADS
from carcassonne_rl.agents.tile.obs_policy.features import option_features
from carcassonne_rl.training.obs_policy.heads import FeatureHeads


def head_shape(start: str | Path | None) -> dict[str, int]:
    """``{"hidden", "layers"}`` of the heads of the features policy file ``start`` (the
    defaults without one, or for a file that is no features policy)."""
    if not start or Path(start).suffix != ".npz" or not Path(start).is_file():
        return {}
    from carcassonne_rl.agents.tile.obs_policy.board_net import load_tile_obs_policy

    net = load_tile_obs_policy(start)
    layers = getattr(net, "layers", {}).get("place")
    if not layers:
        return {}
    return {"hidden": int(layers[0][0].shape[0]), "layers": len(layers) - 1}


class TileFeatureExtractor(BaseFeaturesExtractor):
    """Features = the logit of every action (the heads' scores at the legal options, 0
    elsewhere: the mask removes those) + a value summary of ``hidden`` units."""

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        num_actions: int,
        hidden: int = 128,
        layers: int = 2,
        value_hidden: int = 64,
    ) -> None:
        if not isinstance(observation_space, gym.spaces.Dict):
            raise ValueError("tile_net=features reads carcassonne_v1 observations (observation=v1)")
        planes = observation_space["board"].shape[0]
        width = observation_space["globals"].shape[0] + planes
        super().__init__(observation_space, features_dim=num_actions + value_hidden)
        self.num_actions = num_actions
        self.value_hidden = value_hidden
        self.heads = FeatureHeads(hidden, layers)
        self.summary = nn.Sequential(nn.Linear(width, value_hidden), nn.ReLU())
        self.masks: np.ndarray | None = None

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        board, glob = obs["board"], obs["globals"]
        batch = board.shape[0]
        summary = self.summary(torch.cat([torch.log1p(glob), board.mean(dim=(2, 3))], dim=1))
        dev = board.device  # the model's device; the option features are made on the CPU
        logits = torch.zeros(batch, self.num_actions, device=dev)
        if self.masks is not None:
            boards = board.detach().cpu().numpy().astype(np.uint8)
            globs = glob.detach().cpu().numpy().astype(np.float32)
            parts: dict[str, tuple[list, list, list]] = {h: ([], [], []) for h in HEADS}
            for i in range(batch):  # each sample's options once, into its head's batch
                legal = np.flatnonzero(self.masks[i])
                if len(legal) == 0:
                    continue
                try:
                    head, x = option_features(boards[i], globs[i], legal)
                except ValueError:  # a decision of The Messages: no head scores it
                    continue
                rows, where, samples = parts[head]
                rows.append(x)
                where.append(legal)
                samples.append(np.full(len(legal), i))
            for head, (rows, where, samples) in parts.items():
                if rows:
                    scores = self.heads.head(head)(torch.from_numpy(np.concatenate(rows)).to(dev))
                    index = (torch.from_numpy(np.concatenate(samples)).to(dev),
                             torch.from_numpy(np.concatenate(where)).to(dev))  # fmt: skip
                    logits = logits.index_put(index, scores.squeeze(1))
        return torch.cat([logits, summary], dim=1)


class _Latent(nn.Module):
    """Actor latent = the logits; critic latent = an MLP on the value summary."""

    def __init__(self, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.num_actions = num_actions
        self.latent_dim_pi = num_actions
        self.latent_dim_vf = hidden
        self.value = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, : self.num_actions]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value(features[:, self.num_actions :])


class TileFeaturePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy over :class:`TileFeatureExtractor` (see the module)."""

    def __init__(self, observation_space, action_space, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", TileFeatureExtractor)
        extractor_kwargs = dict(kwargs.get("features_extractor_kwargs") or {})
        extractor_kwargs["num_actions"] = int(action_space.n)
        kwargs["features_extractor_kwargs"] = extractor_kwargs
        kwargs.setdefault("share_features_extractor", True)
        kwargs.setdefault("ortho_init", False)
        super().__init__(observation_space, action_space, *args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        fx = self.features_extractor
        self.mlp_extractor = _Latent(fx.num_actions, fx.value_hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the logits are the actor latent itself
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    @contextmanager
    def _masked(self, action_masks: Any):
        if action_masks is None:
            raise ValueError("the features policy scores the legal options: pass action_masks")
        if isinstance(action_masks, torch.Tensor):
            action_masks = action_masks.detach().numpy()
        masks = np.asarray(action_masks, bool).reshape(-1, self.features_extractor.num_actions)
        self.features_extractor.masks = masks
        try:
            yield
        finally:
            self.features_extractor.masks = None

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        with self._masked(action_masks):
            return super().forward(obs, deterministic, action_masks)

    def evaluate_actions(self, obs, actions, action_masks=None):
        with self._masked(action_masks):
            return super().evaluate_actions(obs, actions, action_masks)

    def get_distribution(self, obs, action_masks=None):
        with self._masked(action_masks):
            return super().get_distribution(obs, action_masks)
