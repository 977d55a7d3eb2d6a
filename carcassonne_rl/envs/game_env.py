"""The AEC environment logic shared by both games (subclassed per game).

Agents are ``player_0`` .. ``player_{n-1}`` (seat order of the engine). Observations are
``{"observation": encoder tensor for that agent ("me first"), "action_mask": int8}``, or,
for an encoder whose observation is itself a dict (``carcassonne_v1``), that dict's parts
with ``"action_mask"`` beside them; the mask is the legal set for the agent to move and all
zeros for the others.

``env.unwrapped.game_state`` is the engine state being played; ``state()`` is PettingZoo's
global state (the whole position, hidden information included, for centralised critics), an
array in ``state_space``; ``observe_seat(seat)`` is a seat's observation without the mask.

Rewards (``reward_mode``):

- ``"win_loss"`` (default): at the end of the game a sole winner gets +1, every other seat
  -1; winners sharing the win (the game's tie rule) get 0, the other seats -1. Zero-sum for
  2 players; with 3-5 players the sum is not zero (one +1, the rest -1).
- ``"score_diff"``: the same terminal reward, plus after every action each seat receives
  the change of (own score - mean of the other seats' scores) / 100. The shaping sums to
  zero over the seats at every step.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from carcassonne_rl.games.registry import check_players

REWARD_MODES = ("win_loss", "score_diff")
SCORE_SCALE = 100.0


class GameEnv(AECEnv):
    """Base class: subclasses provide ``_new_state``, ``_make_observer``, ``_global_state``
    with its ``state_space``, and rendering."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "is_parallelizable": False}

    def __init__(
        self, players: int, encoder: Any, reward_mode: str = "win_loss", render_mode=None
    ) -> None:
        super().__init__()
        check_players(None, players)
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.players = players
        self.reward_mode = reward_mode
        self.render_mode = render_mode
        self.encoder = encoder
        self.num_actions = int(encoder.num_actions)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        mask_space = spaces.Box(0, 1, (self.num_actions,), np.int8)
        # a dict observation (v1) keeps its parts at the top level, beside the mask
        self._dict_observation = isinstance(encoder.observation_space, spaces.Dict)
        if self._dict_observation:
            obs_space = spaces.Dict({**encoder.observation_space.spaces, "action_mask": mask_space})
        else:
            obs_space = spaces.Dict(
                {"observation": encoder.observation_space, "action_mask": mask_space}
            )
        act_space = spaces.Discrete(self.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._zero_mask = np.zeros(self.num_actions, np.int8)
        self._rng, _ = seeding.np_random(None)
        self._state = None
        self._observer = None
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ hooks
    #: keys ``reset(options=...)`` accepts (subclasses list theirs; ``record`` excludes the rest)
    RESET_OPTIONS: tuple[str, ...] = ()

    def _new_state(self, seed: int, options: dict[str, Any]):  # pragma: no cover - abstract
        """A fresh state shuffled by ``seed``, or the position ``options`` ask for."""
        raise NotImplementedError

    def _make_observer(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _after_action(self) -> None:
        """Called after every engine action (subclasses add infos)."""

    def _global_state(self) -> np.ndarray:  # pragma: no cover - abstract
        """The array of :meth:`state` (subclasses; ``state_space`` describes it)."""
        raise NotImplementedError

    @property
    def game_state(self):
        """The engine state being played. Assigning another state (same game, same number
        of players) makes the next observations and masks describe it; prefer
        ``reset(options={"record": ...})``, which also resets rewards and the turn."""
        return self._state

    @game_state.setter
    def game_state(self, state) -> None:
        self._state = state
        self._mask = None

    def state(self) -> np.ndarray:
        """PettingZoo's global state: the whole position, hidden information included, as
        one array in ``state_space`` (for centralised critics; see docs/envs.md). The same
        whichever agent is selected; never shown to the agents by ``observe``."""
        if self._state is None:
            EnvLogger.error_state_before_reset()
        return self._global_state()

    def observe_seat(self, seat: int) -> np.ndarray | dict[str, np.ndarray]:
        """Seat ``seat``'s observation of the current position without the action mask (the
        ``"observation"`` entry of :meth:`observe`, or the dict's parts for ``carcassonne_v1``;
        a fresh copy)."""
        return self._observer.observe(self._state, seat)

    def _check_options(self, options: dict | None) -> dict[str, Any]:
        """``options`` of ``reset``, checked: a dict; ``record`` alone. An unknown key warns
        (``UserWarning``) and is ignored rather than raising, because PettingZoo's
        ``api_test`` probes ``reset`` with ``options={"options": 1}``."""
        if options is None:
            return {}
        if not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        unknown = sorted(str(k) for k in options if k not in self.RESET_OPTIONS)
        if unknown:
            warnings.warn(
                f"ignored unknown reset option(s) {unknown}; {self.metadata['name']} accepts "
                f"{', '.join(self.RESET_OPTIONS)}",
                stacklevel=3,
            )
            options = {k: v for k, v in options.items() if k in self.RESET_OPTIONS}
        if "record" in options and len(options) > 1:
            others = sorted(k for k in options if k != "record")
            raise ValueError(f"reset option 'record' cannot be combined with {others}")
        return options

    # ------------------------------------------------------------------ AEC interface
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game: shuffled by ``seed`` (or the env's generator), or the position
        ``options`` fix (see the subclass: draw order, deal, saved ``record``). Bad
        ``options`` raise ``ValueError`` and leave the env as it was."""
        options = self._check_options(options)
        rng = seeding.np_random(seed)[0] if seed is not None else self._rng
        game_seed = int(rng.integers(0, 2**31 - 1))
        state = self._new_state(game_seed, options)
        if state.is_over:
            raise ValueError("reset options give a game that is already over; nothing to play")
        self._rng = rng
        self.game_state = state
        self._observer = self._make_observer()
        self._observer.reset(state)
        self._mask = None
        self.agents = self.possible_agents[:]
        self._zero_rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards = dict(self._zero_rewards)
        self._cumulative_rewards = dict(self._zero_rewards)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._last_shaping = self._relative_scores()
        self.agent_selection = self.agents[state.current_player]
        self._after_action()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._agent_index[agent]
        state = self._state
        obs = self._observer.observe(state, p)  # a fresh copy
        if p == state.current_player:
            mask = self.current_mask().copy()
        else:
            mask = self._zero_mask.copy()
        if self._dict_observation:
            obs["action_mask"] = mask
            return obs
        return {"observation": obs, "action_mask": mask}

    def current_mask(self) -> np.ndarray:
        """Mask of the pending decision (cached; do not modify)."""
        if self._mask is None:
            if self._state.is_over:
                self._mask = self._zero_mask
            else:
                self._mask = self.encoder.action_mask(self._state)
        return self._mask

    def is_legal_index(self, index: int) -> bool:
        return 0 <= index < self.num_actions and bool(self.current_mask()[index])

    def action_masks(self) -> np.ndarray:
        """Mask of the agent to move, as a bool array (sb3-contrib convention)."""
        return self.current_mask().astype(bool)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._apply_code(self.encoder.code_of(self._state, int(action)))

    def step_code(self, code: int) -> None:
        """Step with an engine action code instead of an action index (for agents that
        choose codes; also reaches moves a small window cannot express)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(None)
            return
        self._apply_code(int(code))

    def _apply_code(self, code: int) -> None:
        agent = self.agent_selection
        state = self._state
        actor = state.current_player
        state.apply_code(code)  # raises IllegalActionError for an illegal action
        self._observer.after_action(state, actor, code)
        self._mask = None
        self._cumulative_rewards[agent] = 0.0
        rewards = dict(self._zero_rewards)
        if self.reward_mode == "score_diff":
            self._add_shaping(rewards)
        if state.is_over:
            self._add_terminal(rewards)
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[(actor + 1) % self.players]
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        self.rewards = rewards
        self._after_action()
        self._accumulate_rewards()

    def _relative_scores(self) -> np.ndarray:
        """Per seat: own score - mean of the other seats' scores."""
        s = self._state.scores.astype(np.float64)
        return s - (s.sum() - s) / (self.players - 1)

    def _add_shaping(self, rewards: dict[str, float]) -> None:
        rel = self._relative_scores()
        delta = (rel - self._last_shaping) / SCORE_SCALE
        self._last_shaping = rel
        for i, a in enumerate(self.possible_agents):
            rewards[a] += float(delta[i])

    def _add_terminal(self, rewards: dict[str, float]) -> None:
        winners = self._state.winners()
        for i, a in enumerate(self.possible_agents):
            if i not in winners:
                rewards[a] += -1.0
            elif len(winners) == 1:
                rewards[a] += 1.0

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode (ansi or rgb_array)")
            return None
        if self.render_mode == "ansi":
            return self.render_text()
        return self.render_image()

    def render_text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def render_image(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass
