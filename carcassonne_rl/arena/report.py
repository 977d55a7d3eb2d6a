"""Summaries of a match: JSON, CSV (one row per game), a markdown table and a ratings plot.

Every report records what each entry's spec resolved to (``agents.registry.resolution``: its
named form, its pinned name, each model file with its sha256, the package version), and says
how many deals and how many games (a deal played from every seat is several games)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from .match import GameResult, Setup, entry_labels
from .ratings import elo_ratings, entry_stats, pairwise, rating_intervals, versus_stats


def summarize(
    results: Sequence[GameResult],
    labels: Sequence[str],
    setup: Setup,
    extra: dict | None = None,
    bootstrap: int = 200,
    versus: Sequence[tuple[str, str]] | None = None,
) -> dict:
    """Everything the report files hold (results in schedule order). ``versus``: the
    (agent, opponent) label of each lineup of a versus match, in lineup order; its rows go
    into ``"versus"``."""
    stats = entry_stats(results, labels)
    table = pairwise(results, labels)
    elo = elo_ratings(table)
    ci = rating_intervals(results, labels, samples=bootstrap) if bootstrap else {}
    for a in labels:
        stats[a]["elo"] = elo[a]
        stats[a]["elo_ci95"] = ci.get(a)
    out = {
        "game": setup.game,
        "players": setup.players,
        "expansions": list(setup.expansions),
        "games": len(results),
        "deals": len({r.deal for r in results}),
        **(extra or {}),
        "entries": stats,
        "pairwise_wins": table,
        "resolved": resolved_entries(labels, setup.game, extra),
    }
    if versus:
        out["versus"] = [versus_stats(results, li, a, o) for li, (a, o) in enumerate(versus)]
    return out


def resolved_entries(labels: Sequence[str], game: str, extra: dict | None = None) -> dict:
    """Each entry's resolution (``agents.registry.resolution``) by label; the specs come from
    ``extra``'s ``agents`` and ``opponents`` where it has them, else from the labels."""
    from carcassonne_rl.agents.registry import resolution

    extra = extra or {}
    specs = [*extra.get("agents", []), *extra.get("opponents", [])]
    if sorted(entry_labels(specs)) != sorted(labels):
        specs = [label.partition("#")[0] if label.rpartition("#")[2].isdigit() else label
                 for label in labels]  # fmt: skip
    out = {}
    for label, spec in zip(entry_labels(specs), specs, strict=True):
        try:
            out[label] = resolution(spec, game)
        except (ValueError, OSError) as err:  # an entry no longer buildable here
            out[label] = {"spec": spec, "error": str(err)}
    return out


def resolved_table(summary: dict) -> str:
    """What each entry resolved to: its named form, pinned name and model files."""
    resolved = summary.get("resolved") or {}
    if not resolved:
        return ""
    versions = {r.get("version") for r in resolved.values() if "version" in r}
    lines = [
        f"Agents as resolved (carcassonne-rl {', '.join(map(str, versions)) or 'unknown'}; "
        "sha256 to 12 digits, in full in arena.json):",
        "",
        "| agent | named form | pinned name | model files (sha256) |",
        "|---|---|---|---|",
    ]
    for label, r in resolved.items():
        if "error" in r:
            lines.append(f"| {label} | | | not resolved: {r['error']} |")
            continue
        files = ", ".join(f"{f['file']} ({f['sha256'][:12]})" for f in r["files"])
        lines.append(f"| {label} | `{r['named']}` | {r['pinned'] or ''} | {files} |")
    return "\n".join(lines) + "\n"


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}" + ("" if n == 1 else "s")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ms(stats: dict) -> str:
    """The ms per decision cells: wall-clock, then CPU (blank where not recorded)."""
    ms, cpu = stats["ms_per_decision"], stats.get("cpu_ms_per_decision")
    return " | ".join("" if x is None else f"{x:.1f}" for x in (ms, cpu))


def versus_table(summary: dict) -> str:
    """A versus match: one row per (agent, opponent) lineup."""
    lines = [
        "| agent | against | players | games | win rate [95% CI] | fair share | mean margin "
        "| win rate by seat | opponent win rate per seat | ms/decision | CPU ms/decision |",
        "|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|",
    ]
    for row in summary["versus"]:
        lo, hi = row["win_rate_ci95"]
        seats = " / ".join(_pct(v) for v in row["seat_win_rate"].values())
        lines.append(
            f"| {row['agent']} | {row['players'] - 1} x {row['opponent']} | {row['players']} "
            f"| {row['games']} | {_pct(row['win_rate'])} [{_pct(lo)}, {_pct(hi)}] "
            f"| {_pct(row['fair_share'])} | {row['mean_margin']:+.1f} | {seats} "
            f"| {_pct(row['opponent_win_rate_per_seat'])} | {_ms(row)} |"
        )
    return "\n".join(lines) + "\n"


def markdown_table(summary: dict) -> str:
    """The count of deals and games, one row per entry, best rating first (a versus match:
    its lineup table first), then what each entry resolved to."""
    head = ""
    if "deals" in summary:
        games, deals = summary["games"], summary["deals"]
        head = f"{_count(games, 'game')} on {_count(deals, 'deal')}.\n\n"
    resolved = resolved_table(summary)
    tail = "\n" + resolved if resolved else ""
    if summary.get("versus"):
        return head + versus_table(summary) + "\n" + entries_table(summary) + tail
    return head + entries_table(summary) + tail


def entries_table(summary: dict) -> str:
    """One row per entry, best rating first."""
    rows = sorted(summary["entries"].items(), key=lambda kv: -kv[1]["elo"])
    head = (
        "| agent | games | win rate [95% CI] | mean margin | win rate by seat | Elo [95% CI] "
        "| ms/decision | CPU ms/decision |\n|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for label, s in rows:
        lo, hi = s["win_rate_ci95"]
        seats = " / ".join(_pct(v) for v in s["seat_win_rate"].values())
        elo = f"{s['elo']:.0f}"
        if s.get("elo_ci95"):
            elo += f" [{s['elo_ci95'][0]:.0f}, {s['elo_ci95'][1]:.0f}]"
        lines.append(
            f"| {label} | {s['games']} | {_pct(s['win_rate'])} [{_pct(lo)}, {_pct(hi)}] "
            f"| {s['mean_margin']:+.1f} | {seats} | {elo} | {_ms(s)} |"
        )
    return head + "\n".join(lines) + "\n"


def write_csv(results: Sequence[GameResult], path: Path, resolved: dict | None = None) -> None:
    """One row per game; with ``resolved`` (:func:`resolved_entries`), each seat's pinned name
    and model files (``FILE=SHA256`` separated by spaces) and the package version too."""
    n = max(len(r.seats) for r in results) if results else 0
    resolved = resolved or {}
    seat_keys = ("agent", "score", "pinned", "models") if resolved else ("agent", "score")
    versions = {str(r.get("version")) for r in resolved.values() if "version" in r}

    def seat(r: GameResult, i: int) -> list:
        cells = [r.seats[i], r.scores[i]]
        if resolved:
            res = resolved.get(r.seats[i], {})
            files = " ".join(f"{f['file']}={f['sha256']}" for f in res.get("files", []))
            cells += [res.get("pinned") or "", files]
        return cells

    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["lineup", "deal", "rotation"]
            + [f"seat{i}_{k}" for i in range(n) for k in seat_keys]
            + ["winners"]
            + (["version"] if resolved else [])
        )
        for r in results:
            cells = [x for i in range(len(r.seats)) for x in seat(r, i)]
            tail = [" ".join(sorted(versions))] if resolved else []
            w.writerow([r.lineup, r.deal, r.rotation, *cells, " ".join(map(str, r.winners)),
                        *tail])  # fmt: skip


def plot_ratings(summary: dict, path: Path) -> None:
    """Horizontal bars of the Elo ratings with their bootstrap 95% intervals. A perfect
    record (all won or all lost) has no bound on that side: its interval is drawn as an
    arrow to the edge, and labelled so."""
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone

    rows = sorted(summary["entries"].items(), key=lambda kv: kv[1]["elo"])
    names = [k for k, _ in rows]
    elo = [v["elo"] for _, v in rows]
    lo = [v["elo"] - (v["elo_ci95"] or [v["elo"]] * 2)[0] for _, v in rows]
    hi = [(v["elo_ci95"] or [v["elo"]] * 2)[1] - v["elo"] for _, v in rows]
    entries = summary["entries"]
    anchor = "random" if "random" in entries else next(iter(entries))  # as elo_ratings
    open_high = [k != anchor and v["games"] > 0 and v["win_rate"] == 1.0 for k, v in rows]
    open_low = [k != anchor and v["games"] > 0 and v["win_rate"] == 0.0 for k, v in rows]
    fig = Figure(figsize=(7.5, 1.4 + 0.5 * len(names)))
    ax = fig.subplots()
    xerr = [
        [0.0 if o else x for x, o in zip(lo, open_low, strict=True)],
        [0.0 if o else x for x, o in zip(hi, open_high, strict=True)],
    ]
    ax.barh(names, elo, xerr=xerr, color="#4C72B0", capsize=4)
    right = max(e + h for e, h in zip(elo, hi, strict=True))
    left = min(0.0, min(e - lo_ for e, lo_ in zip(elo, lo, strict=True)))
    span = max(right - left, 1.0)
    x_min, x_max = left - 0.12 * span, right + 0.6 * span
    label_x = right + 0.1 * span
    for i, (e, (name, v)) in enumerate(zip(elo, rows, strict=True)):
        text = f"{e:.0f} ({100 * v['win_rate']:.0f}% wins)"
        if name == anchor:
            text += ", the anchor"
        elif open_high[i] or open_low[i]:
            text += ": perfect record, interval open"
            end = label_x - 0.02 * span if open_high[i] else x_min
            ax.annotate("", xy=(end, i), xytext=(e, i),
                        arrowprops={"arrowstyle": "->", "color": "black", "lw": 1.2})  # fmt: skip
        ax.text(label_x, i, text, va="center", fontsize=8)
    ax.set_xlim(x_min, x_max)
    ax.axvline(0, color="grey", lw=0.8)
    exp = f" + {', '.join(summary['expansions'])}" if summary["expansions"] else ""
    ax.set_title(
        f"{summary['game']}{exp}, {summary['players']} players, {summary['games']} games",
        fontsize=10,
    )
    ax.set_ylabel("agent")
    ax.set_xlabel("Elo (Bradley-Terry; anchor at 0), bars: 95% bootstrap interval")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def write_report(summary: dict, results: Sequence[GameResult], out_dir: Path) -> dict[str, Path]:
    """Write arena.json, games.csv, arena.md and ratings.png into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out_dir / "arena.json",
        "csv": out_dir / "games.csv",
        "markdown": out_dir / "arena.md",
        "plot": out_dir / "ratings.png",
    }
    data = dict(summary, results=[r.to_dict() for r in results])
    paths["json"].write_text(json.dumps(data, indent=1))
    write_csv(results, paths["csv"], summary.get("resolved"))
    text = markdown_table(summary)
    if summary.get("seed") is not None:
        seed = summary["seed"]
        text += f"\nDeal seed: `{seed}` (`--seed {seed}` plays these deals again).\n"
    paths["markdown"].write_text(text)
    plot_ratings(summary, paths["plot"])
    return paths
