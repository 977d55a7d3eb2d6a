"""Record card-search-v1 self-play games for the temperature fit:
``python benchmarks/card_inference/record_selfplay.py OUT FIRST COUNT [PLAYERS]`` (2 players
unless PLAYERS; games ``10000 + g``, agents seeded ``1000 g + seat``)."""

import sys
import time
from pathlib import Path

from carcassonne_rl.agents.registry import make_agent
from carcassonne_rl.games.cardcassonne import new_game
from carcassonne_rl.games.cardcassonne.config import GameConfig

out = Path(sys.argv[1])
first, count = int(sys.argv[2]), int(sys.argv[3])
players = int(sys.argv[4]) if len(sys.argv) > 4 else 2
out.mkdir(parents=True, exist_ok=True)
for g in range(first, first + count):
    a = [make_agent("card-search-v1", "cardcassonne", 1000 * g + q) for q in range(players)]
    s = new_game(GameConfig(players=players, seed=10_000 + g))
    t = time.process_time()
    while not s.is_over:
        p = s.current_player
        s.apply_code(a[p].act(s, p))
    (out / f"game{g:03d}.json").write_text(s.to_json())
    print(g, round(time.process_time() - t, 1), flush=True)
