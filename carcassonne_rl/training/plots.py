"""Training curves of a run: episode reward (TensorBoard) and win rates vs the baselines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def read_scalars(tb_dir: Path, tag: str) -> np.ndarray:
    """(step, value) rows of a scalar in every TensorBoard event file under ``tb_dir``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    rows = []
    for f in sorted(Path(tb_dir).rglob("events.out.tfevents.*")):
        acc = EventAccumulator(str(f), size_guidance={"scalars": 0})
        acc.Reload()
        if tag in acc.Tags().get("scalars", []):
            rows += [(e.step, e.value) for e in acc.Scalars(tag)]
    return np.array(sorted(rows), dtype=float).reshape(-1, 2)


def plot_training(out: Path) -> Path:
    """Write ``plots/training.png`` for the run in ``out``; returns its path."""
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone
    from matplotlib.ticker import FuncFormatter

    out = Path(out)
    (out / "plots").mkdir(exist_ok=True)
    curve_title, y_label, x_label = (
        "mean episode reward (learner)",
        "reward per episode",
        "timesteps",
    )
    rewards = read_scalars(out / "tb", "rollout/ep_rew_mean")
    if not len(rewards):  # afterstate runs log their value loss, per position learnt from
        curve_title, y_label, x_label = "value loss", "mean squared error", "positions"
        rewards = read_scalars(out / "tb", "train/value_loss")
    history_file = out / "eval_history.json"
    evals = json.loads(history_file.read_text()) if history_file.exists() else []
    fig = Figure(figsize=(11, 4))
    ax1, ax2 = fig.subplots(1, 2)
    for ax in (ax1, ax2):  # 50k, 100k, ... instead of colliding long numbers
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k"))
    if len(rewards):
        ax1.plot(rewards[:, 0], rewards[:, 1], color="#2a6f97")
    ax1.set_title(curve_title)
    ax1.set_xlabel(x_label)
    ax1.set_ylabel(y_label)
    ax1.grid(alpha=0.3)
    opponents = [k for k in (evals[0] if evals else {}) if k not in ("timesteps", "wall_s")]
    colours = ("#d62828", "#f77f00", "#588157", "#6a4c93", "#1d3557", "#e9c46a", "#2a9d8f",
               "#8d99ae")  # fmt: skip
    for opp, colour in zip(opponents, colours, strict=False):
        steps = [e["timesteps"] for e in evals]
        wr = np.array([e[opp]["win_rate"] for e in evals])
        lo = np.array([e[opp]["win_rate_ci95"][0] for e in evals])
        hi = np.array([e[opp]["win_rate_ci95"][1] for e in evals])
        ax2.plot(steps, wr, marker="o", color=colour, label=f"vs {opp}")
        ax2.fill_between(steps, lo, hi, color=colour, alpha=0.15)
    ax2.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax2.set_ylim(0, 1)
    ax2.set_title("win rate vs baselines (95% CI)")
    ax2.set_xlabel(x_label)
    ax2.set_ylabel("win rate")
    ax2.grid(alpha=0.3)
    if opponents:
        ax2.legend(loc="lower right")
    config = json.loads((out / "config.json").read_text()) if (out / "config.json").exists() else {}
    tables = config.get("tables") or []
    seats = f"tables {', '.join(tables)}" if tables else f"{config.get('players', '')} players"
    fig.suptitle(f"{config.get('game', '')} self-play, {seats}")
    fig.tight_layout()
    import io

    from carcassonne_rl.training.run_files import atomic_write_bytes

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return atomic_write_bytes(out / "plots" / "training.png", buffer.getvalue())


def plot_fit_log(reports: list[dict], path: Path, title: str) -> Path:
    """The curves of a value network's fit to a search's values (one report per epoch, as
    ``expert-iteration`` prints them): training loss and held-out error, and the
    search value the network's choice gives up on held-out decisions (beside the prior's);
    written to ``path``."""
    from matplotlib.figure import Figure

    from carcassonne_rl.training.run_files import atomic_write_bytes

    epochs = [r["epoch"] for r in reports]
    fig = Figure(figsize=(11, 4))
    ax1, ax2 = fig.subplots(1, 2)
    train = [(r["epoch"], r["train_loss"]) for r in reports if r["epoch"] > 0]
    if train:
        ax1.plot(*zip(*train, strict=True), marker="o", color="#2a6f97", label="training loss")
    valid = [(r["epoch"], r["validation_mse"]) for r in reports if "validation_mse" in r]
    if valid:
        ax1.plot(*zip(*valid, strict=True), marker="s", color="#d62828", label="held-out error")
    ax1.set_title("mean squared error")
    ax1.set_xlabel("epoch")
    ax1.legend()
    ax1.grid(alpha=0.3)
    regret = [r["network"].get("regret", np.nan) for r in reports]
    ax2.plot(epochs, regret, marker="o", color="#588157", label="network")
    base = reports[0].get("heuristic") or reports[0].get("prior")
    if base and "regret" in base:
        name = "heuristic" if "heuristic" in reports[0] else "before the search (prior)"
        ax2.axhline(base["regret"], color="#f77f00", ls="--", label=name)
    ax2.set_ylim(bottom=0)
    ax2.set_title("held-out decisions: search value given up by the choice")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("regret, in the value's units (lower: better)")
    ax2.legend(loc="upper right")
    ax2.grid(alpha=0.3)
    import textwrap

    fig.suptitle(textwrap.fill(title, 100))  # a long title (several teachers) on lines
    fig.tight_layout()
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    atomic_write_bytes(Path(path), buffer.getvalue())
    return Path(path)
