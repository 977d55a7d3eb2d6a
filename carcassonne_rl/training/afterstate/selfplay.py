"""Self-play games of the afterstate learner, many in flight per worker, valued in one
batched pass per step, and the lambda-return targets of their positions.

Every option of every network decision of the games in flight is written by one call of
the option kernel (``encoders.features.afterstate_options.option_tables``) and valued by
one forward pass per network; ``kernel=False`` plays the reference path (a cloned state
per option), with the same values and so the same games."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from carcassonne_rl.agents.common.value_net import MLP, single_threaded_blas
from carcassonne_rl.agents.tile.afterstate import (
    combine,
    combine_options,
    options,
    pick,
    value_inputs,
)
from carcassonne_rl.encoders.features.afterstate_options import (
    option_inputs,
    option_table,
    option_tables,
)
from carcassonne_rl.encoders.features.table import feature_set, seat_features
from carcassonne_rl.runtime.seeds import afterstate_game_rng_seed
from carcassonne_rl.training.afterstate.config import AfterstateConfig

NET, GREEDY, SNAPSHOT = 0, 1, 2  # who plays a seat


@dataclass
class SelfPlayGame:
    """One self-play game in flight (either game's engine state)."""

    state: Any
    seats: list[int]  # NET, GREEDY or SNAPSHOT per seat
    features: list[list[np.ndarray]]  # per seat, its turn-end positions
    rng: random.Random  # the network seats' exploration and tie breaks
    # the option kernel's values of the follower options of the placement just played
    # (code, value per option), for the follower decision that follows it
    followers: tuple[np.ndarray, np.ndarray] | None = None


def greedy_lineup(players: int, greedy_seat: int) -> list[int]:
    """Seat kinds of a game with one greedy seat (-1: none, every seat the network)."""
    return [GREEDY if s == greedy_seat else NET for s in range(players)]


def _new_game(
    table: tuple[int, tuple[str, ...]], deal: int, seats: list[int], seed: int
) -> SelfPlayGame:
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    players, expansions = table
    cfg = GameConfig(players=players, seed=deal, expansions=expansions)
    rng = random.Random(afterstate_game_rng_seed(seed, deal))
    return SelfPlayGame(new_game(cfg), list(seats), [[] for _ in range(players)], rng)


def play_games(
    config: AfterstateConfig,
    layers: list | None,
    meta: dict,
    deals: list[int],
    greedy_seats: list[int] | None,
    seed: int,
    tables: list[tuple[int, tuple[str, ...]]] | None = None,
    lineups: list[list[int]] | None = None,
    snapshot_layers: list | None = None,
    kernel: bool = True,
) -> dict[str, Any]:
    """Play the games of ``deals`` to the end (``layers=None``: greedy vs greedy).

    Game ``i`` is dealt at ``tables[i]`` (default: the config's table) with the seat kinds
    ``lineups[i]`` (NET / GREEDY / SNAPSHOT per seat; default: one greedy seat at
    ``greedy_seats[i]``, -1 for none); GREEDY seats play the config's ``baseline_agent``
    (``greedy`` or ``heuristic``), SNAPSHOT seats ``snapshot_layers`` (a past network).
    Returns the recorded positions (every seat's), their lambda-return targets and, per
    player count, the network seats' margins in games with baseline seats. ``kernel``:
    the option kernel (False: the reference path, the same games)."""
    from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
    from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent

    single_threaded_blas()
    features = config.feature_set
    width = feature_set(features)[0]
    net = MLP(layers, meta) if layers is not None else None
    past = MLP(snapshot_layers, meta) if (snapshot_layers is not None and net) else net
    agent_class = TileHeuristicAgent if config.baseline_agent == "heuristic" else TileGreedyAgent
    baseline = agent_class(seed=seed)  # plays the GREEDY seats
    tables = tables or [(config.players, tuple(config.expansions))] * len(deals)
    if lineups is None:
        lineups = [greedy_lineup(t[0], g) for t, g in zip(tables, greedy_seats, strict=True)]
    games = [_new_game(t, d, k, seed) for t, d, k in zip(tables, deals, lineups, strict=True)]
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    margins_vs_greedy: dict[int, list[float]] = {}
    decisions = 0
    live = list(games)
    while live:
        # every game whose decider is a network contributes its options to that net's batch
        pending: dict[int, list] = {NET: [], SNAPSHOT: []}
        for game in live:
            s = game.state
            p = s.current_player
            kind = game.seats[p]
            if net is None or kind == GREEDY:
                epsilon = config.epsilon if net is None else 0.0  # warm-up games explore
                move = _baseline_move(baseline, s, p, game.rng, epsilon, kernel)
                _apply(game, move, features)
                decisions += 1
                continue
            codes = s.legal_action_codes()
            if len(codes) == 1 and s.phase != "place_tile":
                _apply(game, int(codes[0]), features)
                decisions += 1
                continue
            if kernel:
                if game.followers is not None and s.phase == "place_follower":
                    fcodes, fvals = game.followers  # valued with the placement: the same
                    _apply(game, int(fcodes[pick(fvals, game.rng, config.epsilon)]), features)
                    decisions += 1
                    continue
                pending[kind].append((game, p))
                continue
            opts = options(s)
            x, where = value_inputs([o.state for o in opts], p, features)
            pending[kind].append((game, p, opts, where, x))
        for kind, model in ((NET, net), (SNAPSHOT, past)):
            items = pending[kind]
            if not items:
                continue
            if kernel:
                decisions += _kernel_moves(model, items, features, config)
                continue
            batch = np.concatenate([it[4] for it in items])
            out = model.forward(batch)[:, 0] if len(batch) else np.zeros(0, np.float32)
            start = 0
            for game, p, opts, where, x in items:
                vals = combine(out[start : start + len(x)], where, [o.state for o in opts], p,
                               config.value_scale)  # fmt: skip
                start += len(x)
                _apply(game, opts[pick(vals, game.rng, config.epsilon)].code, features)
                decisions += 1
        still = []
        for game in live:
            if game.state.is_over:
                x, y = seat_targets(game, net, config)
                xs.append(x)
                ys.append(y)
                if GREEDY in game.seats and NET in game.seats and net is not None:
                    scores = game.state.scores
                    n = len(scores)
                    for me in (q for q in range(n) if game.seats[q] == NET):
                        m = float(scores[me] - np.delete(scores, me).max())
                        margins_vs_greedy.setdefault(n, []).append(m)
            else:
                still.append(game)
        live = still
    return {
        "x": np.concatenate(xs) if xs else np.zeros((0, width), np.float32),
        "y": np.concatenate(ys) if ys else np.zeros(0, np.float32),
        "margins_vs_greedy": [m for ms in margins_vs_greedy.values() for m in ms],
        "margins_vs_greedy_by_players": margins_vs_greedy,
        "decisions": decisions,
        "games": len(games),
    }


def _kernel_moves(model: MLP, items: list, features: str, config: AfterstateConfig) -> int:
    """Play the network's move in each game of ``items`` (``(game, seat)``): every option
    of all of them from one option-kernel call, valued by one forward pass."""
    batch, offsets = option_tables([game.state for game, _ in items])
    counts = np.diff(offsets)
    seats = np.repeat([p for _, p in items], counts)
    x, where = option_inputs(batch, seats, features)
    out = model.forward(x)[:, 0] if len(x) else np.zeros(0, np.float32)
    vals = combine_options(out, where, batch, seats, config.value_scale)
    for k, (game, _) in enumerate(items):
        lo, hi = int(offsets[k]), int(offsets[k + 1])
        row = lo + pick(vals[lo:hi], game.rng, config.epsilon)
        code = int(batch.code[row])
        placing = game.state.phase == "place_tile"
        _apply(game, code, features)
        if placing and game.state.phase == "place_follower":
            mine = np.flatnonzero(batch.code[lo:hi] == code) + lo
            game.followers = (batch.follower[mine], vals[mine])
    return len(items)


def _baseline_move(agent: Any, s: Any, player: int, rng: random.Random, epsilon: float,
                   kernel: bool = False) -> int:  # fmt: skip
    """The baseline agent's move (greedy or heuristic); with probability ``epsilon`` one of
    its 4 best instead. ``kernel``: its options valued by a compiled call (the same values
    as its own ``evaluate``, so the same move)."""
    from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent

    evaluate = _kernel_evaluate if kernel else (lambda a, st, p: a.evaluate(st, p))
    if epsilon <= 0 or rng.random() >= epsilon:
        if not kernel:
            return agent.act(s, player)
        codes = s.legal_codes()
        if len(codes) == 1 and s.phase != "place_tile" and isinstance(agent, TileHeuristicAgent):
            return codes[0]  # as TileHeuristicAgent.act
        scored = evaluate(agent, s, player)
        top = max(v for _, v in scored)
        ties = [c for c, v in scored if v >= top - 1e-9]
        return ties[agent.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]
    scored = sorted(evaluate(agent, s, player), key=lambda cs: -cs[1])[:4]
    return scored[rng.randrange(len(scored))][0]


def _kernel_evaluate(agent: Any, s: Any, player: int) -> list[tuple[int, float]]:
    """``agent.evaluate(s, player)`` of the greedy or heuristic baseline by compiled calls."""
    from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
    from carcassonne_rl.agents.tile.heuristic import values_of_features
    from carcassonne_rl.agents.tile.potentials_options import greedy_scores

    if isinstance(agent, TileGreedyAgent):
        return greedy_scores(s, player, agent.follower_value)
    opts = option_table(s)  # the heuristic: every option's player_values, its best margin
    n = s.config.players
    values = opts.scores[:, :n].astype(np.float64)
    going = ~opts.over
    if going.any():
        values[going] = values_of_features(values[going], opts.per_player[going, :n],
                                           opts.left[going], agent.weights)  # fmt: skip
    best: dict[int, float] = {}
    for code, row in zip(opts.code.tolist(), values, strict=True):
        m = float(row[player] - np.delete(row, player).max())
        best[code] = max(best.get(code, -1e18), m)
    return list(best.items())


def _apply(game: SelfPlayGame, code: int, features: str) -> None:
    game.followers = None
    s = game.state
    turn, mover = s.turn, s.active_player
    s.apply_code(code)
    if s.turn != turn and not s.is_over:
        game.features[mover].append(seat_features(s, mover, features))


def seat_targets(game: SelfPlayGame, net: MLP | None, config: AfterstateConfig) -> tuple:
    """Positions of every seat with their lambda-returns (``config.target`` of the final
    margin, bootstrapped on ``net``'s values; Monte-Carlo returns when ``td_lambda`` is 1 or
    there is no network yet)."""
    s = game.state
    scores = s.scores.astype(np.float64)
    xs, ys = [], []
    for seat, feats in enumerate(game.features):
        if not feats:
            continue
        x = np.stack(feats)
        final = config.target(float(scores[seat] - np.delete(scores, seat).max()))
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
