"""PettingZoo's three classic wrappers fused into one layer.

``ClassicWrapper(raw)`` behaves like PettingZoo's classic stack
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, -1)))``:

- order enforcement: stepping, observing, rendering or reading ``agents``/``rewards``/...
  before ``reset()`` raises (it *is* an ``OrderEnforcingWrapper``);
- out-of-bounds check: an action that is not an integer (``int`` or numpy integer, not
  ``bool``) in ``action_space(agent)``, or ``None`` from an agent still playing, raises
  :class:`InvalidActionError` (an ``AssertionError``, as PettingZoo's wrapper raises, and a
  ``ValueError``; raised also under ``python -O``) and changes nothing; ``None`` is the only
  action accepted from a terminated agent;
- illegal-move termination: an action that the last action mask forbids ends the game: the
  agent that made it receives ``illegal_reward`` (-1), the others 0, every agent is
  terminated and truncated, and ``infos[agent]["illegal_action"]`` is set. The engine is
  never called with an illegal action.

One layer instead of three keeps per-step overhead low (attribute look-ups through three
``__getattr__`` chains cost more than a Cardcassonne step).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper


class InvalidActionError(ValueError, AssertionError):
    """An env action that is not an index of the action space (or ``None`` while alive)."""


def check_action_index(action: Any, num_actions: int, agent: str) -> int:
    """``action`` as an ``int`` if it is an integer in ``0..num_actions-1``; else raises
    :class:`InvalidActionError` naming the action and what was expected."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        if action is None:
            raise InvalidActionError(
                f"{agent} is still playing: step(None) is only for terminated agents; "
                f"expected an action index 0..{num_actions - 1}"
            )
        raise InvalidActionError(
            f"action {action!r} of type {type(action).__name__} for {agent} is not an "
            f"action index: expected an int (or numpy integer) in 0..{num_actions - 1}"
        )
    if not 0 <= action < num_actions:
        raise InvalidActionError(
            f"action {action!r} for {agent} is out of the action space 0..{num_actions - 1}"
        )
    return int(action)


class ClassicWrapper(OrderEnforcingWrapper):
    """Order enforcement + out-of-bounds assertion + illegal-move termination (see module)."""

    def __init__(self, env: AECEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._illegal_value = float(illegal_reward)
        self._terminated = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        agent = raw.agent_selection
        obs = raw.observe(agent) if observe else None
        return (
            obs,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if dead:
            if action is not None:
                raise InvalidActionError(
                    f"{agent} is terminated or truncated: it may only step with None, "
                    f"got {action!r}"
                )
            raw._was_dead_step(action)
            return
        index = check_action_index(action, raw.num_actions, agent)
        if not raw.is_legal_index(index):
            EnvLogger.warn_on_illegal_move()
            self._terminate_illegal(agent, index)
            return
        raw.step(index)

    def _terminate_illegal(self, agent: str, action: int) -> None:
        raw = self._raw
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0.0)
        raw.rewards[agent] = self._illegal_value
        raw.infos[agent] = {**raw.infos[agent], "illegal_action": action}
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True
