"""Fit the features policy to a teacher's values (torch), and export it for numpy play.

Each head (placements, follower options) is an MLP that scores one option from its
features; a decision's policy is the softmax of the scores over its legal options. The
target is the softmax of the teacher's values over the same options at a temperature
(``0.01`` on win-probability values: close to the teacher's choice, with its near-ties kept),
and the loss the cross-entropy between the two, averaged over decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from carcassonne_rl.training.distill.demos import HEADS, HeadRows
from carcassonne_rl.training.obs_policy.heads import FeatureHeads


def _group_log_softmax(x: torch.Tensor, group: torch.Tensor, groups: int) -> torch.Tensor:
    """log-softmax of ``x`` within each group (``group[i]``: the group of row ``i``)."""
    top = torch.full((groups,), -torch.inf).scatter_reduce(0, group, x, "amax")
    shifted = x - top[group]
    total = torch.zeros(groups).index_add(0, group, shifted.exp())
    return shifted - total.log()[group]


def group_targets(data: HeadRows, temperature: float) -> np.ndarray:
    """softmax(values / temperature) within each decision, one probability per row."""
    group = np.repeat(np.arange(data.decisions), data.count)
    logits = data.values.astype(np.float64) / temperature
    top = np.full(data.decisions, -np.inf)
    np.maximum.at(top, group, logits)
    e = np.exp(logits - top[group])
    total = np.zeros(data.decisions)
    np.add.at(total, group, e)
    return (e / total[group]).astype(np.float32)


def _rows_of(data: HeadRows, decisions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of ``decisions`` and the position (0..len-1) of each row's decision."""
    counts = data.count[decisions]
    group = np.repeat(np.arange(len(decisions)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(data.start[decisions], counts) + offsets, group


def evaluate(model: FeatureHeads, head: str, data: HeadRows, decisions: np.ndarray
             ) -> dict[str, float]:  # fmt: skip
    """Agreement with the teacher's best option and the mean value given up (regret)."""
    if len(decisions) == 0:
        return {"accuracy": float("nan"), "regret": float("nan")}
    rows, group = _rows_of(data, decisions)
    with torch.no_grad():
        scores = model.head(head)(torch.from_numpy(data.rows[rows])).squeeze(1).numpy()
    agree, regret = 0, 0.0
    bounds = np.concatenate([[0], np.cumsum(data.count[decisions])])
    for d in range(len(decisions)):
        v = data.values[rows[bounds[d] : bounds[d + 1]]]
        pick = int(np.argmax(scores[bounds[d] : bounds[d + 1]]))
        agree += int(v[pick] >= v.max())
        regret += float(v.max() - v[pick])
    return {"accuracy": agree / len(decisions), "regret": regret / len(decisions)}


def fit(
    data: dict[str, HeadRows],
    epochs: int,
    temperature: float = 0.01,
    hidden: int = 64,
    layers: int = 2,
    learning_rate: float = 1e-3,
    batch_size: int = 256,
    validation: float = 0.1,
    seed: int = 0,
    on_epoch: Callable[[int, dict[str, Any]], None] | None = None,
) -> tuple[FeatureHeads, dict[str, Any]]:
    """Train both heads for ``epochs`` passes; the last ``validation`` share of the games is
    held out and reported. Returns the model and the last epoch's report."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = FeatureHeads(hidden, layers)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, max(1, epochs))
    games = 1 + max(int(d.game.max()) if d.decisions else 0 for d in data.values())
    first_held = games - int(round(validation * games))
    split = {
        h: (np.flatnonzero(data[h].game < first_held), np.flatnonzero(data[h].game >= first_held))
        for h in HEADS
    }
    targets = {h: group_targets(data[h], temperature) for h in HEADS}
    report: dict[str, Any] = {}
    for epoch in range(1, epochs + 1):
        losses = {h: [] for h in HEADS}
        order = [(h, b) for h in HEADS
                 for b in np.array_split(rng.permutation(split[h][0]),
                                         max(1, len(split[h][0]) // batch_size))]  # fmt: skip
        for i in rng.permutation(len(order)):
            head, batch = order[i]
            if len(batch) == 0:
                continue
            rows, group = _rows_of(data[head], batch)
            scores = model.head(head)(torch.from_numpy(data[head].rows[rows])).squeeze(1)
            logp = _group_log_softmax(scores, torch.from_numpy(group), len(batch))
            loss = -(torch.from_numpy(targets[head][rows]) * logp).sum() / len(batch)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses[head].append(float(loss.detach()))
        schedule.step()
        report = {"epoch": epoch}
        for h in HEADS:
            report[f"{h}_loss"] = float(np.mean(losses[h])) if losses[h] else float("nan")
            for name, value in evaluate(model, h, data[h], split[h][1]).items():
                report[f"{h}_held_{name}"] = value
        if on_epoch is not None:
            on_epoch(epoch, report)
    return model, report
