"""Baseline agents (random, greedy, MCTS) for both games, behind one protocol (``Agent``).

``make_agent("greedy", "carcassonne", seed=0).act(state, player) -> action code``.
"""

from carcassonne_rl.agents.base import Agent, BaseAgent, ViewAgent
from carcassonne_rl.agents.registry import GAMES, NAMES, make_agent

__all__ = ["GAMES", "NAMES", "Agent", "BaseAgent", "ViewAgent", "make_agent"]
