"""How much of the tile teacher's targets is noise, one JSON line per result.

    python benchmarks/teacher_noise.py                  # 2 games, every 2nd (~140 CPU s)
    python benchmarks/teacher_noise.py --quick          # 1 game, every 4th (~50 CPU s)

The teacher (``pretrained:search=K:S``, default ``3:2``, over the shipped 2-player network
averaged with the heuristic, the loop's first teacher; ``--network FILE``: over that one)
plays ``--games`` 2-player teacher games (the deals and agent seeds of expert iteration's
teacher games of ``--seed``). At every ``--every``-th tile placement with two options or
more, the same position is searched again: by a second cheap search (``S`` continuations,
another random stream) and, for each ``S2`` of ``--deep``, by two independent deep searches
(the same ``K`` and network, ``S2`` continuations per reply); the game goes on with the
first cheap search's choice. Each search is its own agent (its own seed), so two searches of
one kind differ only by their sampled continuations. Rows:

- ``search``: per number of continuations, the CPU seconds per placement searched; the
  share of placements whose two best searched options are less than ``--gap`` points apart
  (0.15); the mean |difference| between the two independent searches' values of the ``K``
  searched options (points: ``value_scale * atanh(value)``) and the noise of one search's
  value (``sqrt(mean squared difference / 2)``) and of its values relative to their mean
  over the searched options (what ranks them: the candidates of one search share its
  draws); the regret of its choice, in points, by the reference (the mean of the two
  searches with the most continuations).
- ``agree``: how often two searches choose the same option (options tied within 1e-7 in
  both count as the same): the two cheap ones, a cheap and a deep one (the mean of the 4
  pairs), the two deep ones of a kind, and across deep kinds.
- ``run``: games, placements searched, the machine's load when started.

CPU time is ``time.process_time()`` around each search call, all kinds in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time

import numpy as np

from carcassonne_rl.agents.tile.afterstate import pick
from carcassonne_rl.agents.tile.blend import net_margins
from carcassonne_rl.agents.tile.search import ExpectimaxAgent, option_code
from carcassonne_rl.runtime import seeds
from carcassonne_rl.training.expert_iteration.positions import teacher_deal
from carcassonne_rl.training.expert_iteration.teachers import make_teacher

#: the second search of each kind: its own seed, apart from the teacher games' agent seeds
OTHER_SEED = 900_000_000


def emit(**row) -> None:
    print(json.dumps({"benchmark": "teacher_noise", **row}), flush=True)


def best_set(values: np.ndarray) -> set[int]:
    """The options ``pick`` chooses among: those within 1e-7 of the best."""
    return set(np.flatnonzero(values >= values.max() - 1e-7).tolist())


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2, help="teacher games (2)")
    p.add_argument("--every", type=int, default=2, help="search every Nth placement again (2)")
    p.add_argument("--candidates", type=int, default=3, help="the search's K (3)")
    p.add_argument("--samples", type=int, default=2, help="the cheap search's S (2)")
    p.add_argument("--deep", default="8,16", help="the deep searches' S2 (8,16)")
    p.add_argument("--gap", type=float, default=0.15, help="a near tie, in points (0.15)")
    p.add_argument("--network", default=None,
                   help="search this network (search=K:S@NETWORK, e.g. "
                        "carcassonne_2p_expert.npz; default: pretrained:search's)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="the teacher games' seed (0)")
    p.add_argument("--placements", type=int, default=None, help="stop each game after N")
    p.add_argument("--quick", action="store_true", help="1 game, every 4th (~50 CPU s)")
    args = p.parse_args(argv)
    if args.quick:
        args.games, args.every = 1, 4
    args.deep = [int(t) for t in args.deep.split(",")]
    if args.games < 1 or args.every < 1 or min(args.deep) <= args.samples:
        p.error("needs --games >= 1, --every >= 1 and every --deep above --samples")
    return args


def teacher_spec(args: argparse.Namespace, samples: int) -> str:
    """The search of ``samples`` continuations over the benchmark's network."""
    spec = f"pretrained:search={args.candidates}:{samples}"
    return f"{spec}@{args.network}" if args.network else spec


def searches(args: argparse.Namespace, agent_seed: int) -> dict[tuple[int, str], ExpectimaxAgent]:
    """(continuations, "a" or "b") -> its search; ("S", "a") is the teacher that plays."""
    spec = teacher_spec(args, args.samples)
    out = {}
    for k, samples in enumerate([args.samples, *args.deep]):
        for j, name in enumerate("ab"):
            seed = agent_seed if (k, j) == (0, 0) else OTHER_SEED + 1_000 * agent_seed + 2 * k + j
            agent = make_teacher(spec, seed)
            agent.samples = samples
            out[(samples, name)] = agent
    return out


def measure(args: argparse.Namespace) -> list[dict]:
    """Per placement searched again: each search's values (the ``K`` searched options) and
    its choice; the CPU seconds of each search into ``cpu``."""
    from carcassonne_rl.games.registry import new_game

    records = []
    for g in range(args.games):
        agents = searches(args, seeds.teacher_agent_seed(args.seed, g))
        teacher = agents[(args.samples, "a")]
        state = new_game("carcassonne", 2, teacher_deal(args.seed, g), ())
        placed, searched = 0, 0
        while not state.is_over and (args.placements is None or placed < args.placements):
            player = state.current_player
            if state.phase != "place_tile":
                state.apply_code(teacher.act(state, player))
                continue
            t0 = time.process_time()
            opts, _, refined = teacher.search(state, player)
            cpu = time.process_time() - t0
            picked = pick(refined, teacher.rng)
            if len(opts) > 1:
                if searched % args.every == 0:
                    rec = {"values": {(args.samples, "a"): refined}, "cpu": {}}
                    rec["cpu"][(args.samples, "a")] = cpu
                    for key, agent in agents.items():
                        if key == (args.samples, "a"):
                            continue
                        t0 = time.process_time()
                        _, _, values = agent.search(state, player)
                        rec["cpu"][key] = time.process_time() - t0
                        rec["values"][key] = values
                    rec["scale"] = teacher.scale
                    records.append(rec)
                searched += 1
            state.apply_code(option_code(opts, picked))
            placed += 1
    return records


def report(args: argparse.Namespace, records: list[dict]) -> None:
    kinds = [args.samples, *args.deep]
    ref_kind = kinds[-1]
    scale = records[0]["scale"]
    points = [{key: net_margins(np.where(np.isfinite(v), v, np.nan), scale)
               for key, v in r["values"].items()} for r in records]  # fmt: skip
    reference = [(p[(ref_kind, "a")] + p[(ref_kind, "b")]) / 2 for p in points]
    for s in kinds:
        diffs, relative, gaps, regrets = [], [], [], []
        for p, ref in zip(points, reference, strict=True):
            a, b = p[(s, "a")], p[(s, "b")]
            searched = np.isfinite(a)
            diffs.extend(np.abs(a[searched] - b[searched]).tolist())
            a_rel, b_rel = a[searched] - a[searched].mean(), b[searched] - b[searched].mean()
            relative.extend((a_rel - b_rel).tolist())
            for v in (a, b):
                top = np.sort(v[np.isfinite(v)])[::-1]
                gaps.append(top[0] - top[1] if len(top) > 1 else np.inf)
                choice = max(best_set(np.where(np.isfinite(v), v, -np.inf)))
                regrets.append(float(np.nanmax(ref) - ref[choice]))
        cpu = [r["cpu"][(s, name)] for r in records for name in "ab"]
        d = np.asarray(diffs)
        emit(result="search", spec=teacher_spec(args, s), samples=s,
             placements=len(records), cpu_s_per_placement=round(float(np.mean(cpu)), 4),
             gap_below=args.gap,
             share_gap_below=round(float(np.mean(np.asarray(gaps) < args.gap)), 3),
             median_gap_points=round(float(np.median(gaps)), 3),
             mean_abs_diff_points=round(float(d.mean()), 4),
             noise_points=round(float(np.sqrt(np.mean(d**2) / 2)), 4),
             relative_noise_points=round(float(np.sqrt(np.mean(np.square(relative)) / 2)), 4),
             regret_points=round(float(np.mean(regrets)), 4),
             regret_reference=f"mean of two searches of S={ref_kind}"
             + (" (itself among them)" if s == ref_kind else ""))  # fmt: skip
    choices = [{key: best_set(np.where(np.isfinite(v), v, -np.inf))
                for key, v in r["values"].items()} for r in records]  # fmt: skip

    def agree(pairs: list[tuple]) -> float:
        return float(np.mean([bool(c[x] & c[y]) for c in choices for x, y in pairs]))

    cheap = args.samples
    pair = [((cheap, "a"), (cheap, "b"))]
    emit(result="agree", a=f"S={cheap}", b=f"S={cheap}", pairs="two independent searches",
         agree=round(agree(pair), 3), placements=len(records))  # fmt: skip
    for s in args.deep:
        cross = [((cheap, x), (s, y)) for x in "ab" for y in "ab"]
        emit(result="agree", a=f"S={cheap}", b=f"S={s}", pairs="mean of the 4 pairs",
             agree=round(agree(cross), 3), placements=len(records))  # fmt: skip
        emit(result="agree", a=f"S={s}", b=f"S={s}", pairs="two independent searches",
             agree=round(agree([((s, "a"), (s, "b"))]), 3), placements=len(records))  # fmt: skip
    for s, t in itertools.combinations(args.deep, 2):
        cross = [((s, x), (t, y)) for x in "ab" for y in "ab"]
        emit(result="agree", a=f"S={s}", b=f"S={t}", pairs="mean of the 4 pairs",
             agree=round(agree(cross), 3), placements=len(records))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load = os.getloadavg()[0]
    warm = make_teacher("pretrained:search=1:1", 0)  # compile the kernels, load the network
    from carcassonne_rl.games.registry import new_game

    warm.search(new_game("carcassonne", 2, 1, ()), 0)
    t0, cpu0 = time.perf_counter(), time.process_time()
    records = measure(args)
    report(args, records)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    emit(result="run", games=args.games, every=args.every, placements=len(records),
         seconds=round(wall, 1), cpu_seconds=round(cpu, 1),
         machine=f"{os.cpu_count()} CPUs, load {load:.1f} when started")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
