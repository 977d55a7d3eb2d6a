"""``bench env``: steps/s of an env with random legal actions vs PettingZoo's connect_four_v3.

The envs are stepped the same way, in the same process, for ``seconds`` each, taking turns
in slices of a quarter second (a change of the machine's load touches all alike), after a
few untimed warm-up steps (numba kernels compile or load on first use): ``last()``
(full observation and mask of the agent to move), a uniformly random legal action from the
mask, ``step``; terminated agents step ``None``; a finished game is reset. One JSON line:
``{"env", "steps_per_s", "connect_four_v3_steps_per_s", "ratio", ...}``. For
``carcassonne_v1`` the same run also times ``carcassonne_v0`` (same configuration) and adds
``carcassonne_v0_steps_per_s`` and ``ratio_vs_carcassonne_v0``, and both observations' sizes
in bytes (``observation_bytes``: every array of the dict ``last()`` returns, mask included).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

TILE_ENVS = ("carcassonne_v0", "carcassonne_v1")
ENVS = (*TILE_ENVS, "cardcassonne_v0")


def make_env(env_name: str, **kwargs: Any):
    if env_name == "carcassonne_v0":
        from carcassonne_rl.envs import carcassonne_v0

        return carcassonne_v0.env(**kwargs)
    if env_name == "carcassonne_v1":
        from carcassonne_rl.envs import carcassonne_v1

        return carcassonne_v1.env(**kwargs)
    if env_name == "cardcassonne_v0":
        from carcassonne_rl.envs import cardcassonne_v0

        return cardcassonne_v0.env(**kwargs)
    if env_name == "connect_four_v3":
        import pettingzoo

        if "classic/connect_four-v3" in getattr(pettingzoo, "aec_registry", {}):
            # the registry: importing pettingzoo.classic.connect_four_v3 is deprecated
            return pettingzoo.make("aec", "classic/connect_four-v3")
        from pettingzoo.classic import connect_four_v3  # older PettingZoo: no registry

        return connect_four_v3.env()
    raise ValueError(f"unknown env {env_name!r}")


def _warm_up(env: Any, steps: int = 64) -> None:
    """A few steps of the first legal action (the first call of a kernel compiles it)."""
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
        if not env.agents:
            env.reset()


class RandomPlay:
    """An env played by uniformly random legal actions, timed slice by slice."""

    def __init__(self, make: Callable[[], Any], seed: int = 0) -> None:
        self.env = make()
        self.env.reset(seed=seed)
        self.rng = random.Random(seed)
        _warm_up(self.env)  # compiles (or loads) numba kernels outside the timed loop
        self.env.reset(seed=seed)
        self.steps = self.games = 0
        self.seconds = 0.0

    def run(self, seconds: float) -> None:
        """Play for about ``seconds`` more (whole blocks of 256 steps)."""
        env, rng = self.env, self.rng
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            for _ in range(256):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                else:
                    legal = obs["action_mask"].nonzero()[0]
                    env.step(int(legal[int(rng.random() * len(legal))]))
                self.steps += 1
                if not env.agents:
                    self.games += 1
                    env.reset()
            if time.perf_counter() >= deadline:
                break
        self.seconds += time.perf_counter() - t0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds


def interleaved(makes: dict[str, Callable[[], Any]], seconds: float, slice_s: float = 0.25):
    """Each env played for ``seconds`` in total, in turns of ``slice_s`` (so that a change of
    the machine's load touches every env alike); returns the :class:`RandomPlay` of each."""
    plays = {name: RandomPlay(make) for name, make in makes.items()}
    rounds = max(1, round(seconds / slice_s))
    for _ in range(rounds):
        for play in plays.values():
            play.run(seconds / rounds)
    for play in plays.values():
        play.env.close()
    return plays


def steps_per_second(make: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play for ``seconds``; returns steps/s and games finished."""
    play = RandomPlay(make, seed)
    play.run(seconds)
    play.env.close()
    return {"steps_per_s": play.steps_per_s, "games": play.games, "seconds": play.seconds}


def observation_bytes(env_name: str, **kwargs: Any) -> int:
    """Bytes of one observation of ``env_name`` as ``last()`` returns it (every array of the
    dict, action mask included)."""
    env = make_env(env_name, **kwargs)
    env.reset(seed=0)
    obs = env.last()[0]
    env.close()
    return int(sum(part.nbytes for part in obs.values()))


def main(env_name: str, seconds: float = 5.0, players: int = 2, **kwargs: Any) -> dict:
    """Benchmark ``env_name`` against connect_four_v3 (and ``carcassonne_v1`` against
    ``carcassonne_v0``); prints and returns one JSON object."""
    if env_name not in ENVS:
        raise ValueError(f"unknown env {env_name!r}; expected one of {ENVS}")
    kwargs = {"players": players, **kwargs}
    makes = {env_name: lambda: make_env(env_name, **kwargs)}
    if env_name == "carcassonne_v1":
        makes["carcassonne_v0"] = lambda: make_env("carcassonne_v0", **kwargs)
    makes["connect_four_v3"] = lambda: make_env("connect_four_v3")
    plays = interleaved(makes, seconds)
    ours, c4 = plays[env_name], plays["connect_four_v3"]
    result = {
        "benchmark": "env",
        "env": env_name,
        "config": kwargs,
        "steps_per_s": round(ours.steps_per_s, 1),
        "games": ours.games,
        "connect_four_v3_steps_per_s": round(c4.steps_per_s, 1),
        "ratio": round(ours.steps_per_s / c4.steps_per_s, 3),
        "seconds_each": seconds,
    }
    if env_name in TILE_ENVS:
        result["observation_bytes"] = observation_bytes(env_name, **kwargs)
    if "carcassonne_v0" in plays and env_name != "carcassonne_v0":
        v0 = plays["carcassonne_v0"]
        result["carcassonne_v0_steps_per_s"] = round(v0.steps_per_s, 1)
        result["ratio_vs_carcassonne_v0"] = round(ours.steps_per_s / v0.steps_per_s, 3)
        result["carcassonne_v0_observation_bytes"] = observation_bytes("carcassonne_v0", **kwargs)
    print(json.dumps(result))
    return result


if __name__ == "__main__":  # pragma: no cover
    import argparse

    parser = argparse.ArgumentParser(description="env steps/s against connect_four_v3 "
                                     "(the command: carcassonne-rl bench env)")  # fmt: skip
    parser.add_argument("env", nargs="?", default="cardcassonne_v0", choices=ENVS)
    main(parser.parse_args().env)
