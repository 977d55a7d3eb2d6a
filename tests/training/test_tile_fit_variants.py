"""``benchmarks/tile_fit_variants.py``: the widened network holds the teacher's network (the
same values before any fit), and a bad variant gets one line."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.benchmarks import benchmark

from carcassonne_rl.agents.pretrained import shipped_file
from carcassonne_rl.agents.tile.afterstate import load_value_net


@pytest.mark.parametrize("widths", [None, (256, 128), (512, 256)])
def test_a_widened_network_computes_what_the_teachers_does(widths) -> None:
    import torch

    net = load_value_net(shipped_file("carcassonne_2p_expert3.npz"))
    layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in net.layers]
    model = benchmark("tile_fit_variants").widened(layers, widths, seed=1)
    x = np.random.default_rng(0).normal(size=(64, net.inputs)).astype(np.float32)
    with torch.no_grad():
        got = model(torch.from_numpy(x))[:, 0].numpy()
    np.testing.assert_allclose(got, net.forward(x)[:, 0], atol=1e-5)
    hidden = [m.out_features for m in model if isinstance(m, torch.nn.Linear)][:-1]
    assert hidden == list(widths or [w.shape[1] for w, _ in layers[:-1]])


def test_narrowing_and_unknown_variants_get_one_message(capsys) -> None:
    module = benchmark("tile_fit_variants")
    net = load_value_net(shipped_file("carcassonne_2p_expert3.npz"))
    with pytest.raises(ValueError, match="keep the hidden layers"):
        module.widened(list(net.layers), (64, 64), seed=0)
    with pytest.raises(SystemExit):
        module.main(["folder", "init.npz", "--variants", "loop,nope"])
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("--variants: unknown nope; expected some of loop, long, rank, wide")
