"""What the vector envs of both games share (docs/vector_envs.md): arguments, spaces, seeds,
``step`` / ``step_some``, auto-reset infos, one game's state and render, random actions.

A subclass (:class:`~carcassonne_rl.envs.vector.TileVectorEnv`,
:class:`~carcassonne_rl.envs.card_vector.CardVectorEnv`) sets ``names`` (the env names it
plays), its observation buffers ``_obs`` and ``batch`` (the batched engine, with ``scores``,
``seeds`` and ``state(i)``), and implements ``_step_games(actions)`` (one compiled step of
every game, writing ``_rewards``, ``_term``, ``_trunc``, ``_illegal``, ``_seat``, the masks
and the observations) and ``_deal(ids)`` (deal games ``ids`` with the next seed of their
generator and observe them).

``num_threads`` (default 1): 1 steps the games one after the other in the calling thread,
with no hand-off; ``k`` > 1 shares a step out over ``k`` of Numba's threads (``prange``,
from ``PARALLEL_MIN`` games on). Each step then waits for every thread: on cores busy with
other work that wait can cost more than sharing gains (Numba's ``omp`` threading layer
spins while it waits), so one thread, whose cost is the step's own, is the default
(docs/vector_envs.md measures both). The kernels release the GIL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit

__all__ = ["PARALLEL_MIN", "BatchedVectorEnv", "first_out_of_range", "random_legal"]

#: fewer games than this are stepped in the calling thread whatever ``num_threads`` says (a
#: step of so few is shorter than handing it out to the threads)
PARALLEL_MIN = 64


@njit(cache=True, nogil=True)
def first_out_of_range(actions, low, num_actions):
    """The first game whose action is outside ``low..num_actions - 1`` (-1: none)."""
    for i in range(actions.shape[0]):
        if actions[i] < low or actions[i] >= num_actions:
            return i
    return -1


@njit(cache=True, nogil=True)
def random_legal(mask, u, out):
    """``out[i]``: the legal action of rank ``floor(u[i] * legal count)`` in ``mask[i]`` (a
    uniformly random legal action for uniform ``u``; -1 where none is legal)."""
    for i in range(mask.shape[0]):
        row = mask[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a] != 0
        out[i] = -1
        if count == 0:
            continue
        k = min(int(u[i] * count), count - 1)
        for a in range(row.shape[0]):
            if row[a] != 0:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def _check_int(what: str, value: Any, low: int, high: int | None = None) -> int:
    bad = isinstance(value, bool) or not isinstance(value, (int, np.integer))
    if bad or value < low or (high is not None and value > high):
        span = f"an int from {low} to {high}" if high is not None else "a positive int"
        raise ValueError(f"{what} must be {span}, got {value!r}")
    return int(value)


class BatchedVectorEnv(VectorEnv):
    """``num_envs`` games of one AEC env as a ``gymnasium.vector.VectorEnv`` (see the module)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"]}
    names: tuple[str, ...] = ()
    batch: Any
    _obs: dict[str, np.ndarray]

    def __init__(self, name: str, num_envs: int, observations: bool, copy: bool,
                 num_threads: int, make_raw: Callable[[], Any]) -> None:  # fmt: skip
        """Check the arguments, build the AEC env ``make_raw()`` (it checks its own: spaces,
        render) and the arrays every vector env has."""
        if name not in self.names:
            plays = " or ".join(self.names)
            raise ValueError(f"{type(self).__name__} plays {plays}, not {name!r}")
        n = _check_int("num_envs", num_envs, 1)
        self.num_threads = _check_int("num_threads", num_threads, 1, numba.config.NUMBA_NUM_THREADS)
        self.raw = raw = make_raw()
        self.name = name
        self.num_envs = n
        self.observations = bool(observations)
        self.copy = bool(copy)
        self.render_mode = raw.render_mode
        self.metadata = {**self.metadata, "name": f"{name}_vector"}
        self.players = raw.players
        self.encoder = raw.encoder
        self.num_actions = raw.num_actions
        self._score_diff = raw.reward_mode == "score_diff"
        self.single_observation_space = raw.observation_space("player_0")
        self.single_action_space = raw.action_space("player_0")
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        #: whether a step is shared out over Numba's threads (else: the calling thread alone)
        self.parallel = self.num_threads > 1 and n >= PARALLEL_MIN
        self._mask = np.zeros((n, self.num_actions), np.int8)
        self._last_rel = np.zeros((n, self.players), np.float64)
        self._rewards = np.zeros((n, self.players), np.float64)
        self._term = np.zeros(n, np.bool_)
        self._trunc = np.zeros(n, np.bool_)
        self._illegal = np.zeros(n, np.int64)
        self._seat = np.zeros(n, np.int64)
        self._status = np.zeros(n, np.int32)
        self._rngs: list[np.random.Generator] | None = None

    # ------------------------------------------------------------------ subclass's part
    def _step_games(self, actions: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _deal(self, ids: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        """Deal every game (game ``i`` as the AEC env's ``reset(seed=seed + i)``; a list of
        seeds: one per game)."""
        if options is not None:
            raise ValueError("reset options are not supported by the vector env (use the AEC env)")
        n = self.num_envs
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != n:
                raise ValueError(f"reset: {len(seed)} seeds for {n} games")
            self._rngs = [seeding.np_random(None if s is None else int(s))[0] for s in seed]
        elif seed is not None:
            self._rngs = [seeding.np_random(int(seed) + i)[0] for i in range(n)]
        elif self._rngs is None:
            self._rngs = [seeding.np_random(None)[0] for _ in range(n)]
        self._deal(np.arange(n))
        return self._out(), self._infos()

    def step(self, actions):
        """Step every game with its action index: ``(obs, rewards [N, players],
        terminations, truncations, infos)``; a game that ends is dealt again in this step."""
        return self.step_some(actions, waiting=False)

    def step_some(self, actions, waiting: bool = True):
        """:meth:`step`, where an action of -1 (``waiting``) leaves that game as it is (its
        observation stays, its reward is 0): for callers that step only some games."""
        if self._rngs is None:
            raise RuntimeError("step() before reset()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an int array of shape ({self.num_envs},), got "
                f"{actions.dtype} {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        bad = first_out_of_range(actions, -1 if waiting else 0, self.num_actions)
        if bad >= 0:
            raise ValueError(
                f"action {int(actions[bad])} of game {bad} is out of the action space "
                f"0..{self.num_actions - 1}"
            )
        self._threads()
        self._step_games(actions)
        rewards, term, trunc = self._rewards.copy(), self._term.copy(), self._trunc.copy()
        infos: dict[str, Any] = {}
        if term.any():
            ended = np.flatnonzero(term)
            infos = self._final(ended)
            if self._illegal[ended].max() >= 0:  # only an ended game can have an illegal move
                infos["illegal_action"] = self._illegal.copy()
                infos["_illegal_action"] = self._illegal >= 0
            self._deal(ended)
        infos.update(self._infos())  # the seats to move (of the new games where one ended)
        return self._out(), rewards, term, trunc, infos

    def _final(self, ended: np.ndarray) -> dict[str, Any]:
        """``final_obs`` / ``final_info`` of the games that ended in this step."""
        n = self.num_envs
        final_obs = np.full(n, None, dtype=object)
        for i in ended:
            final_obs[i] = {k: v[i].copy() for k, v in self._obs.items()}
        flag = np.zeros(n, np.bool_)
        flag[ended] = True
        scores = np.zeros((n, self.players), np.int64)
        scores[ended] = self.batch.scores[ended]
        seat = np.where(flag, self._seat, 0)
        final_info = {"scores": scores, "_scores": flag, "seat": seat, "_seat": flag}
        return {"final_obs": final_obs, "_final_obs": flag, "final_info": final_info,
                "_final_info": flag}  # fmt: skip

    def _threads(self) -> None:
        """Numba's thread count set for the next compiled call (where a step is shared)."""
        if self.parallel:
            numba.set_num_threads(self.num_threads)

    def _out(self) -> dict[str, np.ndarray]:
        if self.copy:
            return {k: v.copy() for k, v in self._obs.items()}
        return dict(self._obs)

    def _infos(self) -> dict[str, Any]:
        return {"seat": self._seat.copy(), "_seat": np.ones(self.num_envs, np.bool_)}

    # ------------------------------------------------------------------ one game
    def game_state(self, index: int = 0) -> Any:
        """Game ``index`` as an engine state (a copy; its record replays it)."""
        return self.batch.state(self._index(index))

    @property
    def seats(self) -> np.ndarray:
        """The acting seat of each game's current observation (the env's own array)."""
        return self._seat

    @property
    def observation_bytes(self) -> int:
        """Bytes of one game's observation as a step returns it (mask included)."""
        return int(sum(v[0].nbytes for v in self._obs.values()))

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action index per game (int64 ``[N]``; one compiled call)."""
        rng = rng if rng is not None else np.random.default_rng()
        out = np.empty(self.num_envs, np.int64)
        random_legal(self._mask, rng.random(self.num_envs), out)
        return out

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool masks of the acting seats (sb3-contrib's convention)."""
        return self._mask.astype(bool)

    def render(self, index: int = 0) -> str | np.ndarray | None:
        """Game ``index`` drawn by the env's ``render_mode`` (``ansi`` text, ``rgb_array``)."""
        self.raw.game_state = self.game_state(index)
        return self.raw.render()

    def _index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"game index must be an int, got {index!r}")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"game index {index} out of range 0..{self.num_envs - 1}")
        return int(index)

    def close_extras(self, **kwargs: Any) -> None:
        raw = getattr(self, "raw", None)  # None if __init__ raised before making it
        if raw is not None:
            raw.close()
