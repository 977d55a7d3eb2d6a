"""Cardcassonne agents: row values, greedy, heuristic, information-set MCTS."""
