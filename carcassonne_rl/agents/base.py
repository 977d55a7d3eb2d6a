"""The agent protocol shared by every player of either game (arena, training, human play).

An agent's ``act(state, player)`` returns an engine action code legal for seat ``player``.
Envs give the state as ``env.unwrapped.game_state``; encoders map codes to env action indices
(``index_of`` / ``code_of``).

Hidden information: every built-in agent decides from its seat's view only. ``BaseAgent.act``
builds it (the tile game's :class:`~carcassonne_rl.games.carcassonne.views.TileView`, the card
game's :class:`~carcassonne_rl.games.cardcassonne.views.PlayerView`) and hands only that to
:meth:`BaseAgent.decide`. The callers (arena, envs, play, OpenSpiel bots) hand tile agents a
``TileView`` already (``for_agent``), so an agent of one's own written against the state
reads the public state as before, and reading the undrawn order (``draw_order``) raises
``AttributeError`` naming ``view.sample_world(rng)``, the full world for search.
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
        """An action code legal in ``state`` (an engine state, or a tile seat's
        ``TileView`` as the arena hands it), for seat ``player`` (the seat to decide)."""


class BaseAgent:
    """Common seed handling: ``self.rng`` is a ``random.Random`` reseeded by ``reset``."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else self.seed
        self.rng = random.Random(self.seed)

    def act(self, state: Any, player: int) -> int:
        """Build seat ``player``'s view of ``state`` (or take the view given) and decide."""
        v, legal = seat_view(state, player)
        return int(self.decide(v, legal))

    def decide(self, v: Any, legal: list[int]) -> int:  # pragma: no cover - abstract
        """Choose among ``legal`` from the seat's view ``v``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class ViewAgent(BaseAgent):
    """A card-game agent: decides from the player's view only (``BaseAgent.act``)."""


def world_of(v: Any) -> Any:
    """A full state with nothing hidden from seat ``v.player`` in it, for the encoders that
    take a state and read only that seat's information: a tile view's
    :meth:`~carcassonne_rl.games.carcassonne.views.TileView.public_world`, or for a card
    view a determinization by a fixed generator (the hidden cards are placeholders)."""
    from carcassonne_rl.games.carcassonne.views import TileView

    if isinstance(v, TileView):
        return v.public_world()
    from carcassonne_rl.games.cardcassonne import determinize

    return determinize(v, v.player, random.Random(0))


def seat_view(state: Any, player: int) -> tuple[Any, list[int]]:
    """(seat ``player``'s view of ``state``, the legal codes): a tile-game state or
    :class:`TileView` gives a ``TileView``, a card-game state its ``PlayerView``."""
    from carcassonne_rl.games.carcassonne.state import State as TileState
    from carcassonne_rl.games.carcassonne.views import TileView

    if isinstance(state, TileView):
        return state, state.legal_codes()
    if isinstance(state, TileState):
        v = TileView(state, player)
        return v, v.legal_codes()
    from carcassonne_rl.games.cardcassonne import view

    return view(state, player), state.legal_codes()


def legal_codes(state: Any) -> np.ndarray:
    """Legal action codes of any engine state, as an int array."""
    return np.asarray(state.legal_action_codes(), dtype=np.int64)
