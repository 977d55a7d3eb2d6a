"""A stable-baselines3 ``VecEnv`` over a vector env of either game: one learner seat, the other
seats played by an opponent, all games stepped together (needs the ``train`` extra).

``SB3VecEnv(name="carcassonne_v1", num_envs=64, learner_seat=0, opponent=None, seed=None,
**env_kwargs)`` over ``make_vec(name, num_envs, **env_kwargs)`` (``carcassonne_v0``,
``carcassonne_v1`` or ``cardcassonne_v0``): every game stands at the learner's decision
between steps. A step applies the learner's actions, then lets the opponent move in every
game where another seat is to move, batched, until each game is back at the learner (or
over). ``opponent``:

- ``None``: a uniformly random legal action (one compiled call for all games);
- a callable ``opponent(obs, masks, games) -> actions``: ``obs`` the vector env's
  observation dict (all games, each seen by its acting seat), ``masks`` ``[N, A]``,
  ``games`` the indices of the games where an opponent is to move; it returns their action
  indices (``len(games)`` ints).

Observations are the AEC env's without the mask (``carcassonne_v1``: the dict ``{"board",
"globals"}``, for SB3's ``MultiInputPolicy``; ``carcassonne_v0``'s planes and
``cardcassonne_v0``'s vector: an array); ``env_method("action_masks")`` gives the
learner's masks, as sb3-contrib's ``MaskablePPO`` asks for them. The reward is the learner
seat's reward summed from its action to its next decision or the end; a finished game is
dealt again at once (``infos[i]["terminal_observation"]``: its last observation, as the
vector env gives it; the rewards of the opponents' moves before the learner's first
decision of the new game are not counted, as in
:class:`~carcassonne_rl.envs.single_agent.SingleAgentEnv`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from carcassonne_rl.envs.registry import make_vec

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """The learner's view of ``num_envs`` games (see the module docstring)."""

    def __init__(
        self,
        name: str = "carcassonne_v1",
        num_envs: int = 64,
        learner_seat: int = 0,
        opponent: Callable[[dict, np.ndarray, np.ndarray], Any] | None = None,
        seed: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        self.venv = make_vec(name, num_envs, **env_kwargs)
        n = self.venv.players
        if isinstance(learner_seat, bool) or learner_seat not in range(n):
            raise ValueError(f"learner_seat must be in 0..{n - 1}, got {learner_seat!r}")
        if opponent is not None and not callable(opponent):
            raise ValueError(f"opponent must be None or a callable, got {opponent!r}")
        self.learner_seat = learner_seat
        self.opponent = opponent
        self._rng = np.random.default_rng(seed)
        self._first_seed = seed
        single = self.venv.single_observation_space
        parts = {k: v for k, v in single.spaces.items() if k != "action_mask"}
        obs_space = spaces.Dict(parts) if len(parts) > 1 else next(iter(parts.values()))
        self.render_mode = self.venv.render_mode
        super().__init__(num_envs, obs_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._obs: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ VecEnv API
    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else self._first_seed
        self._first_seed = None
        self._obs, infos = self.venv.reset(seed=seed)
        self._reset_seeds()
        n = self.num_envs
        ignored = np.zeros(n, np.float32), [{} for _ in range(n)]
        self._to_learner(np.ones(n, np.bool_), np.zeros(n, np.bool_), *ignored)
        return self._learner_obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self):
        n = self.num_envs
        done = np.zeros(n, np.bool_)
        reward = np.zeros(n, np.float32)
        info_list: list[dict[str, Any]] = [{} for _ in range(n)]
        self._play(self._actions, np.zeros(n, np.bool_), done, reward, info_list)
        self._to_learner(done, done, reward, info_list)
        return self._learner_obs(), reward, done, info_list

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool masks of the learner's decisions."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        ids = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in ids]
        if method_name == "render":
            return [self.venv.render(i) for i in ids]
        raise AttributeError(f"SB3VecEnv has no per-game method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    # ------------------------------------------------------------------ internals
    def _play(self, actions, skip, done, reward, info_list) -> None:
        """One vector step; the learner's rewards of the games not in ``skip`` are added to
        ``reward``, and those of them that end are flagged in ``done`` with their infos."""
        self._obs, rewards, term, trunc, infos = self.venv.step_some(actions)
        reward += np.where(skip, 0.0, rewards[:, self.learner_seat]).astype(np.float32)
        for i in np.flatnonzero((term | trunc) & ~skip):
            done[i] = True
            info_list[i]["terminal_observation"] = self._strip(infos["final_obs"][i])
            info_list[i]["scores"] = infos["final_info"]["scores"][i].tolist()
            if "illegal_action" in infos and infos["_illegal_action"][i]:
                info_list[i]["illegal_action"] = int(infos["illegal_action"][i])
        skip |= term | trunc

    def _to_learner(self, skip, done, reward, info_list) -> None:
        """Let the opponents move wherever the learner is not to move (see ``_play``; a game
        in ``skip`` started anew: its opening moves are not counted)."""
        skip = skip.copy()
        while True:
            games = np.flatnonzero(self.venv.seats != self.learner_seat)
            if len(games) == 0:
                return
            actions = np.full(self.num_envs, -1, np.int64)
            actions[games] = self._opponent_actions(games)
            self._play(actions, skip, done, reward, info_list)

    def _opponent_actions(self, games: np.ndarray) -> np.ndarray:
        if self.opponent is None:
            return self.venv.random_actions(self._rng)[games]
        chosen = np.asarray(self.opponent(self._obs, self._obs["action_mask"], games), np.int64)
        if chosen.shape != (len(games),):
            raise ValueError(f"the opponent returned {chosen.shape} actions for {len(games)} games")
        return chosen

    def _strip(self, obs: dict[str, np.ndarray]) -> Any:
        parts = {k: v for k, v in obs.items() if k != "action_mask"}
        return parts if len(parts) > 1 else next(iter(parts.values()))

    def _learner_obs(self) -> Any:
        parts = {k: v.copy() for k, v in self._obs.items() if k != "action_mask"}
        return parts if len(parts) > 1 else next(iter(parts.values()))
