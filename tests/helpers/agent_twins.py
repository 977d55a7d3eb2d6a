"""Two agents are the same agent: the same classes and parameters (:func:`fingerprint`), the
same decisions with the same seed (:func:`decisions`)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import numpy as np

from carcassonne_rl.agents import make_agent
from carcassonne_rl.games.registry import new_game


def fingerprint(obj: Any, seen: set[int] | None = None, depth: int = 0) -> Any:
    """The classes and parameters of an agent, its networks' weights as digests (names, random
    generators and caches aside)."""
    seen = set() if seen is None else seen
    if isinstance(obj, (bool, int, float, str, type(None))):
        return obj
    if isinstance(obj, np.ndarray):
        return ("array", obj.shape, hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest())
    if isinstance(obj, (random.Random, np.random.Generator, np.random.RandomState)):
        return "rng"
    if id(obj) in seen or depth > 12:
        return ("seen", type(obj).__qualname__)
    seen.add(id(obj))
    if isinstance(obj, (list, tuple)):
        return tuple(fingerprint(x, seen, depth + 1) for x in obj)
    if isinstance(obj, dict):
        return tuple(sorted((str(k), fingerprint(v, seen, depth + 1)) for k, v in obj.items()))
    if callable(obj) and hasattr(obj, "__code__"):  # a factory: its code and what it closes over
        cells = tuple(fingerprint(c.cell_contents, seen, depth + 1) for c in obj.__closure__ or ())
        return ("function", obj.__qualname__, cells)
    if hasattr(obj, "__dict__"):
        skip = {"name", "_cache", "cache"}
        items = sorted((k, v) for k, v in vars(obj).items() if k not in skip)
        return (
            type(obj).__qualname__,
            tuple((k, fingerprint(v, seen, depth + 1)) for k, v in items),
        )
    return type(obj).__qualname__


def decisions(spec: str, game: str, n: int, deal: int = 4, players: int = 2) -> list[int]:
    """The first ``n`` decisions of ``spec``'s agent playing every seat of a deal."""
    agent = make_agent(spec, game, seed=3)
    state = new_game(game, players, deal)
    out = []
    while len(out) < n and not state.is_over:
        code = int(agent.act(state, state.current_player))
        out.append(code)
        state.apply_code(code)
    return out
