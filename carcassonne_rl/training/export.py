"""A trained run's network as a tensors-only file.

- a MaskablePPO card-game run: the policy network (features -> hidden layers -> action
  logits) becomes an ``MLP`` of kind ``card_policy`` that ``agents.card.policy_net.CardNetAgent``
  plays with numpy alone (no torch, no pickle); the value network and the optimiser state
  are left out;
- a MaskablePPO tile-game run on ``carcassonne_v1`` observations: the policy (board network
  features and action head) becomes a ``TileObsNet`` that ``agents.tile.obs_policy.board_net``
  plays with numpy alone, from the observation dict only;
- an afterstate run (either game): its ``final_model.npz`` is already that format; it is
  checked and copied, or (``average=True``) averaged, weight by weight, with every snapshot
  of the run (``snapshots/step_*.npz``): one network from the last part of a fine-tuning
  whose snapshots differ by more noise than skill;
- several afterstate networks (``ensemble``): packed into one wider ``MLP`` whose output is
  the mean of theirs (first layers side by side, hidden layers block-diagonal, output layers
  averaged), so the ensemble plays in one forward pass wherever one network does.

The exported file is what ``carcassonne_rl/agents/pretrained_models/`` ships.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from carcassonne_rl.agents.card.policy_net import CARD_POLICY_KIND
from carcassonne_rl.agents.card.value import (
    CARD_SEARCH_VALUE_KIND,
    CARD_VALUE_KIND,
    load_card_net,
    load_card_value_net,
)
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError
from carcassonne_rl.agents.tile.afterstate import MODEL_KIND, load_value_net
from carcassonne_rl.agents.tile.obs_policy.board_net import TILE_OBS_POLICY_KIND, TileObsNet
from carcassonne_rl.agents.tile.obs_policy.feature_net import TileFeatureNet
from carcassonne_rl.training.run_folder import model_and_config


def export_card_policy(zip_path: Path) -> MLP:
    """The policy network of a card-game MaskablePPO model as a numpy ``MLP``."""
    import torch
    from sb3_contrib import MaskablePPO
    from torch import nn

    model = MaskablePPO.load(zip_path, device="cpu")
    policy = model.policy
    if type(policy.features_extractor).__name__ != "FlattenExtractor":
        raise ValueError(f"{zip_path}: only MLP policies over a flat observation export")
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    layers, activation = [], None
    for m in modules:
        if isinstance(m, nn.Linear):
            layers.append((m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()))
        elif isinstance(m, (nn.Tanh, nn.ReLU)):
            name = "tanh" if isinstance(m, nn.Tanh) else "relu"
            if activation not in (None, name):
                raise ValueError(f"{zip_path}: mixed activations do not export")
            activation = name
        else:
            raise ValueError(f"{zip_path}: cannot export layer {type(m).__name__}")
    del torch
    meta = {"kind": CARD_POLICY_KIND, "game": "cardcassonne", "activation": activation or "relu",
            "source": Path(zip_path).name}  # fmt: skip
    return MLP(layers, meta)


def export_tile_policy(zip_path: Path) -> TileObsNet | TileFeatureNet:
    """The policy of a tile-game MaskablePPO model over ``carcassonne_v1`` observations as a
    numpy :class:`TileObsNet` (the value network and the optimiser state are left out)."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(zip_path, device="cpu")
    policy = model.policy
    fx = policy.features_extractor
    if type(fx).__name__ == "TileFeatureExtractor":
        from carcassonne_rl.training.obs_policy.heads import heads_to_numpy

        window = model.observation_space["board"].shape[-1]
        return heads_to_numpy(fx.heads, window, source=Path(zip_path).name)
    kind = {"TileBoardNet": "board", "TilePlanes": "planes"}.get(type(fx).__name__)
    if kind is None or not hasattr(model.observation_space, "spaces"):
        raise ValueError(f"{zip_path}: not a tile policy over carcassonne_v1 observations")
    arrays = {k: v.detach().numpy().copy() for k, v in fx.state_dict().items()}
    for name, tensor in policy.action_net.other.state_dict().items():
        arrays[f"other.{name}"] = tensor.detach().numpy().copy()
    window = model.observation_space["board"].shape[-1]
    placements = 4 * window * window
    num_actions = int(model.action_space.n)
    meta = {
        "kind": TILE_OBS_POLICY_KIND, "game": "carcassonne", "net": kind, "window": window,
        "messages": num_actions > placements + 10, "last_plane": int(fx.last_plane),
        "pool_block": int(getattr(fx, "pool_block", -1)), "source": Path(zip_path).name,
    }  # fmt: skip
    return TileObsNet(arrays, meta)


#: the model kinds of afterstate runs (``train --algo afterstate``): what each is, and its
#: loader (which checks the file reads the inputs of this version)
AFTERSTATE_KINDS = {
    MODEL_KIND: ("tile-game value network", load_value_net),
    CARD_VALUE_KIND: ("card-game afterstate value network", load_card_value_net),
    CARD_SEARCH_VALUE_KIND: ("card-game search-value network", load_card_net),
}


def _value_net(path: Path) -> MLP:
    """The afterstate network in ``path`` (``ValueError`` if it is not a complete one)."""
    try:
        kind = MLP.load(path).meta.get("kind")
        if kind not in AFTERSTATE_KINDS:
            raise ValueError(f"{path} is not the network of an afterstate run (kind {kind!r})")
        return AFTERSTATE_KINDS[kind][1](path)
    except ModelFileError as err:
        raise ValueError(str(err)) from None


def average_networks(files: list[Path]) -> MLP:
    """The weight-by-weight mean of the networks in ``files`` (one kind, one shape), with
    the last file's meta and ``meta["averaged"]``: the files' names."""
    nets = [_value_net(f) for f in files]
    kinds = {n.meta["kind"] for n in nets}
    shapes = {tuple(w.shape for w, _ in n.layers) for n in nets}
    if len(kinds) > 1 or len(shapes) > 1:
        raise ValueError("the networks to average differ in kind or layer shapes")
    layers = [
        tuple(np.mean([n.layers[i][j] for n in nets], axis=0).astype(nets[0].layers[i][j].dtype)
              for j in (0, 1))
        for i in range(len(nets[0].layers))
    ]  # fmt: skip
    return MLP(layers, dict(nets[-1].meta, averaged=[f.name for f in files]))


def ensemble_networks(nets: list[MLP], names: list[str]) -> MLP:
    """One ``MLP`` whose output is the mean of the outputs of ``nets`` (one kind, the same
    inputs, depth and activation, linear outputs): exactly, as the hidden units of one
    network never feed another's. Meta: the first network's, ``hidden`` the packed widths
    and ``ensemble`` the ``names``."""
    first = nets[0]

    def shape(n: MLP) -> tuple:
        m = n.meta
        return (m.get("kind"), n.inputs, len(n.layers), m.get("activation", "relu"),
                m.get("candidates"), n.outputs)  # fmt: skip

    for net, name in zip(nets, names, strict=True):
        if net.meta.get("output", "linear") != "linear":
            raise ValueError(f"{name}: only networks with a linear output ensemble")
        if shape(net) != shape(first):
            raise ValueError(f"{name} and {names[0]} differ in kind, inputs, depth, "
                             "activation, candidates or outputs: they do not ensemble")  # fmt: skip

    def stacked(i: int) -> tuple[list[np.ndarray], np.ndarray]:
        return [n.layers[i][0] for n in nets], np.concatenate([n.layers[i][1] for n in nets])

    ws, b = stacked(0)
    layers = [(np.hstack(ws), b)]  # every member reads the same inputs
    for i in range(1, len(first.layers) - 1):  # hidden: each member's units feed only its own
        ws, b = stacked(i)
        w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)), np.float32)
        r = c = 0
        for x in ws:
            w[r : r + x.shape[0], c : c + x.shape[1]] = x
            r, c = r + x.shape[0], c + x.shape[1]
        layers.append((w, b))
    ws, _ = stacked(-1)  # output: the mean of the members'
    layers.append((np.vstack(ws) / len(nets), np.mean([n.layers[-1][1] for n in nets], axis=0)))
    meta = {key: v for key, v in first.meta.items() if key != "averaged"}
    meta["hidden"] = [int(w.shape[1]) for w, _ in layers[:-1]]
    meta["ensemble"] = list(names)
    return MLP(layers, meta)


def snapshot_files(run: Path) -> list[Path]:
    """A run's snapshots (``snapshots/step_N.npz``, by N) and its ``final_model.npz``."""
    steps = sorted((run / "snapshots").glob("step_*.npz"), key=lambda f: int(f.stem[5:]))
    return [*steps, run / "final_model.npz"]


def _afterstate_file(source: str | Path) -> Path:
    """The afterstate network of a run folder (its ``final_model.npz``) or a model file."""
    path = Path(source)
    model = path / "final_model.npz" if path.is_dir() else path
    if model.suffix != ".npz" or not model.is_file():
        raise ValueError(f"{source}: not an afterstate run folder or .npz model file")
    return model


def export_run(run: str | Path, out: Path, average: bool = False,
               ensemble: list[str] | None = None) -> str:  # fmt: skip
    """Write ``out`` from a run folder or model file (``average``: the mean of an afterstate
    run's snapshots and final network; ``ensemble``: more afterstate networks, runs or
    files, whose outputs are averaged with this one's); returns what was exported."""
    if ensemble:
        if average:
            raise ValueError("--average and --ensemble do not combine; average each run first")
        files = [_afterstate_file(s) for s in [run, *ensemble]]
        net = ensemble_networks([_value_net(f) for f in files], [str(f) for f in files])
        out.parent.mkdir(parents=True, exist_ok=True)
        net.save(out)
        return (f"{AFTERSTATE_KINDS[net.meta['kind']][0]}s: the mean output of "
                f"{', '.join(map(str, files))} as one network (hidden {net.meta['hidden']}) "
                f"-> {out}")  # fmt: skip
    if not average and Path(run).is_file() and Path(run).suffix == ".npz":
        # a network file with no run folder around it: an afterstate network, copied
        what = AFTERSTATE_KINDS[_value_net(Path(run)).meta["kind"]][0]
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run, out)
        return f"{what} {run} -> {out}"
    model, cfg = model_and_config(run)
    if average and (model.suffix != ".npz" or not Path(run).is_dir()):
        raise ValueError("--average takes the folder of an afterstate run")
    out.parent.mkdir(parents=True, exist_ok=True)
    if average:
        files = snapshot_files(Path(run))
        net = average_networks(files)
        net.save(out)
        return (f"{AFTERSTATE_KINDS[net.meta['kind']][0]}: the mean of {len(files)} networks of "
                f"{run} ({files[0].name} ... {files[-1].name}) -> {out}")  # fmt: skip
    if model.suffix == ".npz":
        what = AFTERSTATE_KINDS[_value_net(model).meta["kind"]][0]  # checks it is complete
        shutil.copyfile(model, out)
        return f"{what} {model} -> {out}"
    if cfg["game"] == "carcassonne" and cfg.get("observation") == "v1":
        tile = export_tile_policy(model)
        tile.save(out)
        weights = sum(v.size for v in tile.p.values())
        return f"tile-game observation policy of {model} -> {out} ({weights:,} weights)"
    if cfg["game"] != "cardcassonne":
        raise ValueError(
            "only card-game PPO policies, tile-game PPO policies on carcassonne_v1 "
            "observations and afterstate value networks export"
        )
    net = export_card_policy(model)
    net.save(out)
    weights = sum(w.size for w, _ in net.layers)
    return f"card-game policy network of {model} -> {out} ({weights:,} weights)"


def check_blend(weight: float) -> None:
    """``ValueError`` unless ``weight`` is a network's share of a blend, in (0, 1)."""
    if not 0.0 < weight < 1.0:
        raise ValueError(f"--blend must be in (0, 1) (the network's share), got {weight}")


def set_blend(path: Path, weight: float) -> str:
    """Mark the tile value network ``path`` to be played averaged with the heuristic, its
    margin's share ``weight`` in (0, 1) (meta ``heuristic_blend``: ``policy:`` plays it so,
    and the search over it at its tables starts from that average); what was done."""
    from carcassonne_rl.agents.tile.afterstate import load_value_net

    check_blend(weight)
    net = load_value_net(path)
    if net.meta.get("kind") != "tile_afterstate_value":
        raise ValueError(f"--blend marks tile value networks; {path} is a "
                         f"{net.meta.get('kind')}")  # fmt: skip
    net.meta["heuristic_blend"] = float(weight)
    net.save(path)
    return f"played averaged with the heuristic, the network's share {weight:g}"


def check_card_export(zip_path: Path, net: MLP, observations: np.ndarray) -> float:
    """Largest difference between the exported and the torch logits on ``observations``."""
    import torch
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(zip_path, device="cpu").policy
    with torch.no_grad():
        obs = torch.as_tensor(observations, dtype=torch.float32)
        features = policy.extract_features(obs, policy.pi_features_extractor)
        latent = policy.mlp_extractor.policy_net(features)
        logits = policy.action_net(latent).numpy()
    return float(np.abs(logits - net.forward(observations)).max())
