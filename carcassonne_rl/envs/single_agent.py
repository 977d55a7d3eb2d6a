"""A single-agent Gymnasium view of either game, for stable-baselines3 / sb3-contrib.

The learner plays one seat (``learner_seat``, or a random seat at each reset); the other
seats are played by ``opponents``: objects with ``act(state, player) -> engine code`` (the
Agent protocol of ``carcassonne_rl.agents``) or callables ``(state, player) -> code``
(default: one :class:`~carcassonne_rl.envs.random_agent.RandomAgent` per seat). The
observation is the encoder's observation of the learner (``carcassonne_v1``: the dict
``{"board", "globals"}``, which SB3's ``MultiInputPolicy`` takes as it is),
``action_masks()`` (a method of the env, so MaskablePPO works through ``SubprocVecEnv``) its
legal actions; the reward is the sum of the learner's rewards (the env's ``reward_mode``)
from its action to its next decision.
An illegal action ends the episode with reward -1 (``info["illegal_action"]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from carcassonne_rl.envs.random_agent import RandomAgent
from carcassonne_rl.envs.registry import env_name, make_raw
from carcassonne_rl.games.carcassonne.views import for_agent


def make_raw_env(game: str, **kwargs: Any):
    """The raw AEC env of ``game`` (``carcassonne``/``cardcassonne``, with or without ``_v0``;
    ``carcassonne_v1``)."""
    return make_raw(env_name(game), **kwargs)


class SingleAgentEnv(gym.Env):
    """One seat of a multi-player game as a Gymnasium env (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        env_fn: Callable[[], Any] | str,
        opponents: Sequence[Any] | Any | None = None,
        learner_seat: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        env = make_raw_env(env_fn, **env_kwargs) if isinstance(env_fn, str) else env_fn()
        self.raw = env.unwrapped
        self.render_mode = self.raw.render_mode
        n = self.raw.players
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be in 0..{n - 1}, got {learner_seat}")
        self.learner_seat = learner_seat
        if opponents is None:
            opponents = [RandomAgent() for _ in range(n - 1)]
        elif not isinstance(opponents, (list, tuple)):
            opponents = [opponents] * (n - 1)
        if len(opponents) != n - 1:
            raise ValueError(f"{n} players need {n - 1} opponents, got {len(opponents)}")
        self.opponents = list(opponents)
        self.observation_space = self.raw.encoder.observation_space
        self.action_space = gym.spaces.Discrete(self.raw.num_actions)
        self.seat = 0

    @property
    def game_state(self):
        """The engine state being played (the raw env's ``game_state``)."""
        return self.raw.game_state

    def _opponent(self, seat: int):
        return self.opponents[(seat - self.seat) % self.raw.players - 1]

    def _obs(self) -> np.ndarray:
        return self.raw.observe_seat(self.seat)

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner (bool), all False once the game is over."""
        return self.raw.current_mask().astype(bool)

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self.raw.reset(seed=int(rng.integers(0, 2**31 - 1)), options=options)
        n = self.raw.players
        self.seat = self.learner_seat if self.learner_seat is not None else int(rng.integers(n))
        for i, opp in enumerate(self.opponents):
            if hasattr(opp, "reset"):
                opp.reset(seed=int(rng.integers(0, 2**31 - 1)) + i)
        reward = self._play_opponents()
        return self._obs(), {"seat": self.seat, "opening_reward": reward}

    def _play_opponents(self) -> float:
        raw = self.raw
        learner = raw.possible_agents[self.seat]
        total = 0.0
        while not raw.game_state.is_over and raw.game_state.current_player != self.seat:
            state = raw.game_state
            player = state.current_player
            opp = self._opponent(player)
            if hasattr(opp, "act"):  # an agent: a tile seat gets its TileView
                code = opp.act(for_agent(state, player, opp), player)
            else:
                code = opp(state, player)
            raw.step_code(int(code))
            total += raw.rewards[learner]
        return total

    def step(self, action: int):
        raw = self.raw
        learner = raw.possible_agents[self.seat]
        action = int(action)
        if not raw.is_legal_index(action):
            return self._obs(), -1.0, True, False, {"illegal_action": action}
        raw.step(action)
        reward = raw.rewards[learner] + self._play_opponents()
        terminated = raw.game_state.is_over
        info = dict(raw.infos[learner])
        if terminated:
            info["scores"] = raw.game_state.scores.tolist()
            info["winners"] = raw.game_state.winners()
        return self._obs(), float(reward), terminated, False, info

    def render(self):
        return self.raw.render()
