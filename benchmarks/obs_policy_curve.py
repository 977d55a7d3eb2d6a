"""Win rate against a baseline of every snapshot of an observation-policy PPO run: the curve
of imitation (snapshot 0, the policy PPO starts from) then PPO, against env steps.

    python benchmarks/obs_policy_curve.py runs/ppo_features --deals 100 --plot curve.png

Each snapshot (``RUN/snapshots/step_N.zip``) is exported to a numpy policy file and plays
``--deals`` 2-player deals against ``--opponent`` (default greedy), each deal from both seats
(``--seed``: the deals).
One JSON line per snapshot: ``{"benchmark": "obs_policy_curve", "opponent", "steps", "win_rate",
"win_rate_ci95", "mean_margin", "games", "ms_per_decision"}``; ``--plot`` draws them.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path

from carcassonne_rl.arena.evaluation import evaluate_model_file
from carcassonne_rl.training.export import export_tile_policy


def snapshots(run: Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of the run's snapshots, by steps."""
    found = []
    for path in (run / "snapshots").glob("step_*.zip"):
        match = re.fullmatch(r"step_(\d+)\.zip", path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def plot(rows: list[dict], path: Path, title: str, opponent: str = "greedy") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["steps"] for r in rows]
    rate = [100 * r["win_rate"] for r in rows]
    low = [100 * (r["win_rate"] - r["win_rate_ci95"][0]) for r in rows]
    high = [100 * (r["win_rate_ci95"][1] - r["win_rate"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    ax.errorbar(steps, rate, yerr=[low, high], marker="o", capsize=3, label=f"policy vs {opponent}")
    ax.axhline(rate[0], color="grey", linestyle="--", linewidth=1,
               label="after imitation (step 0)")  # fmt: skip
    ax.set_xlabel("MaskablePPO env steps after imitation")
    ax.set_ylabel(f"win rate against {opponent} (%)")
    ax.set_ylim(max(0, min(50, min(rate) - 10)), 100)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a PPO run folder on carcassonne_v1")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponent", default="greedy", help="agent spec of the baseline")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--plot", type=Path, default=None, help="PNG of the curve")
    args = parser.parse_args(argv)
    found = snapshots(args.run)
    if not found:
        parser.error(f"no snapshots/step_N.zip in {args.run}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for steps, path in found:
            policy = Path(tmp) / f"step_{steps}.npz"
            export_tile_policy(path).save(policy)
            (row,) = evaluate_model_file(
                policy, "carcassonne", opponents=(args.opponent,), deals=args.deals,
                workers=args.workers, progress=False, seed=args.seed,
            )  # fmt: skip
            line = {"benchmark": "obs_policy_curve", "opponent": args.opponent, "steps": steps,
                    **{k: row[k] for k in ("win_rate", "win_rate_ci95", "mean_margin", "games",
                                           "ms_per_decision")}}  # fmt: skip
            print(json.dumps(line), flush=True)
            rows.append(line)
    if args.plot:
        title = f"{args.run.name}: {args.deals} deals x 2 seats per point"
        plot(rows, args.plot, title, args.opponent)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
