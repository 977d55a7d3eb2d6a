"""Fine-tune a tile value network (the 2-player one; a table network on games at 3-5
players) toward the search's expectations (torch), and report on held-out teacher games how
often the network now chooses as the search did.

The rows the search valued (``target`` finite) are regressed (mean squared error, in the
network's ``tanh(margin / value_scale)`` units) on one of two targets (``target_kind``):

- ``search``: the search's expectation itself. The network alone then learns what the
  search computed on the network-heuristic blend: the heuristic's part and the lookahead.
- ``blend``: the value whose blend with the heuristic (the network's weight ``weight``, as
  ``pretrained`` plays it) is the search's expectation, i.e. the network's own margin plus
  the search's correction of the blend divided by ``weight``. The file is then meant to be
  played blended (its meta says so: ``heuristic_blend``).

The heuristic's margin of a row is recovered exactly from the values stored with it (the
blend before the search, ``prior``, and the network's own, ``network``). The options the
search did not value may anchor the fit with weight ``anchor_weight``, held at what they
were worth before (``search``: the blend; ``blend``: the network's own value), so that the
network does not drift on the options the search never corrects. With ``rank_weight`` > 0
a ranking term is added to each step: per placement of a batch of them, the cross-entropy of
the agent's softmax over the options the search valued (its margins in points over ``rank_tau``;
``blend``: the margins the blended agent ranks by) against the search's own. With
``outcome_weight`` W > 0 the played option's fitted value moves toward the game's outcome
(``data["outcome"]``, the mover's final margin in value units, as AlphaZero's ``z``): its
margin is ``(1 - W)`` the search's plus ``W`` the outcome's (the ranking term keeps the
search's). The games are split, not the rows: a held-out game is unseen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.agents.tile.afterstate import load_value_net, net_feature_set
from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT, blend, net_margins
from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.learner import export, load_weights, torch_net

TARGET_KINDS = ("search", "blend")


def heuristic_margins_of(data: dict[str, Any], weight: float, scale: float) -> np.ndarray:
    """The heuristic's margin of every row, from ``prior = blend(network, heuristic)``."""
    mixed = net_margins(data["prior"].astype(np.float64), scale)
    return (mixed - weight * net_margins(data["network"].astype(np.float64), scale)) / (
        1.0 - weight
    )


def with_outcome(data: dict[str, Any], outcome_weight: float, scale: float) -> np.ndarray:
    """The search's values with the played options' moved toward the game's outcome (module
    doc): ``(1 - W) * search + W * outcome`` in margins, ``tanh(margin / scale)`` units."""
    target = data["target"].astype(np.float64)
    if outcome_weight == 0:
        return target
    if not 0.0 < outcome_weight <= 1.0:
        raise ValueError(f"the outcome's weight must be in [0, 1], got {outcome_weight}")
    if "outcome" not in data:
        raise ValueError("an outcome weight needs each row's game outcome (data['outcome'])")
    played = data["chosen"] & np.isfinite(target)
    theirs = net_margins(data["outcome"][played], scale)
    mixed = (1.0 - outcome_weight) * net_margins(target[played], scale) + outcome_weight * theirs
    out = target.copy()
    out[played] = np.tanh(mixed / scale)
    return out


def fit_targets(data: dict[str, Any], target_kind: str, weight: float, scale: float,
                outcome_weight: float = 0.0) -> np.ndarray:  # fmt: skip
    """Per row, what the network is fitted to (see the module's docstring); the rows the
    search did not value get their anchor."""
    if outcome_weight:
        data = {**data, "target": with_outcome(data, outcome_weight, scale)}
    searched = np.isfinite(data["target"])
    if target_kind == "search":
        return np.where(searched, data["target"], data["prior"]).astype(np.float32)
    if target_kind != "blend":
        raise ValueError(f"target kind must be one of {TARGET_KINDS}, got {target_kind!r}")
    if not 0.0 < weight < 1.0:
        raise ValueError(f"the network's weight in the blend must be in (0, 1), got {weight}")
    own = net_margins(data["network"].astype(np.float64), scale)
    heuristic = heuristic_margins_of(data, weight, scale)
    wanted = net_margins(np.where(searched, data["target"], data["prior"]), scale)
    margin = np.where(searched, (wanted - (1.0 - weight) * heuristic) / weight, own)
    return np.tanh(margin / scale).astype(np.float32)


def split_games(data: dict[str, Any], validation: float, seed: int) -> np.ndarray:
    """Per row, whether its game is held out (a ``validation`` share of the games, drawn
    with ``seed``; at least one game is trained on)."""
    games = int(data["game"].max()) + 1 if len(data["game"]) else 0
    held = int(round(validation * games))
    held = min(held, games - 1) if games > 1 else 0
    out = np.random.default_rng(seed).permutation(games)[:held]
    return np.isin(data["game"], out)


def agreement(values: np.ndarray, data: dict[str, Any], rows: np.ndarray) -> dict[str, float]:
    """On the decisions of ``rows``: how often ``values`` rank first the option the search
    played (among the stored options, and among those it searched), and the search value
    given up by the choice among the searched options (mean, in value units)."""
    decision = data["decision"][rows]
    target, chosen, vals = data["target"][rows], data["chosen"][rows], values[rows]
    searched = np.isfinite(target)
    agree_all, agree_searched, regret, n = 0, 0, 0.0, 0
    bounds = np.flatnonzero(np.diff(decision)) + 1
    for idx in np.split(np.arange(len(rows)), bounds):
        if not chosen[idx].any():
            continue
        n += 1
        agree_all += bool(chosen[idx][np.argmax(vals[idx])])
        s = idx[searched[idx]]
        if len(s):
            pick = s[np.argmax(vals[s])]
            agree_searched += bool(chosen[pick])
            regret += float(target[s].max() - target[pick])
    if n == 0:
        return {"decisions": 0}
    return {"decisions": n, "agree": agree_all / n, "agree_searched": agree_searched / n,
            "regret": regret / n}  # fmt: skip


def placement_groups(data: dict[str, Any], rows: np.ndarray) -> np.ndarray:
    """The searched ``rows`` grouped by placement, padded with -1: ``[placements, options]``,
    only placements with two options or more the search valued."""
    rows = rows[np.isfinite(data["target"][rows])]
    bounds = np.flatnonzero(np.diff(data["decision"][rows])) + 1
    groups = [g for g in np.split(rows, bounds) if len(g) > 1]
    out = np.full((len(groups), max(map(len, groups), default=0)), -1, np.int64)
    for d, g in enumerate(groups):
        out[d, : len(g)] = g
    return out


def check_ranking(weight: float, tau: float) -> None:
    """The ranking term's weight (>= 0) and softmax temperature (> 0), both finite."""
    if not 0.0 <= weight < float("inf") or not 0.0 < tau < float("inf"):
        raise ValueError(f"the ranking term needs a weight >= 0 and tau > 0, got {weight} "
                         f"and {tau}")  # fmt: skip


def finetune(
    data: dict[str, Any],
    init_model: str | Path | None,
    epochs: int = 10,
    learning_rate: float = 1e-4,
    batch_size: int = 512,
    validation: float = 0.1,
    anchor_weight: float = 0.0,
    target_kind: str = "search",
    weight: float | None = None,
    seed: int = 0,
    on_epoch: Callable[[int, dict], None] | None = None,
    device: str = "cpu",
    rank_weight: float = 0.0,
    rank_tau: float = 1.0,
    outcome_weight: float = 0.0,
) -> tuple[MLP, dict]:
    """The network of ``init_model`` (a path or a shipped file's name; None: the shipped
    2-player network) fine-tuned toward the search's expectations of ``data``
    (``positions.load_positions``); the report of the last epoch (epoch 0: the network
    before fine-tuning). ``weight``: the network's share of the heuristic average (None: the
    one ``init_model``'s file names, as the teacher played it; 0.75 where it names none).
    ``device``: torch's device of the fit (``cpu``, ``cuda``, ...).
    ``rank_weight`` and ``rank_tau``: the ranking term (module doc; 0: none).
    ``outcome_weight``: the game outcome's share of the played options' targets (module doc;
    0: none)."""
    import torch

    from carcassonne_rl.agents.common.device_net import resolve_device
    from carcassonne_rl.agents.pretrained import pretrained_path, shipped_or_given

    init_model = (shipped_or_given(str(init_model)) if init_model
                  else pretrained_path("carcassonne"))  # fmt: skip
    net = load_value_net(init_model)
    if data["x"].shape[1] != net.inputs:
        raise ValueError(f"{init_model}: a {net_feature_set(net)} network of {net.inputs} "
                         f"inputs, the teacher games' rows have {data['x'].shape[1]} (the "
                         "games were searched over another kind of network)")  # fmt: skip
    config = AfterstateConfig(
        hidden=tuple(w.shape[1] for w, _ in net.layers[:-1]),
        value_scale=float(net.meta["value_scale"]), init_model=str(init_model), seed=seed,
        feature_set=net_feature_set(net),
        learning_rate=learning_rate, batch_size=batch_size, workers=1,
    )  # fmt: skip
    model = torch_net(config)
    load_weights(model, config)
    on = torch.device(resolve_device(device))
    model.to(on)
    scale = config.value_scale
    if weight is None:
        weight = float(net.meta.get("heuristic_blend", NETWORK_2P_WEIGHT))
    target = fit_targets(data, target_kind, weight, scale, outcome_weight)
    heuristic = heuristic_margins_of(data, weight, scale) if target_kind == "blend" else None
    held = split_games(data, validation, seed)
    searched = np.isfinite(data["target"])
    row_weight = np.where(searched, 1.0, anchor_weight).astype(np.float32)
    train = np.flatnonzero(~held & (row_weight > 0))
    valid = np.flatnonzero(held)
    if len(train) == 0:
        raise ValueError("no option the search valued in the games trained on")
    check_ranking(rank_weight, rank_tau)
    x = torch.from_numpy(data["x"]).to(on)
    y, w = torch.from_numpy(target).to(on), torch.from_numpy(row_weight).to(on)
    opt = torch.optim.Adam(model.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    ranking = _Ranking(data, train, heuristic, weight, scale, rank_tau, seed, on) if (
        rank_weight > 0) else None  # fmt: skip
    report: dict = {}
    rank_losses: list[float] = []
    for epoch in range(epochs + 1):
        loss = float("nan")
        if epoch:
            model.train()
            losses, rank_losses = [], []
            steps = max(1, len(train) // batch_size)
            parts = ranking.batches(steps) if ranking is not None else []
            for i, batch in enumerate(np.array_split(rng.permutation(train), steps)):
                b = torch.from_numpy(batch).to(on)
                err = (model(x[b])[:, 0] - y[b]) ** 2
                step_loss = (err * w[b]).sum() / w[b].sum()
                losses.append(step_loss.item())
                if ranking is not None:
                    rank = ranking.loss(model, x, parts[i])
                    rank_losses.append(rank.item())
                    step_loss = step_loss + rank_weight * rank
                opt.zero_grad()
                step_loss.backward()
                opt.step()
            loss = float(np.mean(losses)) if losses else float("nan")
        with torch.no_grad():
            values = model(x)[:, 0].cpu().numpy().astype(np.float64)
        if heuristic is not None:  # what the blended agent ranks by
            values = blend(values, heuristic, weight, scale)
        report = {"epoch": epoch, "train_loss": loss, "train_rows": len(train),
                  "validation_games": int(len(np.unique(data["game"][valid])))}  # fmt: skip
        if ranking is not None:  # the ranking term's mean (train_loss: the squared error's)
            report["train_rank_loss"] = float(np.mean(rank_losses)) if epoch else float("nan")
        s = valid[searched[valid]]
        if len(s):
            report["validation_mse"] = float(np.mean((values[s] - data["target"][s]) ** 2))
            report["validation_mse_prior"] = float(
                np.mean((data["prior"][s] - data["target"][s]) ** 2)
            )
        report["network"] = agreement(values, data, valid)
        if epoch == 0:
            report["prior"] = agreement(data["prior"], data, valid)
        if on_epoch is not None:
            on_epoch(epoch, report)
    out = export(model, config)
    # the tables it was trained at and reads, as the network fine-tuned says
    out.meta.update({k: net.meta[k] for k in ("players", "expansions", "tables")
                     if k in net.meta})  # fmt: skip
    out.meta["expert_iteration"] = {"init_model": Path(init_model).name, "epochs": epochs,
                                    "rows": len(train), "anchor_weight": anchor_weight,
                                    "target": target_kind}  # fmt: skip
    if rank_weight > 0:
        out.meta["expert_iteration"].update(rank_weight=rank_weight, rank_tau=rank_tau)
    if outcome_weight > 0:
        out.meta["expert_iteration"]["outcome_weight"] = outcome_weight
    if target_kind == "blend":
        out.meta["heuristic_blend"] = weight
    return out, report


class _Ranking:
    """The ranking term of :func:`finetune` over the training placements (module doc)."""

    def __init__(self, data: dict[str, Any], train: np.ndarray, heuristic: np.ndarray | None,
                 weight: float, scale: float, tau: float, seed: int, on: Any) -> None:  # fmt: skip
        """``heuristic``: each row's heuristic margin where the agent is the network averaged
        with it at ``weight`` (target ``blend``), None where the network plays alone."""
        import torch

        self.groups = placement_groups(data, train)
        if not len(self.groups):
            raise ValueError("the ranking term needs placements with two searched options")
        self.rng = np.random.default_rng(seed + 1)
        self.scale, self.tau, self.on = scale, tau, on
        self.weight = 1.0 if heuristic is None else weight
        part = np.zeros(len(data["target"])) if heuristic is None else (1.0 - weight) * heuristic
        self.heuristic = torch.from_numpy(part).float().to(on)
        theirs = net_margins(np.nan_to_num(data["target"].astype(np.float64)), scale)
        self.theirs = torch.from_numpy(theirs / tau).float().to(on)

    def batches(self, steps: int) -> list[np.ndarray]:
        """The placements of each of ``steps`` steps, every placement once an epoch."""
        return np.array_split(self.rng.permutation(len(self.groups)), steps)

    def loss(self, model: Any, x: Any, part: np.ndarray) -> Any:
        """The mean cross-entropy over the placements ``part``."""
        import torch

        ii = torch.from_numpy(self.groups[part]).to(self.on)
        mask = ii >= 0
        rows = ii[mask]
        v = model(x[rows])[:, 0].clamp(-0.999999, 0.999999)
        mine = self.weight * self.scale * torch.atanh(v) + self.heuristic[rows]
        a = torch.full(ii.shape, -1e9, device=self.on)
        b = torch.full(ii.shape, -1e9, device=self.on)
        a[mask] = mine / self.tau
        b[mask] = self.theirs[rows]
        return -(torch.softmax(b, 1) * torch.log_softmax(a, 1)).sum(1).mean()
