"""Afterstate value learning with TD(lambda) by self-play (``train --algo afterstate``).

TD-Gammon's method for a dice game, applied to a tile game: the agent values each option by
the position it leads to (``agents.afterstate_agent``), so learning a good *value* is enough
to play well, and no policy gradient is needed. Each iteration:

1. **Self-play**, in parallel over the cores: every worker process keeps
   ``games_in_flight`` games running and, at each step, values the options of all of them
   in one batched forward pass. The seats are the current network (exploring with
   probability ``epsilon``) or, in a ``greedy_fraction`` of the games, one seat is the
   greedy baseline (the network must learn to beat it, not only itself). The first
   ``warm_games`` games are greedy against greedy (values of a sound policy to start from).
2. **Targets**: after each turn the position (turn settled) is recorded from the seat that
   moved. At the end of the game the target of the seat's afterstates are lambda-returns
   of ``tanh(final margin / value_scale)`` bootstrapped on the network's values of the
   seat's next afterstates (computed in one pass per game).
3. **Learning**: minibatch Adam on a replay buffer of the most recent positions.

A run folder holds the same things as a PPO run: ``config.json``, ``checkpoints/``
(``latest.npz`` network, ``learner.pt`` optimiser + replay buffer), ``trainer_state.json``
(written last: it marks a complete checkpoint), ``snapshots/``, ``final_model.npz``,
``eval_history.json``, ``tb/`` and ``plots/training.png``. A run killed at any moment
resumes from its last checkpoint.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.afterstate_agent import (
    MODEL_KIND,
    combine,
    options,
    pick,
    value_inputs,
)
from carcassonne_rl.agents.value_net import MLP, single_threaded_blas
from carcassonne_rl.encoders.afterstate_features import NUM_FEATURES, afterstate_features

from .run_files import atomic_save_model, atomic_write_bytes, atomic_write_json, remove_temporaries

STATE_FILE = "trainer_state.json"


@dataclass
class AfterstateConfig:
    """Everything that defines an afterstate-TD run (saved as ``config.json``)."""

    algo: str = "afterstate"
    game: str = "carcassonne"
    players: int = 2
    expansions: tuple[str, ...] = ()
    timesteps: int = 200_000  # turns recorded in self-play (positions learnt from)
    seed: int = 0
    workers: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    games_per_iteration: int = 48
    games_in_flight: int = 12  # per worker, valued together
    hidden: tuple[int, ...] = (128, 64)
    value_scale: float = 30.0
    td_lambda: float = 1.0
    epsilon: float = 0.05
    greedy_fraction: float = 0.5
    warm_games: int = 960
    learning_rate: float = 1e-3
    batch_size: int = 512
    epochs_per_iteration: float = 2.0  # passes over the new positions' worth of samples
    replay_size: int = 200_000
    snapshot_every: int = 50_000
    checkpoint_every: int = 20_000
    eval_every: int = 100_000
    eval_deals: int = 20
    baselines: tuple[str, ...] = ("random", "greedy")

    def __post_init__(self) -> None:
        if self.game != "carcassonne":
            raise ValueError("--algo afterstate trains the tile game (carcassonne) only")
        if not 2 <= self.players <= 5:
            raise ValueError(f"players must be 2-5, got {self.players}")
        self.expansions = tuple(self.expansions)
        self.hidden = tuple(int(h) for h in self.hidden)
        self.baselines = tuple(self.baselines)
        for name in ("timesteps", "workers", "games_per_iteration", "games_in_flight",
                     "batch_size", "replay_size", "eval_deals"):  # fmt: skip
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not self.hidden or min(self.hidden) <= 0:
            raise ValueError(f"hidden must be positive layer widths, got {self.hidden}")
        if not 0.0 <= self.td_lambda <= 1.0 or not 0.0 <= self.epsilon <= 1.0:
            raise ValueError("td_lambda and epsilon must be in [0, 1]")
        if not 0.0 <= self.greedy_fraction <= 1.0:
            raise ValueError("greedy_fraction must be in [0, 1]")
        if self.value_scale <= 0 or self.learning_rate <= 0 or self.epochs_per_iteration <= 0:
            raise ValueError("value_scale, learning_rate, epochs_per_iteration must be > 0")

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("expansions", "hidden", "baselines"):
            d[k] = list(d[k])
        return d

    def save(self, path: Path) -> None:
        atomic_write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: Path) -> AfterstateConfig:
        data = json.loads(Path(path).read_text())
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"{path}: unknown config fields {sorted(unknown)}")
        return cls(**data)


# ------------------------------------------------------------------------- self-play
@dataclass
class _Game:
    state: Any
    greedy_seat: int  # -1: every seat is the network
    features: list[list[np.ndarray]]  # per seat, its turn-end positions
    rng: random.Random  # the network seats' exploration and tie breaks


def _new_game(config: AfterstateConfig, deal: int, greedy_seat: int, seed: int) -> _Game:
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    cfg = GameConfig(players=config.players, seed=deal, expansions=config.expansions)
    rng = random.Random(seed * 1_000_003 + deal)
    return _Game(new_game(cfg), greedy_seat, [[] for _ in range(config.players)], rng)


def play_games(
    config: AfterstateConfig,
    layers: list | None,
    meta: dict,
    deals: list[int],
    greedy_seats: list[int],
    seed: int,
) -> dict[str, Any]:
    """Play the games of ``deals`` to the end (``layers=None``: greedy vs greedy).

    Returns the recorded positions, their lambda-return targets and, for games against the
    greedy baseline, the network's results."""
    from carcassonne_rl.agents.tile_greedy import TileGreedyAgent

    single_threaded_blas()
    net = MLP(layers, meta) if layers is not None else None
    greedy = TileGreedyAgent(seed=seed)
    games = [_new_game(config, d, g, seed) for d, g in zip(deals, greedy_seats, strict=True)]
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    margins_vs_greedy: list[float] = []
    decisions = 0
    live = list(games)
    while live:
        # every game whose decider is the network contributes its options to one batch
        pending = []
        rows = []
        n_rows = 0
        for game in live:
            s = game.state
            p = s.current_player
            if net is None or p == game.greedy_seat:
                explore = net is None and config.epsilon > 0
                _apply(game, _greedy_move(greedy, s, p, game.rng, config.epsilon if explore else 0))
                decisions += 1
                continue
            codes = s.legal_action_codes()
            if len(codes) == 1 and s.phase != "place_tile":
                _apply(game, int(codes[0]))
                decisions += 1
                continue
            opts = options(s)
            x, where = value_inputs([o.state for o in opts], p)
            pending.append((game, p, opts, where, n_rows, len(x)))
            rows.append(x)
            n_rows += len(x)
        if pending:
            batch = np.concatenate(rows) if rows else np.zeros((0, NUM_FEATURES), np.float32)
            out = net.forward(batch)[:, 0] if len(batch) else np.zeros(0, np.float32)
            for game, p, opts, where, start, n in pending:
                vals = combine(out[start : start + n], where, [o.state for o in opts], p,
                               config.value_scale)  # fmt: skip
                _apply(game, opts[pick(vals, game.rng, config.epsilon)].code)
                decisions += 1
        still = []
        for game in live:
            if game.state.is_over:
                x, y = _targets(game, net, config)
                xs.append(x)
                ys.append(y)
                if game.greedy_seat >= 0 and net is not None:
                    scores = game.state.scores
                    me = 1 - game.greedy_seat if config.players == 2 else (game.greedy_seat + 1)
                    margins_vs_greedy.append(float(scores[me] - np.delete(scores, me).max()))
            else:
                still.append(game)
        live = still
    return {
        "x": np.concatenate(xs) if xs else np.zeros((0, NUM_FEATURES), np.float32),
        "y": np.concatenate(ys) if ys else np.zeros(0, np.float32),
        "margins_vs_greedy": margins_vs_greedy,
        "decisions": decisions,
        "games": len(games),
    }


def _greedy_move(greedy: Any, s: Any, player: int, rng: random.Random, epsilon: float) -> int:
    """The greedy baseline's move; with probability ``epsilon`` one of its 4 best instead."""
    if epsilon <= 0 or rng.random() >= epsilon:
        return greedy.act(s, player)
    scored = sorted(greedy.evaluate(s, player), key=lambda cs: -cs[1])[:4]
    return scored[rng.randrange(len(scored))][0]


def _apply(game: _Game, code: int) -> None:
    s = game.state
    turn, mover = s.turn, s.active_player
    s.apply_code(code)
    if s.turn != turn and not s.is_over:
        game.features[mover].append(afterstate_features(s, mover))


def _targets(game: _Game, net: MLP | None, config: AfterstateConfig) -> tuple:
    """Positions of every seat with their lambda-returns."""
    s = game.state
    scores = s.scores.astype(np.float64)
    xs, ys = [], []
    for seat, feats in enumerate(game.features):
        if not feats:
            continue
        x = np.stack(feats)
        final = math.tanh((scores[seat] - np.delete(scores, seat).max()) / config.value_scale)
        lam = config.td_lambda if net is not None else 1.0
        v = net.forward(x)[:, 0] if net is not None else np.zeros(len(x), np.float32)
        y = np.empty(len(x), np.float32)
        g = final
        for t in range(len(x) - 1, -1, -1):
            y[t] = g
            g = (1.0 - lam) * v[t] + lam * g  # return seen from the position before t
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


# ------------------------------------------------------------------------- learner
def _torch_net(config: AfterstateConfig):
    import torch
    from torch import nn

    torch.manual_seed(config.seed)
    layers: list[Any] = []
    width = NUM_FEATURES
    for h in config.hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers += [nn.Linear(width, 1), nn.Tanh()]
    return nn.Sequential(*layers)


def export(model, config: AfterstateConfig) -> MLP:
    """The numpy network (the model file's content) of a torch model."""
    from torch import nn

    linear = [m for m in model if isinstance(m, nn.Linear)]
    layers = [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear]
    meta = {
        "kind": MODEL_KIND,
        "game": config.game,
        "players": config.players,
        "expansions": list(config.expansions),
        "features": NUM_FEATURES,
        "value_scale": config.value_scale,
        "output": "tanh",
    }
    return MLP(layers, meta)


class Learner:
    """The torch model, its optimiser and the replay buffer."""

    def __init__(self, config: AfterstateConfig) -> None:
        import torch

        self.config = config
        self.model = _torch_net(config)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=config.learning_rate)
        self.x = np.zeros((0, NUM_FEATURES), np.float32)
        self.y = np.zeros(0, np.float32)
        self.rng = np.random.default_rng(config.seed)

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        keep = self.config.replay_size
        self.x = np.concatenate([self.x, x])[-keep:]
        self.y = np.concatenate([self.y, y])[-keep:]

    def fit(self, new_samples: int) -> float:
        """Minibatch updates worth ``epochs_per_iteration`` passes over ``new_samples``."""
        import torch

        c = self.config
        steps = max(1, int(c.epochs_per_iteration * new_samples / c.batch_size))
        losses = []
        for _ in range(steps):
            idx = self.rng.integers(0, len(self.y), size=min(c.batch_size, len(self.y)))
            xb = torch.from_numpy(self.x[idx])
            yb = torch.from_numpy(self.y[idx])
            loss = torch.mean((self.model(xb)[:, 0] - yb) ** 2)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return float(np.mean(losses))

    def save(self, path: Path) -> None:
        import io

        import torch

        buffer = io.BytesIO()
        torch.save(
            {"model": self.model.state_dict(), "opt": self.opt.state_dict(),
             "x": torch.from_numpy(self.x.astype(np.float16)), "y": torch.from_numpy(self.y),
             "rng": self.rng.bit_generator.state},
            buffer,
        )  # fmt: skip
        atomic_write_bytes(path, buffer.getvalue())

    def load(self, path: Path) -> None:
        import torch

        data = torch.load(path, weights_only=True)  # tensors and plain values only
        self.model.load_state_dict(data["model"])
        self.opt.load_state_dict(data["opt"])
        self.x = data["x"].numpy().astype(np.float32)
        self.y = data["y"].numpy()
        self.rng.bit_generator.state = data["rng"]


# ------------------------------------------------------------------------- the run
def _evaluate(config: AfterstateConfig, model_path: Path, progress: bool) -> list[dict]:
    from .evaluation import evaluate_model_file

    return evaluate_model_file(
        model_path, config.game, config.players, config.expansions, opponents=config.baselines,
        deals=config.eval_deals, workers=config.workers, progress=progress,
    )  # fmt: skip


def train_afterstate(
    config: AfterstateConfig, out: str | Path, resume: bool = False, progress: bool = True
) -> MLP:
    """Train (or resume) an afterstate-TD run in folder ``out``; returns the final network."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    out = Path(out)
    learner = Learner(config)
    state: dict[str, Any] = {"timesteps": 0, "games": 0, "iteration": 0, "wall_s": 0.0}
    if resume:
        if not (out / STATE_FILE).exists():
            raise FileNotFoundError(f"nothing to resume in {out}: no {STATE_FILE}")
        saved = AfterstateConfig.load(out / "config.json")
        if saved.to_dict() | {"timesteps": 0} != config.to_dict() | {"timesteps": 0}:
            raise ValueError(f"{out} was trained with another config; resume with the same one")
        state = json.loads((out / STATE_FILE).read_text())
        for folder in (out, out / "checkpoints", out / "snapshots", out / "plots"):
            remove_temporaries(folder)  # left by writes that a kill interrupted
        for model_file in (out / "snapshots").glob("eval_*.npz"):
            model_file.unlink()  # an evaluation cut short
        learner.load(out / "checkpoints" / "learner.pt")
    else:
        for sub in ("checkpoints", "snapshots", "plots"):
            (out / sub).mkdir(parents=True, exist_ok=True)
    config.save(out / "config.json")
    writer = SummaryWriter(str(out / "tb" / "run"), purge_step=state["timesteps"] or None)
    t_start = time.time() - state["wall_s"]
    history_file = out / "eval_history.json"
    evals = json.loads(history_file.read_text()) if (resume and history_file.exists()) else []
    last = {k: state.get(f"last_{k}", 0) for k in ("checkpoint", "snapshot", "eval")}
    pool = ProcessPoolExecutor(config.workers) if config.workers > 1 else None
    try:
        while state["timesteps"] < config.timesteps:
            t0 = time.time()
            warm = state["games"] < config.warm_games
            net = export(learner.model, config)
            results = _self_play(config, net if not warm else None, state, pool)
            x = np.concatenate([r["x"] for r in results])
            y = np.concatenate([r["y"] for r in results])
            decisions = sum(r["decisions"] for r in results)
            vs_greedy = [m for r in results for m in r["margins_vs_greedy"]]
            learner.add(x, y)
            loss = learner.fit(len(y))
            state["timesteps"] += len(y)
            state["games"] += sum(r["games"] for r in results)
            state["iteration"] += 1
            state["wall_s"] = time.time() - t_start
            step = state["timesteps"]
            writer.add_scalar("train/value_loss", loss, step)
            writer.add_scalar("train/decisions_per_s", decisions / (time.time() - t0), step)
            if vs_greedy:
                writer.add_scalar("selfplay/win_rate_vs_greedy",
                                  float(np.mean([m > 0 for m in vs_greedy])), step)  # fmt: skip
                writer.add_scalar("selfplay/margin_vs_greedy", float(np.mean(vs_greedy)), step)
            if progress:
                wr = f", vs greedy {np.mean([m > 0 for m in vs_greedy]):.0%}" if vs_greedy else ""
                print(f"[afterstate] {step}/{config.timesteps} positions, {state['games']} games, "
                      f"loss {loss:.4f}{wr} ({decisions / (time.time() - t0):.0f} decisions/s)",
                      flush=True)  # fmt: skip
            done = step >= config.timesteps
            if config.snapshot_every and (step - last["snapshot"] >= config.snapshot_every):
                last["snapshot"] = step
                atomic_save_model(
                    export(learner.model, config), out / "snapshots" / f"step_{step}.npz"
                )
            if done or (config.eval_every and step - last["eval"] >= config.eval_every):
                last["eval"] = step
                path = out / "snapshots" / f"eval_{step}.npz"
                atomic_save_model(export(learner.model, config), path)
                if progress:
                    print(f"[afterstate] evaluating at {step} positions "
                          f"({config.eval_deals} deals per baseline)", flush=True)  # fmt: skip
                rows = _evaluate(config, path, progress=False)
                path.unlink(missing_ok=True)
                entry = {"timesteps": step, "wall_s": time.time() - t_start}
                for row in rows:
                    entry[row["opponent"]] = row
                    writer.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], step)
                    writer.add_scalar(f"eval/margin_vs_{row['opponent']}", row["mean_margin"], step)
                evals.append(entry)
                atomic_write_json(history_file, evals)
            if done or step - last["checkpoint"] >= config.checkpoint_every:
                last["checkpoint"] = step
                state.update({f"last_{k}": v for k, v in last.items()})
                _checkpoint(learner, config, out, state)
        final = export(learner.model, config)
        atomic_save_model(final, out / "final_model.npz")
    finally:
        writer.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    from .plots import plot_training

    plot_training(out)
    return final


def _checkpoint(learner: Learner, config: AfterstateConfig, out: Path, state: dict) -> None:
    ck = out / "checkpoints"
    atomic_save_model(export(learner.model, config), ck / "latest.npz")
    learner.save(ck / "learner.pt")
    atomic_write_json(out / STATE_FILE, state)  # last: marks the set complete


def _self_play(
    config: AfterstateConfig, net: MLP | None, state: dict, pool: ProcessPoolExecutor | None
) -> list[dict]:
    """One iteration's games, split over the workers."""
    n = config.games_per_iteration
    base = config.seed * 1_000_003 + state["games"]
    rng = random.Random(base)
    greedy_seats = []
    for _ in range(n):
        vs = net is not None and rng.random() < config.greedy_fraction
        greedy_seats.append(rng.randrange(config.players) if vs else -1)
    deals = [base + i for i in range(n)]
    layers = net.layers if net is not None else None
    meta = net.meta if net is not None else {}
    chunk = max(1, min(config.games_in_flight, math.ceil(n / config.workers)))
    tasks = [(config, layers, meta, deals[i : i + chunk], greedy_seats[i : i + chunk], base + i)
             for i in range(0, n, chunk)]  # fmt: skip
    if pool is None:
        return [play_games(*t) for t in tasks]
    return list(pool.map(play_games, *zip(*tasks, strict=True)))
