"""Baseline agents (random, greedy, MCTS) for both games, behind one protocol (``Agent``).

``make_agent("greedy", "carcassonne", seed=0).act(state, player) -> action code``.
"""

from .base import Agent, BaseAgent, ViewAgent
from .registry import GAMES, NAMES, make_agent

__all__ = ["GAMES", "NAMES", "Agent", "BaseAgent", "ViewAgent", "make_agent"]
