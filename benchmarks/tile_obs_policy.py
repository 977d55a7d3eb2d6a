"""Milliseconds per decision of an observation-only tile policy (``policy:PATH.npz``).

    python benchmarks/tile_obs_policy.py runs/obs_policy/obs_policy.npz [--games 2]

Plays ``--games`` 2-player games of the policy against greedy and times the policy's
``act`` (encoding the seat's carcassonne_v1 view + numpy forward pass + mask); without a
PATH, a freshly initialised full-size board network (window 29, 32 channels) is timed.
One JSON line: ``{"benchmark": "tile_obs_policy", "ms_per_decision", "decisions", ...}``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from carcassonne_rl.agents import make_agent
from carcassonne_rl.arena.match import Setup


def _fresh_policy(folder: Path) -> Path:
    """A full-size untrained board network, exported (for timing only)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from carcassonne_rl.envs.single_agent import SingleAgentEnv
    from carcassonne_rl.training.export import export_tile_policy
    from carcassonne_rl.training.ppo.policies import TileBoardNet, TilePolicy

    env = DummyVecEnv([lambda: SingleAgentEnv("carcassonne_v1")])
    kwargs = {"features_extractor_class": TileBoardNet}
    model = MaskablePPO(TilePolicy, env, policy_kwargs=kwargs, n_steps=64, seed=0)
    model.save(folder / "model.zip")
    path = folder / "fresh.npz"
    export_tile_policy(folder / "model.zip").save(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=None)
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.path or _fresh_policy(Path(tmp))
        agent = make_agent(f"policy:{path}", "carcassonne", seed=0)
        greedy = make_agent("greedy", "carcassonne", seed=0)
        seconds, decisions = 0.0, 0
        for deal in range(args.games):
            state = Setup("carcassonne", 2).new_state(deal)
            while not state.is_over:
                p = state.current_player
                if p == deal % 2:
                    t0 = time.perf_counter()
                    code = agent.act(state, p)
                    seconds += time.perf_counter() - t0
                    decisions += 1
                else:
                    code = greedy.act(state, p)
                state.apply_code(code)
    row = {"benchmark": "tile_obs_policy", "model": str(args.path or "fresh board network"),
           "ms_per_decision": round(1000 * seconds / decisions, 3), "decisions": decisions,
           "games": args.games}  # fmt: skip
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
