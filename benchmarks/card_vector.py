"""Steps/s of the card vector env beside the AEC ``cardcassonne_v0`` and PettingZoo's
``connect_four_v3``, in one run.

    python benchmarks/card_vector.py [--players 2] [--sizes 1,16,256,1024] [--seconds 2]

For each number of games ``N`` and with and without observations (``observations=False``:
masks only), a :class:`~carcassonne_rl.envs.card_vector.CardVectorEnv` (with Numba's
threads and, where it shares the games out over them, also with ``num_threads=1``: the
calling thread alone) is stepped with a uniformly random legal action per game
(``random_actions``, one compiled call) and its steps/s counted as games stepped per second
(``N`` per ``step``). In the same run, in turns of a quarter second (a change of the
machine's load touches all alike), the AEC ``cardcassonne_v0`` and ``connect_four_v3`` are
played as ``bench env`` plays them (``last()``, a random legal action from the mask,
``step``). One JSON line per result: ``{"benchmark": "vec", "env": "cardcassonne_v0",
"num_envs", "observations", "num_threads", "parallel", "steps_per_s",
"connect_four_v3_steps_per_s", "ratio", "aec_steps_per_s", "ratio_vs_aec",
"observation_bytes_per_step", ...}``, then one line for the AEC env (``"num_envs": "aec"``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numba
import numpy as np

from carcassonne_rl.envs.card_vector import CardVectorEnv
from carcassonne_rl.testing.bench_env import RandomPlay, make_env

SIZES = (1, 16, 256, 1024)
ENV = "cardcassonne_v0"


class VecPlay:
    """A card vector env stepped with random legal actions, timed slice by slice."""

    def __init__(self, num_envs: int, observations: bool, players: int,
                 num_threads: int | None, seed: int = 0) -> None:  # fmt: skip
        self.env = CardVectorEnv(
            ENV, num_envs, observations=observations, num_threads=num_threads, players=players
        )
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


def main(sizes: tuple[int, ...] = SIZES, seconds: float = 2.0, players: int = 2,
         slice_s: float = 0.25) -> list[dict]:  # fmt: skip
    """Time every (N, observations or not) beside the AEC env and connect_four_v3; prints
    one JSON line per result and returns them."""
    plays: dict[tuple, Any] = {
        ("connect_four_v3",): RandomPlay(lambda: make_env("connect_four_v3")),
        (ENV,): RandomPlay(lambda: make_env(ENV, players=players)),
    }
    for n in sizes:
        for obs in (True, False):
            plays[(n, obs, None)] = VecPlay(n, obs, players, None)
            if plays[(n, obs, None)].env.parallel:  # and the same games in the calling thread
                plays[(n, obs, 1)] = VecPlay(n, obs, players, 1)
    rounds = max(1, round(seconds / slice_s))
    for _ in range(rounds):
        for play in plays.values():
            play.run(seconds / rounds)
    c4 = plays[("connect_four_v3",)].steps_per_s
    aec = plays[(ENV,)].steps_per_s
    config = {"players": players}
    results = []
    for key, play in plays.items():
        if len(key) != 3:
            continue
        n, obs, threads = key
        results.append(
            {
                "benchmark": "vec",
                "env": ENV,
                "num_envs": n,
                "observations": obs,
                "num_threads": threads or numba.get_num_threads(),
                "parallel": play.env.parallel,
                "config": config,
                "steps_per_s": round(play.steps_per_s, 1),
                "connect_four_v3_steps_per_s": round(c4, 1),
                "ratio": round(play.steps_per_s / c4, 2),
                "aec_steps_per_s": round(aec, 1),
                "ratio_vs_aec": round(play.steps_per_s / aec, 2),
                "observation_bytes_per_step": play.bytes_per_step,
                "seconds_each": seconds,
            }
        )
    results.append(
        {
            "benchmark": "vec",
            "env": ENV,
            "num_envs": "aec",
            "config": config,
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


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        msg = f"--sizes must be comma-separated ints, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"--sizes must be positive ints, got {text!r}")
    return sizes


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5))
    parser.add_argument("--sizes", type=_sizes, default=SIZES, help="numbers of games")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per entry")
    args = parser.parse_args()
    main(args.sizes, args.seconds, args.players)
