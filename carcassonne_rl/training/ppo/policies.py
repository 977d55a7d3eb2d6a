"""Policy networks for MaskablePPO, shaped after the encoders.

Tile game (:class:`TilePolicy`): the observation is ``carcassonne_v0``'s ``(C, W, W)``
planes (handed to SB3 flattened, see ``selfplay.SelfPlayEnv``: SB3 would otherwise take the
uint8 planes for a channels-last picture, transpose and rescale them) whose first
``board_planes`` are spatial and the rest constant "global" planes (tile to place, scores,
phase, ...), or ``carcassonne_v1``'s dict ``{"board": (46, W, W), "globals": (113,)}``,
which both extractors read as it is (a ``Dict`` observation space: give no ``shape``), e.g.
``MaskablePPO("MultiInputPolicy", env, policy_kwargs={"features_extractor_class":
TileBoardNet})`` or ``MaskablePPO(TilePolicy, env, policy_kwargs=...)``. A small
convolutional trunk reads the board, with the globals added as a per-channel bias, and a 1x1
convolution gives the 4 rotation logits of every window cell: the placement logits come
straight from the board picture (no giant dense layer). The other decisions (follower, The
Messages) and the value read a pooled summary of the trunk plus the trunk's features at the
tile placed last, plus the globals.
:class:`TileBoardNet` (``TrainConfig.tile_net = "board"``) adds global-pooling biases to
the trunk and to a deeper placement head.

Card game: the observation is a flat vector; the stock SB3 MLP policy with
:data:`CARD_NET_ARCH` suits it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from carcassonne_rl.encoders.tile.kernels import B_LAST, NUM_BOARD_PLANES

CARD_NET_ARCH = {"pi": [256, 256], "vf": [256, 256]}


def _init_tile_extractor(
    net: BaseFeaturesExtractor,
    observation_space: gym.spaces.Box | gym.spaces.Dict,
    shape: tuple[int, int, int] | None,
    board_planes: int,
    last_plane: int,
    channels: int,
    hidden: int,
) -> None:
    """What both tile networks share: the planes' layout, the feature size (4 placement
    logits per cell + the summary), the stem over the board planes and the globals' bias."""
    if isinstance(observation_space, gym.spaces.Dict):  # carcassonne_v1: board + globals
        board_planes, height, width = observation_space["board"].shape
        shape = (board_planes + observation_space["globals"].shape[0], height, width)
    elif shape is None:
        raise ValueError("a flat planes observation needs shape=(C, W, W)")
    planes, height, width = shape
    if not isinstance(observation_space, gym.spaces.Dict) and int(np.prod(shape)) != int(
        np.prod(observation_space.shape)
    ):
        raise ValueError(f"observation of shape {observation_space.shape} is not {shape}")
    net.shape = tuple(shape)
    net.board_planes = board_planes
    net.last_plane = last_plane
    net.num_globals = planes - board_planes
    net.cells = height * width
    net.hidden = hidden
    BaseFeaturesExtractor.__init__(net, observation_space, features_dim=4 * net.cells + hidden)
    net.stem = nn.Conv2d(board_planes, channels, 3, padding=1)
    net.global_bias = nn.Linear(net.num_globals, channels)


def board_and_globals(
    net: BaseFeaturesExtractor, obs: torch.Tensor | dict[str, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """(board planes ``(B, 46, W, W)``, log1p of the globals ``(B, G)``) of a batch: from
    v1's dict as it is, from v0's flat planes by reading the globals out of one cell (global
    values range from one-hot bits to scores in the hundreds: log1p tames them)."""
    if isinstance(obs, dict):
        return obs["board"].float(), torch.log1p(obs["globals"].float())
    x = obs.float().reshape(obs.shape[0], *net.shape)
    return x[:, : net.board_planes], torch.log1p(x[:, net.board_planes :, 0, 0])


class TilePlanes(BaseFeaturesExtractor):
    """Features = placement logits (4 W^2, index order of the encoder) + a summary vector."""

    def __init__(
        self,
        observation_space: gym.spaces.Box | gym.spaces.Dict,
        shape: tuple[int, int, int] | None = None,
        board_planes: int = NUM_BOARD_PLANES,
        last_plane: int = B_LAST,
        channels: int = 32,
        layers: int = 3,
        hidden: int = 128,
    ) -> None:
        _init_tile_extractor(self, observation_space, shape, board_planes, last_plane, channels,
                             hidden)  # fmt: skip
        self.trunk = nn.ModuleList(
            nn.Conv2d(channels, channels, 3, padding=1) for _ in range(layers - 1)
        )
        self.place_head = nn.Conv2d(channels, 4, 1)
        self.summary = nn.Sequential(nn.Linear(3 * channels + self.num_globals, hidden), nn.ReLU())

    def forward(self, obs: torch.Tensor | dict[str, torch.Tensor]) -> torch.Tensor:
        board, glob = board_and_globals(self, obs)
        h = torch.relu(self.stem(board) + self.global_bias(glob)[:, :, None, None])
        for conv in self.trunk:
            h = torch.relu(h + conv(h))
        # encoder index = (wy * W + wx) * 4 + rotation
        place = self.place_head(h).permute(0, 2, 3, 1).reshape(board.shape[0], -1)
        # the trunk at the tile placed last: what its follower decision is about
        at_last = (h * board[:, self.last_plane : self.last_plane + 1]).sum(dim=(2, 3))
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3)), at_last, glob], dim=1)
        return torch.cat([place, self.summary(pooled)], dim=1)


class _PooledBias(nn.Module):
    """Global-pooling bias (as KataGo's): mean and max of every channel over the window ->
    a per-channel bias, so that each cell sees a summary of the whole board."""

    def __init__(self, channels: int, out_channels: int) -> None:
        super().__init__()
        self.linear = nn.Linear(2 * channels, out_channels)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1)
        return self.linear(pooled)[:, :, None, None]


class TileBoardNet(BaseFeaturesExtractor):
    """The board network (``TrainConfig.tile_net = "board"``); same features as
    :class:`TilePlanes` (placement logits + summary), so the same heads sit on it.

    - the globals are read once as a vector (one cell of the constant planes) and enter the
      trunk as a per-channel bias, never convolved;
    - residual 3x3 trunk; the middle block also adds a global-pooling bias;
    - fully convolutional placement head: 1x1 conv + global-pooling bias + ReLU, then 1x1
      conv to the 4 rotation logits of every cell;
    - summary for the follower / Messages logits and the value: the trunk at the tile placed
      last (the follower decision is about it), pooled mean and max, and the globals.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box | gym.spaces.Dict,
        shape: tuple[int, int, int] | None = None,
        board_planes: int = NUM_BOARD_PLANES,
        last_plane: int = B_LAST,
        channels: int = 32,
        layers: int = 3,
        hidden: int = 128,
    ) -> None:
        _init_tile_extractor(self, observation_space, shape, board_planes, last_plane, channels,
                             hidden)  # fmt: skip
        blocks = max(1, layers - 1)
        self.trunk = nn.ModuleList(
            nn.Conv2d(channels, channels, 3, padding=1) for _ in range(blocks)
        )
        self.pool_block = blocks // 2  # the block that also gets the global-pooling bias
        self.trunk_pool = _PooledBias(channels, channels)
        self.place_hidden = nn.Conv2d(channels, channels, 1)
        self.place_pool = _PooledBias(channels, channels)
        self.place_head = nn.Conv2d(channels, 4, 1)
        self.summary = nn.Sequential(nn.Linear(3 * channels + self.num_globals, hidden), nn.ReLU())

    def forward(self, obs: torch.Tensor | dict[str, torch.Tensor]) -> torch.Tensor:
        board, glob = board_and_globals(self, obs)
        h = torch.relu(self.stem(board) + self.global_bias(glob)[:, :, None, None])
        for i, conv in enumerate(self.trunk):
            update = conv(h)
            if i == self.pool_block:
                update = update + self.trunk_pool(h)
            h = torch.relu(h + update)
        p = torch.relu(self.place_hidden(h) + self.place_pool(h))
        # encoder index = (wy * W + wx) * 4 + rotation
        place = self.place_head(p).permute(0, 2, 3, 1).reshape(board.shape[0], -1)
        at_last = (h * board[:, self.last_plane : self.last_plane + 1]).sum(dim=(2, 3))
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3)), at_last, glob], dim=1)
        return torch.cat([place, self.summary(pooled)], dim=1)


TILE_NETS = {"planes": TilePlanes, "board": TileBoardNet}


class TileLatent(nn.Module):
    """Actor latent = the features themselves; critic latent = an MLP on the summary."""

    def __init__(self, placement_dim: int, hidden: int) -> None:
        super().__init__()
        self.placement_dim = placement_dim
        self.latent_dim_pi = placement_dim + hidden
        self.latent_dim_vf = hidden
        self.value = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value(features[:, self.placement_dim :])


class TileActionHead(nn.Module):
    """Logits: the placement logits as given, then a linear layer for the other actions."""

    def __init__(self, placement_dim: int, hidden: int, num_actions: int) -> None:
        super().__init__()
        self.placement_dim = placement_dim
        self.other = nn.Linear(hidden, num_actions - placement_dim)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        place = latent[:, : self.placement_dim]
        return torch.cat([place, self.other(latent[:, self.placement_dim :])], dim=1)


class TilePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy for the tile game's planes (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", TilePlanes)
        kwargs.setdefault("share_features_extractor", True)
        # SB3's orthogonal init would first initialise the stock (3.5k x 3.4k) action layer
        # that _build replaces: seconds per model load. PyTorch's default init is used.
        kwargs.setdefault("ortho_init", False)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        fx = self.features_extractor
        self.mlp_extractor = TileLatent(4 * fx.cells, fx.hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        fx = self.features_extractor
        self.action_net = TileActionHead(4 * fx.cells, fx.hidden, int(self.action_space.n))
        self.action_net.apply(_init_small)
        _init_small(fx.place_head)  # near-uniform placement logits at the start
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def _init_small(module: nn.Module) -> None:
    if isinstance(module, (nn.Linear, nn.Conv2d)):
        nn.init.orthogonal_(module.weight, gain=0.01)
        nn.init.zeros_(module.bias)
