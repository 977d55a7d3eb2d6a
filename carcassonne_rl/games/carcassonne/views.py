"""A seat's view of the tile game: what a player at the table sees, and nothing more.

:class:`TileView` is built from a state and a seat. It answers every public query of the
state (board, placed tiles and followers, scores and figures, followers left, the tile to
place, the counts of the undrawn tiles, the discarded tiles, the message cards drawn, the
legal codes) from a private copy in which the hidden part (the order of the undrawn tiles,
and with The Messages the order of the message cards not drawn yet) is sorted: the view holds
nothing of the true order. :meth:`TileView.sample_world` draws a full world for search (the
engine's one redraw, ``State.resample_hidden``, applied to that copy, so it equals
``state.resample_hidden(rng)``); :meth:`TileView.public_world` is the sorted stand-in itself,
for agents that only look at the turn being decided. Reading ``draw_order`` or
``message_order`` raises ``AttributeError`` with what to use instead.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from . import layout as L
from .actions import Action
from .config import GameConfig
from .position import KernelArrays, PlacedFollower, ScoreEvent
from .state import State

__all__ = ["HIDDEN_ORDER", "TileView", "for_agent", "tile_view"]

HIDDEN_ORDER = (
    "the undrawn order is hidden from agents: an agent decides from its seat's view "
    "(TileView); read the counts with view.remaining_tiles(), or draw a full world for "
    "search with view.sample_world(rng)"
)


def _sorted_world(state: State) -> State:
    """A clone of ``state`` with the undrawn tiles and the undrawn message cards sorted."""
    world = state.clone()
    ints = world._ints
    lo, hi = L.O_DECK + int(ints[L.R_DECKPOS]), L.O_DECK + int(ints[L.R_DECKLEN])
    ints[lo:hi] = np.sort(ints[lo:hi])
    seen = int(ints[L.R_MSGPOS])
    if world.config.messages and seen < L.NUM_MESSAGES:
        mlo, mhi = L.O_MSGDECK + seen, L.O_MSGDECK + L.NUM_MESSAGES
        ints[mlo:mhi] = np.sort(ints[mlo:mhi])
    return world


class TileView:
    """What seat ``player`` sees of a tile-game state (read-only; see the module doc)."""

    __slots__ = ("player", "_world")

    def __init__(self, state: State, player: int) -> None:
        if not isinstance(state, State):
            raise ValueError(f"TileView needs a tile-game State, got {type(state).__name__}")
        n = state.config.players
        if not 0 <= int(player) < n:
            raise ValueError(f"player must be in 0..{n - 1}, got {player}")
        self.player = int(player)
        self._world = _sorted_world(state)

    # ------------------------------------------------------------------ hidden: refused
    @property
    def draw_order(self) -> str:
        raise AttributeError(HIDDEN_ORDER)

    @property
    def message_order(self) -> str:
        raise AttributeError(HIDDEN_ORDER)

    # ------------------------------------------------------------------ worlds for search
    def sample_world(self, rng: random.Random | int | None) -> State:
        """A full state consistent with this view: the undrawn tiles (and the message cards
        not drawn yet) in an order drawn by ``rng`` (``State.resample_hidden``)."""
        return self._world.resample_hidden(rng, self.player)

    def public_world(self) -> State:
        """A full state (a fresh copy) whose hidden part is in sorted order: a fixed stand-in
        the same for every true order, for looking at the turn being decided (its draws
        after that turn carry no information)."""
        return self._world.clone()

    def kernel_arrays(self) -> KernelArrays:
        """The position's arrays for layout-aware readers, read-only, the hidden part sorted."""
        arrays = []
        for a in self._world.kernel_arrays():
            ro = a.view()
            ro.flags.writeable = False
            arrays.append(ro)
        return KernelArrays(*arrays)

    # ------------------------------------------------------------------ the decision
    @property
    def config(self) -> GameConfig:
        return self._world.config

    @property
    def history(self) -> list[int]:
        """The codes played so far (a copy)."""
        return list(self._world.history)

    @property
    def phase(self) -> str:
        return self._world.phase

    @property
    def phase_index(self) -> int:
        return self._world.phase_index

    @property
    def is_over(self) -> bool:
        return self._world.is_over

    @property
    def current_player(self) -> int:
        return self._world.current_player

    @property
    def active_player(self) -> int:
        return self._world.active_player

    @property
    def current_tile(self) -> str | None:
        return self._world.current_tile

    @property
    def turn(self) -> int:
        return self._world.turn

    def legal_action_codes(self) -> np.ndarray:
        return self._world.legal_action_codes()

    def legal_codes(self) -> list[int]:
        return self._world.legal_codes()

    def legal_actions(self) -> list[Action]:
        return self._world.legal_actions()

    def code_to_action(self, code: int) -> Action:
        return self._world.code_to_action(code)

    def action_to_code(self, action: Action) -> int:
        return self._world.action_to_code(action)

    def action_to_string(self, action: Action | int) -> str:
        return self._world.action_to_string(action)

    def parse_action(self, text: str) -> int:
        return self._world.parse_action(text)

    # ------------------------------------------------------------------ the table
    @property
    def scores(self) -> np.ndarray:
        return self._world.scores

    @property
    def figures(self) -> np.ndarray:
        return self._world.figures

    @property
    def followers_left(self) -> np.ndarray:
        return self._world.followers_left

    @property
    def message_card(self) -> int | None:
        return self._world.message_card

    @property
    def messages_drawn(self) -> int:
        return self._world.messages_drawn

    @property
    def messages_seen(self) -> list[int]:
        return self._world.messages_seen

    @property
    def pending_award(self) -> tuple[int, int] | None:
        return self._world.pending_award

    def virtual_scores(self) -> np.ndarray:
        return self._world.virtual_scores()

    @property
    def tiles_drawn(self) -> int:
        return self._world.tiles_drawn

    @property
    def tiles_left(self) -> int:
        return self._world.tiles_left

    def remaining_tiles(self) -> dict[str, int]:
        """The undrawn tiles (the one being placed aside), counted by letter."""
        return self._world.remaining_tiles()

    @property
    def discarded(self) -> list[str]:
        return self._world.discarded

    @property
    def num_tiles_placed(self) -> int:
        return self._world.num_tiles_placed

    def placed_tiles(self) -> list[tuple[str, int, int, int]]:
        return self._world.placed_tiles()

    def tile_at(self, x: int, y: int) -> tuple[str, int] | None:
        return self._world.tile_at(x, y)

    def placed_followers(self) -> list[PlacedFollower]:
        return self._world.placed_followers()

    @property
    def score_events(self) -> list[ScoreEvent]:
        return self._world.score_events

    def winners(self) -> list[int]:
        return self._world.winners()

    def __repr__(self) -> str:
        return f"<TileView seat={self.player} of {self._world!r}>"

    def __getattr__(self, name: str) -> Any:
        if name in ("draw_order", "message_order"):
            raise AttributeError(HIDDEN_ORDER)
        raise AttributeError(
            f"a TileView has no {name!r}: agents are handed their seat's view, not the engine "
            "state; for a full state to play on use view.sample_world(rng) (the undrawn order "
            "redrawn) or view.public_world()"
        )


def tile_view(state: State, player: int) -> TileView:
    """What seat ``player`` sees of ``state``."""
    return TileView(state, player)


def for_agent(state: Any, player: int, agent: Any = None) -> Any:
    """What ``agent.act`` is handed for seat ``player``: a tile-game state becomes the seat's
    :class:`TileView`; anything else (a view, a card-game state, whose agents build their view
    themselves) is passed on unchanged, and so is the state for an agent that declares
    ``reads_hidden_order`` (a measuring instrument kept as it played: ``tile-search-v1``)."""
    if not isinstance(state, State) or getattr(agent, "reads_hidden_order", False):
        return state
    return TileView(state, player)
