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

import numpy as np

from .match import GameResult

Z95 = 1.959964
#: Elo points per natural-log unit of strength (400 / ln 10)
ELO_PER_NAT = 400.0 / math.log(10.0)


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
    """Per entry: games, win rate + CI, mean margin + CI, per-seat win rate, wall-clock and
    CPU ms per decision (the CPU one over the games that recorded it, else None)."""
    out = {}
    for label in labels:
        by_deal: dict[tuple[int, int], list[float]] = defaultdict(list)
        margins_by_deal: dict[tuple[int, int], list[float]] = defaultdict(list)
        seat_games: dict[int, list[float]] = defaultdict(list)
        secs = cpu = 0.0
        decisions = cpu_decisions = 0
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
                if res.cpu_seconds:
                    cpu += res.cpu_seconds[seat]
                    cpu_decisions += res.decisions[seat]
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
            "cpu_ms_per_decision": 1000.0 * cpu / cpu_decisions if cpu_decisions else None,
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
        "opponent_cpu_ms_per_decision": theirs["cpu_ms_per_decision"],
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


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _fit_log_strengths(wins: np.ndarray, prior: float, iters: int, tol: float) -> np.ndarray:
    """Natural-log strengths maximizing the Bradley-Terry log-likelihood of the win matrix
    ``wins[a, b]`` plus ``prior`` virtual games of each entry against a reference at 0, half
    won: Newton's method on the concave log-likelihood, each step halved until it does not
    lower the likelihood, until a step moves no strength by more than ``tol``. With
    ``prior=0`` the first entry stays at 0 (the likelihood is blind to a common shift)."""
    k = len(wins)
    games = wins + wins.T
    won = wins.sum(axis=1)
    theta = np.zeros(k)
    free = np.arange(k) if prior > 0 else np.arange(1, k)

    def loglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        ll = float((wins * _log_sigmoid(d)).sum())
        return ll + prior * 0.5 * float((_log_sigmoid(t) + _log_sigmoid(-t)).sum())

    current = loglik(theta)
    for _ in range(iters):
        p = np.exp(_log_sigmoid(theta[:, None] - theta[None, :]))
        ref = np.exp(_log_sigmoid(theta))
        grad = won - (games * p).sum(axis=1) + prior * (0.5 - ref)
        q = games * p * (1.0 - p)
        neg_hess = np.diag(q.sum(axis=1) + prior * ref * (1.0 - ref)) - q
        sub = neg_hess[np.ix_(free, free)]
        step = np.zeros(k)
        step[free] = np.linalg.lstsq(sub, grad[free], rcond=None)[0]
        scale = 1.0
        for _ in range(40):
            trial = loglik(theta + scale * step)
            if trial >= current - 1e-12 * max(1.0, abs(current)):
                break
            scale /= 2
        theta = theta + scale * step
        current = loglik(theta)
        if float(np.max(np.abs(scale * step), initial=0.0)) <= tol:
            break
    return theta


def _win_matrix(table: dict[str, dict[str, float]], labels: Sequence[str]) -> np.ndarray:
    return np.array([[table[a][b] if a != b else 0.0 for b in labels] for a in labels], float)


def bradley_terry(
    table: dict[str, dict[str, float]],
    prior: float = 1.0,
    iters: int = 100,
    tol: float = 1e-10,
) -> dict[str, float]:
    """Bradley-Terry strengths ``gamma`` (P(a beats b) = g_a / (g_a + g_b)) maximizing the
    likelihood of the pairwise results ``table[a][b]`` (a's wins over b, a draw counted as
    half a win to each), by Newton's method on the log-strengths (at most ``iters`` steps,
    until none moves by more than ``tol``). Each entry also gets ``prior`` virtual games
    against a fixed reference of strength 1, half won (a maximum a posteriori fit that keeps a
    perfect record finite); ``prior=0`` is the plain maximum likelihood, whose scale is then
    free (the first entry is kept at 1; ratings are differences, see :func:`elo_ratings`)."""
    labels = list(table)
    theta = _fit_log_strengths(_win_matrix(table, labels), prior, iters, tol)
    return {a: math.exp(float(t)) for a, t in zip(labels, theta, strict=True)}


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
    labels = list(table)
    if anchor is None:
        anchor = default_anchor(labels)
    return _elo(_win_matrix(table, labels), labels, labels.index(anchor), prior)


def _elo(wins: np.ndarray, labels: Sequence[str], anchor: int, prior: float) -> dict[str, float]:
    theta = _fit_log_strengths(wins, prior, 100, 1e-10)
    elo = ELO_PER_NAT * (theta - theta[anchor])
    return {a: float(x) for a, x in zip(labels, elo, strict=True)}


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
    tables = [_win_matrix(pairwise(games, labels), labels) for games in clusters.values()]
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {a: [] for a in labels}
    if anchor is None:
        anchor = default_anchor(labels)
    at = list(labels).index(anchor)
    for _ in range(samples):
        total = np.zeros((len(labels), len(labels)))
        for _ in tables:
            total += tables[rng.randrange(len(tables))]
        elo = _elo(total, labels, at, prior)
        for a in labels:
            draws[a].append(elo[a])
    out = {}
    for a in labels:
        d = sorted(draws[a])
        out[a] = [d[int(0.025 * (len(d) - 1))], d[int(0.975 * (len(d) - 1))]]
    return out


def _lineup_deal(res: GameResult) -> tuple[int, int]:
    return (res.lineup, res.deal)
