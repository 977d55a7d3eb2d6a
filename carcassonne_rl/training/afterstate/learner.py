"""The afterstate value network in torch (Adam on a replay buffer), and its export to the
numpy ``MLP`` that plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.card.value import (
    CARD_SEARCH_VALUE_KIND,
    CARD_VALUE_KIND,
    MARGIN_SCALE,
    NUM_SEARCH_INPUTS,
    load_card_net,
    load_card_value_net,
)
from carcassonne_rl.agents.common.device_net import resolve_device
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError
from carcassonne_rl.agents.tile.afterstate import (
    MODEL_KIND,
    load_value_net,
    net_feature_set,
)
from carcassonne_rl.encoders.features.card import NUM_CARD_FEATURES
from carcassonne_rl.encoders.features.table import feature_set
from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.run_files import (
    atomic_write_bytes,
)


def input_width(config: AfterstateConfig) -> int:
    """The numbers the network of ``config`` reads (its game's feature set)."""
    if config.game == "cardcassonne":
        return NUM_SEARCH_INPUTS if config.linear else NUM_CARD_FEATURES
    return feature_set(config.feature_set)[0]


def model_kind(config: AfterstateConfig) -> str:
    """``meta["kind"]`` of the model files of ``config``'s game."""
    if config.game == "cardcassonne":
        return CARD_SEARCH_VALUE_KIND if config.linear else CARD_VALUE_KIND
    return MODEL_KIND


def torch_net(config: AfterstateConfig):
    """The torch value network of ``config`` (random weights, seeded)."""
    import torch
    from torch import nn

    torch.manual_seed(config.seed)
    layers: list[Any] = []
    width = input_width(config)
    for h in config.hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers += [nn.Linear(width, 1)] + ([] if config.linear else [nn.Tanh()])
    return nn.Sequential(*layers)


def export(model, config: AfterstateConfig) -> MLP:
    """The numpy network (the model file's content) of a torch model."""
    layers = numpy_layers(model)
    meta = {
        "kind": model_kind(config),
        "game": config.game,
        "players": config.players,
        "expansions": list(config.expansions),
        "tables": [f"{n}{''.join('+' + e for e in exps)}" for n, exps in config.table_list()],
        "features": input_width(config),
        "feature_set": config.feature_set,
        "value_scale": config.value_scale,
        "output": "linear" if config.linear else "tanh",
    }
    if config.linear:  # what the search-value agent reads (expert iteration's files have it)
        meta |= {"margin_scale": MARGIN_SCALE, "candidates": config.candidates,
                 "hidden": list(config.hidden)}  # fmt: skip
    return MLP(layers, meta)


def copy_weights(model, net: MLP) -> None:
    """Set the torch ``model``'s linear layers to the numpy network ``net``'s weights."""
    import torch
    from torch import nn

    linear = [m for m in model if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for m, (w, b) in zip(linear, net.layers, strict=True):
            m.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)).to(m.weight.device))
            m.bias.copy_(torch.from_numpy(np.asarray(b)).to(m.bias.device))


def numpy_layers(model) -> list[tuple[np.ndarray, np.ndarray]]:
    """The torch ``model``'s linear layers as (weights, bias) numpy pairs (an MLP's)."""
    from torch import nn

    linear = [m for m in model if isinstance(m, nn.Linear)]
    return [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
            for m in linear]  # fmt: skip


def load_weights(model, config: AfterstateConfig) -> None:
    """Set the torch ``model``'s weights to those of the model file ``config.init_model``;
    ``ValueError`` (naming what differs) unless it is a value network of the config's
    features, layer widths and value scale."""

    path = Path(config.init_model)
    if not path.is_file():
        raise ValueError(f"init_model {str(path)!r}: no such model file")
    try:
        if config.game == "cardcassonne":
            net = (load_card_net if config.linear else load_card_value_net)(path)
        else:
            net = load_value_net(path)
    except ModelFileError as err:  # not a file of a value network of the game
        raise ValueError(f"init_model: {err}") from None
    if config.game == "carcassonne" and net_feature_set(net) != config.feature_set:
        raise ValueError(f"init_model {str(path)!r} reads feature set {net_feature_set(net)!r}, "
                         f"the config {config.feature_set!r}")  # fmt: skip
    widths = tuple(w.shape[1] for w, _ in net.layers[:-1])
    if widths != tuple(config.hidden):
        raise ValueError(f"init_model {str(path)!r} has hidden layers {list(widths)}, the "
                         f"config {list(config.hidden)}")  # fmt: skip
    if float(net.meta.get("value_scale", config.value_scale)) != config.value_scale:
        raise ValueError(f"init_model {str(path)!r} was trained with value_scale "
                         f"{net.meta['value_scale']}, the config {config.value_scale}")  # fmt: skip
    copy_weights(model, net)


class Learner:
    """The torch model (on ``config.device``), its optimiser and the replay buffer."""

    def __init__(self, config: AfterstateConfig) -> None:
        import torch

        self.config = config
        self.device = torch.device(resolve_device(config.device))
        self.model = torch_net(config)
        if config.init_model:
            load_weights(self.model, config)
        self.model.to(self.device)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=config.learning_rate)
        self.x = np.zeros((0, input_width(config)), np.float32)
        self.y = np.zeros(0, np.float32)
        self.rng = np.random.default_rng(config.seed)

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        keep = self.config.replay_size
        self.x = np.concatenate([self.x, x])[-keep:]
        self.y = np.concatenate([self.y, y])[-keep:]

    def calibrate(self, x: np.ndarray, y: np.ndarray) -> float:
        """Shift a linear network's output bias by the mean of ``y`` minus its values of ``x``
        (a network fitted to values centred per decision, as expert iteration's, starts at
        the targets' level without its rankings disturbed); the shift."""
        import torch

        with torch.no_grad():
            xd = torch.from_numpy(x).to(self.device)
            shift = float(np.mean(y) - self.model(xd)[:, 0].mean().item())
            self.model[-1].bias += shift
        return shift

    def fit(self, new_samples: int) -> float:
        """Minibatch updates worth ``epochs_per_iteration`` passes over ``new_samples``."""
        import torch

        c = self.config
        steps = max(1, int(c.epochs_per_iteration * new_samples / c.batch_size))
        losses = []
        for _ in range(steps):
            idx = self.rng.integers(0, len(self.y), size=min(c.batch_size, len(self.y)))
            xb = torch.from_numpy(self.x[idx]).to(self.device)
            yb = torch.from_numpy(self.y[idx]).to(self.device)
            loss = torch.mean((self.model(xb)[:, 0] - yb) ** 2)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return float(np.mean(losses))

    def save(self, path: Path) -> None:
        import io

        import torch

        buffer = io.BytesIO()
        torch.save(
            {"model": self.model.state_dict(), "opt": self.opt.state_dict(),
             "x": torch.from_numpy(self.x.astype(np.float16)), "y": torch.from_numpy(self.y),
             "rng": self.rng.bit_generator.state},
            buffer,
        )  # fmt: skip
        atomic_write_bytes(path, buffer.getvalue())

    def load(self, path: Path) -> None:
        import torch

        # tensors and plain values only; a run may resume on another device
        data = torch.load(path, weights_only=True, map_location=self.device)
        self.model.load_state_dict(data["model"])
        self.opt.load_state_dict(data["opt"])
        self.x = data["x"].cpu().numpy().astype(np.float32)
        self.y = data["y"].cpu().numpy()
        self.rng.bit_generator.state = data["rng"]


# ------------------------------------------------------------------------- the run
