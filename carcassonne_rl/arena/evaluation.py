"""Evaluate a trained model in the arena against baseline agents (duplicate format)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from .match import Setup, run_jobs, schedule
from .ratings import entry_stats


def evaluate_model_file(
    path: str | Path,
    game: str,
    players: int = 2,
    expansions: Sequence[str] = (),
    opponents: Sequence[str] = ("random", "greedy"),
    deals: int = 50,
    workers: int = 1,
    progress: bool = True,
    seed: int = 7,
    address: str | None = None,
) -> list[dict]:
    """:func:`evaluate_spec` of the model file ``path`` (played as ``policy:PATH``)."""
    return evaluate_spec(f"policy:{Path(path)}", game, players, expansions, opponents, deals,
                         workers, progress, seed, address)  # fmt: skip


def evaluate_spec(
    me: str,
    game: str,
    players: int = 2,
    expansions: Sequence[str] = (),
    opponents: Sequence[str] = ("random", "greedy"),
    deals: int = 50,
    workers: int = 1,
    progress: bool = True,
    seed: int = 7,
    address: str | None = None,
) -> list[dict]:
    """One row per opponent: the agent ``me``'s (a spec) win rate (95% CI), mean margin,
    deals, games, time/move, and what ``me`` resolved to (``resolved``: its pinned name,
    model files with their sha256, the package version).

    Each deal is played once from every seat (seats rotated); with more than 2 players the
    other seats are all that opponent. ``address``: play on that Ray cluster (see
    ``arena.run_jobs``)."""
    from carcassonne_rl.agents.registry import resolution

    setup = Setup(game, players, tuple(expansions))
    resolved = resolution(me, game)
    rows = []
    session = contextlib.nullcontext()
    if address:  # one Ray connection for all the opponents (run_jobs reuses it)
        from carcassonne_rl.runtime.ray_session import ray_session

        session = ray_session(address)
    with session:
        for opp in opponents:
            specs = [me] + [opp] * (players - 1)
            jobs = schedule(setup, specs, deals, duplicate=True, seed=seed)
            results = run_jobs(
                jobs, workers=workers, progress=progress, desc=f"vs {opp}", address=address
            )
            stats = entry_stats(results, [me])[me]
            rows.append(
                {
                    "opponent": opp,
                    "deals": deals,
                    "games": stats["games"],
                    "win_rate": stats["win_rate"],
                    "win_rate_ci95": stats["win_rate_ci95"],
                    "mean_margin": stats["mean_margin"],
                    "mean_margin_ci95": stats["mean_margin_ci95"],
                    "ms_per_decision": stats["ms_per_decision"],
                    "resolved": resolved,
                }
            )
    return rows


def markdown_rows(rows: Sequence[dict], title: str) -> str:
    """A markdown table of evaluation rows, then what the agent resolved to."""
    lines = [
        f"| {title} vs | deals | games | win rate | 95% CI | mean margin |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        lo, hi = r["win_rate_ci95"]
        lines.append(
            f"| {r['opponent']} | {r.get('deals', '')} | {r['games']} | "
            f"{100 * r['win_rate']:.1f}% | {100 * lo:.1f}-{100 * hi:.1f}% | "
            f"{r['mean_margin']:+.1f} |"
        )
    resolved = rows[0].get("resolved") if rows else None
    if resolved:
        files = ", ".join(f"{f['file']} (sha256 {f['sha256']})" for f in resolved["files"])
        lines += ["", f"{title}: `{resolved['spec']}` = `{resolved['named']}`"
                  + (f", pinned {resolved['pinned']}" if resolved["pinned"] else "")
                  + (f"; model files: {files}" if files else "")
                  + f"; carcassonne-rl {resolved['version']}"]  # fmt: skip
    return "\n".join(lines)
