"""Either game as an RLlib ``MultiAgentEnv``: turn-based, one observation per step.

Each episode the learner takes a random seat; the other seats are RLlib agents (``league``
opponents: the learner itself or a frozen snapshot, chosen by the policy mapping of
:mod:`carcassonne_rl.training.rllib.trainer`) or, with probability ``baseline_prob``, a
heuristic baseline (``baselines``: random, greedy) that the env plays itself, as the SB3 trainer's
``OpponentPool`` does. Agent ids say the role, not the seat: ``learner`` and
``opponent_K`` (K seats after the learner), so the policy mapping can tell them apart.

Only the agent to act gets an observation, a dict ``{"observations": encoder observation
from its seat (a tensor; with ``observation="v1"``, ``carcassonne_v1``'s ``{"board",
"globals"}``), "action_mask": int8 per action}``; its reward is everything it received (the env's
``reward_mode``) since its previous action, handed over with that observation. At the end
every agent that acted gets its last observation and reward.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from carcassonne_rl.envs.single_agent import make_raw_env

LEARNER = "learner"


def opponent_id(offset: int) -> str:
    """The agent id of the seat ``offset`` places after the learner."""
    return f"opponent_{offset}"


class TurnBasedMultiAgentEnv(MultiAgentEnv):
    """``env_config`` keys: ``game``, ``players``, ``expansions``, ``window``, ``observation``
    (tile game: ``"v0"`` or ``"v1"``), ``reward_mode``, ``baselines`` (agent specs),
    ``baseline_prob``, ``seed``."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = config or {}
        self.game = config.get("game", "carcassonne")
        self.players = int(config.get("players", 2))
        kwargs: dict[str, Any] = {
            "players": self.players,
            "reward_mode": config.get("reward_mode", "score_diff"),
        }
        if self.game == "carcassonne":
            kwargs["expansions"] = tuple(config.get("expansions", ()))
            if config.get("window") is not None:
                kwargs["window"] = config["window"]
        observation = config.get("observation") or "v0"
        env_name = f"{self.game}_{observation}" if self.game == "carcassonne" else self.game
        self.raw = make_raw_env(env_name, **kwargs).unwrapped
        self.num_actions = int(self.raw.num_actions)
        self.possible_agents = [LEARNER] + [opponent_id(k) for k in range(1, self.players)]
        self.agents = list(self.possible_agents)
        obs_space = gym.spaces.Dict(
            {
                "observations": self.raw.encoder.observation_space,
                "action_mask": gym.spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, gym.spaces.Discrete(self.num_actions)
        )
        self.baselines = tuple(config.get("baselines", ()))
        self.baseline_prob = float(config.get("baseline_prob", 0.0)) if self.baselines else 0.0
        # distinct streams per env runner and vector slot (EnvContext carries both)
        stream = 1000 * getattr(config, "worker_index", 0) + getattr(config, "vector_index", 0)
        self.rng = np.random.default_rng([int(config.get("seed", 0)), stream])
        self._baseline_agents: dict[str, Any] = {}
        self.seat_agent: dict[int, str] = {}  # RLlib-controlled seats of this episode
        self.seat_baseline: dict[int, Any] = {}  # env-played seats of this episode
        self.pending: dict[str, float] = {}
        self.acted: set[str] = set()

    # ------------------------------------------------------------------ helpers
    def _baseline(self, spec: str) -> Any:
        if spec not in self._baseline_agents:
            from carcassonne_rl.agents import make_agent

            self._baseline_agents[spec] = make_agent(spec, self.game)
        return self._baseline_agents[spec]

    def _observation(self, seat: int, to_act: bool) -> dict[str, np.ndarray]:
        obs = self.raw.observe_seat(seat)  # a fresh copy
        mask = self.raw.current_mask() if to_act else np.zeros(self.num_actions, np.int8)
        return {"observations": obs, "action_mask": mask.astype(np.int8, copy=True)}

    def _collect_rewards(self) -> None:
        for seat, agent in self.seat_agent.items():
            self.pending[agent] += float(self.raw.rewards[self.raw.possible_agents[seat]])

    def _play_baselines(self) -> None:
        state = self.raw.game_state
        while not state.is_over and state.current_player in self.seat_baseline:
            seat = state.current_player
            self.raw.step_code(int(self.seat_baseline[seat].act(state, seat)))
            self._collect_rewards()

    def _handover(self, agent: str) -> float:
        """The reward ``agent`` earned since its last action (none before its first)."""
        reward = self.pending[agent] if agent in self.acted else 0.0
        self.pending[agent] = 0.0
        return reward

    # ------------------------------------------------------------------ MultiAgentEnv
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.raw.reset(seed=int(self.rng.integers(2**31 - 1)))
        learner_seat = int(self.rng.integers(self.players))
        self.seat_agent = {learner_seat: LEARNER}
        self.seat_baseline = {}
        for offset in range(1, self.players):
            seat = (learner_seat + offset) % self.players
            if self.baseline_prob and self.rng.random() < self.baseline_prob:
                agent = self._baseline(self.baselines[int(self.rng.integers(len(self.baselines)))])
                agent.reset(int(self.rng.integers(2**31 - 1)))
                self.seat_baseline[seat] = agent
            else:
                self.seat_agent[seat] = opponent_id(offset)
        self.agents = sorted(self.seat_agent.values())
        self.pending = dict.fromkeys(self.agents, 0.0)
        self.acted = set()
        self._play_baselines()  # a game never ends before every seat has played
        seat = self.raw.game_state.current_player
        return {self.seat_agent[seat]: self._observation(seat, True)}, {}

    def step(self, action_dict: dict[str, Any]):
        raw = self.raw
        seat = raw.game_state.current_player
        agent = self.seat_agent[seat]
        action = int(action_dict[agent])
        self.acted.add(agent)
        if not raw.is_legal_index(action):  # the masked module never does this
            obs = {agent: self._observation(seat, False)}
            done = {agent: True, "__all__": True}
            return obs, {agent: -1.0}, done, {"__all__": False}, {agent: {"illegal": action}}
        raw.step(action)
        self._collect_rewards()
        self._play_baselines()
        if raw.game_state.is_over:
            ended = [(s, a) for s, a in self.seat_agent.items() if a in self.acted]
            obs = {a: self._observation(s, False) for s, a in ended}
            rewards = {a: self._handover(a) for _, a in ended}
            terminated = {a: True for _, a in ended} | {"__all__": True}
            return obs, rewards, terminated, {"__all__": False}, {}
        nxt = self.seat_agent[raw.game_state.current_player]
        obs = {nxt: self._observation(raw.game_state.current_player, True)}
        rewards = {nxt: self._handover(nxt)} if nxt in self.acted else {}
        return obs, rewards, {"__all__": False}, {"__all__": False}, {}
