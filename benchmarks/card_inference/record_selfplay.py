"""Record card-search-v1 self-play games (2 players) for the temperature fit."""

import sys
import time
from pathlib import Path

from carcassonne_rl.agents.registry import make_agent
from carcassonne_rl.games.cardcassonne import new_game
from carcassonne_rl.games.cardcassonne.config import GameConfig

out = Path(sys.argv[1])
first, count = int(sys.argv[2]), int(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
for g in range(first, first + count):
    a = [make_agent("card-search-v1", "cardcassonne", 1000 * g + q) for q in (0, 1)]
    s = new_game(GameConfig(players=2, seed=10_000 + g))
    t = time.process_time()
    while not s.is_over:
        p = s.current_player
        s.apply_code(a[p].act(s, p))
    (out / f"game{g:03d}.json").write_text(s.to_json())
    print(g, round(time.process_time() - t, 1), flush=True)
