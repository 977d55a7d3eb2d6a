"""Statistics of a match: win rates with 95% confidence intervals, margins, seat splits,
and Bradley-Terry ratings on the Elo scale.

A game's *win share* for an entry is 1 for a sole win, ``1/k`` for a win shared by ``k``
seats, 0 otherwise. Games of one deal (its duplicate rotations) are correlated, so the
confidence interval treats each (lineup, deal) as one sample: the mean of its win shares,
normal interval ``mean +- 1.96 * sd / sqrt(m)`` over the ``m`` deals (clipped to [0, 1]).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence

from .match import GameResult

Z95 = 1.959964


def win_share(res: GameResult, seat: int) -> float:
    return 1.0 / len(res.winners) if seat in res.winners else 0.0


def margin(res: GameResult, seat: int) -> int:
    others = [s for i, s in enumerate(res.scores) if i != seat]
    return res.scores[seat] - max(others)


def mean_ci(samples: Sequence[float]) -> tuple[float, float, float]:
    """Mean and normal 95% interval of independent samples."""
    m = len(samples)
    if m == 0:
        return math.nan, math.nan, math.nan
    mean = sum(samples) / m
    if m == 1:
        return mean, mean, mean
    var = sum((x - mean) ** 2 for x in samples) / (m - 1)
    half = Z95 * math.sqrt(var / m)
    return mean, mean - half, mean + half


def entry_stats(results: Sequence[GameResult], labels: Sequence[str]) -> dict[str, dict]:
    """Per entry: games, win rate + CI, mean margin + CI, per-seat win rate, time/decision."""
    out = {}
    for label in labels:
        by_deal: dict[tuple[int, int], list[float]] = defaultdict(list)
        margins_by_deal: dict[tuple[int, int], list[float]] = defaultdict(list)
        seat_games: dict[int, list[float]] = defaultdict(list)
        secs = 0.0
        decisions = 0
        for res in results:
            for seat, who in enumerate(res.seats):
                if who != label:
                    continue
                w = win_share(res, seat)
                by_deal[(res.lineup, res.deal)].append(w)
                margins_by_deal[(res.lineup, res.deal)].append(margin(res, seat))
                seat_games[seat].append(w)
                if res.seconds:
                    secs += res.seconds[seat]
                    decisions += res.decisions[seat]
        games = sum(len(v) for v in by_deal.values())
        wr, lo, hi = mean_ci([sum(v) / len(v) for v in by_deal.values()])
        mm, mlo, mhi = mean_ci([sum(v) / len(v) for v in margins_by_deal.values()])
        out[label] = {
            "games": games,
            "win_rate": wr,
            "win_rate_ci95": [max(0.0, lo), min(1.0, hi)],
            "mean_margin": mm,
            "mean_margin_ci95": [mlo, mhi],
            "seat_win_rate": {str(s): sum(v) / len(v) for s, v in sorted(seat_games.items())},
            "ms_per_decision": 1000.0 * secs / decisions if decisions else None,
        }
    return out


def versus_stats(results: Sequence[GameResult], lineup: int, agent: str, opponent: str) -> dict:
    """One lineup of a versus match (``agent`` against copies of ``opponent``): the agent's
    ``entry_stats`` with its ``fair_share`` (1 / players) and the opponent's per-seat win rate
    and time per decision (its copies pooled)."""
    games = [r for r in results if r.lineup == lineup]
    stats = entry_stats(games, [agent, opponent])
    players = len(games[0].seats) if games else 0
    mine, theirs = stats[agent], stats[opponent]
    return {
        "agent": agent,
        "opponent": opponent,
        "players": players,
        **mine,
        "fair_share": 1.0 / players if players else math.nan,
        "opponent_win_rate_per_seat": theirs["win_rate"],
        "opponent_ms_per_decision": theirs["ms_per_decision"],
    }


def pairwise(results: Sequence[GameResult], labels: Sequence[str]) -> dict[str, dict[str, float]]:
    """Pairwise wins: ``table[a][b]`` = games where a outscored b (ties count half)."""
    table = {a: {b: 0.0 for b in labels} for a in labels}
    for res in results:
        for i, a in enumerate(res.seats):
            for j, b in enumerate(res.seats):
                if i == j or a == b:
                    continue
                if res.scores[i] > res.scores[j]:
                    table[a][b] += 1.0
                elif res.scores[i] == res.scores[j]:
                    table[a][b] += 0.5
    return table


def bradley_terry(
    table: dict[str, dict[str, float]],
    prior: float = 1.0,
    iters: int = 10_000,
    tol: float = 1e-12,
) -> dict[str, float]:
    """Bradley-Terry strengths ``gamma`` (P(a beats b) = g_a / (g_a + g_b)) maximizing the
    likelihood of the pairwise results ``table[a][b]`` (a's wins over b, a draw counted as
    half a win to each), by the MM algorithm (Hunter 2004), until no strength moves by more
    than ``tol`` (relative) or ``iters`` rounds. Each entry also gets ``prior`` virtual games
    against a fixed reference of strength 1, half won (a maximum a posteriori fit that keeps a
    perfect record finite); ``prior=0`` is the plain maximum likelihood, whose scale is then
    free (ratings are differences, see :func:`elo_ratings`)."""
    labels = list(table)
    gamma = {a: 1.0 for a in labels}
    for _ in range(iters):
        new = {}
        for a in labels:
            wins = prior * 0.5
            denom = prior / (gamma[a] + 1.0)
            for b in labels:
                if a == b:
                    continue
                n = table[a][b] + table[b][a]
                if n:
                    wins += table[a][b]
                    denom += n / (gamma[a] + gamma[b])
            new[a] = wins / denom if denom else 1.0
        moved = max((abs(new[a] - gamma[a]) / gamma[a] for a in labels if gamma[a]), default=0.0)
        gamma = new
        if moved <= tol:
            break
    return gamma


def default_anchor(labels: Sequence[str], prefer: Sequence[str] = ("random",)) -> str:
    """The entry fixed at rating 0: the first of ``prefer`` among ``labels``, else the first
    label."""
    return next((a for a in prefer if a in labels), labels[0])


def elo_ratings(
    table: dict[str, dict[str, float]], anchor: str | None = None, prior: float = 1.0
) -> dict[str, float]:
    """Bradley-Terry strengths (:func:`bradley_terry`, ``prior``) on the Elo scale,
    ``400 * log10(gamma)``, shifted so that ``anchor`` is at 0 (default: the entry named
    ``random`` if any, else the first). A gap of ``d`` points is an expected score of
    ``1 / (1 + 10 ** (-d / 400))``; two entries only: ``400 * log10(wins / losses)``."""
    gamma = bradley_terry(table, prior=prior)
    labels = list(table)
    if anchor is None:
        anchor = default_anchor(labels)
    base = math.log10(gamma[anchor])
    return {a: 400.0 * (math.log10(gamma[a]) - base) for a in labels}


def _add(total: dict[str, dict[str, float]], part: dict[str, dict[str, float]]) -> None:
    for a, row in part.items():
        for b, x in row.items():
            total[a][b] += x


def rating_intervals(
    results: Sequence[GameResult],
    labels: Sequence[str],
    samples: int = 200,
    seed: int = 0,
    anchor: str | None = None,
    key: Callable[[GameResult], Hashable] | None = None,
    prior: float = 1.0,
) -> dict[str, list[float]]:
    """95% bootstrap intervals (2.5th and 97.5th percentiles of ``samples`` refits) of the
    Elo ratings (:func:`elo_ratings` with ``anchor`` and ``prior``): each sample draws, with
    replacement and the generator seeded ``seed``, as many clusters of games as there are,
    a cluster being the games of one ``key(game)`` (default: one (lineup, deal), the
    correlated games of a deal's seat rotations). The anchor's interval is [0, 0]: the others'
    are relative to it."""
    if key is None:
        key = _lineup_deal
    clusters: dict[Hashable, list[GameResult]] = defaultdict(list)
    for res in results:
        clusters[key(res)].append(res)
    tables = [pairwise(games, labels) for games in clusters.values()]
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {a: [] for a in labels}
    if anchor is None:
        anchor = default_anchor(labels)
    for _ in range(samples):
        total = {a: {b: 0.0 for b in labels} for a in labels}
        for _ in tables:
            _add(total, tables[rng.randrange(len(tables))])
        elo = elo_ratings(total, anchor, prior)
        for a in labels:
            draws[a].append(elo[a])
    out = {}
    for a in labels:
        d = sorted(draws[a])
        out[a] = [d[int(0.025 * (len(d) - 1))], d[int(0.975 * (len(d) - 1))]]
    return out


def _lineup_deal(res: GameResult) -> tuple[int, int]:
    return (res.lineup, res.deal)
