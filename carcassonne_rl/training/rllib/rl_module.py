"""The RLModule of the RLlib backend: :class:`~.networks.ActorCriticNet` with action masking.

Observations are dicts ``{"observations": encoder observation, "action_mask": 0/1 per
action}`` (:mod:`.multi_agent_env`; the encoder observation is a tensor, or
``carcassonne_v1``'s dict ``{"board", "globals"}``); illegal actions get the float minimum
as logit, so they are never sampled and carry no gradient. The critic's latent is handed
from the forward pass to :meth:`compute_values` as the embeddings, as RLlib's PPO expects.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

from carcassonne_rl.training.rllib.networks import ActorCriticNet, masked


class MaskedActorCriticModule(TorchRLModule, ValueFunctionAPI):
    """``model_config``: ``game`` plus the network sizes (``channels``, ``conv_layers``,
    ``hidden``) of :class:`ActorCriticNet`."""

    def setup(self) -> None:
        config = dict(self.model_config or {})  # RLlib adds its default keys: ignored
        sizes = {k: config[k] for k in ("channels", "conv_layers", "hidden") if k in config}
        obs_space = self.observation_space["observations"]
        layout = obs_space if isinstance(obs_space, gym.spaces.Dict) else obs_space.shape
        self.net = ActorCriticNet(config["game"], layout, int(self.action_space.n), **sizes)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits, latent_vf = self.net.logits_and_value_latent(obs["observations"])
        return {
            Columns.ACTION_DIST_INPUTS: masked(logits, obs["action_mask"]),
            Columns.EMBEDDINGS: latent_vf,
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            _, embeddings = self.net.logits_and_value_latent(batch[Columns.OBS]["observations"])
        return self.net.value(embeddings)
