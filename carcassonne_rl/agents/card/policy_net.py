"""The card game's shipped policy network as an agent: the legal action with the highest logit."""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent, world_of
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError, single_threaded_blas

CARD_POLICY_KIND = "card_policy"


class CardNetAgent(BaseAgent):
    """A card-game policy network: the legal action with the highest logit."""

    def __init__(self, net: MLP, seed: int | None = None, name: str = "pretrained") -> None:
        from carcassonne_rl.encoders.card.encoder import CardEncoder

        super().__init__(seed)
        if net.meta.get("kind") != CARD_POLICY_KIND:
            raise ModelFileError(f"not a card policy network: {net.meta.get('kind')!r}")
        self.net = net
        self.encoder = CardEncoder()
        self.name = name
        single_threaded_blas()

    def decide(self, v: Any, legal: list[int]) -> int:
        codes = legal
        if len(codes) == 1:
            return int(codes[0])
        state, player = world_of(v), v.player
        obs = self.encoder.encode(state, player)  # the seat's own view: nothing hidden
        logits = self.net.forward(obs[None])[0]
        idx = [self.encoder.index_of(state, int(c)) for c in codes]
        return int(codes[int(np.argmax(logits[idx]))])
