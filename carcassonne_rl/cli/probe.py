"""``carcassonne-rl probe``: how exploitable a frozen card-game agent is.

Example: ``carcassonne-rl probe --target pretrained --sims 200 --deals 30 --seed 0`` plays,
on the same duplicate deals (each once per seat), the exploiter
``exploit(target=pretrained, sims=200)`` (a search whose sampled worlds let the target itself
play the other seats: it best-responds to the target without seeing a hidden card) and the
plain ``mcts(sims=200)`` (the reference: the same search not knowing the target) against
``PLAYERS - 1`` copies of the target; with ``--cheat`` also ``cheat-mcts(sims=200)`` (the
same search seeing the true hands: the ceiling of inference). One JSON line per agent, then
one with the exploiter's gain over the reference, paired by deal (see ``docs/agents.md``,
"Measuring instruments").
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from carcassonne_rl.arena.match import GameResult, Setup, entry_labels, run_jobs, schedule
from carcassonne_rl.arena.ratings import margin, mean_ci, versus_stats, win_share
from carcassonne_rl.games.registry import GAMES, PLAYER_COUNTS

from .args import UserError, agent_specs, non_negative_int, positive
from .deals import add_deals_argument, note_deprecated_games


def add_probe_parser(sub) -> argparse.ArgumentParser:
    """Register the ``probe`` sub-command on an ``add_subparsers()`` object."""
    p = sub.add_parser(
        "probe",
        help="card game: a best-response search against a frozen agent (one JSON line each)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--game", choices=GAMES, default="cardcassonne", help="(default: cardcassonne)")
    p.add_argument("--target", required=True, help="the frozen agent's spec, e.g. pretrained")
    p.add_argument(
        "--sims", type=positive(int), default=200, help="simulations per decision (default: 200)"
    )
    add_deals_argument(p, 30, "deals, each played once per seat")
    p.add_argument(
        "--players", type=int, choices=PLAYER_COUNTS, default=2, help="seats (default: 2)"
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="deal seed (default: 0)")
    p.add_argument(
        "--cheat",
        action="store_true",
        help="also cheat-mcts(sims=SIMS), the search on the true hands",
    )
    p.add_argument(
        "--workers", type=positive(int), default=1, help="processes playing games (default: 1)"
    )
    p.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar or lines"
    )
    return p


def paired_gain(
    results: list[GameResult],
    agent: tuple[int, str],
    reference: tuple[int, str],
    measure: Callable[[GameResult, int], float] = win_share,
) -> tuple[float, float, float]:
    """Mean and 95% interval of (agent's ``measure`` - reference's) over the deals both
    played (each deal's seats averaged; ``(lineup, label)`` names each side; ``measure``:
    the win share, or ``margin``)."""
    shares: dict[tuple[int, int], dict[int, float]] = {}
    for res in results:
        for side, (lineup, label) in enumerate((agent, reference)):
            if res.lineup != lineup:
                continue
            seat = res.seats.index(label)
            shares.setdefault((res.deal, side), {})[res.rotation] = measure(res, seat)
    deals = sorted({d for d, _ in shares})
    diffs = []
    for d in deals:
        a, b = shares.get((d, 0)), shares.get((d, 1))
        if a and b:
            diffs.append(sum(a.values()) / len(a) - sum(b.values()) / len(b))
    return mean_ci(diffs)


def _nested(target: str, game: str) -> str:
    """``target`` as a value nested in a named spec (a deprecated positional spec by its named
    form, which ``exploit(target=...)`` takes)."""
    from carcassonne_rl.agents.registry import to_named
    from carcassonne_rl.agents.spec import is_named

    if is_named(target):
        return target
    try:
        return to_named(target, game)
    except ValueError as err:
        raise UserError(f"--target: {err}") from None


def run_probe(args: argparse.Namespace) -> int:
    from carcassonne_rl.agents.spec import split_specs

    note_deprecated_games(args)
    try:
        setup = Setup(args.game, args.players)
    except ValueError as err:
        raise UserError(str(err)) from None
    target = args.target.strip()
    if len(split_specs(target)) > 1:  # commas inside a spec's parentheses are its keys'
        raise UserError(f"--target names one agent, got {target!r}")
    sims = args.sims
    agent_specs(target, args.game, "--target")  # one clear error for a bad target
    nested = _nested(target, args.game)
    roles = {
        "exploiter": f"exploit(target={nested}, sims={sims})",
        "reference": f"mcts(sims={sims})",
    }
    if args.cheat:
        roles["ceiling"] = f"cheat-mcts(sims={sims})"
    specs = list(roles.values())
    for spec in specs:  # one clear error: not the card game
        agent_specs(spec, args.game, "--target")
    jobs = schedule(setup, specs, args.deals, True, args.seed, opponents=[target])
    results = run_jobs(jobs, workers=args.workers, progress=args.progress, desc="probe")
    labels = entry_labels([*specs, target])
    rows = {}
    for li, role in enumerate(roles):
        row = versus_stats(results, li, labels[li], labels[-1])
        rows[role] = row
        out = {"role": role, "seed": args.seed, "deals": args.deals, **row}
        out["above_fair_share"] = row["win_rate"] - row["fair_share"]
        print(json.dumps(out))
    sides = (0, labels[0]), (1, labels[1])
    gain, lo, hi = paired_gain(results, *sides)
    points, plo, phi = paired_gain(results, *sides, margin)
    print(
        json.dumps(
            {
                "role": "exploit_gain",
                "target": target,
                "exploiter_win_rate": rows["exploiter"]["win_rate"],
                "reference_win_rate": rows["reference"]["win_rate"],
                "gain": gain,
                "gain_ci95": [lo, hi],
                "margin_gain": points,
                "margin_gain_ci95": [plo, phi],
            }
        )
    )
    return 0
