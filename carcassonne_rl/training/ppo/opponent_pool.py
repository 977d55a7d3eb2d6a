"""Opponents for self-play: a pool of the learner's past snapshots plus baseline agents.

Schedule (per opponent seat, drawn afresh at every game; :class:`PoolSchedule`):

- with probability ``latest`` (default 0.5) the most recent snapshot (self-play);
- with probability ``past`` (0.3) a snapshot drawn uniformly from the older ones (so the
  learner keeps beating what it used to beat: no forgetting);
- otherwise (0.2) a baseline agent, drawn uniformly from ``baselines`` (random, greedy).

Before the first snapshot exists, every game is against a baseline. Snapshots are sampled
from (stochastic policies), so that opponents are not one fixed line of play.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PoolSchedule:
    latest: float = 0.5
    past: float = 0.3
    baselines: tuple[str, ...] = ("random", "greedy")

    def __post_init__(self) -> None:
        if not (self.latest >= 0 and self.past >= 0 and self.latest + self.past <= 1):
            raise ValueError(
                f"pool probabilities must be >= 0 and sum to <= 1, got latest={self.latest} "
                f"past={self.past}"
            )
        if not self.baselines and self.latest + self.past < 1:
            raise ValueError("a pool without baselines needs latest + past == 1")


class OpponentPool:
    """One opponent seat of a self-play env (the Agent protocol: ``reset`` / ``act``)."""

    name = "pool"

    def __init__(
        self,
        game: str,
        schedule: PoolSchedule | None = None,
        seed: int | None = None,
        cache_size: int = 6,
    ) -> None:
        self.game = game
        self.schedule = schedule or PoolSchedule()
        self.rng = random.Random(seed)
        self.snapshots: list[str] = []
        self.cache_size = cache_size
        self._loaded: OrderedDict[str, Any] = OrderedDict()
        self._baselines: dict[str, Any] = {}
        self.current: Any = None
        self.current_name = ""

    def set_snapshots(self, paths: list[str]) -> None:
        """The snapshot files, oldest first (the last one is "latest")."""
        self.snapshots = list(paths)

    def _baseline(self, spec: str) -> Any:
        if spec not in self._baselines:
            from carcassonne_rl.agents import make_agent

            self._baselines[spec] = make_agent(spec, self.game)
        return self._baselines[spec]

    def _snapshot(self, path: str) -> Any:
        if path in self._loaded:
            self._loaded.move_to_end(path)
            return self._loaded[path]
        from carcassonne_rl.agents.policy_agent import PolicyAgent

        agent = PolicyAgent.load(path, deterministic=False)
        self._loaded[path] = agent
        while len(self._loaded) > self.cache_size:
            self._loaded.popitem(last=False)
        return agent

    def pick(self) -> str:
        """The name of the opponent for the next game (a snapshot path or a baseline spec)."""
        u = self.rng.random()
        sched = self.schedule
        if self.snapshots and u < sched.latest:
            return self.snapshots[-1]
        if len(self.snapshots) > 1 and u < sched.latest + sched.past:
            return self.rng.choice(self.snapshots[:-1])
        if self.snapshots and not sched.baselines:
            return self.snapshots[-1]
        return self.rng.choice(sched.baselines)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self.current_name = self.pick()
        if self.current_name in self.schedule.baselines:
            self.current = self._baseline(self.current_name)
        else:
            self.current = self._snapshot(self.current_name)
        self.current.reset(self.rng.randrange(2**31))

    def act(self, state: Any, player: int) -> int:
        return self.current.act(state, player)
