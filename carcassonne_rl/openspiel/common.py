"""What both OpenSpiel games share: utilities, game types, and the holders that make cloning a
state cheap.

OpenSpiel clones a Python state by building a fresh initial state and deep-copying every
attribute. An engine state is never changed once it is held by an OpenSpiel state (every
action is applied to a copy, see ``resolve`` in the game modules), so :class:`Frozen` shares
it between clones instead of copying it, and pickles it (OpenSpiel's ``serialize``) as the
engine's own JSON record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from carcassonne_rl.games import registry

REWARD_MODES = ("win_loss", "score_diff")
SCORE_SCALE = 100.0  # as envs/game_env.py: score_diff shaping is (relative score) / 100
# A bound on |own score - mean of the others| / SCORE_SCALE in either game (scores stay far
# below 1,000 points), so that [min_utility, max_utility] holds every score_diff return.
MAX_MARGIN = 10.0


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {mode!r}")
    return mode


def check_players(players: int) -> int:
    return registry.check_players(None, players)


def win_loss(players: int, winners: list[int]) -> np.ndarray:
    """Terminal reward of the envs: a sole winner +1, the others -1; winners sharing the win
    (the engine's ``winners()``, after its tie-break) 0, the others -1."""
    out = np.full(players, -1.0)
    out[winners] = 1.0 if len(winners) == 1 else 0.0
    return out


def relative(scores: np.ndarray) -> np.ndarray:
    """Per seat: (own score - mean of the other seats' scores) / SCORE_SCALE."""
    s = scores.astype(np.float64)
    n = len(s)
    return (s - (s.sum() - s) / (n - 1)) / SCORE_SCALE


def returns_of(engine: Any, over: bool, mode: str) -> list[float]:
    """What each seat has received so far under ``mode`` (the envs' rewards summed), from an
    engine state (``scores``, ``winners()``); ``over``: the game has ended."""
    scores = engine.scores
    out = np.zeros(len(scores))
    if mode == "score_diff":
        out += relative(scores)
    if over:
        out += win_loss(len(scores), engine.winners())
    return [float(x) for x in out]


def game_type(
    short_name: str,
    long_name: str,
    information: Any,
    players: int,
    reward_mode: str,
    parameters: dict[str, Any],
    info_state_tensor: bool,
) -> pyspiel.GameType:
    """The GameType of one configuration: zero-sum for 2 players (both reward modes are),
    general-sum for more (one +1, the rest -1)."""
    utility = (
        pyspiel.GameType.Utility.ZERO_SUM if players == 2 else pyspiel.GameType.Utility.GENERAL_SUM
    )
    rewards = (
        pyspiel.GameType.RewardModel.REWARDS
        if reward_mode == "score_diff"
        else pyspiel.GameType.RewardModel.TERMINAL
    )
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=utility,
        reward_model=rewards,
        max_num_players=5,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=info_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def utility_range(reward_mode: str) -> tuple[float, float]:
    extra = MAX_MARGIN if reward_mode == "score_diff" else 0.0
    return -1.0 - extra, 1.0 + extra


class Shared:
    """Something every clone of a state may share (the game's configuration and encoder):
    ``deepcopy`` returns it as is; pickling rebuilds it from ``rebuild(*args)``."""

    __slots__ = ("value", "_rebuild")

    def __init__(self, value: Any, rebuild: tuple[Callable[..., Any], tuple]) -> None:
        self.value = value
        self._rebuild = rebuild

    def __deepcopy__(self, memo: dict) -> Shared:
        return self

    def __reduce__(self):
        return (_shared_from, self._rebuild)


def _shared_from(build: Callable[..., Any], args: tuple) -> Shared:
    return Shared(build(*args), (build, args))


class Frozen:
    """An engine state that no one changes any more, with what is derived from it once
    (legal action indices): shared by clones, pickled as the engine's JSON record."""

    __slots__ = ("engine", "legal", "_load")

    def __init__(self, engine: Any, load: Callable[[str], Any]) -> None:
        self.engine = engine
        self.legal: list[int] | None = None
        self._load = load

    def __deepcopy__(self, memo: dict) -> Frozen:
        return self

    def __reduce__(self):
        return (_frozen_from, (self.engine.to_json(), self._load))


def _frozen_from(record: str, load: Callable[[str], Any]) -> Frozen:
    return Frozen(load(record), load)


class EngineState(pyspiel.State):
    """What both games' OpenSpiel states share: ``_frozen`` holds the engine state of the last
    completed action, ``_pending`` an action waiting for chance outcomes (None when there is
    none), ``_shared.value[:2]`` the game's engine config and reward mode."""

    _frozen: Frozen | None
    _pending: Any
    _shared: Shared
    _returns: tuple[float, ...]
    _rewards: tuple[float, ...]

    @property
    def engine(self) -> Any:
        """The engine state of the last completed action (do not change it)."""
        return None if self._frozen is None else self._frozen.engine

    def current_player(self) -> int:
        if self._pending is not None:
            return pyspiel.PlayerId.CHANCE
        if self.engine.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.engine.current_player

    def is_terminal(self) -> bool:
        return self._pending is None and self.engine.is_over

    def returns(self) -> list[float]:
        return list(self._returns)

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def _compute_returns(self) -> list[float]:
        engine = self.engine
        if engine is None:
            return [0.0] * self._shared.value[0].players
        over = self._pending is None and engine.is_over
        return returns_of(engine, over, self._shared.value[1])
