"""Tile-game agents: greedy, heuristic, MCTS, afterstate values, the search over the next tile."""
