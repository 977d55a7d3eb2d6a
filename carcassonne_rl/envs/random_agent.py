"""Uniformly random legal play of either game: the one :class:`RandomAgent`.

It lives on the envs floor so that :class:`~carcassonne_rl.envs.single_agent.SingleAgentEnv`
can use it as its default opponent; :mod:`carcassonne_rl.agents.random_agent` re-exports it
(``make_agent("random")``).
"""

from __future__ import annotations

import random
from typing import Any

from carcassonne_rl.games.carcassonne.views import for_agent


class RandomAgent:
    """Picks uniformly among the legal action codes (Agent protocol: ``reset``, ``act``).

    Seeding follows :class:`~carcassonne_rl.agents.base.BaseAgent`: ``self.rng`` is a
    ``random.Random(seed)``, and ``reset(None)`` restarts it from the last seed.
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` (or the last seed) makes the choices reproducible."""
        self.seed = seed if seed is not None else self.seed
        self.rng = random.Random(self.seed)

    def act(self, state: Any, player: int) -> int:
        """One ``rng.randrange`` draw over the legal codes, from the seat's view (a tile
        state becomes its :class:`~carcassonne_rl.games.carcassonne.views.TileView`)."""
        v = for_agent(state, player)
        return self.decide(v, v.legal_codes())

    def decide(self, v: Any, legal: list[int]) -> int:
        """One ``rng.randrange`` draw over ``legal``."""
        return int(legal[self.rng.randrange(len(legal))])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
