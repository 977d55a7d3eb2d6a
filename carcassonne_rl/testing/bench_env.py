"""``bench env``: steps/s of an env with random legal actions vs PettingZoo's connect_four_v3.

Both envs are stepped the same way, in the same process, for ``seconds`` each: ``last()``
(full observation and mask of the agent to move), a uniformly random legal action from the
mask, ``step``; terminated agents step ``None``; a finished game is reset. One JSON line:
``{"env", "steps_per_s", "connect_four_v3_steps_per_s", "ratio", ...}``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any


def make_env(env_name: str, **kwargs: Any):
    if env_name == "carcassonne_v0":
        from carcassonne_rl.envs import carcassonne_v0

        return carcassonne_v0.env(**kwargs)
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


def steps_per_second(make: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play for ``seconds``; returns steps/s and games finished."""
    env = make()
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = games = 0
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
            steps += 1
            if not env.agents:
                games += 1
                env.reset()
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - t0
    env.close()
    return {"steps_per_s": steps / elapsed, "games": games, "seconds": elapsed}


def main(env_name: str, seconds: float = 5.0, players: int = 2, **kwargs: Any) -> dict:
    """Benchmark ``env_name`` against connect_four_v3; prints and returns one JSON object."""
    if env_name == "carcassonne_v0" or env_name == "cardcassonne_v0":
        kwargs = {"players": players, **kwargs}
    ours = steps_per_second(lambda: make_env(env_name, **kwargs), seconds)
    c4 = steps_per_second(lambda: make_env("connect_four_v3"), seconds)
    result = {
        "benchmark": "env",
        "env": env_name,
        "config": kwargs,
        "steps_per_s": round(ours["steps_per_s"], 1),
        "games": ours["games"],
        "connect_four_v3_steps_per_s": round(c4["steps_per_s"], 1),
        "ratio": round(ours["steps_per_s"] / c4["steps_per_s"], 3),
        "seconds_each": seconds,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":  # pragma: no cover
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else "cardcassonne_v0")
