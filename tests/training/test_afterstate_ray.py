"""``train --algo afterstate --address``: self-play batches on a two-node Ray cluster on
loopback, one worker killed mid-run: its batch is played again, the learner sees every
batch once and in order, so the run learns the very network the local run learns."""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')
pytest.importorskip("psutil", reason="psutil finds the worker to kill")

from helpers.ray_cluster import (  # noqa: E402
    head_node,
    joined_node,
    kill_one_worker_meanwhile,
    wait_for_nodes,
)

from carcassonne_rl.runtime.ray_session import connect  # noqa: E402
from carcassonne_rl.training.afterstate.config import AfterstateConfig  # noqa: E402
from carcassonne_rl.training.afterstate.trainer import train_afterstate  # noqa: E402


def test_self_play_survives_a_killed_worker_on_two_nodes(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    # tile game, 2 tasks of 2 games per iteration (about 280 positions), 2 iterations
    config = AfterstateConfig(workers=1, hidden=(8,), warm_games=4, games_per_iteration=4,
                              games_in_flight=2, timesteps=500, eval_every=0, eval_deals=1,
                              checkpoint_every=250, baselines=("random",))  # fmt: skip
    local = train_afterstate(config, tmp_path / "local", progress=False)
    with head_node(tmp_path, cpus=1) as (address, head), joined_node(address, tmp_path) as node:
        assert connect(address)
        try:
            wait_for_nodes(ray, 2, nodes=[node])
            with kill_one_worker_meanwhile([node, head], "_play_chunk") as killed:
                remote = train_afterstate(config, tmp_path / "ray", progress=False,
                                          address=address)  # fmt: skip
        finally:
            ray.shutdown()
    assert len(killed) == 1  # a batch's task died mid-run
    for (w, b), (w2, b2) in zip(local.layers, remote.layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    states = [json.loads((tmp_path / f / "trainer_state.json").read_text())
              for f in ("local", "ray")]  # fmt: skip
    assert states[0]["iteration"] == states[1]["iteration"] == 2
    assert states[0]["games"] == states[1]["games"] == 8
    assert states[0]["timesteps"] == states[1]["timesteps"]
