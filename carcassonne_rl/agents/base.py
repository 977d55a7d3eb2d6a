"""The agent protocol shared by every player of either game (arena, training, human play).

An agent receives the engine state and its seat, and returns an engine action code legal in
that state (``state.legal_action_codes()``). Envs give the state as
``env.unwrapped.game_state``; encoders map codes to env action indices (``index_of`` / ``code_of``).

Hidden information: a tile-game agent may read the state but must not use the order of the
draw pile (search agents resample it: ``state.resample_hidden(rng)``). A card-game agent derives
from :class:`ViewAgent`, whose ``act`` builds the player's information state
(``view(state, player)``) and hands only that to :meth:`ViewAgent.decide`, so hidden cards
cannot reach the decision.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything that plays: a name, a reseed hook and a move chooser."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` makes the agent's choices reproducible."""

    def act(self, state: Any, player: int) -> int:
        """An action code legal in ``state``, for seat ``player`` (the seat to decide)."""


class BaseAgent:
    """Common seed handling: ``self.rng`` is a ``random.Random`` reseeded by ``reset``."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else self.seed
        self.rng = random.Random(self.seed)

    def act(self, state: Any, player: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class ViewAgent(BaseAgent):
    """A card-game agent: decides from the player's view only (structurally)."""

    def act(self, state: Any, player: int) -> int:
        from carcassonne_rl.games.cardcassonne import view

        v = view(state, player)
        legal = state.legal_codes()
        return int(self.decide(v, legal))

    def decide(self, v: Any, legal: list[int]) -> int:  # pragma: no cover - abstract
        """Choose among ``legal`` from the :class:`PlayerView` ``v``."""
        raise NotImplementedError


def legal_codes(state: Any) -> np.ndarray:
    """Legal action codes of any engine state, as an int array."""
    return np.asarray(state.legal_action_codes(), dtype=np.int64)
