"""A tile-game agent that ranks its options by a learned afterstate value.

For the decision pending in a position, every option is played out on a clone and the turn
is settled (``tile_greedy.after``: the Messages steps by default rules); a tile placement is
judged together with each of its follower options (the two-stage move, as the greedy
baseline does). All the resulting afterstates are encoded from the decider's seat
(``encoders.features.afterstate``) and valued by the network in **one batched forward
pass**; a finished game is valued exactly (``tanh(margin / value_scale)``). The agent takes
the best (``epsilon`` > 0: sometimes one of the next best, for exploration in training).
Creating the agent makes numpy's BLAS single-threaded in its process (``value_net``).

The network estimates ``tanh(final margin / value_scale)`` for the seat it is asked about,
margin = own final score - best other final score; it is trained by
:mod:`carcassonne_rl.training.afterstate`. It reads the feature set its model file names
(``meta["feature_set"]``, see ``encoders.features.table``; files without one, or with the
old name ``v1``, read ``two_player``).

The options and their features come from one compiled call
(``encoders.features.afterstate_options``: no Python state per option); ``kernel=False``
plays the reference path instead (:func:`options`, a clone per option, then
:func:`value_inputs`), which gives the same values and so the same moves.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.value_net import MLP, ModelFileError, single_threaded_blas
from carcassonne_rl.agents.tile.greedy import after
from carcassonne_rl.encoders.features.afterstate_options import Options, option_inputs, option_table
from carcassonne_rl.encoders.features.table import (
    DEFAULT_FEATURE_SET,
    feature_set,
    feature_set_name,
    seat_features,
)

MODEL_KIND = "tile_afterstate_value"


@dataclass
class Option:
    """A decision (``code``, and for a placement the ``follower`` code) and its afterstate."""

    code: int
    follower: int | None
    state: Any


def options(state: Any) -> list[Option]:
    """Every option of the pending decision, with its settled afterstate. With The Messages,
    settling may draw message cards, so the options are played on a clone whose hidden
    order (unseen messages, undrawn tiles) is resampled from what the players know: the
    afterstates never depend on the true hidden order."""
    if state.config.messages:
        state = state.resample_hidden(random.Random(0))
    out = []
    placing = state.phase == "place_tile"
    for code in state.legal_action_codes().tolist():
        child = after(state, code)
        if placing and child.phase == "place_follower" and not child.is_over:
            for f in child.legal_action_codes().tolist():
                out.append(Option(code, f, after(child, f)))
        else:
            out.append(Option(code, None, child))
    return out


def option_state(state: Any, code: int, follower: int = -1) -> Any:
    """The settled afterstate of one option (``follower`` -1: not a placement's option), as
    :func:`options` makes it: for the few options whose position a search plays on."""
    if state.config.messages:
        state = state.resample_hidden(random.Random(0))
    child = after(state, int(code))
    return after(child, int(follower)) if follower >= 0 else child


def final_value(state: Any, player: int, scale: float) -> float:
    scores = state.scores
    others = np.delete(scores, player)
    return math.tanh((float(scores[player]) - float(others.max())) / scale)


def net_feature_set(net: MLP) -> str:
    """The feature set a value network reads, by its current name (``two_player`` for files
    older than the key, and for those that name it ``v1``)."""
    return feature_set_name(str(net.meta.get("feature_set", DEFAULT_FEATURE_SET)))


def value_inputs(
    children: list[Any], player: int, features: str = DEFAULT_FEATURE_SET
) -> tuple[np.ndarray, np.ndarray]:
    """(feature set ``features`` of the unfinished afterstates, index of each in
    ``children`` or -1)."""
    rows = []
    where = np.full(len(children), -1, np.int64)
    for i, child in enumerate(children):
        if not child.is_over:
            where[i] = len(rows)
            rows.append(seat_features(child, player, features))
    x = np.stack(rows) if rows else np.zeros((0, feature_set(features)[0]), np.float32)
    return x, where


def values_from(net: MLP, children: list[Any], player: int) -> np.ndarray:
    """Value of each afterstate for ``player`` (one forward pass for all)."""
    x, where = value_inputs(children, player, net_feature_set(net))
    out = net.forward(x)[:, 0] if len(x) else np.zeros(0, np.float32)
    return combine(out, where, children, player, net.meta["value_scale"])


def combine(
    net_values: np.ndarray, where: np.ndarray, children: list[Any], player: int, scale: float
) -> np.ndarray:
    """Network values where the game goes on, exact values where it is over."""
    vals = np.empty(len(children), np.float64)
    for i, child in enumerate(children):
        vals[i] = net_values[where[i]] if where[i] >= 0 else final_value(child, player, scale)
    return vals


def option_values(net: MLP, opts: Options, player: int) -> np.ndarray:
    """:func:`values_from` for the options of :func:`option_table` (one forward pass)."""
    x, where = option_inputs(opts, player, net_feature_set(net))
    out = net.forward(x)[:, 0] if len(x) else np.zeros(0, np.float32)
    return combine_options(out, where, opts, player, float(net.meta["value_scale"]))


def final_values(opts: Options, player: int | np.ndarray, scale: float) -> np.ndarray:
    """:func:`final_value` of the options' afterstates where the game is over (0 where it
    goes on); ``player``: one seat, or one per option."""
    vals = np.zeros(len(opts.code), np.float64)
    over = np.flatnonzero(opts.over)
    if not len(over):
        return vals
    seats = (np.full(len(over), player, np.int64) if np.isscalar(player)
             else np.asarray(player, np.int64)[over])  # fmt: skip
    scores = opts.scores[over].astype(np.float64)
    column = np.arange(scores.shape[1])
    rival = (column < opts.players[over, None]) & (column != seats[:, None])
    margins = scores[np.arange(len(over)), seats] - np.where(rival, scores, -np.inf).max(axis=1)
    vals[over] = [math.tanh(m / scale) for m in margins.tolist()]
    return vals


def combine_options(net_values: np.ndarray, where: np.ndarray, opts: Options,
                    player: int | np.ndarray, scale: float) -> np.ndarray:  # fmt: skip
    """:func:`combine` for the options of :func:`option_table` (``where`` from
    ``option_inputs``; ``player``: one seat, or one per option)."""
    vals = final_values(opts, player, scale)
    going = where >= 0
    vals[going] = net_values[where[going]]
    return vals


def best_per_code(codes: list[int] | np.ndarray, vals: np.ndarray) -> tuple[list[int], np.ndarray]:
    """(each code once, in order of first appearance; its best value)."""
    best: dict[int, float] = {}
    for code, v in zip(codes, vals, strict=True):
        code = int(code)
        best[code] = max(best.get(code, -math.inf), float(v))
    out = list(best)
    return out, np.array([best[c] for c in out], np.float64)


def pick(vals: np.ndarray, rng: Any, epsilon: float = 0.0, top: int = 4) -> int:
    """Index of the best value; with probability ``epsilon`` one of the ``top`` best."""
    if epsilon > 0 and len(vals) > 1 and rng.random() < epsilon:
        order = np.argsort(-vals)[:top]
        return int(order[rng.randrange(len(order))])
    if len(vals) == 1:
        return 0
    if vals.dtype == np.float64:  # the same comparisons on Python floats, faster
        v = vals.tolist()
        floor = max(v) - 1e-7
        ties = [i for i, x in enumerate(v) if x >= floor]
    else:
        ties = np.flatnonzero(vals >= vals.max() - 1e-7).tolist()
    return ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]


def load_value_net(path: str | Path) -> MLP:
    """A tile-game afterstate value network from an ``.npz`` model file."""
    net = MLP.load(path, kind=MODEL_KIND)
    try:
        width = feature_set(net_feature_set(net))[0]
    except ValueError as err:
        raise ModelFileError(f"{path}: {err}") from None
    if net.inputs != width:
        raise ModelFileError(
            f"{path} reads {net.inputs} features; its feature set "
            f"{net_feature_set(net)!r} has {width} in this version"
        )
    return net


class AfterstateAgent(BaseAgent):
    """Plays the option whose afterstate the network values most (``kernel=False``: by the
    reference path, a clone per option; the same moves)."""

    def __init__(
        self,
        net: MLP,
        seed: int | None = None,
        epsilon: float = 0.0,
        name: str = "afterstate",
        kernel: bool = True,
    ) -> None:
        super().__init__(seed)
        self.net = net
        self.epsilon = epsilon
        self.name = name
        self.kernel = kernel
        self.scale = float(net.meta["value_scale"])
        single_threaded_blas()

    def decide(self, v: Any, legal: list[int]) -> int:
        state, player = v.public_world(), v.player  # the seat's view: order sorted
        codes = state.legal_action_codes()
        if len(codes) == 1 and state.phase != "place_tile":
            return int(codes[0])
        if self.kernel:
            table = option_table(state)
            return int(table.code[pick(self.option_values(table, player), self.rng,
                                       self.epsilon)])  # fmt: skip
        opts = options(state)
        vals = self.values([o.state for o in opts], player)
        return opts[pick(vals, self.rng, self.epsilon)].code

    def values(self, children: list[Any], player: int) -> np.ndarray:
        """Value of each afterstate for ``player`` (``tanh(margin / value_scale)``)."""
        return values_from(self.net, children, player)

    def option_values(self, opts: Options, player: int) -> np.ndarray:
        """:meth:`values` of the afterstates of :func:`option_table`'s options."""
        return option_values(self.net, opts, player)

    def decision_values(self, state: Any, player: int) -> tuple[list[int], np.ndarray]:
        """(the legal codes of the pending decision, the network's value of each for
        ``player``): a placement is worth its best follower option. What a student policy
        imitates when it learns the whole ranking rather than the one move played."""
        if self.kernel:
            table = option_table(state)
            return best_per_code(table.code, self.option_values(table, player))
        opts = options(state)
        vals = self.values([o.state for o in opts], player)
        return best_per_code([o.code for o in opts], vals)
