"""The tile game's ``pretrained``: one value agent for 2 players, another for 3-5 seats."""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.agents.tile.afterstate import AfterstateAgent
from carcassonne_rl.agents.tile.blend import PRETRAINED_TABLE_WEIGHTS, BlendedAgent

#: the tables where ``pretrained`` plays its observation network (without The Messages),
#: not the table network averaged with the heuristic (chosen by measurement:
#: docs/multiplayer.md)
OBS_TABLES = (5,)


class TileTableAgent(BaseAgent):
    """The tile game's ``pretrained``: one agent for 2 players, another for 3-5 (built on
    their networks: ``pretrained`` plays ``carcassonne_2p_expert.npz`` alone and
    ``carcassonne_table.npz`` averaged with the heuristic), or the agent of ``tables`` for
    its number of players; with
    ``obs``, the observation policy plays the tables of ``obs_tables`` it has a network
    for, except with The Messages (it has no outputs for them). Its values
    (``decision_values``) are always the value agents'."""

    def __init__(self, two: Any, table: Any, seed: int | None = None, obs: Any = None,
                 obs_tables: tuple[int, ...] = OBS_TABLES,
                 tables: dict[int, Any] | None = None) -> None:  # fmt: skip
        super().__init__(seed)
        self.name = "pretrained"
        self.two, self.table, self.obs = two, table, obs
        self.tables = dict(tables or {})
        self.obs_tables = tuple(t for t in obs_tables if obs is not None and t in obs.tables)

    @classmethod
    def of_networks(cls, two: MLP, table: MLP, seed: int | None = None, obs: Any = None,
                    tables: dict[int, MLP] | None = None,
                    obs_tables: tuple[int, ...] = OBS_TABLES) -> TileTableAgent:  # fmt: skip
        """``pretrained``: the 2-player network ``two`` alone (expert iteration's, which learnt
        the search's values, the heuristic's part included), each table network averaged with
        the heuristic at its shipped weight, or at the one its file names (``tables``: another
        table network for some numbers of players); ``obs`` at the tables of ``obs_tables``
        without The Messages."""

        def blended(net: MLP) -> BlendedAgent:
            weight = net.meta.get("heuristic_blend", PRETRAINED_TABLE_WEIGHTS)
            return BlendedAgent(net, weight, seed=seed, name="pretrained")

        return cls(AfterstateAgent(two, seed=seed, name="pretrained"), blended(table), seed, obs,
                   obs_tables, {n: blended(net) for n, net in (tables or {}).items()})  # fmt: skip

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        for agent in (self.two, self.table, self.obs, *self.tables.values()):
            if agent is not None:
                agent.reset(seed)

    @property
    def kernel(self) -> bool:
        """Whether the value agents value their options by the compiled option kernel (the
        default) or by the reference path (a clone per option; the same moves)."""
        return all(a.kernel for a in self._value_agents())

    @kernel.setter
    def kernel(self, on: bool) -> None:
        for agent in self._value_agents():
            agent.kernel = on

    def _value_agents(self) -> list[Any]:
        agents = (self.two, self.table, *self.tables.values())
        return [a for a in agents if hasattr(a, "kernel")]

    def values_agent(self, state: Any) -> Any:
        """The value agent of this table (what ``decision_values`` reads)."""
        return self.value_agent_at(state.config.players)

    def value_agent_at(self, players: int) -> Any:
        """The value agent of a table of ``players``."""
        return self.two if players == 2 else self.tables.get(players, self.table)

    def _agent(self, state: Any) -> Any:
        if state.config.players in self.obs_tables and "messages" not in state.config.expansions:
            return self.obs
        return self.values_agent(state)

    def decide(self, v: Any, legal: list[int]) -> int:
        return self._agent(v).decide(v, legal)

    def decision_values(self, state: Any, player: int) -> tuple[list[int], np.ndarray]:
        """The value agent's value of every legal option (see AfterstateAgent)."""
        return self.values_agent(state).decision_values(state, player)
