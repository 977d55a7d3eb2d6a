"""Expectimax over the next tile with an afterstate value network at the leaves.

``pretrained:search`` (``pretrained:search=K``): the agent values all its options with the
network, as :class:`AfterstateAgent` does, then looks one turn further for the ``K`` best
(default 4). After a candidate, the next seat draws a tile: the draw is a chance node over
the *public* multiset of tiles not placed yet (the pile's order is never read; the drawn tile
counts among the unknown ones), each distinct tile with its probability. For every tile the
next seat answers with its own best option by the network (its placement with its follower
choice, the turn settled), and the candidate is worth the expectation of the resulting
positions for the searching seat. A tile that would fit nowhere is left out (the rules
discard and redraw it) and the others renormalised. The candidate with the best expectation
is played; a finished game is valued exactly.

``pretrained:search=K:S`` looks further: after each of the next seat's replies, ``S``
continuations draw a tile at random from the unknown ones for every seat in turn (each seat
playing its best option by its own values) until the searching seat has placed its own next
tile, and the reply is worth the mean of the searching seat's best values there. Every
candidate sees the same draws (one random stream per decision, keyed by the reply's tile and
the continuation's number), so the candidates are compared on common chance.

How a leaf is valued for the searching seat: with 2 players, as minus the next seat's own
value of its afterstate (the network's target, the margin to the best other, is then
antisymmetric, and the network is asked only about positions of the kind it learnt: right
after the mover's turn); with more, by the network from the searching seat. With ``weight``
(at 2 players, as ``pretrained`` plays there) every value, the replies' included, is the
network-heuristic blend of :mod:`tile_blend`.

Decisions other than a tile placement (follower choices were weighed with the placement,
The Messages' steps) take the network's best option.

Every option set (the candidates', each reply's, each continuation's) is valued by the
compiled option kernel (``encoders.features.afterstate_options``), and only the positions
the search goes on from (the candidates, the replies it continues, the continuations'
moves) are made as Python states; ``kernel=False`` plays the reference path (a clone per
option), with the same values and so the same moves.

The search decides from the seat's view (``TileView.public_world``: the undrawn tiles in
sorted order). The positions it plays through draw from that pile, and a drawn tile that fits
nowhere is set aside there, so which tile that is comes from the sorted order, not the true
one: ``tile-search-v2``. ``tile-search-v1`` (:mod:`.pile_reading`) is the same search
handed the full state, as it played before agents got their seat's view: in that rare case
it read the true pile. It is kept, unchanged, as a yardstick.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.common.value_net import MLP, single_threaded_blas
from carcassonne_rl.agents.tile.afterstate import (
    combine_options,
    final_value,
    final_values,
    net_feature_set,
    option_state,
    option_values,
    options,
    pick,
    values_from,
)
from carcassonne_rl.agents.tile.blend import (
    blend,
    blended_option_values,
    blended_values,
    heuristic_margins,
    option_heuristic_margins,
)
from carcassonne_rl.encoders.features.afterstate import player_features
from carcassonne_rl.encoders.features.afterstate_options import (
    Options,
    option_inputs,
    option_table,
    option_tables,
)
from carcassonne_rl.encoders.features.table import feature_set
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.board_kernels import gen_placements


def unknown_tiles(state: Any) -> dict[int, int]:
    """Tile type -> count of the tiles the next seat may draw (public multiset): the pile,
    plus the tile just drawn in a position where a tile is to be placed."""
    ints = state.kernel_arrays().ints
    pos, end = int(ints[L.R_DECKPOS]), int(ints[L.R_DECKLEN])
    counts = np.bincount(ints[L.O_DECK + pos : L.O_DECK + end], minlength=1).tolist()
    out = {t: n for t, n in enumerate(counts) if n}
    if ints[L.R_PHASE] == L.PHASE_TILE and ints[L.R_TILE] >= 0:
        t = int(ints[L.R_TILE])
        out[t] = out.get(t, 0) + 1
    return out


def with_drawn_tile(state: Any, tile: int) -> Any | None:
    """A clone of ``state`` (a tile to place) where the tile drawn is ``tile`` instead
    (swapped with one copy in the pile); ``None`` if ``tile`` fits nowhere."""
    s = state.clone()
    a = s.kernel_arrays()
    ints = a.ints
    drawn = int(ints[L.R_TILE])
    if tile == drawn:
        return s
    pos, end = int(ints[L.R_DECKPOS]), int(ints[L.R_DECKLEN])
    where = np.flatnonzero(ints[L.O_DECK + pos : L.O_DECK + end] == tile)
    if len(where) == 0:
        raise ValueError(f"tile type {tile} is not among the unknown tiles")
    ints[L.O_DECK + pos + int(where[0])] = drawn
    ints[L.O_DECK + pos - 1] = tile
    ints[L.R_TILE] = tile
    if gen_placements(a.board, ints, a.tiles) == 0:
        return None
    return s


class ExpectimaxAgent(BaseAgent):
    """The network's choice refined by an expectimax over the next seat's tile (and, with
    ``samples``, sampled draws of the tiles after it until the searching seat has played
    again)."""

    def __init__(
        self,
        net: MLP,
        candidates: int = 4,
        seed: int | None = None,
        name: str = "search",
        weight: float | None = None,
        samples: int = 0,
        kernel: bool = True,
    ) -> None:
        super().__init__(seed)
        if candidates < 1:
            raise ValueError(f"search needs at least 1 candidate, got {candidates}")
        if samples < 0:
            raise ValueError(f"search samples must be >= 0, got {samples}")
        self.net = net
        self.weight = weight  # the network's share of a network-heuristic blend (tile_blend)
        self.candidates = candidates
        self.samples = samples  # sampled continuations per tile of the next seat
        self.name = name
        self.kernel = kernel  # the option kernel (False: the reference path)
        self.scale = float(net.meta["value_scale"])
        self.features = net_feature_set(net)
        self.seat_vector = feature_set(self.features)[1]
        self.nodes = 0  # afterstates valued in the last decision
        self._stream = 0  # the decision's random stream: the same draws for every candidate
        single_threaded_blas()

    def _forward(self, rows: list[np.ndarray]) -> np.ndarray:
        return self.net.forward(np.stack(rows))[:, 0] if rows else np.zeros(0, np.float32)

    def values(self, children: list[Any], player: int) -> np.ndarray:
        """Value of each afterstate for ``player``: the network's, or the blend."""
        if self.weight is None:
            return values_from(self.net, children, player)
        return blended_values(self.net, children, player, self.weight)

    def option_values(self, opts: Options, player: int) -> np.ndarray:
        """:meth:`values` of the afterstates of :func:`option_table`'s options."""
        if self.weight is None:
            return option_values(self.net, opts, player)
        return blended_option_values(self.net, opts, player, self.weight)

    def _batch_values(self, opts: Options, seats: np.ndarray) -> np.ndarray:
        """:meth:`option_values` of options of several decisions at once, each row for
        its own seat ``seats[i]`` (one forward pass; every row's value is the one it has
        alone)."""
        x, where = option_inputs(opts, seats, self.features)
        out = self._forward_x(x)
        vals = combine_options(out, where, opts, seats, self.scale)
        going = np.flatnonzero(where >= 0)
        if self.weight is not None and len(going):
            heuristic = option_heuristic_margins(opts.take(going), seats[going])
            vals[going] = blend(out[where[going]], heuristic, self.weight, self.scale)
        return vals

    def _kernel_expectations(self, afters: list[Any], me: int) -> list[float]:
        """:meth:`expectation` of each settled afterstate of ``afters`` by the option kernel:
        the next seat's replies to every tile after every one of them valued in one call,
        then all the sampled continuations in lockstep (one call a step); the positions made
        are only those the search goes on from."""
        out: list[float | None] = [None] * len(afters)
        drawn = []  # (candidate, tile, count, position with the tile drawn)
        for c, after in enumerate(afters):
            if after.is_over:
                out[c] = final_value(after, me, self.scale)
            elif after.phase != "place_tile":  # not a tile to draw next: as it stands
                out[c] = float(self.values([after], me)[0])
            else:
                found = False
                for tile, count in unknown_tiles(after).items():
                    s = with_drawn_tile(after, tile)
                    if s is not None:
                        drawn.append((c, tile, count, s))
                        found = True
                if not found:
                    out[c] = float(self.values([after], me)[0])
        if drawn:
            values = self._replies(drawn, me)
            for c in range(len(afters)):
                if out[c] is None:
                    total, weight = 0.0, 0
                    for (cand, _, count, _), value in zip(drawn, values, strict=True):
                        if cand == c:
                            total += count * value
                            weight += count
                    out[c] = total / weight
        return [float(v) for v in out]  # type: ignore[arg-type]

    def _replies(self, drawn: list[tuple], me: int) -> list[float]:
        """The value for ``me`` of each position of ``drawn`` (a tile drawn for the next
        seat) once the next seat has played its best option: the network's, or with
        ``samples`` the mean of the sampled continuations from there."""
        replies, offsets = option_tables([d[3] for d in drawn])
        self.nodes += len(replies)
        counts = np.diff(offsets)
        nxt = np.repeat([d[3].current_player for d in drawn], counts)
        theirs = self._batch_values(replies, nxt)
        if drawn[0][3].config.players == 2:
            mine = final_values(replies, me, self.scale)
            going = ~replies.over
            mine[going] = -theirs[going]
        else:
            mine = self._batch_values(replies, np.full(len(replies), me))
        values, conts = [], []
        for k, (_, tile, _, s) in enumerate(drawn):
            lo, hi = int(offsets[k]), int(offsets[k + 1])
            best = lo + int(np.argmax(theirs[lo:hi]))
            values.append(float(mine[best]))
            if self.samples and not replies.over[best]:
                reply = option_state(s, int(replies.code[best]), int(replies.follower[best]))
                for j in range(self.samples):
                    rng = np.random.default_rng((self._stream, tile, j))
                    conts.append([k, reply, rng, None])
        self._lockstep(conts, me)
        for k in range(len(drawn)):
            rollouts = [c[3] for c in conts if c[0] == k and c[3] is not None]
            if rollouts:
                values[k] = float(np.mean(rollouts))
        return values

    def _lockstep(self, conts: list[list], me: int) -> None:
        """Play the continuations ``[reply k, position, rng, value]`` as
        :meth:`_continuation` does, all of them a step at a time (one option-kernel call and
        one forward pass a step); each one's value (or ``None``) into its last field."""
        active = list(conts)
        while active:
            moving = []
            for c in active:
                s = c[1]
                if s.is_over:
                    c[3] = final_value(s, me, self.scale)
                elif s.phase != "place_tile":
                    c[3] = float(self.values([s], me)[0])
                else:
                    d = self._sampled_draw(s, c[2])
                    if d is not None:
                        moving.append((c, d))
            if not moving:
                return
            opts, offsets = option_tables([d for _, d in moving])
            self.nodes += len(opts)
            movers = [d.current_player for _, d in moving]
            vals = self._batch_values(opts, np.repeat(movers, np.diff(offsets)))
            active = []
            for k, (c, d) in enumerate(moving):
                lo, hi = int(offsets[k]), int(offsets[k + 1])
                best = lo + int(np.argmax(vals[lo:hi]))
                if movers[k] == me:
                    c[3] = float(vals[best])
                else:
                    c[1] = option_state(d, int(opts.code[best]), int(opts.follower[best]))
                    active.append(c)

    def _forward_x(self, x: np.ndarray) -> np.ndarray:
        return self.net.forward(x)[:, 0] if len(x) else np.zeros(0, np.float32)

    def _blend(self, values: np.ndarray, states: list[Any], feats: list[Any], seat: int
               ) -> np.ndarray:  # fmt: skip
        if self.weight is None or not len(values):
            return values
        return blend(values, heuristic_margins(states, feats, seat), self.weight, self.scale)

    def _reply(self, s: Any, me: int) -> tuple[Any, float]:
        """The next seat's best option in ``s`` (its tile drawn) by its own values, and
        that afterstate's value for ``me``."""
        nxt = s.current_player
        two = s.config.players == 2
        replies = [o.state for o in options(s)]
        self.nodes += len(replies)
        mine, theirs, rows_me, rows_them, where, going, feats = [], [], [], [], [], [], []
        for r in replies:
            if r.is_over:
                theirs.append(final_value(r, nxt, self.scale))
                mine.append(final_value(r, me, self.scale))
                where.append(-1)
                continue
            per, left = player_features(r)
            going.append(r)
            feats.append((per, left))
            rows_them.append(self.seat_vector(per, left, nxt, r.config))
            if not two:
                rows_me.append(self.seat_vector(per, left, me, r.config))
            where.append(len(rows_them) - 1)
            theirs.append(0.0)
            mine.append(0.0)
        v_them = self._blend(self._forward(rows_them), going, feats, nxt)
        v_me = -v_them if two else self._blend(self._forward(rows_me), going, feats, me)
        for i, w in enumerate(where):
            if w >= 0:
                theirs[i], mine[i] = float(v_them[w]), float(v_me[w])
        best = int(np.argmax(theirs))
        return replies[best], mine[best]

    def _sampled_draw(self, state: Any, rng: np.random.Generator) -> Any | None:
        """``state`` with a tile drawn at random from the unknown ones (a tile that fits
        nowhere is set aside and another drawn, as the rules do); ``None`` if none fits."""
        counts = unknown_tiles(state)
        while counts:
            tiles = list(counts)
            weights = np.array([counts[t] for t in tiles], np.float64)
            tile = tiles[int(np.searchsorted(np.cumsum(weights), rng.random() * weights.sum(),
                                             side="right"))]  # fmt: skip
            s = with_drawn_tile(state, tile)
            if s is not None:
                return s
            del counts[tile]
        return None

    def _continuation(self, after: Any, me: int, rng: np.random.Generator) -> float | None:
        """Value for ``me`` after one sampled draw per seat, each seat playing its best
        option by its own values, until ``me`` has played (``None``: no tile fits)."""
        s = after
        while True:
            if s.is_over:
                return final_value(s, me, self.scale)
            if s.phase != "place_tile":
                return float(self.values([s], me)[0])
            drawn = self._sampled_draw(s, rng)
            if drawn is None:
                return None
            mover = drawn.current_player
            children = [o.state for o in options(drawn)]
            self.nodes += len(children)
            vals = self.values(children, mover)
            best = int(np.argmax(vals))
            if mover == me:
                return float(vals[best])
            s = children[best]

    def expectation(self, after: Any, me: int) -> float:
        """Expected value for ``me`` of the settled afterstate ``after`` once the next seat
        has drawn (chance) and played its best option (by the network); with ``samples``,
        each of those positions valued by the mean of as many sampled continuations."""
        if after.is_over:
            return final_value(after, me, self.scale)
        if after.phase != "place_tile":  # not a tile to draw next: value it as it stands
            return float(self.values([after], me)[0])
        if self.kernel:
            return self._kernel_expectations([after], me)[0]
        total, weight = 0.0, 0
        for tile, count in unknown_tiles(after).items():
            s = with_drawn_tile(after, tile)
            if s is None:
                continue
            reply, value = self._reply(s, me)
            if self.samples and not reply.is_over:
                rollouts = []
                for j in range(self.samples):
                    rng = np.random.default_rng((self._stream, tile, j))
                    v = self._continuation(reply, me, rng)
                    if v is not None:
                        rollouts.append(v)
                if rollouts:
                    value = float(np.mean(rollouts))
            total += count * value
            weight += count
        if weight == 0:
            return float(self.values([after], me)[0])
        return total / weight

    def search(self, state: Any, player: int) -> tuple[Any, np.ndarray, np.ndarray]:
        """(the options of a tile placement: an :class:`Options` table, or with
        ``kernel=False`` the reference path's list of ``Option``; their values by the
        network; the search's expectation of the ``candidates`` best: ``-inf`` for the
        options not searched; a single option is not searched and keeps its value)."""
        if self.kernel:
            opts: Any = option_table(state)
            vals = self.option_values(opts, player)
        else:
            opts = options(state)
            vals = self.values([o.state for o in opts], player)
        self.nodes = len(opts)
        if len(opts) == 1:
            return opts, vals, vals.copy()
        order = np.argsort(-vals, kind="stable")[: self.candidates]
        if self.samples:
            self._stream = self.rng.randrange(2**31)
        refined = np.full(len(opts), -np.inf)
        if self.kernel:  # every candidate's expectation in the same kernel calls
            afters = [option_state(state, int(opts.code[i]), int(opts.follower[i]))
                      for i in order]  # fmt: skip
            refined[order] = self._kernel_expectations(afters, player)
            return opts, vals, refined
        for i in order:
            refined[i] = self.expectation(opts[i].state, player)
        return opts, vals, refined

    def decide(self, v: Any, legal: list[int]) -> int:
        state, player = v.public_world(), v.player  # the seat's view: order sorted
        codes = state.legal_action_codes()
        if len(codes) == 1 and state.phase != "place_tile":
            return int(codes[0])
        if state.phase != "place_tile":
            if self.kernel:
                table = option_table(state)
                self.nodes = len(table.code)
                return int(table.code[pick(self.option_values(table, player), self.rng)])
            opts = options(state)
            vals = self.values([o.state for o in opts], player)
            self.nodes = len(opts)
            return opts[pick(vals, self.rng)].code
        opts, _, refined = self.search(state, player)
        return option_code(opts, pick(refined, self.rng))


def option_code(opts: Any, i: int) -> int:
    """The code of option ``i`` of what :meth:`ExpectimaxAgent.search` returns."""
    return int(opts.code[i]) if isinstance(opts, Options) else opts[i].code
