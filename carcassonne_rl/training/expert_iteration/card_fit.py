"""Fit the card game's search-value network to a card search's values (torch), and report
on held-out teacher games how often the network chooses as the search did.

The rows the search valued (``target`` finite: the heuristic's best candidates) are
regressed (mean squared error, in :data:`~carcassonne_rl.agents.card.value.MARGIN_SCALE`
units) on the search's mean margin minus the seat's margin before the move, **centred per
decision**: the network's values minus their mean over the decision's searched options are
fitted to the search's values minus theirs. The search plays every candidate in the same
sampled worlds, so what the worlds share (their luck, the round's common outcome) cancels
in the differences, which are all a ranking needs. The network
reads the afterstate features and the heuristic's margin of the option
(``agents.card.value.net_inputs``) and outputs a linear value; played by
:class:`~carcassonne_rl.agents.card.value.CardSearchValueAgent`, it ranks the same
candidates the search ranked. The games are split, not the rows: a held-out game is unseen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.card.value import (
    CARD_SEARCH_VALUE_KIND,
    MARGIN_SCALE,
    NUM_SEARCH_INPUTS,
    load_card_net,
)
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.training.afterstate.learner import copy_weights, numpy_layers

from .finetune import agreement, split_games


def _torch_net(hidden: tuple[int, ...], seed: int):
    import torch
    from torch import nn

    torch.manual_seed(seed)
    layers: list[Any] = []
    width = NUM_SEARCH_INPUTS
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)


def _load_into(model, path: str | Path, hidden: tuple[int, ...]) -> None:
    """Start ``model`` from the search-value network in ``path`` (its layer widths)."""
    net = load_card_net(path)
    widths = tuple(w.shape[1] for w, _ in net.layers[:-1])
    if widths != tuple(hidden):
        raise ValueError(f"init model {path} has hidden layers {list(widths)}, not "
                         f"{list(hidden)}")  # fmt: skip
    copy_weights(model, net)


def _decision_groups(decision: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """``rows`` split by decision (``decision`` holds the rows' decisions, in row order)."""
    bounds = np.flatnonzero(np.diff(decision)) + 1
    return [g for g in np.split(rows, bounds) if len(g)]


def _centred_loss(pred, target, ids, groups: int):
    """Mean squared error of the values centred per decision (``ids``: each row's decision
    in ``0 .. groups - 1``)."""
    import torch

    count = torch.zeros(groups).index_add_(0, ids, torch.ones_like(pred))
    diff = pred - target
    mean = torch.zeros(groups).index_add_(0, ids, diff) / count
    return ((diff - mean[ids]) ** 2).mean()


def _centred_mse(values: np.ndarray, target: np.ndarray, decision: np.ndarray,
                 rows: np.ndarray) -> float:  # fmt: skip
    """:func:`_centred_loss` of ``values`` on ``rows`` (numpy)."""
    err = 0.0
    for g in _decision_groups(decision[rows], rows):
        d = values[g] - target[g]
        err += float(((d - d.mean()) ** 2).sum())
    return err / len(rows)


def export_card_net(model, meta: dict) -> MLP:
    """The numpy network (the model file's content) of a torch model."""
    return MLP(numpy_layers(model), {"kind": CARD_SEARCH_VALUE_KIND, "game": "cardcassonne",
                        "features": NUM_SEARCH_INPUTS, "margin_scale": MARGIN_SCALE,
                        "output": "linear", **meta})  # fmt: skip


def fit_card_net(
    data: dict[str, Any],
    init_model: str | Path | None = None,
    hidden: tuple[int, ...] = (256, 128),
    epochs: int = 20,
    learning_rate: float = 1e-3,
    batch_size: int = 512,
    validation: float = 0.1,
    candidates: int = 3,
    weight_decay: float = 1e-4,
    seed: int = 0,
    on_epoch: Callable[[int, dict], None] | None = None,
) -> tuple[MLP, dict]:
    """A search-value network fitted to the teacher games ``data``
    (``positions.load_positions`` of card teacher games), from ``init_model`` or from
    random weights; the report of the last epoch (epoch 0: before fitting)."""
    import torch

    if data["x"].shape[1] != NUM_SEARCH_INPUTS:
        raise ValueError(f"the teacher games hold {data['x'].shape[1]} inputs per option, the "
                         f"card search-value network reads {NUM_SEARCH_INPUTS}")  # fmt: skip
    model = _torch_net(hidden, seed)
    if init_model is not None:
        _load_into(model, init_model, hidden)
    searched = np.isfinite(data["target"])
    held = split_games(data, validation, seed)
    train = np.flatnonzero(~held & searched)
    valid = np.flatnonzero(held)
    if len(train) == 0:
        raise ValueError("no option the search valued in the games trained on")
    x = torch.from_numpy(data["x"])
    y = torch.from_numpy(np.nan_to_num(data["target"]).astype(np.float32))
    groups = _decision_groups(data["decision"][train], train)
    opt = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, epochs))
    rng = np.random.default_rng(seed)
    report: dict = {}
    for epoch in range(epochs + 1):
        loss = float("nan")
        if epoch:
            model.train()
            losses = []
            order = rng.permutation(len(groups))
            for chunk in np.array_split(order, max(1, len(train) // batch_size)):
                rows = np.concatenate([groups[i] for i in chunk])
                ids = torch.from_numpy(
                    np.repeat(np.arange(len(chunk)), [len(groups[i]) for i in chunk])
                )
                b = torch.from_numpy(rows)
                step_loss = _centred_loss(model(x[b])[:, 0], y[b], ids, len(chunk))
                opt.zero_grad()
                step_loss.backward()
                opt.step()
                losses.append(step_loss.item())
            sched.step()
            loss = float(np.mean(losses))
        with torch.no_grad():
            values = model(x)[:, 0].numpy().astype(np.float64)
        ranked = np.where(searched, values, -1e6)  # the agent ranks the searched candidates
        report = {"epoch": epoch, "train_loss": loss, "train_rows": len(train),
                  "validation_games": int(len(np.unique(data["game"][valid])))}  # fmt: skip
        s = valid[searched[valid]]
        if len(s):
            report["validation_mse"] = _centred_mse(values, data["target"], data["decision"], s)
        report["network"] = agreement(ranked, data, valid)
        if epoch == 0:
            report["heuristic"] = agreement(np.where(searched, data["prior"], -1e6), data, valid)
        if on_epoch is not None:
            on_epoch(epoch, report)
    origin = {"init_model": Path(init_model).name if init_model else None, "epochs": epochs,
              "rows": len(train), "games": int(data.get("files", 0))}  # fmt: skip
    out = export_card_net(model, {"candidates": candidates, "hidden": list(hidden),
                                  "expert_iteration": origin})  # fmt: skip
    return out, report


__all__ = ["export_card_net", "fit_card_net"]
