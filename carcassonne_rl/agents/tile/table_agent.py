"""The tile game's ``pretrained``: one value agent for 2 players, another for 3-5 seats."""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.agents.tile.afterstate import AfterstateAgent
from carcassonne_rl.agents.tile.blend import PRETRAINED_2P_WEIGHT, BlendedAgent


class TileTableAgent(BaseAgent):
    """The tile game's ``pretrained``: one agent for 2 players, another for 3-5 (each
    built on its network: ``carcassonne_2p.npz`` and ``carcassonne_table.npz``); with
    ``obs``, the observation policy plays the tables it has a network for
    (``obs.tables``: 3, 4 and 5 players), except with The Messages (it has no outputs for
    them). Its values (``decision_values``) are always the value agents' (at 2 players the
    network-heuristic blend)."""

    def __init__(self, two: Any, table: Any, seed: int | None = None, obs: Any = None) -> None:
        super().__init__(seed)
        self.name = "pretrained"
        self.two, self.table, self.obs = two, table, obs

    @classmethod
    def of_networks(cls, two: MLP, table: MLP, seed: int | None = None, obs: Any = None
                    ) -> TileTableAgent:  # fmt: skip
        """The network-only agents (``pretrained``)."""
        return cls(BlendedAgent(two, PRETRAINED_2P_WEIGHT, seed=seed, name="pretrained"),
                   AfterstateAgent(table, seed=seed, name="pretrained"), seed, obs)  # fmt: skip

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        for agent in (self.two, self.table, self.obs):
            if agent is not None:
                agent.reset(seed)

    def values_agent(self, state: Any) -> Any:
        """The value-network agent of this table (what ``decision_values`` reads)."""
        return self.two if state.config.players == 2 else self.table

    def _agent(self, state: Any) -> Any:
        players = state.config.players
        if (
            self.obs is not None
            and players in self.obs.tables
            and "messages" not in state.config.expansions
        ):
            return self.obs
        return self.values_agent(state)

    def act(self, state: Any, player: int) -> int:
        return self._agent(state).act(state, player)

    def decision_values(self, state: Any, player: int) -> tuple[list[int], np.ndarray]:
        """The value network's value of every legal option (see AfterstateAgent)."""
        return self.values_agent(state).decision_values(state, player)
