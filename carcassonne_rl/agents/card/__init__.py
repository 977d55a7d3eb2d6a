"""Cardcassonne agents: row values, greedy, information-set MCTS."""
