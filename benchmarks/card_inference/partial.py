"""Partial result of an arena log (games.jsonl): the agent's win share per deal (ties half)
with a 95% interval over the complete deals, and CPU ms per decision of both."""

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

agent = sys.argv[2] if len(sys.argv) > 2 else "search(infer=heuristic)"
games = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
by = defaultdict(list)
cpu = defaultdict(float)
dec = defaultdict(int)
for g in games:
    for s, name in enumerate(g["seats"]):
        cpu[name] += g["cpu_seconds"][s]
        dec[name] += g["decisions"][s]
        if name == agent:
            w = (1.0 / len(g["winners"])) if s in g["winners"] else 0.0
            by[g["deal"]].append(w)
deals = [sum(v) / len(v) for v in by.values() if len(v) == 2]
n = len(deals)
m = sum(deals) / n
sd = math.sqrt(sum((x - m) ** 2 for x in deals) / (n - 1)) if n > 1 else float("nan")
h = 1.96 * sd / math.sqrt(n)
ms = {k: round(1000 * cpu[k] / dec[k], 1) for k in cpu}
other = [k for k in ms if k != agent][0]
print(
    json.dumps(
        {
            "games": len(games),
            "deals": n,
            "win_rate": round(m, 3),
            "ci95": [round(m - h, 3), round(m + h, 3)],
            "cpu_ms_per_decision": ms,
            "cpu_ratio": round(ms[agent] / ms[other], 2),
        }
    )
)
