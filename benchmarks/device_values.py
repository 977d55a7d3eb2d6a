"""Positions valued per second by the shipped value networks: numpy on the CPU against torch
on a GPU (when one is present), on batches of real afterstate rows, one JSON line each.

    python benchmarks/device_values.py [--seconds 2] [--sizes 64,1024,16384,65536]

The rows are the afterstate features of the options of positions from greedy games (the
tile game's shipped 2-player network ``pretrained`` and the card game's), tiled up to each
batch size. Each line gives positions valued per second on the CPU (the numpy network of
:mod:`carcassonne_rl.agents.common.value_net`, one thread, as every agent evaluates it) and
on the device (:class:`~carcassonne_rl.agents.common.device_net.DeviceMLP`, transfers to
and from the device included), the ratio, and the largest difference between the two
outputs. Without a GPU only the CPU rows are printed (``device: null``). Sized to finish in
about five minutes on a GPU machine with the defaults (16 timings of ``--seconds`` each
way, plus loading).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def tile_rows(count: int = 40) -> tuple[object, np.ndarray]:
    """(the tile game's 2-player network, the afterstate rows of the options of the
    positions of ``count`` greedy decisions)."""
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.agents.pretrained import PRETRAINED_2P_FILE, shipped_file
    from carcassonne_rl.agents.tile.afterstate import load_value_net, net_feature_set, option_inputs
    from carcassonne_rl.encoders.features.afterstate_options import option_table
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    net = load_value_net(shipped_file(PRETRAINED_2P_FILE))
    greedy = make_agent("greedy", "carcassonne", seed=0)
    state, rows = new_game(GameConfig(2, seed=0)), []
    while not state.is_over and len(rows) < count:
        player = state.current_player
        x, _ = option_inputs(option_table(state), player, net_feature_set(net))
        if len(x):
            rows.append(x)
        state.apply(greedy.act(state, player))
    return net, np.concatenate(rows)


def card_rows(count: int = 40) -> tuple[object, np.ndarray]:
    """(the card game's 2-player network, its inputs (afterstate features and the
    heuristic's margin) for the turn options of ``count`` positions of a heuristic game)."""
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
    from carcassonne_rl.agents.card.value import load_card_net, search_inputs
    from carcassonne_rl.agents.pretrained import pretrained_path
    from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view

    net = load_card_net(pretrained_path("cardcassonne"))
    heuristic = CardHeuristicAgent(0)
    agent = make_agent("heuristic", "cardcassonne", seed=0)
    state, rows = new_game(GameConfig(2, seed=0)), []
    while not state.is_over and len(rows) < count:
        v = view(state, state.current_player)
        legal = state.legal_codes()
        if v.phase == "turn" and len(legal) > 1:
            rows.append(search_inputs(heuristic, v, legal)[0])
        state.apply(agent.act(state, state.current_player))
    return net, np.concatenate(rows)


def rate(fn, x: np.ndarray, seconds: float) -> float:
    """Rows of ``x`` valued per second by ``fn`` (after one warm-up call)."""
    fn(x)
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn(x)
        calls += 1
    return calls * len(x) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--sizes", default="64,1024,16384,65536")
    p.add_argument("--device", default="auto", help="cpu, auto, cuda, cuda:N or mps")
    p.add_argument("--torch-cpu", action="store_true",
                   help="without a GPU, time torch's CPU kernels as the device")  # fmt: skip
    args = p.parse_args(argv)
    from carcassonne_rl.agents.common.device_net import DeviceMLP, resolve_device
    from carcassonne_rl.agents.common.value_net import single_threaded_blas

    single_threaded_blas()
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        device = resolve_device(args.device)
    except ValueError as exc:
        p.error(str(exc))
    if device == "cpu" and args.torch_cpu:
        device = "torch-cpu"
    gpu_name = None
    if device not in ("cpu", "torch-cpu"):
        import torch

        gpu_name = torch.cuda.get_device_name(0) if device.startswith("cuda") else device
    for game, load in (("carcassonne", tile_rows), ("cardcassonne", card_rows)):
        net, rows = load()
        on_dev = None if device == "cpu" else DeviceMLP(net, device.replace("torch-", ""))
        for size in sizes:
            x = np.resize(rows, (size, rows.shape[1])).astype(np.float32)
            cpu = rate(net.forward, x, args.seconds)
            row = {"benchmark": "device_values", "game": game, "batch": size,
                   "inputs": int(x.shape[1]), "cpu_positions_per_s": round(cpu, 1),
                   "device": device if on_dev else None, "gpu": gpu_name,
                   "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"}  # fmt: skip
            if on_dev is not None:
                dev = rate(on_dev.forward, x, args.seconds)
                diff = float(np.abs(on_dev.forward(x) - net.forward(x)).max())
                row.update(device_positions_per_s=round(dev, 1), ratio=round(dev / cpu, 2),
                           max_abs_difference=diff)  # fmt: skip
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
