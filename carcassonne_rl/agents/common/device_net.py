"""The value networks evaluated by torch on an accelerator, for many positions at once.

:class:`~carcassonne_rl.agents.common.value_net.MLP` evaluates with numpy on the CPU, each row
summed in a fixed order (a position is valued identically alone or in a batch). When a GPU
is present, :func:`on_device` gives the same network as a :class:`DeviceMLP`: the same
``forward(x) -> numpy`` on torch tensors resident on that device, equal to the numpy
network's outputs to float32 tolerance (not bit for bit: the device sums in its own order).
Where many games are in flight (the batched self-play, the teacher's positions) one call
values all their options.

``device``: ``"cpu"`` (the numpy network itself: nothing changes), ``"auto"`` (a CUDA GPU if
torch sees one, else ``"cpu"``), ``"cuda"``, ``"cuda:N"`` or ``"mps"`` (torch's names; an
error naming the device if torch or the device is missing). torch comes with the ``train``
extra; the numpy path never imports it.
"""

from __future__ import annotations

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from carcassonne_rl.agents.common.value_net import MLP

__all__ = [
    "DEVICE_CHOICES",
    "DeviceMLP",
    "check_device",
    "on_device",
    "process_pool",
    "resolve_device",
]

#: what a ``device`` argument may say
DEVICE_CHOICES = "cpu, auto, cuda, cuda:N or mps"
_DEVICE = re.compile(r"^(cpu|auto|cuda|cuda:\d+|mps)$")


def check_device(device: str) -> str:
    """``device`` if it is one of :data:`DEVICE_CHOICES`; ValueError otherwise."""
    if not isinstance(device, str) or not _DEVICE.match(device):
        raise ValueError(f"device must be one of {DEVICE_CHOICES}, got {device!r}")
    return device


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ValueError(
            "a device other than cpu needs torch: pip install 'carcassonne-rl[train]'"
        ) from None
    return torch


def resolve_device(device: str) -> str:
    """The device ``device`` names on this machine: ``auto`` becomes ``cuda`` where torch
    sees a CUDA GPU and ``cpu`` otherwise (without torch: ``cpu``); ``cuda``/``mps`` are
    checked to exist."""
    check_device(device)
    if device == "cpu":
        return "cpu"
    if device == "auto":
        try:
            import torch
        except ImportError:
            return "cpu"
        return "cuda" if torch.cuda.is_available() else "cpu"
    torch = _torch()
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r}: torch sees no CUDA GPU on this machine")
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ValueError(
                f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA GPU(s)"
            )
    elif not torch.backends.mps.is_available():
        raise ValueError("device 'mps': torch sees no MPS device on this machine")
    return device


class DeviceMLP:
    """An :class:`MLP` whose ``forward`` runs in torch on ``device`` (float32), returning
    numpy arrays; ``inputs``, ``outputs``, ``meta`` and ``layers`` are the network's.

    ``torch_device`` may be any torch device, ``"cpu"`` included (torch's CPU kernels: what
    the tests compare with the numpy network on a machine without a GPU)."""

    def __init__(self, net: MLP, torch_device: str) -> None:
        torch = _torch()
        self.net = net
        self.device = torch.device(torch_device)
        self._torch = torch
        self._layers = [
            (torch.from_numpy(w).to(self.device), torch.from_numpy(b).to(self.device))
            for w, b in net.layers
        ]
        self._relu = net.meta.get("activation", "relu") == "relu"
        self._tanh_out = net.meta.get("output") == "tanh"

    @property
    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return self.net.layers

    @property
    def meta(self) -> dict[str, Any]:
        return self.net.meta

    @property
    def inputs(self) -> int:
        return self.net.inputs

    @property
    def outputs(self) -> int:
        return self.net.outputs

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Outputs for a batch ``x[batch, inputs]`` (float32 numpy), computed on the device."""
        torch = self._torch
        if len(x) == 0:
            return np.zeros((0, self.outputs), np.float32)
        with torch.inference_mode():
            h = torch.from_numpy(np.ascontiguousarray(x, np.float32)).to(self.device)
            last = len(self._layers) - 1
            for i, (w, b) in enumerate(self._layers):
                h = torch.addmm(b, h, w)
                if i < last:
                    h = torch.relu(h) if self._relu else torch.tanh(h)
            if self._tanh_out:
                h = torch.tanh(h)
            return h.cpu().numpy()


def process_pool(workers: int, device: str = "cpu") -> ProcessPoolExecutor:
    """``workers`` processes for work that evaluates networks on ``device``: forked where it
    is the CPU, spawned otherwise (CUDA cannot run in a process forked from one that has
    initialised it, as a learner on the GPU has)."""
    if resolve_device(device) == "cpu":
        return ProcessPoolExecutor(workers)
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def on_device(net: MLP, device: str = "cpu") -> MLP | DeviceMLP:
    """``net`` evaluated on ``device`` (see the module): the numpy network itself for
    ``cpu`` (and for ``auto`` without a GPU), a :class:`DeviceMLP` otherwise."""
    name = resolve_device(device)
    return net if name == "cpu" else DeviceMLP(net, name)
