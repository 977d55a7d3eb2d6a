"""Our vector envs beside Pgx's CPU envs, both as ratios to PettingZoo's ``connect_four_v3``
AEC loop timed in the same run, one JSON line each (Pgx is not a dependency: without it
the script prints one line saying so and exits 0).

    pip install "pgx==2.6.*" "jax[cpu]"      # only for this comparison
    python benchmarks/pgx_compare.py [--seconds 2] [--threads 1,2]

Pgx games are stepped as Pgx's own benchmarks step them: ``jit(vmap(step))`` with
``pgx.experimental.auto_reset`` and a uniformly random legal action per game drawn on the
device (``jax.random.categorical`` over the legal actions), ``block_until_ready`` after
every step; ``N`` games per step (XLA's CPU kernels use every core). Ours are ``make_vec``
envs with ``random_actions`` (as ``carcassonne-rl bench vec`` steps them), once for each of
``--threads`` (their ``num_threads``, default 1). Every player is timed in turns of a quarter
second, so a change of the machine's load touches all alike; the ratios are the figures to
compare, the steps/s depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

#: (Pgx env id, games per step) as measured by the research notes' table
PGX_GAMES = (("connect_four", 1024), ("othello", 1024), ("backgammon", 64), ("go_9x9", 64))
#: (our env, games per step, observations)
OURS = (("carcassonne_v1", 256, True), ("carcassonne_v1", 256, False),
        ("carcassonne_v0", 256, True), ("cardcassonne_v0", 256, True))  # fmt: skip


class PgxPlay:
    """``n`` games of Pgx env ``name`` stepped by ``jit(vmap(step))`` with auto-reset."""

    def __init__(self, name: str, n: int, seed: int = 0) -> None:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset

        env = pgx.make(name)
        self.n = n

        def act(state: Any, key: Any) -> Any:
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            return jax.random.categorical(key, logits, axis=-1)

        def one(state: Any, key: Any) -> tuple[Any, Any]:
            k1, k2, k3 = jax.random.split(key, 3)
            keys = jax.random.split(k2, n)
            return jax.vmap(auto_reset(env.step, env.init))(state, act(state, k1), keys), k3

        self._step = jax.jit(one)
        self.key = jax.random.PRNGKey(seed)
        self.state = jax.jit(jax.vmap(env.init))(jax.random.split(self.key, n))
        for _ in range(3):  # compile outside the timed loop
            self.state, self.key = self._step(self.state, self.key)
        jax.block_until_ready(self.state)
        self.steps, self.seconds = 0, 0.0

    def run(self, seconds: float) -> None:
        import jax

        t0 = time.perf_counter()
        while True:
            self.state, self.key = self._step(self.state, self.key)
            jax.block_until_ready(self.state)
            self.steps += self.n
            if time.perf_counter() - t0 >= seconds:
                break
        self.seconds += time.perf_counter() - t0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="per player (default 2)")
    p.add_argument(
        "--threads", default="1", help="comma-separated num_threads of our vector envs (default 1)"
    )
    args = p.parse_args(argv)
    words = args.threads.split(",")
    if not all(w.isdigit() and int(w) >= 1 for w in words):
        p.error(f"--threads: comma-separated positive ints, got {args.threads!r}")
    threads = tuple(int(w) for w in words)
    try:
        import jax
        import pgx
    except ImportError:
        row = {"benchmark": "pgx_compare", "skipped": "pgx is not installed (pip install "
               "'pgx==2.6.*' 'jax[cpu]')"}  # fmt: skip
        print(json.dumps(row), flush=True)
        return [row]
    from carcassonne_rl.envs import make_vec
    from carcassonne_rl.testing.bench_env import RandomPlay, make_env
    from carcassonne_rl.testing.bench_vec import VecPlay

    plays: dict[tuple, Any] = {("pettingzoo", "connect_four_v3", 1, True, None):
                               RandomPlay(lambda: make_env("connect_four_v3"))}  # fmt: skip
    for name, n in PGX_GAMES:
        plays[("pgx", name, n, True, None)] = PgxPlay(name, n)
    for name, n, obs in OURS:
        for k in threads:
            plays[("carcassonne-rl", name, n, obs, k)] = VecPlay(
                lambda name=name, n=n, obs=obs, k=k: make_vec(
                    name, num_envs=n, observations=obs, num_threads=k, players=2)
            )  # fmt: skip
    rounds = max(1, round(args.seconds / 0.25))
    for _ in range(rounds):
        for play in plays.values():
            play.run(args.seconds / rounds)
    c4 = plays[("pettingzoo", "connect_four_v3", 1, True, None)].steps_per_s
    rows = []
    for (library, name, n, obs, k), play in plays.items():
        row = {"benchmark": "pgx_compare", "library": library, "env": name, "num_envs": n,
               "observations": obs, "num_threads": k, "steps_per_s": round(play.steps_per_s, 1),
               "connect_four_v3_steps_per_s": round(c4, 1),
               "ratio": round(play.steps_per_s / c4, 2), "seconds_each": args.seconds,
               "versions": {"pgx": pgx.__version__, "jax": jax.__version__},
               "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"}  # fmt: skip
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


if __name__ == "__main__":
    main()
