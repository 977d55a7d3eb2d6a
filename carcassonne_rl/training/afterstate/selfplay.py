"""Self-play games of the tile game's afterstate learner: the tile game's side
(:class:`TileAdapter`) of the one games-in-flight loop (``loop.play_loop``).

Every option of every network decision of the games in flight is written by one call of
the option kernel (``encoders.features.afterstate_options.option_tables``) and valued by
one forward pass per network; ``kernel=False`` plays the reference path (a cloned state
per option), with the same values and so the same games."""

from __future__ import annotations

import random
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
from carcassonne_rl.training.afterstate.loop import (  # noqa: F401 - their home
    GREEDY,
    NET,
    SNAPSHOT,
    SelfPlayGame,
    greedy_lineup,
    play_loop,
    seat_targets,
)


class TileAdapter:
    """The tile game's side of ``loop.play_loop``: State objects, the option kernel (or,
    ``kernel=False``, the reference path: a cloned state per option), the greedy or
    heuristic baseline; a seat's turn-end positions are recorded (``seat_features``)."""

    def __init__(self, config: AfterstateConfig, seed: int, kernel: bool = True) -> None:
        from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
        from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent

        self.config = config
        self.features = config.feature_set
        self.width = feature_set(self.features)[0]
        self.kernel = kernel
        heuristic = config.baseline_agent == "heuristic"  # the GREEDY seats' agent
        self.agent = (TileHeuristicAgent if heuristic else TileGreedyAgent)(seed=seed)
        self.greedy = not heuristic

    def new_game(self, table: tuple[int, tuple[str, ...]], deal: int, seats: list[int],
                 seed: int) -> SelfPlayGame:  # fmt: skip
        from carcassonne_rl.games.carcassonne import GameConfig, new_game

        players, expansions = table
        cfg = GameConfig(players=players, seed=deal, expansions=expansions)
        rng = random.Random(afterstate_game_rng_seed(seed, deal))
        return SelfPlayGame(new_game(cfg), list(seats), [[] for _ in range(players)], rng)

    def baseline(self, game: SelfPlayGame, player: int, epsilon: float) -> None:
        if self.kernel and epsilon <= 0 and self.greedy:
            self._greedy(game, player)
            return
        move = _baseline_move(self.agent, game.state, player, game.rng, epsilon, self.kernel)
        _apply(game, move, self.features)

    def _greedy(self, game: SelfPlayGame, player: int) -> None:
        """The greedy seat's move as ``_baseline_move`` plays it (not exploring): its
        placement's follower decision valued with the placement (``greedy_values``, the
        same margins to float rounding), as the network seats' are."""
        from carcassonne_rl.agents.tile.potentials_options import greedy_values

        s = game.state
        if game.followers is not None and s.phase == "place_follower":
            codes, vals, _ = game.followers
        else:
            codes, vals, fout, counts = greedy_values(s, player, self.agent.follower_value)
        i = _best_index(vals.tolist(), self.agent.rng)
        placing = s.phase == "place_tile"
        _apply(game, int(codes[i]), self.features)
        if placing and s.phase == "place_follower":  # the decision the kernel played out
            game.followers = (s.legal_action_codes(), fout[i, : counts[i]], None)

    def item(self, game: SelfPlayGame, player: int) -> tuple | None:
        s = game.state
        if s.phase != "place_tile":
            if self.kernel and game.followers is not None and s.phase == "place_follower":
                fcodes, fvals, frows = game.followers  # valued with the placement: the same
                choice = pick(fvals, game.rng, self.config.epsilon)  # one: 0, no draw
                _apply(game, int(fcodes[choice]), self.features, frows[choice])
                return None
            codes = s.legal_action_codes()
            if len(codes) == 1:
                _apply(game, int(codes[0]), self.features)
                return None
        if self.kernel:
            return (game, player)
        opts = options(game.state)
        x, where = value_inputs([o.state for o in opts], player, self.features)
        return (game, player, opts, where, x)

    def rows(self, items: list) -> tuple[np.ndarray, np.ndarray, Any]:
        if self.kernel:
            batch, offsets = option_tables([it[0].state for it in items])
            seats = np.repeat([it[1] for it in items], np.diff(offsets))
            x, where = option_inputs(batch, seats, self.features)
            return x, offsets, (batch, where, seats, x)
        offsets = np.concatenate([[0], np.cumsum([len(it[2]) for it in items])])
        return np.concatenate([it[4] for it in items]), offsets, items

    def values(self, out: np.ndarray, context: Any) -> np.ndarray:
        scale = self.config.value_scale
        if self.kernel:
            batch, where, seats, _ = context
            return combine_options(out, where, batch, seats, scale)
        vals, start = [], 0
        for _, p, opts, where, x in context:
            vals.append(combine(out[start : start + len(x)], where, [o.state for o in opts], p,
                                scale))  # fmt: skip
            start += len(x)
        return np.concatenate(vals)

    def play(self, item: tuple, context: Any, values: np.ndarray, lo: int, hi: int, choice: int
             ) -> None:  # fmt: skip
        game = item[0]
        if not self.kernel:
            _apply(game, item[2][choice].code, self.features)
            return
        batch, where, _, x = context
        code = int(batch.code[lo + choice])
        placing = game.state.phase == "place_tile"
        exact = not game.state.config.messages  # see _exact_row
        _apply(game, code, self.features, _exact_row(batch, where, x, lo + choice, exact))
        if placing and game.state.phase == "place_follower":
            codes = batch.code  # the placement's options: consecutive rows, the same code
            a = b = lo + choice
            while a > lo and codes[a - 1] == code:
                a -= 1
            while b + 1 < hi and codes[b + 1] == code:
                b += 1
            rows = [_exact_row(batch, where, x, i, exact) for i in range(a, b + 1)]
            game.followers = (batch.follower[a : b + 1], values[a : b + 1], rows)


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
    Returns what ``loop.play_loop`` returns. ``kernel``: the option kernel (False: the
    reference path, the same games)."""
    single_threaded_blas()
    net = MLP(layers, meta) if layers is not None else None
    past = MLP(snapshot_layers, meta) if (snapshot_layers is not None and net) else net
    adapter = TileAdapter(config, seed, kernel)
    tables = tables or [(config.players, tuple(config.expansions))] * len(deals)
    if lineups is None:
        lineups = [greedy_lineup(t[0], g) for t, g in zip(tables, greedy_seats, strict=True)]
    games = [adapter.new_game(t, d, k, seed) for t, d, k in zip(tables, deals, lineups,
                                                                strict=True)]  # fmt: skip
    return play_loop(adapter, config, net, past, games)


def _baseline_move(agent: Any, s: Any, player: int, rng: random.Random, epsilon: float,
                   kernel: bool = False) -> int:  # fmt: skip
    """The baseline agent's move (greedy or heuristic); with probability ``epsilon`` one of
    its 4 best instead. ``kernel``: its options valued by a compiled call (the same values
    as its own ``evaluate`` to float rounding, so the same move)."""
    from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent

    evaluate = _kernel_evaluate if kernel else (lambda a, st, p: a.evaluate(st, p))
    if epsilon <= 0 or rng.random() >= epsilon:
        if not kernel:
            return agent.act(s, player)
        codes = s.legal_codes()
        if len(codes) == 1 and s.phase != "place_tile" and isinstance(agent, TileHeuristicAgent):
            return codes[0]  # as TileHeuristicAgent.act
        scored = evaluate(agent, s, player)
        return scored[_best_index([v for _, v in scored], agent.rng)][0]
    scored = sorted(evaluate(agent, s, player), key=lambda cs: -cs[1])[:4]
    return scored[rng.randrange(len(scored))][0]


def _best_index(values: list[float], rng: random.Random) -> int:
    """The baseline agents' choice among ``values``: the best, ties within 1e-9 broken by
    ``rng`` (no draw without a tie)."""
    floor = max(values) - 1e-9
    ties = [k for k, v in enumerate(values) if v >= floor]
    return ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]


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


def _exact_row(batch: Any, where: np.ndarray, x: np.ndarray, i: int, exact: bool
               ) -> np.ndarray | None:  # fmt: skip
    """Option ``i``'s network input row (seen from its decider), a copy, where it is the very
    turn-end record ``seat_features`` would write after the option: the option kernel
    settled its afterstate as the engine does (``follower`` <= 0: the placement alone or not a
    placement; a placement's other follower options are its row plus the follower's part,
    the same to rounding only) on the position itself (``exact``: not under The Messages,
    whose options are played on a resampled hidden order); else None."""
    w = int(where[i])
    return x[w].copy() if exact and w >= 0 and batch.follower[i] <= 0 else None


def _apply(game: SelfPlayGame, code: int, features: str, row: np.ndarray | None = None
           ) -> None:  # fmt: skip
    """Play ``code``; at a turn end record the mover's position (``row``: its features,
    already written)."""
    game.followers = None
    s = game.state
    turn, mover = s.turn, s.active_player
    s.apply_code(code)
    if s.turn != turn and not s.is_over:
        if row is None:
            row = seat_features(s, mover, features)
        game.features[mover].append(row)
