"""Self-play games of the afterstate learner, many in flight per worker, valued in one
batched pass per step, and the lambda-return targets of their positions."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from carcassonne_rl.agents.afterstate_agent import (
    combine,
    options,
    pick,
    value_inputs,
)
from carcassonne_rl.agents.value_net import MLP, single_threaded_blas
from carcassonne_rl.encoders.afterstate_features import NUM_FEATURES, afterstate_features

from .config import AfterstateConfig


@dataclass
class _Game:
    state: Any
    greedy_seat: int  # -1: every seat is the network
    features: list[list[np.ndarray]]  # per seat, its turn-end positions
    rng: random.Random  # the network seats' exploration and tie breaks


def _new_game(config: AfterstateConfig, deal: int, greedy_seat: int, seed: int) -> _Game:
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    cfg = GameConfig(players=config.players, seed=deal, expansions=config.expansions)
    rng = random.Random(seed * 1_000_003 + deal)
    return _Game(new_game(cfg), greedy_seat, [[] for _ in range(config.players)], rng)


def play_games(
    config: AfterstateConfig,
    layers: list | None,
    meta: dict,
    deals: list[int],
    greedy_seats: list[int],
    seed: int,
) -> dict[str, Any]:
    """Play the games of ``deals`` to the end (``layers=None``: greedy vs greedy).

    Returns the recorded positions, their lambda-return targets and, for games against the
    greedy baseline, the network's results."""
    from carcassonne_rl.agents.tile_greedy import TileGreedyAgent

    single_threaded_blas()
    net = MLP(layers, meta) if layers is not None else None
    greedy = TileGreedyAgent(seed=seed)
    games = [_new_game(config, d, g, seed) for d, g in zip(deals, greedy_seats, strict=True)]
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    margins_vs_greedy: list[float] = []
    decisions = 0
    live = list(games)
    while live:
        # every game whose decider is the network contributes its options to one batch
        pending = []
        rows = []
        n_rows = 0
        for game in live:
            s = game.state
            p = s.current_player
            if net is None or p == game.greedy_seat:
                explore = net is None and config.epsilon > 0
                _apply(game, _greedy_move(greedy, s, p, game.rng, config.epsilon if explore else 0))
                decisions += 1
                continue
            codes = s.legal_action_codes()
            if len(codes) == 1 and s.phase != "place_tile":
                _apply(game, int(codes[0]))
                decisions += 1
                continue
            opts = options(s)
            x, where = value_inputs([o.state for o in opts], p)
            pending.append((game, p, opts, where, n_rows, len(x)))
            rows.append(x)
            n_rows += len(x)
        if pending:
            batch = np.concatenate(rows) if rows else np.zeros((0, NUM_FEATURES), np.float32)
            out = net.forward(batch)[:, 0] if len(batch) else np.zeros(0, np.float32)
            for game, p, opts, where, start, n in pending:
                vals = combine(out[start : start + n], where, [o.state for o in opts], p,
                               config.value_scale)  # fmt: skip
                _apply(game, opts[pick(vals, game.rng, config.epsilon)].code)
                decisions += 1
        still = []
        for game in live:
            if game.state.is_over:
                x, y = _targets(game, net, config)
                xs.append(x)
                ys.append(y)
                if game.greedy_seat >= 0 and net is not None:
                    scores = game.state.scores
                    me = 1 - game.greedy_seat if config.players == 2 else (game.greedy_seat + 1)
                    margins_vs_greedy.append(float(scores[me] - np.delete(scores, me).max()))
            else:
                still.append(game)
        live = still
    return {
        "x": np.concatenate(xs) if xs else np.zeros((0, NUM_FEATURES), np.float32),
        "y": np.concatenate(ys) if ys else np.zeros(0, np.float32),
        "margins_vs_greedy": margins_vs_greedy,
        "decisions": decisions,
        "games": len(games),
    }


def _greedy_move(greedy: Any, s: Any, player: int, rng: random.Random, epsilon: float) -> int:
    """The greedy baseline's move; with probability ``epsilon`` one of its 4 best instead."""
    if epsilon <= 0 or rng.random() >= epsilon:
        return greedy.act(s, player)
    scored = sorted(greedy.evaluate(s, player), key=lambda cs: -cs[1])[:4]
    return scored[rng.randrange(len(scored))][0]


def _apply(game: _Game, code: int) -> None:
    s = game.state
    turn, mover = s.turn, s.active_player
    s.apply_code(code)
    if s.turn != turn and not s.is_over:
        game.features[mover].append(afterstate_features(s, mover))


def _targets(game: _Game, net: MLP | None, config: AfterstateConfig) -> tuple:
    """Positions of every seat with their lambda-returns."""
    s = game.state
    scores = s.scores.astype(np.float64)
    xs, ys = [], []
    for seat, feats in enumerate(game.features):
        if not feats:
            continue
        x = np.stack(feats)
        final = math.tanh((scores[seat] - np.delete(scores, seat).max()) / config.value_scale)
        lam = config.td_lambda if net is not None else 1.0
        v = net.forward(x)[:, 0] if net is not None else np.zeros(len(x), np.float32)
        y = np.empty(len(x), np.float32)
        g = final
        for t in range(len(x) - 1, -1, -1):
            y[t] = g
            g = (1.0 - lam) * v[t] + lam * g  # return seen from the position before t
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


# ------------------------------------------------------------------------- learner
