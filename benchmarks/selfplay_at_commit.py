"""Afterstate self-play of this tree against the same self-play at an earlier commit, one
JSON line per lineup.

    python benchmarks/selfplay_at_commit.py [--rev REV] [--games N] [--rounds R]

``benchmarks/option_throughput.py --only selfplay`` compares the option kernel with the
reference path kept callable in this tree; that reference shares this tree's engine, which
got faster with the kernel, so it is not the self-play as it was. This script measures the
self-play as it was: it checks ``REV`` out into a temporary git worktree (default: the
commit before the option kernel, the self-play the issue "Many games at once" timed) and
plays the same games there and here, each side in its own process with the repository on
``PYTHONPATH``, alternating the sides for ``R`` rounds. Each side builds the same untrained
network (the learner's seeded initialisation; the cost of a decision does not depend on the
weights), plays a warm-up game (compiles, loads), then times ``play_games`` over the deals
in CPU seconds of its process. Each round runs the two sides back to back (old then new,
then new then old, ...) and gives a ratio; the line reports the median of the rounds'
ratios and their range (these machines change speed from one minute to the next, and a
round's two sides see the same minute). Both sides print a digest of the positions they
recorded: the same digest means the same games.

Lineups as in ``option_throughput.py``: ``training`` (half of the games with one greedy
seat) and ``network`` (every seat the network); 2 players, the default settings.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE_KERNEL = "6a404cd"  # the parent of the commit that brought the option kernel

SIDE = r"""
import hashlib, inspect, json, sys, time
from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, play_games
from carcassonne_rl.training.afterstate.trainer import AfterstateConfig, Learner, export

games, lineup = int(sys.argv[1]), sys.argv[2]
config = AfterstateConfig(workers=1)
net = export(Learner(config).model, config)
deals = list(range(500, 500 + games))
tables = [(2, ())] * games
if lineup == "training":
    seats = [[GREEDY, NET] if g % 4 == 0 else [NET, GREEDY] if g % 4 == 1 else [NET, NET]
             for g in range(games)]
else:
    seats = [[NET, NET] for _ in range(games)]
play_games(config, net.layers, net.meta, deals[:1], None, 0, tables[:1], seats[:1])
decisions, digest = 0, hashlib.sha256()
c0 = time.process_time()
for i in range(0, games, config.games_in_flight):
    part = slice(i, i + config.games_in_flight)
    r = play_games(config, net.layers, net.meta, deals[part], None, 0, tables[part],
                   seats[part])
    decisions += r["decisions"]
    digest.update(r["x"].tobytes())
cpu = time.process_time() - c0
print(json.dumps({"decisions": decisions, "cpu_s": cpu, "digest": digest.hexdigest()[:16]}))
"""


def side(repo: Path, games: int, lineup: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(repo), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", SIDE, str(games), lineup], env=env,
                         capture_output=True, text=True, cwd=repo)  # fmt: skip
    if out.returncode != 0:
        sys.exit(f"self-play failed in {repo}:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rev", default=BEFORE_KERNEL, help="the earlier commit (default: %(default)s)")
    p.add_argument("--games", type=int, default=48, help="games a side a round")
    p.add_argument("--rounds", type=int, default=5, help="rounds of the two sides")
    args = p.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        p.error("--games and --rounds must be at least 1")
    try:
        rev = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"],
                             cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    except FileNotFoundError:
        p.error("git is not installed: the earlier commit is checked out with git worktree")
    if rev.returncode != 0:
        p.error(f"--rev {args.rev!r} is not a commit of {ROOT}")
    sha = rev.stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="selfplay-at-"))
    tree = tmp / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), sha], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    try:
        for lineup in ("training", "network"):
            runs: dict[str, list[dict]] = {"old": [], "new": []}
            for r in range(args.rounds):  # old-new, new-old, ...: a drift hits both sides alike
                order = ("old", "new") if r % 2 == 0 else ("new", "old")
                for k in order:
                    runs[k].append(side(tree if k == "old" else ROOT, args.games, lineup))
            per = {k: [r["decisions"] / r["cpu_s"] for r in v] for k, v in runs.items()}
            ratios = [n / o for o, n in zip(per["old"], per["new"], strict=True)]
            digests = {r["digest"] for v in runs.values() for r in v}
            print(json.dumps({
                "bench": "selfplay_at_commit", "lineup": lineup, "rev": sha[:12],
                "games": args.games, "rounds": args.rounds,
                "decisions": runs["new"][0]["decisions"],
                "old_decisions_per_cpu_s": round(statistics.median(per["old"]), 1),
                "new_decisions_per_cpu_s": round(statistics.median(per["new"]), 1),
                "ratio": round(statistics.median(ratios), 2),
                "ratio_range": [round(min(ratios), 2), round(max(ratios), 2)],
                "same_games": len(digests) == 1,
                "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}",
            }), flush=True)  # fmt: skip
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                       capture_output=True)  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
