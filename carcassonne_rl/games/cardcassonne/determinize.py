"""Determinization: a full game state consistent with what one seat knows (its
:class:`.views.PlayerView`), the hidden cards sampled uniformly from the unseen ones
(the dealing itself is :func:`.unseen.deal_unseen`; ``State.resample_hidden`` is the same
for a state)."""

from __future__ import annotations

import random

import numpy as np

from .state import State
from .unseen import deal_unseen, unseen_counts
from .views import PlayerView, view

__all__ = ["determinize", "unseen_counts"]


def determinize(
    state_or_view: State | PlayerView,
    player: int,
    rng: random.Random | np.random.Generator | int | None = None,
) -> State:
    """A full state consistent with ``player``'s view, the hidden cards (other hands, others'
    face-down cards, the pile order) sampled uniformly from the unseen cards.

    The result plays on like any state but has no replayable record (``to_json`` raises).
    """
    v = view(state_or_view, player) if isinstance(state_or_view, State) else state_or_view
    if not isinstance(v, PlayerView):
        raise ValueError("determinize expects a State or a PlayerView")
    return deal_unseen(v, player, rng, State)
