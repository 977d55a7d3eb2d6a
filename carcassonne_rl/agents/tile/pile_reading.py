"""``tile-search-v1``: the tile search handed the full state, kept as it played before agents
got their seat's view (see :mod:`carcassonne_rl.agents.tile.search`: where a tile drawn
after a candidate fits nowhere, the tile set aside is the true pile's next)."""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.games.carcassonne.state import State


class PileReadingView:
    """What :class:`PileReadingAgent` hands the search: the full state as the seat's view
    (``public_world`` a copy of it, the true pile included)."""

    __slots__ = ("player", "_state")

    def __init__(self, state: State, player: int) -> None:
        self.player, self._state = player, state

    @property
    def config(self) -> Any:
        return self._state.config

    def legal_codes(self) -> list[int]:
        return self._state.legal_codes()

    def public_world(self) -> State:
        return self._state.clone()

    def sample_world(self, rng: Any) -> State:
        return self._state.resample_hidden(rng, self.player)


class PileReadingAgent(BaseAgent):
    """``tile-search-v1``: the tile search (``inner``, a built search) deciding from the full
    state, as it did before agents got their seat's view. The arena, play and the envs hand
    it the state (``reads_hidden_order``); a measuring instrument kept unchanged, not a
    player to ship (``tile-search-v2`` is the same search from the seat's view)."""

    reads_hidden_order = True

    def __init__(self, inner: BaseAgent, name: str = "tile-search-v1") -> None:
        super().__init__(inner.seed)
        self.inner, self.name = inner, name

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.inner.reset(seed)

    def act(self, state: Any, player: int) -> int:
        if not isinstance(state, State):
            raise ValueError(
                f"{self.name} decides from the full state (it reads the pile order), got a "
                f"{type(state).__name__}: hand it the engine state (for_agent does)"
            )
        v = PileReadingView(state, player)
        return int(self.inner.decide(v, v.legal_codes()))
