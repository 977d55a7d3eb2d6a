"""A card-game agent that ranks its turn options by a learned afterstate value.

For a turn decision, every legal option is applied to the seat's own view (rows, hand,
follower: ``encoders.features.card``) and all the afterstates are valued by the network in
**one batched forward pass**; the agent plays the best (``epsilon`` > 0: sometimes one of
the next best, for exploration in training). The other decisions (the setup joker's row,
an animal joker's species, a misplaced card) are the card heuristic's. The agent reads
nothing but the view (a :class:`ViewAgent`), so equal views give equal decisions.

The network estimates ``tanh(final margin / value_scale)`` of the seat (own final score -
the best other final score); it is trained by ``train --game cardcassonne --algo
afterstate`` (:mod:`carcassonne_rl.training.afterstate`). Model files carry
``meta["kind"] == CARD_VALUE_KIND``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from carcassonne_rl.agents.base import ViewAgent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError, single_threaded_blas
from carcassonne_rl.agents.tile.afterstate import pick
from carcassonne_rl.encoders.features.card import NUM_CARD_FEATURES, option_features

CARD_VALUE_KIND = "card_afterstate_value"


def load_card_value_net(path: str | Path) -> MLP:
    """A card-game afterstate value network from an ``.npz`` model file."""
    net = MLP.load(path, kind=CARD_VALUE_KIND)
    if net.inputs != NUM_CARD_FEATURES:
        raise ModelFileError(
            f"{path} reads {net.inputs} features; the card feature set has "
            f"{NUM_CARD_FEATURES} in this version"
        )
    return net


class CardValueAgent(ViewAgent):
    """Plays the turn option whose afterstate the network values most."""

    name = "card_value"

    def __init__(self, net: MLP, seed: int | None = None, epsilon: float = 0.0) -> None:
        super().__init__(seed)
        self.net = net
        self.epsilon = epsilon
        self._heuristic = CardHeuristicAgent(seed)
        single_threaded_blas()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._heuristic.reset(seed)

    def values(self, v, codes: list[int]) -> np.ndarray:
        """The network's value of each turn option ``codes`` for ``v.player``."""
        return self.net.forward(option_features(v, codes))[:, 0].astype(np.float64)

    def decide(self, v, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase != "turn":
            return self._heuristic.decide(v, legal)
        return legal[pick(self.values(v, legal), self.rng, self.epsilon)]


__all__ = ["CARD_VALUE_KIND", "CardValueAgent", "load_card_value_net"]
