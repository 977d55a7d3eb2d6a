"""The default opponent of :class:`~carcassonne_rl.envs.single_agent.SingleAgentEnv`."""

from __future__ import annotations

import random
from typing import Any


class RandomOpponent:
    """Plays a uniformly random legal action (Agent protocol: ``reset``, ``act``)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, state: Any, player: int) -> int:
        codes = state.legal_action_codes()
        return int(codes[self.rng.randrange(len(codes))])
