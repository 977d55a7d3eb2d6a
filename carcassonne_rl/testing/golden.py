"""Golden playthroughs: seeded games recorded step by step, to catch any behaviour change.

A playthrough resets an env with a seed and plays it to the end, choosing uniformly at random
(``random.Random(seed)``) among the mask's legal indices; optionally, at step
``illegal_at``, it plays an illegal in-range index instead (the classic-wrapper behaviour:
the game ends with -1 for its maker). Each step records, before the action, the agent to
move and a hash of every agent's observation (of each part of a ``carcassonne_v1`` dict, in
key order) and of every agent's mask, then the action,
and after it every agent's reward and the scores. Hashes are BLAKE2b of fixed-dtype
little-endian bytes (uint8 planes, float32 vectors, int8 masks), so they do not depend on
the platform. Files are JSON under ``tests/golden/`` (``regenerate.py`` rewrites them).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1
COLUMNS = ["agent", "action", "observations", "masks", "rewards", "scores"]
ENV_NAMES = ("carcassonne_v0", "carcassonne_v1", "cardcassonne_v0")


@dataclass(frozen=True)
class GoldenSpec:
    """One golden game: env name, env kwargs, seed, optional step of an illegal index."""

    env: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    illegal_at: int | None = None

    @property
    def file_name(self) -> str:
        parts = [self.env, f"p{self.kwargs.get('players', 2)}"]
        parts += list(self.kwargs.get("expansions", ()))
        if self.kwargs.get("reward_mode", "win_loss") != "win_loss":
            parts.append(self.kwargs["reward_mode"])
        parts.append(f"seed{self.seed}")
        if self.illegal_at is not None:
            parts.append(f"illegal{self.illegal_at}")
        return "_".join(parts) + ".json"

    def make_env(self):
        if self.env == "carcassonne_v0":
            from carcassonne_rl.envs import carcassonne_v0

            return carcassonne_v0.env(**self.kwargs)
        if self.env == "carcassonne_v1":
            from carcassonne_rl.envs import carcassonne_v1

            return carcassonne_v1.env(**self.kwargs)
        if self.env == "cardcassonne_v0":
            from carcassonne_rl.envs import cardcassonne_v0

            return cardcassonne_v0.env(**self.kwargs)
        raise ValueError(f"env must be one of {ENV_NAMES}, got {self.env!r}")


def _standard_specs() -> list[GoldenSpec]:
    specs = []
    for players in (2, 3, 4, 5):
        for seed in (0, 1):
            specs.append(GoldenSpec("carcassonne_v0", {"players": players}, seed))
            specs.append(GoldenSpec("cardcassonne_v0", {"players": players}, seed))
    for expansions in (["messages"], ["labyrinth"], ["messages", "labyrinth"]):
        for players in (2, 4):
            specs.append(
                GoldenSpec("carcassonne_v0", {"players": players, "expansions": expansions}, 0)
            )
    specs.append(GoldenSpec("carcassonne_v0", {"players": 3, "reward_mode": "score_diff"}, 2))
    specs.append(GoldenSpec("cardcassonne_v0", {"players": 3, "reward_mode": "score_diff"}, 2))
    specs.append(GoldenSpec("carcassonne_v0", {"players": 2}, 3, illegal_at=9))
    specs.append(GoldenSpec("cardcassonne_v0", {"players": 2}, 3, illegal_at=9))
    # carcassonne_v1: every seat count, both expansions, shaping, an illegal move
    for players in (2, 3, 4, 5):
        specs.append(GoldenSpec("carcassonne_v1", {"players": players}, 0))
    for players in (2, 4):
        expansions = ["messages", "labyrinth"]
        specs.append(GoldenSpec("carcassonne_v1", {"players": players, "expansions": expansions}))
    specs.append(GoldenSpec("carcassonne_v1", {"players": 3, "reward_mode": "score_diff"}, 2))
    specs.append(GoldenSpec("carcassonne_v1", {"players": 2}, 3, illegal_at=9))
    return specs


STANDARD_SPECS: tuple[GoldenSpec, ...] = tuple(_standard_specs())


def array_hash(array: np.ndarray) -> str:
    """Platform-independent short hash of an observation or mask array."""
    if array.dtype.kind == "f":
        data = np.ascontiguousarray(array, dtype="<f4")
    elif array.dtype == np.uint8:
        data = np.ascontiguousarray(array)
    else:
        data = np.ascontiguousarray(array, dtype="<i8")
    digest = hashlib.blake2b(str(data.shape).encode(), digest_size=8)
    digest.update(data.tobytes())
    return digest.hexdigest()


def _combined_hash(arrays: list[np.ndarray]) -> str:
    digest = hashlib.blake2b(digest_size=8)
    for array in arrays:
        digest.update(array_hash(array).encode())
    return digest.hexdigest()


def _observation_parts(observed: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The observation arrays of one agent's dict (v0: ``observation``; v1: its parts)."""
    if "observation" in observed:
        return [observed["observation"]]
    return [observed[key] for key in sorted(observed) if key != "action_mask"]


def play(spec: GoldenSpec) -> list[list[Any]]:
    """The rows (``COLUMNS``) of ``spec``'s playthrough, one per ``step`` call."""
    env = spec.make_env()
    env.reset(seed=spec.seed)
    raw = env.unwrapped
    agents = raw.possible_agents
    rng = random.Random(spec.seed)
    rows: list[list[Any]] = []
    while env.agents:
        agent = env.agent_selection
        observed = [env.observe(a) for a in agents]
        obs_hash = _combined_hash([part for o in observed for part in _observation_parts(o)])
        mask_hash = _combined_hash([o["action_mask"] for o in observed])
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            action = None
        else:
            mask = observed[agents.index(agent)]["action_mask"]
            if spec.illegal_at is not None and len(rows) == spec.illegal_at:
                action = int(np.flatnonzero(mask == 0)[0])
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[rng.randrange(legal.size)])
        env.step(action)
        rewards = [round(float(raw.rewards.get(a, 0.0)), 6) for a in agents]
        scores = [int(s) for s in raw.game_state.scores]
        rows.append([agents.index(agent), action, obs_hash, mask_hash, rewards, scores])
    env.close()
    return rows


def record(spec: GoldenSpec) -> dict[str, Any]:
    """The golden file content of ``spec``."""
    return {
        "format": FORMAT,
        "env": spec.env,
        "kwargs": spec.kwargs,
        "seed": spec.seed,
        "illegal_at": spec.illegal_at,
        "columns": COLUMNS,
        "steps": play(spec),
    }


def spec_of(golden: dict[str, Any]) -> GoldenSpec:
    """The spec a golden file was recorded from."""
    if golden.get("format") != FORMAT or golden.get("columns") != COLUMNS:
        raise ValueError(f"golden format {golden.get('format')!r} is not {FORMAT}")
    return GoldenSpec(golden["env"], golden["kwargs"], golden["seed"], golden["illegal_at"])


def first_difference(golden: dict[str, Any]) -> str | None:
    """Replay a golden file; ``None`` if identical, else a message naming the first step
    and column that differ."""
    expected = golden["steps"]
    actual = json.loads(json.dumps(play(spec_of(golden))))  # same JSON types as the file
    for step, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            column = next(c for c, w, g in zip(COLUMNS, want, got, strict=True) if w != g)
            return (
                f"step {step}: {column} differs (recorded {want[COLUMNS.index(column)]!r}, "
                f"now {got[COLUMNS.index(column)]!r}); recorded row {want}, now {got}"
            )
    if len(expected) != len(actual):
        return f"the game now has {len(actual)} steps, recorded {len(expected)}"
    return None


def write_all(folder: str | Path, specs: tuple[GoldenSpec, ...] = STANDARD_SPECS) -> list[Path]:
    """Record every spec into ``folder`` (one compact JSON file each)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for spec in specs:
        path = folder / spec.file_name
        path.write_text(json.dumps(record(spec), separators=(",", ":")) + "\n")
        paths.append(path)
    return paths
