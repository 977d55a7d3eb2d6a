"""Baseline agents (random, greedy, MCTS) for both games, behind one protocol (``Agent``).

``make_agent("greedy", "carcassonne", seed=0).act(state, player) -> action code``.
"""

from carcassonne_rl.agents.base import Agent, BaseAgent, ViewAgent
from carcassonne_rl.agents.registry import NAMES, make_agent
from carcassonne_rl.games.registry import GAMES

__all__ = ["GAMES", "NAMES", "Agent", "BaseAgent", "ViewAgent", "make_agent"]
