"""The afterstate learner's device: checked when set, ``cpu`` by default (the numpy network
in self-play, so results stay reproducible bit for bit), old run configs load unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.loop import _evaluator

torch = pytest.importorskip("torch")


def test_device_defaults_to_cpu_and_bad_names_are_refused(tmp_path) -> None:
    assert AfterstateConfig().device == "cpu"
    with pytest.raises(ValueError, match="device must be one of"):
        AfterstateConfig(device="gpu")
    old = AfterstateConfig(hidden=(8,)).to_dict()
    del old["device"]  # a run saved before the setting existed
    path = tmp_path / "config.json"
    path.write_text(json.dumps(old))
    assert AfterstateConfig.load(path).device == "cpu"


def test_cpu_self_play_evaluates_with_the_numpy_network() -> None:
    from carcassonne_rl.agents.common.value_net import MLP

    net = MLP([(np.ones((3, 1), np.float32), np.zeros(1, np.float32))], {})
    assert _evaluator(net, "cpu") is net
    assert _evaluator(None, "cpu") is None


def test_learner_lives_on_its_device_and_exports_numpy() -> None:
    from carcassonne_rl.training.afterstate.learner import Learner, export

    config = AfterstateConfig(hidden=(8,), device="cpu")
    learner = Learner(config)
    assert str(next(learner.model.parameters()).device) == "cpu"
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, learner.x.shape[1])).astype(np.float32)
    learner.add(x, np.tanh(x[:, 0]))
    assert np.isfinite(learner.fit(64))
    net = export(learner.model, config)
    with torch.no_grad():
        ref = learner.model(torch.from_numpy(x))[:, 0].numpy()
    np.testing.assert_allclose(net.forward(x)[:, 0], ref, atol=1e-5)
