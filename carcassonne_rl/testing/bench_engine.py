"""Engine speed benchmark: uniformly random games driven through the public Python API."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from carcassonne_rl.games import registry
from carcassonne_rl.runtime.seeds import bench_deal, bench_warmup_deal


def game_factory(game: str, players: int, expansions: tuple[str, ...] = ()) -> Callable[[int], Any]:
    """``seed -> new state`` for the named game."""
    registry.check_setup(game, players, expansions)
    return lambda seed: registry.new_game(game, players, seed, expansions)


def play_random_game(state: Any, rng: random.Random) -> tuple[int, int]:
    """Play ``state`` to the end uniformly at random; returns (decisions, summed legal counts)."""
    decisions = 0
    legal = 0
    while not state.is_over:
        codes = state.legal_action_codes()
        n = len(codes)
        state.apply_code(codes[rng.randrange(n)])
        decisions += 1
        legal += n
    return decisions, legal


def bench_engine(
    game: str, seconds: float, players: int = 2, seed: int = 0, expansions: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Play random games for ``seconds`` (after a warm-up game) and measure the rates."""
    make = game_factory(game, players, expansions)
    rng = random.Random(seed)
    warm_start = time.perf_counter()
    play_random_game(make(bench_warmup_deal(seed)), rng)  # compiles / loads the JIT cache
    warmup_s = time.perf_counter() - warm_start
    games = decisions = legal = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        d, n = play_random_game(make(bench_deal(seed, games)), rng)
        games += 1
        decisions += d
        legal += n
        elapsed = time.perf_counter() - start
    return {
        "bench": "engine",
        "game": game,
        "players": players,
        "expansions": list(expansions),
        "games": games,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1),
        "decisions_per_s": round(decisions / elapsed, 1),
        "mean_legal_actions": round(legal / max(decisions, 1), 2),
        "decisions_per_game": round(decisions / max(games, 1), 1),
        "warmup_s": round(warmup_s, 2),
    }


def main(
    game: str, seconds: float, players: int, seed: int, expansions: tuple[str, ...] = ()
) -> None:
    print(json.dumps(bench_engine(game, seconds, players, seed, expansions)), flush=True)
