"""Record self-play games for the temperature fit:
``python benchmarks/card_inference/record_selfplay.py OUT FIRST COUNT [PLAYERS [AGENT]]`` (2
players unless PLAYERS, ``card-search-v1`` in every seat unless AGENT, a card agent spec;
games ``10000 + g``, agents seeded ``1000 g + seat``)."""

import sys
import time
from pathlib import Path

from carcassonne_rl.agents.registry import make_agent
from carcassonne_rl.games.cardcassonne import new_game
from carcassonne_rl.games.cardcassonne.config import GameConfig

out = Path(sys.argv[1])
first, count = int(sys.argv[2]), int(sys.argv[3])
players = int(sys.argv[4]) if len(sys.argv) > 4 else 2
spec = sys.argv[5] if len(sys.argv) > 5 else "card-search-v1"
out.mkdir(parents=True, exist_ok=True)
for g in range(first, first + count):
    a = [make_agent(spec, "cardcassonne", 1000 * g + q) for q in range(players)]
    s = new_game(GameConfig(players=players, seed=10_000 + g))
    t = time.process_time()
    while not s.is_over:
        p = s.current_player
        s.apply_code(a[p].act(s, p))
    (out / f"game{g:03d}.json").write_text(s.to_json())
    print(g, round(time.process_time() - t, 1), flush=True)
