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
#: model files of the search-value network (expert iteration's student)
CARD_SEARCH_VALUE_KIND = "card_search_value"
#: points per unit of the search-value network's inputs and outputs (margins)
MARGIN_SCALE = 30.0
#: inputs of the search-value network: the afterstate features and the heuristic's margin
NUM_SEARCH_INPUTS = NUM_CARD_FEATURES + 1


def _load(path: str | Path, kind: str, inputs: int, what: str) -> MLP:
    """The network of kind ``kind`` in ``path``, checked to read ``inputs`` numbers."""
    net = MLP.load(path, kind=kind)
    if net.inputs != inputs:
        raise ModelFileError(
            f"{path} reads {net.inputs} inputs; {what} has {inputs} in this version"
        )
    return net


def load_card_value_net(path: str | Path) -> MLP:
    """A card-game afterstate value network from an ``.npz`` model file."""
    return _load(path, CARD_VALUE_KIND, NUM_CARD_FEATURES, "the card feature set")


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


def heuristic_margins(heuristic: CardHeuristicAgent, v, codes: list[int]) -> np.ndarray:
    """The heuristic's projected margin of each turn option, in :data:`MARGIN_SCALE` units."""
    return np.array([m for _, m in heuristic.scored(v, codes)], np.float64) / MARGIN_SCALE


def net_inputs(v, codes: list[int], margins: np.ndarray) -> np.ndarray:
    """The search-value network's inputs of each option: its afterstate features and the
    heuristic's margin (``margins``, from :func:`heuristic_margins`)."""
    x = option_features(v, codes)
    return np.hstack([x, margins.astype(np.float32)[:, None]])


class CardSearchValueAgent(ViewAgent):
    """The search-value network (expert iteration's student) as a player: of the heuristic's
    ``candidates`` best turn options (all with ``None``), it plays the one the network
    values most. Other decisions are the heuristic's. It reads only its view."""

    name = "card_search_value"

    def __init__(self, net: MLP, seed: int | None = None, candidates: int | None = None
                 ) -> None:  # fmt: skip
        super().__init__(seed)
        self.net = net
        meta = net.meta.get("candidates")
        self.candidates = candidates if candidates is not None else meta
        self.heuristic = CardHeuristicAgent(seed)
        single_threaded_blas()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.heuristic.reset(seed)

    def evaluate(self, v, codes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(inputs, heuristic margins, network values) of each turn option ``codes``."""
        margins = heuristic_margins(self.heuristic, v, codes)
        x = net_inputs(v, codes, margins)
        return x, margins, self.net.forward(x)[:, 0].astype(np.float64)

    def ranked_values(self, v, codes: list[int]) -> np.ndarray:
        """The network's values of the heuristic's ``candidates`` best options; the others
        (not evaluated) get values below every candidate's."""
        margins = heuristic_margins(self.heuristic, v, codes)
        if self.candidates is None or len(codes) <= self.candidates:
            keep = np.arange(len(codes))
        else:
            keep = np.argsort(-margins, kind="stable")[: self.candidates]
        x = net_inputs(v, [codes[i] for i in keep], margins[keep])
        out = np.full(len(codes), -1e6)
        out[keep] = self.net.forward(x)[:, 0]
        return out

    def state_value(self, v, legal: list[int]) -> float:
        """The network's estimate of ``v.player``'s final margin (points) at its turn
        decision ``v``: the best of its candidates' values (a search's leaf)."""
        return float(self.ranked_values(v, legal).max()) * MARGIN_SCALE

    def scored(self, v, legal: list[int]) -> list[tuple[int, float]]:
        """(code, value) of each turn option, as a search ranks its candidates."""
        return list(zip(legal, self.ranked_values(v, legal).tolist(), strict=True))

    def decide(self, v, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase != "turn":
            return self.heuristic.decide(v, legal)
        return legal[pick(self.ranked_values(v, legal), self.rng)]


def search_inputs(base, v, codes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(network inputs, heuristic margins, base network's values or NaN) of each option, for
    the teacher games of a search over ``base`` (the heuristic or a
    :class:`CardSearchValueAgent`)."""
    if isinstance(base, CardSearchValueAgent):
        return base.evaluate(v, codes)
    heuristic = base if isinstance(base, CardHeuristicAgent) else CardHeuristicAgent(None)
    margins = heuristic_margins(heuristic, v, codes)
    return net_inputs(v, codes, margins), margins, np.full(len(codes), np.nan)


def load_card_net(path: str | Path) -> MLP:
    """A card search-value network from an ``.npz`` model file."""
    return _load(path, CARD_SEARCH_VALUE_KIND, NUM_SEARCH_INPUTS,
                 "the card search-value network")  # fmt: skip


__all__ = [
    "CARD_SEARCH_VALUE_KIND",
    "CARD_VALUE_KIND",
    "MARGIN_SCALE",
    "NUM_SEARCH_INPUTS",
    "CardSearchValueAgent",
    "CardValueAgent",
    "heuristic_margins",
    "load_card_net",
    "load_card_value_net",
    "net_inputs",
    "search_inputs",
]
