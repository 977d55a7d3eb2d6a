"""The self-play loop of the afterstate learner, for both games: many games in flight, each
step the options of every network seat of every game valued in one batched pass per
network, the baseline seats played, the turn-end positions recorded per seat, and at the end
of each game its seats' lambda-return targets.

What depends on the game sits behind a small :class:`GameAdapter` (a new game, the baseline
move, a network seat's decision, the options and inputs of the
decisions of a batch, and playing the chosen option): ``selfplay.TileAdapter`` for the tile
game (``play_games``), ``card_selfplay.CardAdapter`` for the card game (``play_card_games``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from carcassonne_rl.agents.common.device_net import on_device
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.training.afterstate.config import AfterstateConfig

NET, GREEDY, SNAPSHOT = 0, 1, 2  # who plays a seat


@dataclass
class SelfPlayGame:
    """One self-play game in flight (either game's engine state)."""

    state: Any
    seats: list[int]  # NET, GREEDY or SNAPSHOT per seat
    features: list[list[np.ndarray]]  # per seat, its recorded positions
    rng: random.Random  # the network seats' exploration and tie breaks
    # the tile option kernel's follower options of the placement just played, for the
    # follower decision that follows it: (code, value, recorded row per option), the row of
    # an option being its network input where that is the turn-end record's exact bytes,
    # else None (no rows: a greedy seat's placement, its margins)
    followers: tuple[np.ndarray, np.ndarray, list[np.ndarray | None] | None] | None = None


def greedy_lineup(players: int, greedy_seat: int) -> list[int]:
    """Seat kinds of a game with one greedy seat (-1: none, every seat the network)."""
    return [GREEDY if s == greedy_seat else NET for s in range(players)]


class GameAdapter(Protocol):
    """What the loop needs of a game (see the module docstring)."""

    width: int  # the width of a recorded row

    def baseline(self, game: SelfPlayGame, player: int, epsilon: float) -> None:
        """Play the baseline agent's decision for ``player`` (exploring with ``epsilon``)
        and record what it records."""

    def item(self, game: SelfPlayGame, player: int) -> tuple | None:
        """A network seat's decision: what the batch needs of it (a tuple, the game first;
        made in the games' order), or None when it needed no network value and was played
        here (a forced move, the heuristic's non-turn decision, a follower valued with its
        placement)."""

    def rows(self, items: list) -> tuple[np.ndarray, np.ndarray, Any]:
        """``(network inputs, offsets, context)`` of every option of the decisions
        ``items``: decision ``k``'s options are ``offsets[k] : offsets[k + 1]``."""

    def values(self, out: np.ndarray, context: Any) -> np.ndarray:
        """Every option's value (float64) from the network's outputs ``out`` of the rows."""

    def play(self, item: Any, context: Any, values: np.ndarray, lo: int, hi: int, choice: int
             ) -> None:  # fmt: skip
        """Play option ``choice`` of the decision ``item`` (whose options are the rows
        ``lo : hi`` of the batch, valued ``values``) in its game, and record it."""


def play_loop(adapter: GameAdapter, config: AfterstateConfig, net: MLP | None,
              past: MLP | None, games: list[SelfPlayGame]) -> dict[str, Any]:  # fmt: skip
    """Play ``games`` to the end (``net=None``: every seat the baseline, exploring; ``past``
    plays the SNAPSHOT seats). Returns the recorded positions (every seat's), their
    lambda-return targets and, per player count, the network seats' margins in games with
    baseline seats."""
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    margins_vs_greedy: dict[int, list[float]] = {}
    models = {NET: _evaluator(net, config.device), SNAPSHOT: _evaluator(past, config.device)}
    decisions = 0
    live = list(games)
    while live:
        pending: dict[int, list] = {NET: [], SNAPSHOT: []}
        for game in live:
            p = game.state.current_player
            kind = game.seats[p]
            if net is None or kind == GREEDY:
                epsilon = config.epsilon if net is None else 0.0  # warm-up games explore
                adapter.baseline(game, p, epsilon)
                decisions += 1
            elif (it := adapter.item(game, p)) is None:
                decisions += 1
            else:
                pending[kind].append(it)
        for kind, model in models.items():
            items = pending[kind]
            if not items:
                continue
            x, offsets, context = adapter.rows(items)
            out = model.forward(x)[:, 0] if len(x) else np.zeros(0, np.float32)
            vals = adapter.values(out, context)
            choices = pick_all(vals, offsets, [it[0].rng for it in items], config.epsilon)
            for k, it in enumerate(items):
                adapter.play(it, context, vals, int(offsets[k]), int(offsets[k + 1]), choices[k])
                decisions += 1
        still = []
        for game in live:
            if not game.state.is_over:
                still.append(game)
                continue
            x, y = seat_targets(game, net, config)
            xs.append(x)
            ys.append(y)
            if GREEDY in game.seats and NET in game.seats and net is not None:
                scores = game.state.scores
                n = len(scores)
                for me in (q for q in range(n) if game.seats[q] == NET):
                    m = float(scores[me] - np.delete(scores, me).max())
                    margins_vs_greedy.setdefault(n, []).append(m)
        live = still
    return {
        "x": np.concatenate(xs) if xs else np.zeros((0, adapter.width), np.float32),
        "y": np.concatenate(ys) if ys else np.zeros(0, np.float32),
        "margins_vs_greedy": [m for ms in margins_vs_greedy.values() for m in ms],
        "margins_vs_greedy_by_players": margins_vs_greedy,
        "decisions": decisions,
        "games": len(games),
    }


def _evaluator(net: MLP | None, device: str) -> Any:
    """``net`` evaluated on ``device`` (the numpy network itself on the CPU)."""
    return None if net is None else on_device(net, device)


def pick_all(vals: np.ndarray, offsets: np.ndarray, rngs: list[random.Random], epsilon: float,
             top: int = 4) -> list[int]:  # fmt: skip
    """``agents.tile.afterstate.pick`` of every decision of a batch (decision ``k``: the values
    ``vals[offsets[k] : offsets[k + 1]]``, at least one, its generator ``rngs[k]``): the same
    choices and the same draws from each generator, the best values and their ties found
    for all decisions at once."""
    lo = offsets[:-1]
    counts = np.diff(offsets)
    best = np.maximum.reduceat(vals, lo)
    ties = vals >= np.repeat(best - 1e-7, counts)
    nties = np.add.reduceat(ties, lo).tolist()
    first = np.flatnonzero(ties)
    first = (first[np.searchsorted(first, lo)] - lo).tolist()
    out = []
    for k, rng in enumerate(rngs):
        a, n = int(lo[k]), int(counts[k])
        if epsilon > 0 and n > 1 and rng.random() < epsilon:
            order = np.argsort(-vals[a : a + n])[:top]
            out.append(int(order[rng.randrange(len(order))]))
        elif nties[k] > 1:
            mine = np.flatnonzero(ties[a : a + n])
            out.append(int(mine[rng.randrange(len(mine))]))
        else:
            out.append(first[k])
    return out


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
