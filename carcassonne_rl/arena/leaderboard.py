"""A leaderboard: a round robin of agents on duplicate deals, rated on one Elo scale.

Schedule. Every pair of agents meets on the same deals (``deals`` of them, dealt by the
arena's seeds with ``shared=True``), each deal played once per seat rotation. At 2 players a
pair is one lineup; at 3-5 players each ordered pair (a, b) is a lineup of ``a`` against
``players - 1`` copies of ``b`` (an arena *versus* match), so every agent meets every other
from every seat. Pair ``(a, b)``'s games are exactly those of ``carcassonne-rl arena --agents
a --opponents b --deals D --seed S`` (the same deals, rotations and agent seeds).

Results. Each game gives pairwise results between seats of different agents: the higher
score wins, equal scores are a draw (half a win each); the copies of one agent are not
compared with each other. At 3-5 players this is the rank-based comparison of the agent
with each opponent seat: its expected value is 1/2 for two agents of equal strength whatever
the table size, which is what a Bradley-Terry model assumes (the win share against the
fair share ``1/players`` has no such fixed point on one scale across lineups). Win shares are
reported as well.

Ratings. Bradley-Terry by maximum likelihood over the pairwise results
(:func:`~carcassonne_rl.arena.ratings.bradley_terry`, with one virtual half-won game per
agent against a fixed reference, which keeps a perfect record finite), on the Elo scale
(``400 * log10``), anchored so that ``greedy`` is at 0 (``random`` if greedy is absent, else
the first agent). Intervals: 95% percentile bootstrap over deals (a sample draws deals with
replacement, each bringing all its games in every lineup, generator seeded
:data:`BOOTSTRAP_SEED`): the games of one deal are correlated (same luck, the copies of an
agent at one table), so the deal, not the game, is the unit. The anchor's interval is [0, 0];
the others' are relative to it.

Timing. Each agent's time per decision is reported as CPU milliseconds (the playing process's
CPU time around each ``act``), which a loaded machine inflates far less than wall-clock time
(kept in ``leaderboard.json`` as ``ms_per_decision``); both depend on the machine.

Agents. ``leaderboard.json`` records what each spec resolved to
(:func:`carcassonne_rl.agents.registry.resolution`: its pinned name, model files with sha256,
package version); ``leaderboard.md`` names each agent's pinned name and what it is (the
catalog's line for a pinned name, the family's for a baseline: what ``carcassonne-rl agents``
prints).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from typing import Any

from .match import GameResult, Job, Setup, schedule
from .ratings import default_anchor, elo_ratings, entry_stats, pairwise, rating_intervals

#: the agents fixed at rating 0, in order of preference
ANCHORS = ("greedy", "random")
#: the bootstrap's generator seed (fixed: the same games give the same intervals)
BOOTSTRAP_SEED = 0
#: bootstrap samples by default
BOOTSTRAP_SAMPLES = 1000


def pairs(n_agents: int, players: int) -> list[tuple[int, int]]:
    """The lineups of a leaderboard as (agent, opponent) indices: every unordered pair at 2
    players, every ordered pair at 3-5 (one agent against copies of the other)."""
    if n_agents < 2:
        raise ValueError("a leaderboard needs at least 2 agents")
    if players == 2:
        return list(itertools.combinations(range(n_agents), 2))
    return list(itertools.permutations(range(n_agents), 2))


def leaderboard_jobs(setup: Setup, specs: Sequence[str], deals: int, seed: int) -> list[Job]:
    """The games of a leaderboard in schedule order: per pair (lineup ``i`` of
    :func:`pairs`), the arena's versus schedule of the agent against the opponent (shared
    deals, every seat rotation); entry labels are the specs (which must differ)."""
    if len(set(specs)) != len(specs):
        twice = sorted({s for s in specs if list(specs).count(s) > 1})
        raise ValueError(f"agents named twice: {', '.join(twice)}")
    jobs = []
    for li, (a, b) in enumerate(pairs(len(specs), setup.players)):
        for job in schedule(setup, [specs[a]], deals, seed=seed, opponents=[specs[b]]):
            jobs.append(dataclasses.replace(job, lineup=li))
    return jobs


def _record(table: dict[str, dict[str, float]], agent: str) -> str | None:
    """``"all won"`` or ``"all lost"`` for an agent whose pairwise results are all one way:
    its maximum-likelihood rating is infinite (the prior alone keeps it finite), so that side
    of its interval is open (``None``); else ``None``."""
    if agent == default_anchor(list(table), ANCHORS):
        return None
    won = sum(table[agent][b] for b in table if b != agent)
    played = won + sum(table[b][agent] for b in table if b != agent)
    if played and won == played:
        return "all won"
    if played and won == 0:
        return "all lost"
    return None


def separated_groups(table: dict[str, dict[str, float]], order: Sequence[str]) -> list[list[str]]:
    """The agents split into groups that their results connect (``a`` reaches ``b`` when it
    won or drew a comparison against it, through any chain): a finite maximum-likelihood
    fit exists only if this is one group (Zermelo, Ford). Several groups: each one's agents
    won every comparison against every agent of the groups after it, and the gaps between
    groups come from the fit's prior alone. Groups and their members in ``order``."""
    reach = {a: {b for b in table if b != a and table[a][b] > 0} | {a} for a in table}
    for k in table:  # transitive closure (Warshall)
        for a in table:
            if k in reach[a]:
                reach[a] |= reach[k]
    groups: list[list[str]] = []
    for a in order:
        if not any(a in g for g in groups):
            groups.append([b for b in order if b in reach[a] and a in reach[b]])
    return groups


def bound(x: float | None, side: str) -> str:
    """An interval bound as shown: signed Elo, or an infinity on an open side."""
    return f"{x:+.0f}" if x is not None else ("∞" if side == "hi" else "-∞")


def _deal(res: GameResult) -> int:
    return res.deal


def pair_results(
    results: Sequence[GameResult], specs: Sequence[str], players: int
) -> list[dict[str, Any]]:
    """Per lineup: the agent, its opponent, games, the agent's pairwise wins, losses and
    draws against the opponent's seats, its score (wins + draws / 2) over the comparisons,
    and both win shares per game."""
    out = []
    for li, (a, b) in enumerate(pairs(len(specs), players)):
        agent, opp = specs[a], specs[b]
        games = [r for r in results if r.lineup == li]
        wins = losses = draws = 0
        for res in games:
            mine = [s for s, who in enumerate(res.seats) if who == agent]
            theirs = [s for s, who in enumerate(res.seats) if who == opp]
            for i in mine:
                for j in theirs:
                    d = res.scores[i] - res.scores[j]
                    wins += int(d > 0)
                    losses += int(d < 0)
                    draws += int(d == 0)
        n = wins + losses + draws
        stats = entry_stats(games, [agent, opp])
        out.append(
            {
                "agent": agent,
                "opponent": opp,
                "opponent_seats": players - 1,
                "games": len(games),
                "wins": wins,
                "losses": losses,
                "draws": draws,
                "score": (wins + draws / 2) / n if n else math.nan,
                "agent_win_rate": stats[agent]["win_rate"],
                "opponent_win_rate_per_seat": stats[opp]["win_rate"],
            }
        )
    return out


def fit(
    results: Sequence[GameResult],
    specs: Sequence[str],
    players: int,
    samples: int = BOOTSTRAP_SAMPLES,
) -> dict[str, Any]:
    """The leaderboard's numbers: per agent its rating, interval, games, win rate (mean win
    share per game, with its 95% interval over deals), decisions, wall-clock and CPU ms per
    decision, rank
    (best rating first); the anchor; the pairwise table; the per-pair results."""
    labels = list(specs)
    table = pairwise(results, labels)
    anchor = default_anchor(labels, ANCHORS)
    elo = elo_ratings(table, anchor)
    ci = rating_intervals(results, labels, samples, BOOTSTRAP_SEED, anchor, key=_deal)
    stats = entry_stats(results, labels)
    by_deal: dict[int, None] = dict.fromkeys(r.deal for r in results)
    rows = []
    for label in labels:
        s = stats[label]
        record = _record(table, label)
        interval = ci.get(label)
        if interval and record == "all won":
            interval = [interval[0], None]
        elif interval and record == "all lost":
            interval = [None, interval[1]]
        rows.append(
            {
                "agent": label,
                "rating": elo[label],
                "rating_ci95": interval,
                "record": record,
                "games": s["games"],
                "win_rate": s["win_rate"],
                "win_rate_ci95": s["win_rate_ci95"],
                "mean_margin": s["mean_margin"],
                "decisions": sum(
                    r.decisions[i] for r in results for i, w in enumerate(r.seats) if w == label
                ),
                "ms_per_decision": s["ms_per_decision"],
                "cpu_ms_per_decision": s["cpu_ms_per_decision"],
            }
        )
    rows.sort(key=lambda r: -r["rating"])
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return {
        "players": players,
        "anchor": anchor,
        "deals": len(by_deal),
        "games": len(results),
        "fair_share": 1.0 / players,
        "bootstrap_samples": samples,
        "bootstrap_seed": BOOTSTRAP_SEED,
        "ratings": rows,
        "pairwise_wins": table,
        "pairs": pair_results(results, labels, players),
        "separated_groups": separated_groups(table, [r["agent"] for r in rows]),
    }


def count(n: int, noun: str) -> str:
    """``3 deals``, ``1 deal``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def cpu_ms(ms: float | None) -> str:
    """CPU ms per decision as shown: 2 decimals under 1 ms, else 1; blank if not recorded."""
    if ms is None:
        return ""
    return f"{ms:.2f}" if ms < 1 else f"{ms:.1f}"


def what_it_is(resolved: dict[str, Any]) -> str:
    """A resolved agent's one line (as ``carcassonne-rl agents`` prints it): the catalog's
    for a pinned name, else its family's."""
    from carcassonne_rl.agents.catalog import PINNED
    from carcassonne_rl.agents.registry import WHAT
    from carcassonne_rl.agents.spec import is_named, parse

    if "error" in resolved:
        return f"not resolved: {resolved['error']}"
    if resolved.get("pinned") in PINNED:
        return PINNED[resolved["pinned"]].what
    named = str(resolved.get("named") or resolved["spec"]).strip()
    family = parse(named).family if is_named(named) else named.split(":")[0].lower()
    return WHAT.get(family, "")


def resolved_agents(specs: Sequence[str], game: str) -> dict[str, dict[str, Any]]:
    """Per spec, what it resolved to (:func:`carcassonne_rl.agents.registry.resolution`:
    named form, pinned name, model files with sha256, package version) plus ``what``
    (:func:`what_it_is`); a spec that does not resolve here gets its ``error``."""
    from carcassonne_rl.agents.registry import resolution

    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        try:
            res = dict(resolution(spec, game))
        except (ValueError, OSError) as err:
            res = {"spec": spec, "error": str(err)}
        res["what"] = what_it_is(res)
        out[spec] = res
    return out


def _versions(board: dict[str, Any]) -> str:
    found = {str(r["version"]) for r in board.get("resolved", {}).values() if "version" in r}
    return ", ".join(sorted(found)) or "unknown"


def markdown(board: dict[str, Any], title: str, command: str) -> str:
    """``leaderboard.md``: a title, the command that regenerates it, the table (with each
    agent's pinned name and CPU ms per decision), the package version, a legend, the
    agents' table (what each is, its model files) and the score cross table. Nothing in it
    depends on the clock except the CPU ms column."""
    players = board["players"]
    resolved = board.get("resolved", {})
    rows = [
        f"# {title}",
        "",
        "Regenerate (the same seed plays the same games):",
        "",
        "```",
        command,
        "```",
        "",
        "| rank | agent | pinned name | rating [95% interval] | games | win rate "
        "| CPU ms per decision |",
        "|---:|---|---|---|---:|---:|---:|",
    ]
    for r in board["ratings"]:
        ci = r["rating_ci95"]
        rating = f"{r['rating']:+.0f}" if r["agent"] != board["anchor"] else "0 (anchor)"
        if ci and r["agent"] != board["anchor"]:
            rating += f" [{bound(ci[0], 'lo')}, {bound(ci[1], 'hi')}]"
        if r["record"]:
            rating += f" ({r['record']})"
        ms = r.get("cpu_ms_per_decision")
        pinned = resolved.get(r["agent"], {}).get("pinned") or ""
        rows.append(
            f"| {r['rank']} | {r['agent']} | {pinned} | {rating} | {r['games']} "
            f"| {_pct(r['win_rate'])} | {cpu_ms(ms)} |"
        )
    fair = f" (fair share {_pct(board['fair_share'])})" if players > 2 else ""
    against = "one other agent" if players == 2 else f"{players - 1} copies of another agent"
    rows += [
        "",
        f"carcassonne-rl {_versions(board)}. "
        f"{count(board['deals'], 'deal')}, {count(board['games'], 'game')} at {players} "
        f"players: every agent "
        f"against {against}, each deal played from every seat. Rating: Bradley-Terry on the "
        f"Elo scale over pairwise results (higher score wins, equal scores draw), "
        f"`{board['anchor']}` fixed at 0; interval: 95% bootstrap over deals "
        f"({board['bootstrap_samples']} samples). Win rate: mean win share per game{fair}. "
        "CPU ms per decision: the playing process's CPU time per decision in this run (it "
        "depends on the machine, the rest of the table only on the games). An agent that won "
        "(lost) every comparison has no finite maximum-likelihood rating: its value comes "
        "from the fit's prior and its interval is open on that side.",
        *_separation_note(board),
        "",
        *agents_table(board),
        "",
        *score_table(board),
    ]
    return "\n".join(rows) + "\n"


def agents_table(board: dict[str, Any]) -> list[str]:
    """Each agent (best first) with its pinned name, what it is and its model files."""
    resolved = board.get("resolved", {})
    if not resolved:
        return []
    lines = [
        "What each agent is (model files: sha256 to 12 digits, in full in leaderboard.json):",
        "",
        "| agent | pinned name | what it is | model files (sha256) |",
        "|---|---|---|---|",
    ]
    for r in board["ratings"]:
        res = resolved.get(r["agent"], {})
        files = ", ".join(f"{f['file']} ({f['sha256'][:12]})" for f in res.get("files", []))
        what = res.get("what", "").replace("|", "/")
        lines.append(f"| {r['agent']} | {res.get('pinned') or ''} | {what} | {files} |")
    return lines


def _separation_note(board: dict[str, Any]) -> list[str]:
    groups = board["separated_groups"]
    if len(groups) < 2:
        return []
    chain = " > ".join(", ".join(g) for g in groups)
    return [
        "",
        f"The results split the agents into {len(groups)} groups, each of which won every "
        f"comparison against the groups after it: {chain}. The gaps between groups have no "
        "finite maximum-likelihood value; they come from the fit's prior (more deals may join "
        "the groups).",
    ]


def score_table(board: dict[str, Any]) -> list[str]:
    """The per-pair results as a cross table, best agent first: the row agent's score
    against the column agent (its pairwise wins plus half its draws, over its comparisons;
    at 3-5 players from the lineup of the row agent against copies of the column one)."""
    order = [r["agent"] for r in board["ratings"]]
    cell: dict[tuple[str, str], float] = {}
    for p in board["pairs"]:
        cell[(p["agent"], p["opponent"])] = p["score"]
        if board["players"] == 2:
            cell[(p["opponent"], p["agent"])] = 1.0 - p["score"]
    against = "" if board["players"] == 2 else f" ({board['players'] - 1} copies)"
    lines = [
        f"Score of each row's agent against each column's{against}:",
        "",
        "| | " + " | ".join(f"{i + 1}" for i in range(len(order))) + " |",
        "|---|" + "---:|" * len(order),
    ]
    for i, a in enumerate(order):
        cells = ["" if a == b else _pct(cell[(a, b)]) if (a, b) in cell else "" for b in order]
        lines.append(f"| {i + 1}. {a} | " + " | ".join(cells) + " |")
    return lines


def plot(board: dict[str, Any], title: str, path: Any) -> None:
    """``leaderboard.png``: each agent's rating as a dot with its 95% interval as a bar,
    best at the top; a perfect record's open side is drawn as an arrow to the edge."""
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone
    from matplotlib.transforms import blended_transform_factory

    rows = list(reversed(board["ratings"]))  # best at the top
    anchor = board["anchor"]
    names = [r["agent"] for r in rows]
    x = [r["rating"] for r in rows]
    ci = [r["rating_ci95"] or [r["rating"]] * 2 for r in rows]
    lo = [r["rating"] if c[0] is None else c[0] for r, c in zip(rows, ci, strict=True)]
    hi = [r["rating"] if c[1] is None else c[1] for r, c in zip(rows, ci, strict=True)]
    perfect_hi = [r["record"] == "all won" for r in rows]
    perfect_lo = [r["record"] == "all lost" for r in rows]
    left, right = min(lo + [0.0]), max(hi + [0.0])
    span = max(right - left, 50.0)
    x_min, x_max = left - 0.1 * span, right + 0.1 * span
    height = 1.3 + 0.45 * len(rows)
    fig = Figure(figsize=(9.0, height))
    ax = fig.subplots()
    labels_at = blended_transform_factory(ax.transAxes, ax.transData)  # right of the axes
    for i, r in enumerate(rows):
        a, b = (x_min if perfect_lo[i] else lo[i]), (x_max if perfect_hi[i] else hi[i])
        ax.plot([a, b], [i, i], color="#4C72B0", lw=2.5, solid_capstyle="butt")
        if perfect_lo[i] or perfect_hi[i]:
            ax.annotate("", xy=(b if perfect_hi[i] else a, i), xytext=(x[i], i),
                        arrowprops={"arrowstyle": "->", "color": "#4C72B0"})  # fmt: skip
        color = "#C44E52" if r["agent"] == anchor else "#4C72B0"
        ax.plot([x[i]], [i], "o", color=color, ms=7, zorder=3)
        ms = r.get("cpu_ms_per_decision")
        note = f"{x[i]:+.0f}" if r["agent"] != anchor else "0, the anchor"
        if r["record"]:
            note += f", {r['record']}"
        if ms is not None:
            note += f"; {cpu_ms(ms)} CPU ms"
        ax.text(1.02, i, note, va="center", fontsize=8, transform=labels_at)
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.axvline(0, color="grey", lw=0.8)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(
        f"Elo (Bradley-Terry, {anchor} = 0); bars: 95% bootstrap interval over deals; "
        "right: rating, CPU ms per decision",
        fontsize=9,
    )
    longest = max(len(r["agent"]) for r in rows)
    fig.subplots_adjust(left=min(0.4, 0.03 + 0.0085 * longest), right=0.78,
                        bottom=0.75 / height, top=1 - 0.45 / height)  # fmt: skip
    fig.savefig(path, dpi=120)
