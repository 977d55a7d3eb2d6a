"""``bench vec``: steps/s of the vector envs beside the AEC envs and connect_four_v3.

For each env (``carcassonne_v0``, ``carcassonne_v1``, ``cardcassonne_v0``), each number of
games ``N`` and with and without observations (``observations=False``: masks only), a
vector env (``make_vec``) is stepped with a uniformly random legal action per game
(``random_actions``, one compiled call) and its steps/s counted as games stepped per second
(``N`` per ``step``). In the same
run, in turns of a quarter second (a change of the machine's load touches all alike), the
AEC envs of the same configuration and PettingZoo's ``connect_four_v3`` are played as
``bench env`` plays them. One JSON line per result: ``{"benchmark": "vec", "env",
"num_envs", "observations", "num_threads", "parallel", "steps_per_s",
"connect_four_v3_steps_per_s", "ratio", "aec_steps_per_s", "ratio_vs_aec",
"observation_bytes_per_step", ...}``, then one line per AEC env. ``threads``: the vector
envs' ``num_threads`` (default: theirs, 1), or a tuple of them, each timed in the same run.
``expansions`` (and any other keyword) apply to the tile envs; the card game has none, its
lines' ``config`` says what it played.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from carcassonne_rl.envs.registry import VECTOR_ENVS
from carcassonne_rl.testing.bench_env import RandomPlay, make_env

VEC_ENVS = VECTOR_ENVS
SIZES = (1, 16, 256, 1024)


class VecPlay:
    """A vector env stepped with random legal actions, timed slice by slice."""

    def __init__(self, make: Callable[[], Any], seed: int = 0) -> None:
        self.env = make()
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)
        for _ in range(8):  # compiles (or loads) the kernels outside the timed loop
            self.env.step(self.env.random_actions(self.rng))
        self.steps = 0
        self.seconds = 0.0

    def run(self, seconds: float) -> None:
        """Step for about ``seconds`` more (at least one step)."""
        env, rng = self.env, self.rng
        t0 = time.perf_counter()
        deadline = t0 + seconds
        calls = 0
        while True:
            env.step(env.random_actions(rng))
            calls += 1
            if time.perf_counter() >= deadline:
                break
        self.steps += calls * env.num_envs
        self.seconds += time.perf_counter() - t0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def bytes_per_step(self) -> int:
        """Bytes of observation (mask included) a step writes per game."""
        return self.env.observation_bytes


def _vec_maker(
    name: str, n: int, observations: bool, threads: int | None, kwargs: dict
) -> Callable[[], Any]:
    def make():
        from carcassonne_rl.envs import make_vec

        more = {} if threads is None else {"num_threads": threads}
        return make_vec(name, num_envs=n, observations=observations, **more, **kwargs)

    return make


def _config(name: str, kwargs: dict) -> dict:
    """The arguments env ``name`` plays with (the card game has no ``expansions``)."""
    if name.startswith("cardcassonne"):
        return {k: v for k, v in kwargs.items() if k != "expansions"}
    return kwargs


def main(
    envs: tuple[str, ...] = VEC_ENVS,
    sizes: tuple[int, ...] = SIZES,
    seconds: float = 2.0,
    players: int = 2,
    slice_s: float = 0.25,
    threads: int | tuple[int, ...] | None = None,
    **kwargs: Any,
) -> list[dict]:
    """Time every (env, N, observations or not) beside the AEC envs and connect_four_v3;
    prints one JSON line per result and returns them."""
    unknown = [e for e in envs if e not in VEC_ENVS]
    if unknown:
        raise ValueError(f"unknown vector env(s) {unknown}; expected some of {VEC_ENVS}")
    kwargs = {"players": players, **kwargs}
    counts = threads if isinstance(threads, tuple) else (threads,)
    plays: dict[tuple, Any] = {
        ("connect_four_v3",): RandomPlay(lambda: make_env("connect_four_v3"))
    }
    for name in envs:
        config = _config(name, kwargs)
        plays[(name,)] = RandomPlay(lambda name=name, config=config: make_env(name, **config))
        for n in sizes:
            for obs in (True, False):
                for k in counts:
                    plays[(name, n, obs, k)] = VecPlay(_vec_maker(name, n, obs, k, config))
    rounds = max(1, round(seconds / slice_s))
    for _ in range(rounds):
        for play in plays.values():
            play.run(seconds / rounds)
    c4 = plays[("connect_four_v3",)].steps_per_s
    results = []
    for key, play in plays.items():
        if len(key) != 4:
            continue
        name, n, obs, _ = key
        aec = plays[(name,)].steps_per_s
        results.append(
            {
                "benchmark": "vec",
                "env": name,
                "num_envs": n,
                "observations": obs,
                "num_threads": play.env.num_threads,
                "parallel": play.env.parallel,
                "config": _config(name, kwargs),
                "steps_per_s": round(play.steps_per_s, 1),
                "connect_four_v3_steps_per_s": round(c4, 1),
                "ratio": round(play.steps_per_s / c4, 2),
                "aec_steps_per_s": round(aec, 1),
                "ratio_vs_aec": round(play.steps_per_s / aec, 2),
                "observation_bytes_per_step": play.bytes_per_step,
                "seconds_each": seconds,
            }
        )
    for name in envs:
        aec = plays[(name,)].steps_per_s
        results.append(
            {
                "benchmark": "vec",
                "env": name,
                "num_envs": "aec",
                "config": _config(name, kwargs),
                "steps_per_s": round(aec, 1),
                "connect_four_v3_steps_per_s": round(c4, 1),
                "ratio": round(aec / c4, 2),
                "seconds_each": seconds,
            }
        )
    for play in plays.values():
        play.env.close()
    for result in results:
        print(json.dumps(result), flush=True)
    return results
