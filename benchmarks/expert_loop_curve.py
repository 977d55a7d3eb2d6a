"""The iteration curve of an expert-iteration loop: every iteration's network, alone and
searched, against fixed opponents on the same deals.

    python benchmarks/expert_loop_curve.py runs/tile_loop --opponents greedy,pretrained \
        --deals 100 --plot curve.png --table curve.md
    python benchmarks/expert_loop_curve.py runs/card_loop --opponents heuristic --search
    python benchmarks/expert_loop_curve.py --rows rows.jsonl --plot curve.png --table curve.md

Reads ``RUN/loop.json`` (written by ``carcassonne-rl expert-loop``). The entries are the
network the loop started from (``--init-model``; none for a card loop, which starts from the
heuristic) and each iteration's fitted network, accepted by its gate or not; each plays as
``policy:PATH`` (alone) and, with ``--search``, as the loop's own search over it (tile:
``pretrained:search=K:S@PATH``, card: ``pretrained:search=W:K:1:F@PATH``). Every entry plays
``--deals`` deals at ``--players`` seats (default: the loop's smallest table) against each
opponent in every other seat, each deal from every seat, the same deals for every entry
(``--seed``). One JSON line per (entry, opponent): ``{"benchmark": "expert_loop_curve",
"iteration", "accepted", "player", "spec", "opponent", "players", "games",
"win_rate", "win_rate_ci95", "mean_margin", "ms_per_decision"}``; ``--plot`` draws the win
rates against the iteration (``--title``: its title), ``--table`` writes them as a markdown
table. ``--rows FILE``
plays nothing: it draws the plot and the table from rows printed before (JSON lines).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from carcassonne_rl.arena.evaluation import evaluate_spec


def entries(run: Path, search: bool) -> list[dict]:
    """``{"iteration", "accepted", "player", "spec"}`` of every network of the loop in
    ``run`` (iteration -1: the network it started from), alone and (``search``) searched."""
    from carcassonne_rl.training.expert_iteration.loop import load_config, teacher_spec

    loop = json.loads((run / "loop.json").read_text())
    config = load_config(run, {})  # the loop's settings, as its own teachers searched
    start = config.first_network()  # a tile loop at tables of 3-5: the shipped table network
    nets = [(-1, True, start)] if start else []
    nets += [(it["iteration"], bool(it["accepted"]), it["candidate"]) for it in loop["iterations"]
             if it.get("candidate")]  # fmt: skip
    out = []
    for iteration, accepted, path in nets:
        out.append({"iteration": iteration, "accepted": accepted, "player": "network",
                    "spec": f"policy:{path}"})  # fmt: skip
        if search:
            out.append({"iteration": iteration, "accepted": accepted, "player": "search",
                        "spec": teacher_spec(config, path)})  # fmt: skip
    return out


def label(iteration: int) -> str:
    return "start" if iteration < 0 else str(iteration)


def markdown(rows: list[dict]) -> str:
    lines = ["| iteration | gate | player | opponent | games | win rate [95% CI] | mean margin "
             "| ms/decision |", "|---|---|---|---|---:|---|---:|---:|"]  # fmt: skip
    for r in rows:
        lo, hi = r["win_rate_ci95"]
        gate = "-" if r["iteration"] < 0 else ("accepted" if r["accepted"] else "rejected")
        lines.append(f"| {label(r['iteration'])} | {gate} | {r['player']} | {r['opponent']} | "
                     f"{r['games']} | {100 * r['win_rate']:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}] "
                     f"| {r['mean_margin']:+.1f} | {r['ms_per_decision']:.1f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4), dpi=120)
    lines = sorted({(r["player"], r["opponent"]) for r in rows})
    for n, (player, opponent) in enumerate(lines):
        line = [r for r in rows if r["player"] == player and r["opponent"] == opponent]
        shift = 0.04 * (n - (len(lines) - 1) / 2)  # side by side, not on top of each other
        x = [r["iteration"] + shift for r in line]
        y = [100 * r["win_rate"] for r in line]
        err = [[100 * (r["win_rate"] - r["win_rate_ci95"][0]) for r in line],
               [100 * (r["win_rate_ci95"][1] - r["win_rate"]) for r in line]]  # fmt: skip
        bars = ax.errorbar(x, y, yerr=err, marker="o", capsize=3,
                           linestyle="-" if player == "network" else "--",
                           label=f"{player} vs {opponent}")  # fmt: skip
        rejected = [r for r in line if not r["accepted"]]
        ax.scatter([r["iteration"] + shift for r in rejected],
                   [100 * r["win_rate"] for r in rejected],
                   s=90, facecolors="none", edgecolors=bars[0].get_color())  # fmt: skip
    ticks = sorted({r["iteration"] for r in rows})
    ax.set_xticks(ticks, [label(t) for t in ticks])
    players = rows[0].get("players", 2)  # rows from before the key: 2-player games
    ax.axhline(100 / players, color="grey", linewidth=0.8, label=f"fair share ({players} seats)")
    ax.set_xlabel("iteration (start: the network the loop began from; circled: rejected)")
    ax.set_ylabel("win rate (%)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside, not over
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


ROW_KEYS = ("iteration", "accepted", "player", "opponent", "games", "win_rate", "win_rate_ci95",
            "mean_margin", "ms_per_decision")  # fmt: skip


def read_rows(path: Path) -> list[dict]:
    """The rows of ``path`` (JSON lines this script printed); ValueError names a bad line."""
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err.msg})") from None
        missing = [k for k in ROW_KEYS if not isinstance(row, dict) or k not in row]
        if missing:
            raise ValueError(f"{path}:{number}: a row needs {', '.join(missing)}")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path} holds no rows")
    return rows


def write(rows: list[dict], table: Path | None, png: Path | None, title: str) -> None:
    if table:
        table.write_text(markdown(rows))
    if png and rows:
        plot(rows, png, title)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, nargs="?",
                        help="an expert-loop run folder (RUN/loop.json)")  # fmt: skip
    parser.add_argument("--rows", type=Path, help="draw from these rows (JSON lines), no games")
    parser.add_argument("--opponents", default="greedy", help="comma-separated agent specs")
    parser.add_argument("--deals", type=int, default=100, help="deals per row, every seat")
    parser.add_argument("--players", type=int,
                        help="seats of each game (default: the loop's smallest table)")  # fmt: skip
    parser.add_argument("--search", action="store_true", help="also the search over each")
    parser.add_argument("--seed", type=int, default=0, help="the deals (default 0)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--plot", type=Path, help="a PNG of the curve")
    parser.add_argument("--table", type=Path, help="a markdown table of the rows")
    parser.add_argument("--title", help="the plot's title (default: the run folder or rows file)")
    args = parser.parse_args(argv)
    if args.rows is not None:
        if args.run is not None:
            parser.error("give a run folder or --rows, not both")
        try:
            rows = read_rows(args.rows)
        except (OSError, ValueError) as err:
            parser.error(f"--rows: {err}")
        write(rows, args.table, args.plot, args.title or f"{args.rows.stem}: every iteration")
        return 0
    if args.run is None:
        parser.error("give an expert-loop run folder, or --rows")
    if not (args.run / "loop.json").is_file():
        parser.error(f"{args.run} has no loop.json: not an expert-loop run folder")
    if args.deals < 1:
        parser.error("--deals must be >= 1")
    config = json.loads((args.run / "loop.json").read_text())["config"]
    game = config.get("game", "carcassonne")
    players = args.players or min(config.get("tables") or [2])
    rows = []
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    for entry in entries(args.run, args.search):
        try:
            results = evaluate_spec(
                entry["spec"],
                game,
                players=players,
                opponents=opponents,
                deals=args.deals,
                workers=args.workers,
                progress=False,
                seed=args.seed,
            )
        except ValueError as err:  # a bad opponent spec or network file
            print(f"expert_loop_curve: {err}", file=sys.stderr)
            return 2
        for result in results:
            row = {"benchmark": "expert_loop_curve", **entry, "players": players, **result}
            print(json.dumps(row), flush=True)
            rows.append(row)
    title = f"{args.run.name}: every iteration on {args.deals} deals x {players} seats"
    write(rows, args.table, args.plot, args.title or title)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
