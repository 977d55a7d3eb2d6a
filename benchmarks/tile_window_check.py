"""Does the tile encoder's default window express every legal move? One JSON line.

Plays ``--random-games`` games with uniformly random legal actions (player counts 2-5 and
expansions off/on in turn) and ``--greedy-games`` games of the one-ply greedy agent
(``carcassonne_rl.agents.tile.greedy``, if present), and at every decision counts the legal
moves that :class:`~carcassonne_rl.encoders.TileEncoder` cannot express. Also reports the
largest board bounding box seen (cells), which sizes the window: a window of ``W`` cells
expresses every placement while the board spans at most ``W - 2`` cells.

    python benchmarks/tile_window_check.py --random-games 100000 --greedy-games 300
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from carcassonne_rl.encoders.tile.encoder import DEFAULT_WINDOW, TileEncoder
from carcassonne_rl.games.carcassonne import GameConfig, new_game

CONFIGS = [(n, e) for e in ((), ("messages", "labyrinth")) for n in (2, 3, 4, 5)]


def play(state, encoder: TileEncoder, choose) -> tuple[int, int, int]:
    """Play to the end; returns (positions with a dropped move, width, height)."""
    bad = 0
    while not state.is_over:
        if encoder.dropped_moves(state):
            bad += 1
        state.apply_code(choose(state))
    tiles = state._tiles[: state.num_tiles_placed]
    return bad, int(np.ptp(tiles[:, 2])) + 1, int(np.ptp(tiles[:, 3])) + 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random-games", type=int, default=100_000)
    ap.add_argument("--greedy-games", type=int, default=300)
    ap.add_argument("--window", type=int, default=DEFAULT_WINDOW)
    args = ap.parse_args()
    rng = random.Random(0)

    def random_move(state) -> int:
        codes = state.legal_action_codes()
        return int(codes[rng.randrange(len(codes))])

    result: dict = {"benchmark": "tile_window_check", "window": args.window}
    t0 = time.perf_counter()
    for label, games in (("random", args.random_games), ("greedy", args.greedy_games)):
        chooser = random_move
        if label == "greedy":
            try:
                from carcassonne_rl.agents.tile.greedy import TileGreedyAgent as Greedy
            except ImportError:
                continue
            greedy = Greedy(seed=0)
            chooser = lambda s, g=greedy: int(g.act(s, s.current_player))  # noqa: E731
        bad_pos = bad_games = max_w = max_h = max_extent = 0
        extents = []
        for g in range(games):
            n, exp = CONFIGS[g % len(CONFIGS)]
            state = new_game(GameConfig(players=n, seed=g, expansions=exp))
            enc = TileEncoder.for_config(state.config, args.window)
            bad, w, h = play(state, enc, chooser)
            bad_pos += bad
            bad_games += bad > 0
            max_w, max_h = max(max_w, w), max(max_h, h)
            extents.append(max(w, h))
        max_extent = max(extents) if extents else 0
        result[label] = {
            "games": games,
            "positions_with_dropped_moves": bad_pos,
            "games_with_dropped_moves": bad_games,
            "max_width": max_w,
            "max_height": max_h,
            "max_extent": max_extent,
            "extent_p99": float(np.percentile(extents, 99)) if extents else 0.0,
        }
    result["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
