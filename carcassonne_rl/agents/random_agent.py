"""Uniformly random legal play (both games)."""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.base import BaseAgent, ViewAgent


class RandomAgent(BaseAgent):
    """Picks uniformly among the legal action codes."""

    name = "random"

    def act(self, state: Any, player: int) -> int:
        codes = state.legal_action_codes()
        return int(codes[self.rng.randrange(len(codes))])


class CardRandomAgent(ViewAgent):
    """Uniform over legal codes, through the view-only path of the card game."""

    name = "random"

    def decide(self, v: Any, legal: list[int]) -> int:
        return legal[self.rng.randrange(len(legal))]
