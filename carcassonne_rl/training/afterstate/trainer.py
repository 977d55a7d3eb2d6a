"""Afterstate value learning with TD(lambda) by self-play (``train --algo afterstate``).

TD-Gammon's method for a dice game, applied to a tile game: the agent values each option by
the position it leads to (``agents.tile.afterstate``), so learning a good *value* is enough
to play well, and no policy gradient is needed. Each iteration:

1. **Self-play**, in parallel over the cores: every worker process keeps
   ``games_in_flight`` games running and, at each step, values the options of all of them
   in one batched forward pass. The seats are the current network (exploring with
   probability ``epsilon``) or, in a ``greedy_fraction`` of the games, one seat is the
   greedy baseline (the network must learn to beat it, not only itself). The first
   ``warm_games`` games are greedy against greedy (values of a sound policy to start from),
   unless the run starts from a model file (``init_model``: fine-tuning). The baseline seat
   is ``greedy`` or, with ``baseline_agent=heuristic``, the stronger ``heuristic``.
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
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.common.device_net import process_pool
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.runtime.progress import phase
from carcassonne_rl.runtime.seeds import afterstate_base, afterstate_deal
from carcassonne_rl.training.afterstate.card_selfplay import play_card_games
from carcassonne_rl.training.afterstate.config import STATE_FILE, AfterstateConfig, table_label
from carcassonne_rl.training.afterstate.learner import Learner, export
from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, SNAPSHOT, play_games
from carcassonne_rl.training.run_files import (
    atomic_save_model,
    atomic_write_json,
    remove_temporaries,
)

__all__ = ["STATE_FILE", "AfterstateConfig", "Learner", "export", "play_games", "train_afterstate"]


def _evaluate(config: AfterstateConfig, model_path: Path, progress: bool) -> list[dict]:
    """Rows against each baseline; with several tables, at each table (the opponent named
    with its table, e.g. ``greedy (4p+messages)``)."""
    from carcassonne_rl.arena.evaluation import evaluate_model_file

    tables = list(dict.fromkeys(config.table_list()))  # a table listed twice is dealt more
    rows = []
    for players, expansions in tables:
        for row in evaluate_model_file(
            model_path, config.game, players, expansions, opponents=config.baselines,
            deals=config.eval_deals, workers=config.workers, progress=progress,
        ):  # fmt: skip
            if len(tables) > 1:
                row = dict(row, opponent=f"{row['opponent']} ({table_label(players, expansions)})")
            rows.append(row)
    return rows


def train_afterstate(
    config: AfterstateConfig,
    out: str | Path,
    resume: bool = False,
    progress: bool = True,
    address: str | None = None,
) -> MLP:
    """Train (or resume) an afterstate-TD run in folder ``out``; returns the final network.
    ``address``: play the self-play games as tasks on that Ray cluster (``runtime.
    ray_session``) instead of ``config.workers`` local processes (a batch whose worker dies
    is played again: the same network as the local run)."""
    if address:
        from carcassonne_rl.runtime.ray_session import ray_session

        with ray_session(address):
            return _train(config, Path(out), resume, progress, remote=True)
    return _train(config, Path(out), resume, progress, remote=False)


def _train(config: AfterstateConfig, out: Path, resume: bool, progress: bool, remote: bool) -> MLP:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(max(1, os.cpu_count() or 1))
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
    pool: Any = "ray" if remote else None
    if not remote and config.workers > 1:
        pool = process_pool(config.workers, config.device)
    try:
        while state["timesteps"] < config.timesteps:
            t0 = time.time()
            warm = state["games"] < config.warm_games and not config.init_model
            net = export(learner.model, config)
            results = _self_play(config, net if not warm else None, state, pool, out)
            x = np.concatenate([r["x"] for r in results])
            y = np.concatenate([r["y"] for r in results])
            decisions = sum(r["decisions"] for r in results)
            vs_greedy = [m for r in results for m in r["margins_vs_greedy"]]
            if config.linear and config.init_model and state["iteration"] == 0:
                shift = learner.calibrate(x, y)
                if progress:
                    phase(f"[afterstate] output level shifted by {shift:+.3f}")
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
            by_players: dict[int, list[float]] = {}
            for r in results:
                for n, ms in r["margins_vs_greedy_by_players"].items():
                    by_players.setdefault(n, []).extend(ms)
            if len(config.table_list()) > 1:
                for n, ms in sorted(by_players.items()):
                    writer.add_scalar(f"selfplay/win_rate_vs_greedy_{n}p",
                                      float(np.mean([m > 0 for m in ms])), step)  # fmt: skip
            if progress:
                wr = (f", vs {config.baseline_agent} {np.mean([m > 0 for m in vs_greedy]):.0%}"
                      if vs_greedy else "")  # fmt: skip
                speed = decisions / (time.time() - t0)
                phase(f"[afterstate] {step}/{config.timesteps} positions, {state['games']} games, "
                      f"loss {loss:.4f}{wr} ({speed:.0f} decisions/s)")  # fmt: skip
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
                    phase(f"[afterstate] evaluating at {step} positions "
                          f"({config.eval_deals} deals per baseline)")  # fmt: skip
                rows = _evaluate(config, path, progress=progress)
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
        if isinstance(pool, ProcessPoolExecutor):
            pool.shutdown(cancel_futures=True)
    from carcassonne_rl.training.plots import plot_training

    plot_training(out)
    return final


def _checkpoint(learner: Learner, config: AfterstateConfig, out: Path, state: dict) -> None:
    ck = out / "checkpoints"
    atomic_save_model(export(learner.model, config), ck / "latest.npz")
    learner.save(ck / "learner.pt")
    atomic_write_json(out / STATE_FILE, state)  # last: marks the set complete


def _self_play(
    config: AfterstateConfig,
    net: MLP | None,
    state: dict,
    pool: ProcessPoolExecutor | str | None,
    out: Path | None = None,
) -> list[dict]:
    """One iteration's games, split over the workers. Tables are dealt in turn; a
    ``greedy_fraction`` of the games seat 1 to PLAYERS-1 greedy baselines, a
    ``snapshot_fraction`` of the others 1 to PLAYERS-1 seats of a past snapshot from
    ``out/snapshots`` (the current network while there is none); the rest is self-play.
    ``pool``: local processes, ``"ray"`` (tasks on the connected cluster; those of a worker
    that dies are run again) or ``None`` (this process)."""
    n = config.games_per_iteration
    base = afterstate_base(config.seed, state["games"])
    rng = random.Random(base)
    table_list = config.table_list()
    tables = [table_list[(state["games"] + i) % len(table_list)] for i in range(n)]
    lineups = [_lineup(config, net is not None, t[0], rng) for t in tables]
    snapshot = _past_snapshot(out, rng) if (net is not None and config.snapshot_fraction) else None
    deals = [afterstate_deal(base, i) for i in range(n)]
    layers = net.layers if net is not None else None
    meta = net.meta if net is not None else {}
    chunk = max(1, min(config.games_in_flight, math.ceil(n / config.workers)))
    tasks = [(config, layers, meta, deals[i : i + chunk], None, deals[i], tables[i : i + chunk],
              lineups[i : i + chunk], snapshot) for i in range(0, n, chunk)]  # fmt: skip
    if pool is None:
        return [play_task(t) for t in tasks]
    if pool == "ray":  # a task whose worker dies is played again: no batch lost or doubled
        from carcassonne_rl.arena.remote_games import iter_remote_unordered

        results: list[dict] = [{}] * len(tasks)
        for index, result in iter_remote_unordered(play_task, tasks):
            results[index] = result
        return results  # in task order, as the local pool's: the learner sees the same data
    return list(pool.map(play_task, tasks))


def play_task(task: tuple) -> dict:
    """One worker's games of ``_self_play`` (a process's or a Ray task's job): the
    ``play_games`` of the config's game."""
    play = play_card_games if task[0].game == "cardcassonne" else play_games
    return play(*task)


def _lineup(config: AfterstateConfig, has_net: bool, players: int, rng: random.Random) -> list:
    """Seat kinds of one game (see ``_self_play``); the 2-player draw is the historic one."""
    seats = [NET] * players
    if not has_net:
        return seats
    if rng.random() < config.greedy_fraction:
        if players == 2 or not config.tables:  # one greedy seat, as before
            seats[rng.randrange(players)] = GREEDY
        else:
            for s in rng.sample(range(players), rng.randint(1, players - 1)):
                seats[s] = GREEDY
    elif config.snapshot_fraction and rng.random() < config.snapshot_fraction:
        for s in rng.sample(range(players), rng.randint(1, players - 1)):
            seats[s] = SNAPSHOT
    return seats


def _past_snapshot(out: Path | None, rng: random.Random) -> list | None:
    """The layers of a random snapshot of the run (``None`` if it has none yet)."""
    files = sorted((out / "snapshots").glob("step_*.npz")) if out is not None else []
    if not files:
        return None
    return MLP.load(files[rng.randrange(len(files))]).layers
