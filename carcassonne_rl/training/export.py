"""A trained run's network as a tensors-only file.

- a MaskablePPO card-game run: the policy network (features -> hidden layers -> action
  logits) becomes an ``MLP`` of kind ``card_policy`` that ``agents.pretrained.CardNetAgent``
  plays with numpy alone (no torch, no pickle); the value network and the optimiser state
  are left out;
- an afterstate-TD tile-game run: its ``final_model.npz`` is already that format; it is
  checked and copied.

The exported file is what ``carcassonne_rl/agents/pretrained_models/`` ships.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from carcassonne_rl.agents.afterstate_agent import load_value_net
from carcassonne_rl.agents.pretrained import CARD_POLICY_KIND
from carcassonne_rl.agents.value_net import MLP

from .run_folder import model_and_config


def export_card_policy(zip_path: Path) -> MLP:
    """The policy network of a card-game MaskablePPO model as a numpy ``MLP``."""
    import torch
    from sb3_contrib import MaskablePPO
    from torch import nn

    model = MaskablePPO.load(zip_path, device="cpu")
    policy = model.policy
    if type(policy.features_extractor).__name__ != "FlattenExtractor":
        raise ValueError(f"{zip_path}: only MLP policies over a flat observation export")
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    layers, activation = [], None
    for m in modules:
        if isinstance(m, nn.Linear):
            layers.append((m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()))
        elif isinstance(m, (nn.Tanh, nn.ReLU)):
            name = "tanh" if isinstance(m, nn.Tanh) else "relu"
            if activation not in (None, name):
                raise ValueError(f"{zip_path}: mixed activations do not export")
            activation = name
        else:
            raise ValueError(f"{zip_path}: cannot export layer {type(m).__name__}")
    del torch
    meta = {"kind": CARD_POLICY_KIND, "game": "cardcassonne", "activation": activation or "relu",
            "source": Path(zip_path).name}  # fmt: skip
    return MLP(layers, meta)


def export_run(run: str | Path, out: Path) -> str:
    """Write ``out`` from a run folder or model file; returns what was exported."""
    model, cfg = model_and_config(run)
    out.parent.mkdir(parents=True, exist_ok=True)
    if model.suffix == ".npz":
        load_value_net(model)  # checks it is a complete value network of this version
        shutil.copyfile(model, out)
        return f"tile-game value network {model} -> {out}"
    if cfg["game"] != "cardcassonne":
        raise ValueError("only card-game PPO policies and afterstate value networks export")
    net = export_card_policy(model)
    net.save(out)
    weights = sum(w.size for w, _ in net.layers)
    return f"card-game policy network of {model} -> {out} ({weights:,} weights)"


def check_card_export(zip_path: Path, net: MLP, observations: np.ndarray) -> float:
    """Largest difference between the exported and the torch logits on ``observations``."""
    import torch
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(zip_path, device="cpu").policy
    with torch.no_grad():
        obs = torch.as_tensor(observations, dtype=torch.float32)
        features = policy.extract_features(obs, policy.pi_features_extractor)
        latent = policy.mlp_extractor.policy_net(features)
        logits = policy.action_net(latent).numpy()
    return float(np.abs(logits - net.forward(observations)).max())
