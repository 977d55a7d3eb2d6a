"""The torch side of the tile ``features`` policy, shared by ``distill`` (its fit) and PPO
(``ppo/feature_policy.py``): the two option-scoring heads and their numpy export.

Each head is an MLP from one option's features (``agents/tile/obs_policy/features.py``) to a score;
the numpy twin is :class:`~carcassonne_rl.agents.tile.obs_policy.feature_net.TileFeatureNet`.
"""

from __future__ import annotations

from torch import nn

from carcassonne_rl.agents.tile.obs_policy.feature_net import HEADS, TileFeatureNet
from carcassonne_rl.agents.tile.obs_policy.features import NUM_FOLLOW, NUM_PLACE


def make_head(inputs: int, hidden: int, layers: int) -> nn.Sequential:
    """``layers`` hidden ReLU layers of ``hidden`` units, then one score."""
    modules: list[nn.Module] = []
    width = inputs
    for _ in range(layers):
        modules += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    modules.append(nn.Linear(width, 1))
    return nn.Sequential(*modules)


class FeatureHeads(nn.Module):
    """The placement head and the follower head."""

    def __init__(self, hidden: int = 128, layers: int = 2) -> None:
        super().__init__()
        self.place = make_head(NUM_PLACE, hidden, layers)
        self.follow = make_head(NUM_FOLLOW, hidden, layers)

    def head(self, name: str) -> nn.Sequential:
        return self.place if name == "place" else self.follow


def heads_to_numpy(heads: FeatureHeads, window: int, source: str = "") -> TileFeatureNet:
    """The heads as a numpy :class:`TileFeatureNet` (``policy:FILE.npz``)."""
    arrays = {}
    for head in HEADS:
        for name, tensor in heads.head(head).state_dict().items():
            arrays[f"{head}.{name}"] = tensor.detach().numpy().copy()
    return TileFeatureNet.from_arrays(arrays, window, source)


def load_heads(heads: FeatureHeads, net: TileFeatureNet) -> None:
    """Copy a numpy policy's weights into ``heads`` (``ValueError`` if the shapes differ)."""
    import torch

    for head in HEADS:
        module = heads.head(head)
        state = {k[len(head) + 1 :]: torch.from_numpy(v.copy()) for k, v in net.p.items()
                 if k.startswith(head + ".")}  # fmt: skip
        try:
            module.load_state_dict(state)
        except RuntimeError as err:
            lines = [line.strip() for line in str(err).splitlines() if line.strip()]
            detail = next((line for line in lines if "size mismatch" in line), lines[0])
            raise ValueError(f"the features policy has another shape ({detail})") from None
