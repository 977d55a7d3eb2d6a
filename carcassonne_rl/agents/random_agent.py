"""Uniformly random legal play (both games).

:class:`RandomAgent` is defined once, in :mod:`carcassonne_rl.envs.random_agent` (the default
opponent of ``SingleAgentEnv``), and re-exported here.
"""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.base import ViewAgent
from carcassonne_rl.envs.random_agent import RandomAgent

__all__ = ["CardRandomAgent", "RandomAgent"]


class CardRandomAgent(ViewAgent):
    """Uniform over legal codes, through the view-only path of the card game."""

    name = "random"

    def decide(self, v: Any, legal: list[int]) -> int:
        return legal[self.rng.randrange(len(legal))]
