"""Fit variants of the tile expert loop's step on the same teacher games: what a longer fit, a
ranking loss or a wider network change in how well the network alone follows the search.

    python benchmarks/tile_fit_variants.py runs/loop2p_b/iteration_0/teacher \
        docs/pretrained/tile_2p_loop/network.npz

Every variant starts from the network ``INIT`` (the teacher's), holds out the same tenth of the
games (``finetune.split_games``) and fits the searched options' values (mean squared error, as
``expert-loop`` fits). The variants:

- ``loop``: what ``expert-loop`` does (4 epochs, Adam 3e-4);
- ``long``: 8 epochs, Adam 1e-3 with a cosine decay;
- ``rank``: ``long`` plus a ranking loss: per placement, the cross-entropy of the network's
  softmax over the options the search valued (margins in points / ``tau``) against the search's
  own softmax of them, weighted ``RANK`` x 1e-3 beside the squared error;
- ``wide``: ``rank`` on a network widened to 512 x 256 hidden units, the teacher's network
  inside it (the new units start with no effect on its output).

One JSON line per variant and epoch on the held-out games: the squared error to the search's
values, how often the network's best option is the search's choice (among the options it
valued, ``agree_searched``) and the search value given up a decision (``regret``, value units:
x 30 for points). ``--variants`` picks some; ``--threads`` sets torch's threads.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

VARIANTS = {
    "loop": {"epochs": 4, "lr": 3e-4, "rank": 0.0, "widen": None, "cosine": False},
    "long": {"epochs": 8, "lr": 1e-3, "rank": 0.0, "widen": None, "cosine": True},
    "rank": {"epochs": 8, "lr": 1e-3, "rank": 5.0, "widen": None, "cosine": True},
    "wide": {"epochs": 8, "lr": 1e-3, "rank": 5.0, "widen": (512, 256), "cosine": True},
}


def widened(layers: list[tuple[np.ndarray, np.ndarray]], widths: tuple[int, ...] | None, seed: int):
    """A torch MLP (ReLU hidden layers, tanh output) holding ``layers`` (numpy ``(w, b)``, ``w``
    inputs x outputs) in its first units; hidden layers ``widths`` (None: as they are). The new
    units feed nothing the old ones read, and the output reads them with weight 0, so the
    network computes what ``layers`` do."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    old = [w.shape[1] for w, _ in layers[:-1]]
    sizes = list(widths) if widths else old
    if len(sizes) != len(old) or any(n < o for n, o in zip(sizes, old, strict=True)):
        raise ValueError(f"widths {sizes}: keep the hidden layers {old} or widen them")
    mods: list = []
    width = layers[0][0].shape[0]
    for h in sizes:
        mods += [nn.Linear(width, h), nn.ReLU()]
        width = h
    mods += [nn.Linear(width, 1), nn.Tanh()]
    model = nn.Sequential(*mods)
    linear = [m for m in model if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for i, (m, (w, b)) in enumerate(zip(linear, layers, strict=True)):
            n_in, n_out = w.shape
            if i:
                m.weight.mul_(0.1)  # the new units' inputs, small
                m.weight[:n_out, n_in:] = 0.0  # old units do not read new ones
            if i == len(linear) - 1:
                m.weight.zero_()
            m.weight[:n_out, :n_in] = torch.from_numpy(np.ascontiguousarray(w.T))
            m.bias[:n_out] = torch.from_numpy(np.asarray(b))
    return model


def fit(data: dict, layers: list, variant: dict, seed: int, tau: float) -> Iterator[dict]:
    """Fit one variant: a row per epoch on the held-out games (epoch 0: the network before)."""
    import torch

    from carcassonne_rl.training.expert_iteration.finetune import (
        agreement,
        placement_groups,
        split_games,
    )

    model = widened(layers, variant["widen"], seed)
    x = torch.from_numpy(data["x"])
    target = data["target"].astype(np.float64)
    searched = np.isfinite(target)
    held = split_games(data, 0.1, seed)
    train = np.flatnonzero(~held & searched)
    valid = np.flatnonzero(held)
    # the training rows grouped by placement, padded: [placements, options searched]
    groups = placement_groups(data, train)
    idx_t = torch.from_numpy(groups)
    y = torch.from_numpy(np.nan_to_num(target).astype(np.float32))
    clipped = np.clip(np.nan_to_num(target), -0.999999, 0.999999)
    margin = torch.from_numpy((30.0 * np.arctanh(clipped)).astype(np.float32))  # points
    opt = torch.optim.Adam(model.parameters(), lr=variant["lr"])
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=variant["epochs"])
    rng = np.random.default_rng(seed)
    for epoch in range(variant["epochs"] + 1):
        start = time.process_time()
        if epoch:
            model.train()
            for part in np.array_split(rng.permutation(len(groups)), max(1, len(train) // 512)):
                ii = idx_t[torch.from_numpy(part)]
                mask = ii >= 0
                rows = ii[mask]
                v = model(x[rows])[:, 0]
                loss = ((v - y[rows]) ** 2).mean()
                if variant["rank"] > 0:
                    mine = torch.full(ii.shape, -1e9)
                    mine[mask] = 30.0 * torch.atanh(v.clamp(-0.999999, 0.999999)) / tau
                    theirs = torch.full(ii.shape, -1e9)
                    theirs[mask] = margin[rows] / tau
                    p = torch.softmax(theirs, 1)
                    cross = -(p * torch.log_softmax(mine, 1)).sum(1).mean()
                    loss = loss + variant["rank"] * 1e-3 * cross
                opt.zero_grad()
                loss.backward()
                opt.step()
            if variant["cosine"]:
                decay.step()
        with torch.no_grad():
            values = model(x)[:, 0].numpy().astype(np.float64)
        s = valid[searched[valid]]
        row = {"benchmark": "tile_fit_variants", "epoch": epoch,
               "validation_mse": float(np.mean((values[s] - target[s]) ** 2)),
               **agreement(values, data, valid),
               "cpu_seconds": round(time.process_time() - start, 1)}  # fmt: skip
        yield row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("teacher", type=Path, help="a folder of teacher games (game_*.npz)")
    parser.add_argument("init", help="the network the fits start from (the teacher's)")
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma-separated, of {', '.join(VARIANTS)} (default: all)",
    )
    parser.add_argument("--tau", type=float, default=1.0, help="ranking softmax, points (1)")
    parser.add_argument("--seed", type=int, default=0, help="held-out games and init (0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    args = parser.parse_args(argv)
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown or not names:
        parser.error(f"--variants: unknown {', '.join(unknown) or '(none given)'}; "
                     f"expected some of {', '.join(VARIANTS)}")  # fmt: skip
    if args.tau <= 0:
        parser.error(f"--tau must be > 0, got {args.tau}")
    import torch

    from carcassonne_rl.agents.pretrained import shipped_or_given
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.training.expert_iteration.positions import load_positions

    torch.set_num_threads(args.threads)
    try:
        data = load_positions(args.teacher)
        net = load_value_net(shipped_or_given(args.init))
    except (ValueError, OSError) as err:
        parser.error(str(err))
    layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in net.layers]
    for name in names:
        for row in fit(data, layers, VARIANTS[name], args.seed, args.tau):
            print(json.dumps({"variant": name, **row}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
