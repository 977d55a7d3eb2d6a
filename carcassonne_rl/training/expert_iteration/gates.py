"""The expert loop's gate: a candidate network against the teacher's, head to head at 2
players (:func:`gate`), against ``PLAYERS - 1`` seats of it at tables of 3-5
(:func:`table_gate`), or both against the teacher games' opponents (:func:`versus_gate`)."""

from __future__ import annotations

from typing import Any

from carcassonne_rl.runtime import seeds

#: a loop's settings (``loop.LoopConfig``; not imported here, which would be a circle)
LoopConfig = Any


def network_spec(network: str | None, game: str = "carcassonne") -> str:
    """How the gate plays a network: its file (``policy:``), else what the first teacher
    searched (tile game: the shipped ``pretrained``; card game: the ``heuristic``)."""
    if network:
        return f"policy:{network}"
    return "heuristic" if game == "cardcassonne" else "pretrained"


def gate(candidate: str, best: str | None, config: LoopConfig, workers: int = 1,
         address: str | None = None, progress: bool = False) -> dict:  # fmt: skip
    """The candidate network against the teacher's network, each of the gate's deals
    played from both seats; accepted at a win rate of ``gate_threshold`` or more. At the
    tile game's tables of 3-5 (:func:`table_gate`), the candidate against ``PLAYERS - 1``
    seats of the teacher's network at each table. ``progress``: the games' progress bar
    (plain lines off a terminal), named ``gate``."""
    if config.gate_deals == 0:
        return {"deals": 0, "accepted": True}
    if config.opponents is not None:
        return versus_gate(candidate, best, config, workers, address, progress)
    if config.at_tables():
        return table_gate(candidate, best, config, workers, address, progress)
    from carcassonne_rl.arena.match import Setup, entry_labels, run_jobs, schedule
    from carcassonne_rl.arena.ratings import entry_stats

    specs = [network_spec(candidate, config.game), network_spec(best, config.game)]
    jobs = schedule(Setup(game=config.game, players=2), specs, config.gate_deals, duplicate=True,
                    seed=seeds.expert_gate_seed(config.seed))  # fmt: skip
    results = run_jobs(jobs, workers=workers, progress=progress, desc="gate", address=address)
    label = entry_labels(specs)[0]
    stats = entry_stats(results, [label])[label]
    return {"candidate": specs[0], "against": specs[1], "deals": config.gate_deals,
            "games": stats["games"], "win_rate": stats["win_rate"],
            "win_rate_ci95": stats["win_rate_ci95"], "mean_margin": stats["mean_margin"],
            "threshold": config.gate_threshold,
            "accepted": bool(stats["win_rate"] >= config.gate_threshold)}  # fmt: skip


def _table_results(specs: list[str], opponent: str, config: LoopConfig, workers: int,
                   address: str | None, progress: bool) -> dict[int, list]:  # fmt: skip
    """Per table size of ``tables``: the results of each of ``specs`` in one seat against
    ``PLAYERS - 1`` seats of ``opponent``, the gate's deals (the same for every spec) each
    played from every seat (lineup ``i``: ``specs[i]``)."""
    from carcassonne_rl.arena.match import Setup, run_jobs, schedule

    out = {}
    for players in sorted(set(config.tables)):
        jobs = schedule(Setup(game=config.game, players=players), specs, config.gate_deals,
                        duplicate=True, seed=seeds.expert_gate_seed(config.seed),
                        opponents=[opponent])  # fmt: skip
        out[players] = run_jobs(jobs, workers=workers, progress=progress,
                                desc=f"gate {players}p", address=address)  # fmt: skip
    return out


def table_gate(candidate: str, best: str | None, config: LoopConfig, workers: int = 1,
               address: str | None = None, progress: bool = False) -> dict:  # fmt: skip
    """The gate at the tile game's tables of 3-5: at each table size of ``tables``, the
    candidate in one seat against ``PLAYERS - 1`` seats of the teacher's network, the
    gate's deals each played from every seat. Its win rate is read in units of the fair
    share: accepted when the mean over the tables of ``win rate x PLAYERS`` reaches ``2 x
    gate_threshold`` (the 2-player rule at any table: 0.55 is 1.1 times the fair share)."""
    from carcassonne_rl.arena.match import entry_labels
    from carcassonne_rl.arena.ratings import versus_stats

    specs = [network_spec(candidate, config.game), network_spec(best, config.game)]
    agent, opponent = entry_labels(specs)
    rows = {}
    for players, results in _table_results(specs[:1], specs[1], config, workers, address,
                                           progress).items():  # fmt: skip
        stats = versus_stats(results, 0, agent, opponent)
        rows[str(players)] = {k: stats[k] for k in ("games", "win_rate", "win_rate_ci95",
                                                    "mean_margin", "fair_share")}  # fmt: skip
    times = sum(r["win_rate"] / r["fair_share"] for r in rows.values()) / len(rows)
    return {"candidate": specs[0], "against": specs[1], "deals": config.gate_deals,
            "tables": rows, "times_fair_share": times, "threshold": config.gate_threshold,
            "accepted": bool(times >= 2 * config.gate_threshold)}  # fmt: skip


def versus_gate(candidate: str, best: str | None, config: LoopConfig, workers: int = 1,
                address: str | None = None, progress: bool = False) -> dict:  # fmt: skip
    """The gate of a loop whose teacher met ``opponents``: at each table size of ``tables``,
    the candidate and the teacher's network each in one seat against ``PLAYERS - 1`` seats
    of the opponents, on the same deals, each played from every seat. Win rates are read in
    units of the fair share: accepted when the mean over the tables of ``(candidate's win
    rate - teacher's) x PLAYERS`` reaches ``2 x gate_threshold - 1`` (at 0.55, a tenth of the
    fair share more than the teacher's network wins against them)."""
    from carcassonne_rl.arena.match import entry_labels
    from carcassonne_rl.arena.ratings import versus_stats

    specs = [network_spec(candidate, config.game), network_spec(best, config.game)]
    labels = entry_labels([*specs, config.opponents])
    rows = {}
    for players, results in _table_results(specs, config.opponents, config, workers, address,
                                           progress).items():  # fmt: skip
        pair = [versus_stats(results, i, labels[i], labels[2]) for i in (0, 1)]
        rows[str(players)] = {
            "games": pair[0]["games"], "fair_share": pair[0]["fair_share"],
            **{f"{who}_{k}": stats[k] for who, stats in zip(("candidate", "teacher"), pair,
                                                                    strict=True)
               for k in ("win_rate", "win_rate_ci95", "mean_margin")},
        }  # fmt: skip
    gain = sum((r["candidate_win_rate"] - r["teacher_win_rate"]) / r["fair_share"]
               for r in rows.values()) / len(rows)  # fmt: skip
    return {"candidate": specs[0], "against": specs[1], "opponents": config.opponents,
            "deals": config.gate_deals, "tables": rows, "fair_shares_gained": gain,
            "threshold": config.gate_threshold,
            "accepted": bool(gain >= 2 * config.gate_threshold - 1)}  # fmt: skip
