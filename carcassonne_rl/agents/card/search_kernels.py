"""The card search's rollouts as Numba kernels: every world x candidate rollout of
``pretrained:search`` or ``heuristic:search`` (:mod:`~carcassonne_rl.agents.card.search`)
stepped together on the
batched card engine (``games/cardcassonne/batch_kernels``), the base network's options of all
of them valued by one forward pass per step.

The kernels are a second implementation of the base policy
(:class:`~carcassonne_rl.agents.card.value.CardSearchValueAgent` over the card heuristic, or
the heuristic, ``misplaced="apart"``): the heuristic's margins and scoring decisions
(:mod:`.heuristic_kernels`), the network's inputs of its best candidates
(``encoders/features/card_options``) and the leaves (``search.margin``,
``search.leaf_standing``), the same sums in the same order. The Python search stays the
reference (``batched=False``); ``tests/agents/test_card_search_batched.py`` checks both
decide alike.

A rollout's status: :data:`RUN` (stepping), :data:`DECIDE` (a turn decision waits for the
network), :data:`LEAF` (the leaf waits for the network), :data:`TIE` (tied options: the
seat's generator picks, in Python), :data:`DONE` (its leaf value is known).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.agents.card.heuristic_kernels import (
    W_ANIMAL_FUTURE,
    W_BUILDING_FUTURE,
    all_margins,
    collected_sets,
    future_set_points,
    rounds_left,
    scoring_code,
    weights_array,
)
from carcassonne_rl.encoders.features.card import STATIC_FEATURES
from carcassonne_rl.encoders.features.card_options import (
    SEG_CAP,
    SUMMARY_LEN,
    static_features,
    view_rows,
    write_option_features,
)
from carcassonne_rl.games.cardcassonne import batch_kernels as K
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.actions import NUM_ACTIONS
from carcassonne_rl.games.cardcassonne.batch import pack_state, rules_params
from carcassonne_rl.games.cardcassonne.cards import BUILDING_JOKER
from carcassonne_rl.games.cardcassonne.config import GameConfig
from carcassonne_rl.games.cardcassonne.table import OVER, TURN

RUN, DECIDE, LEAF, TIE, DONE = range(5)
#: legal codes a turn can have (every kind in hand on every row, and the follower)
LEGAL_CAP = NUM_ACTIONS
#: points per unit of the search-value network's margin input (``value.MARGIN_SCALE``)
MARGIN_SCALE = 30.0
#: the value of an option the network does not value (``ranked_values``)
NOT_VALUED = -1e6
NK = L.NK


# ---------------------------------------------------------------- the leaves
@njit(cache=True, nogil=True)
def leaf_standing(g, q, future, params, lw):
    """``search.leaf_standing`` of seat ``q`` (``lw``: the leaf's heuristic weights)."""
    over = g[L.F_PHASE] == OVER
    score = float(g[L.O_SCORES + q])
    if future == 0.0 or over:
        if over:
            return score
        c = L.O_COLL + q * NK
        return score + L.building_points_k(g[c + 3], g[c + 8], g[c + 13], g[c + 18],
                                           g[c + BUILDING_JOKER], params)  # fmt: skip
    left = future * rounds_left(g)
    sp = np.empty(4, np.float64)
    future_set_points(params, lw[W_BUILDING_FUTURE], lw[W_BUILDING_FUTURE + 1],
                      lw[W_BUILDING_FUTURE + 2], left, sp)  # fmt: skip
    zero = np.zeros(4, np.int64)
    sets = collected_sets(g, q, zero, 0, sp)
    animals = 0
    for s in range(4):
        animals += L.animal_value(params, g[L.O_ANIM + q * 4 + s])
    return score + sets + lw[W_ANIMAL_FUTURE] * left * animals


@njit(cache=True, nogil=True)
def leaf_margin(g, p, future, params, lw):
    """``search.margin``: seat ``p``'s leaf standing minus the best other seat's."""
    n = g[L.F_N]
    mine = leaf_standing(g, p, future, params, lw)
    best = 0.0
    first = True
    for q in range(n):
        if q != p:
            v = leaf_standing(g, q, future, params, lw)
            if first or v > best:
                best = v
                first = False
    return mine - best


# ---------------------------------------------------------------- the rollouts
@njit(cache=True, nogil=True)
def _legal(g, out):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    K.write_mask(g, mask)
    nl = 0
    for c in range(NUM_ACTIONS):
        if mask[c]:
            out[nl] = c
            nl += 1
    return nl


@njit(cache=True, nogil=True)
def _candidates(g, p, legal, nl, cands, params, hw, x, keep):
    """The base policy's candidates at seat ``p``'s turn decision: the heuristic's margins of
    the ``legal[:nl]`` options, the ``cands`` best (all when -1 or more) in ``keep`` and
    their network inputs in ``x`` (features, margin); returns how many."""
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    margins = np.empty(nl, np.float64)
    all_margins(g, p, legal, nl, vrows, vlen, params, hw, margins)
    for j in range(nl):
        margins[j] = margins[j] / MARGIN_SCALE
    if cands < 0 or nl <= cands:
        nk = nl
        for j in range(nl):
            keep[j] = j
    else:  # np.argsort(-margins, kind="stable")[:cands]
        nk = cands
        taken = np.zeros(nl, np.bool_)
        for t in range(cands):
            best = -1
            for j in range(nl):
                if not taken[j] and (best < 0 or margins[j] > margins[best]):
                    best = j
            taken[best] = True
            keep[t] = best
    static = np.empty(STATIC_FEATURES, np.float32)
    buf = np.empty(SEG_CAP, np.int64)
    st = np.empty(SUMMARY_LEN, np.int64)
    static_features(g, p, vrows, vlen, params, static)
    width = x.shape[1] - 1
    for t in range(nk):
        row = x[t]
        write_option_features(g, p, legal[keep[t]], vrows, vlen, params, static, row[:width],
                              buf, st)  # fmt: skip
        row[width] = np.float32(margins[keep[t]])
    return nk


@njit(cache=True, nogil=True)
def _heuristic_ties(g, p, legal, nl, params, hw, ties):
    """``CardHeuristicAgent.decide`` at seat ``p``'s turn decision: the indices of the
    options whose margin is within 1e-9 of the best in ``ties``; returns how many."""
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    margins = np.empty(nl, np.float64)
    all_margins(g, p, legal, nl, vrows, vlen, params, hw, margins)
    best = margins[0]
    for j in range(1, nl):
        best = max(best, margins[j])
    nt = 0
    for j in range(nl):
        if margins[j] >= best - 1e-9:
            ties[nt] = j
            nt += 1
    return nt


@njit(cache=True, nogil=True)
def root_values(g, p, legal, net_base, cands, params, hw, x, keep, out):
    """Seat ``p``'s options ``legal`` as the base policy scores them (``scored``): the
    heuristic's margins in ``out`` (not ``net_base``), or the network's candidates in
    ``keep`` and their inputs in ``x``; returns how many candidates (0 for the heuristic)."""
    nl = legal.shape[0]
    if not net_base:
        vrows = np.empty((4, L.ROW_CAP), np.int64)
        vlen = np.empty(4, np.int64)
        view_rows(g, p, vrows, vlen)
        all_margins(g, p, legal, nl, vrows, vlen, params, hw, out)
        return 0
    return _candidates(g, p, legal, nl, cands, params, hw, x, keep)


@njit(cache=True, nogil=True)
def start_rollouts(games, codes, horizon, params, stops, status):
    """Apply candidate ``codes[i]`` to rollout ``i`` and set its stop round."""
    for i in range(games.shape[0]):
        K.apply_code(games[i], params, codes[i])
        stops[i] = games[i, L.F_ROUND] + horizon
        status[i] = RUN


@njit(cache=True, nogil=True)
def advance(games, status, stops, me, to_me, future, params, hw, lw, net_base, cands, x, legal,
            nlegal, keep, nkeep, xrow, leaf, ties, nties):  # fmt: skip
    """Step every running rollout with the base policy (``net_base``: the search-value
    network over the heuristic, else the heuristic alone) up to its next decision that needs
    the network (:data:`DECIDE`, :data:`LEAF`: its inputs in ``x`` from ``xrow[i]``), a tie
    (:data:`TIE`) or its end (:data:`DONE`, ``leaf[i]``); returns the rows of ``x`` written
    (-1: a rollout met a decision the base policy's kernels do not take)."""
    rows = 0
    for i in range(games.shape[0]):
        if status[i] != RUN:
            continue
        g = games[i]
        while True:
            ph = g[L.F_PHASE]
            if ph == OVER:
                leaf[i] = leaf_margin(g, me, 0.0 if to_me else future, params, lw)
                status[i] = DONE
                break
            if ph == TURN and g[L.F_ROUND] >= stops[i] and (not to_me or g[L.F_CURRENT] == me):
                if not to_me:
                    leaf[i] = leaf_margin(g, me, future, params, lw)
                    status[i] = DONE
                    break
                nl = _legal(g, legal[i])
                nlegal[i] = nl
                nk = _candidates(g, me, legal[i], nl, cands, params, hw, x[rows:], keep[i])
                nkeep[i] = nk
                xrow[i] = rows
                rows += nk
                status[i] = LEAF
                break
            if ph != TURN:
                code = scoring_code(g, params, hw)
                if code < 0:
                    return -1
                nl = _legal(g, legal[i])
                if nl == 1:
                    code = legal[i, 0]
                K.apply_code(g, params, code)
                continue
            nl = _legal(g, legal[i])
            if nl == 1:
                K.apply_code(g, params, legal[i, 0])
                continue
            nlegal[i] = nl
            p = g[L.F_CURRENT]
            if not net_base:
                nt = _heuristic_ties(g, p, legal[i], nl, params, hw, ties[i])
                if nt == 1:
                    K.apply_code(g, params, legal[i, ties[i, 0]])
                    continue
                nties[i] = nt
                status[i] = TIE
                break
            nk = _candidates(g, p, legal[i], nl, cands, params, hw, x[rows:], keep[i])
            nkeep[i] = nk
            xrow[i] = rows
            rows += nk
            status[i] = DECIDE
            break
    return rows


@njit(cache=True, nogil=True)
def resolve(games, status, values, params, legal, nlegal, keep, nkeep, xrow, leaf, ties,
            nties):  # fmt: skip
    """Take the network's ``values`` of the waiting rollouts: a decision plays the best option
    (``afterstate.pick``; tied ones: :data:`TIE`, their indices in ``ties[i, :nties[i]]``),
    a leaf is the best value in margin points. Returns the count of ties."""
    tied = 0
    out = np.empty(LEGAL_CAP, np.float64)
    for i in range(games.shape[0]):
        st = status[i]
        if st != DECIDE and st != LEAF:  # noqa: PLR1714 - as Numba compiles it
            continue
        nl = nlegal[i]
        out[:nl] = NOT_VALUED
        for t in range(nkeep[i]):
            out[keep[i, t]] = np.float64(values[xrow[i] + t])
        best = out[0]
        for j in range(1, nl):
            best = max(best, out[j])
        if st == LEAF:
            leaf[i] = best * MARGIN_SCALE
            status[i] = DONE
            continue
        nt = 0
        for j in range(nl):
            if out[j] >= best - 1e-7:
                ties[i, nt] = j
                nt += 1
        if nt == 1:
            K.apply_code(games[i], params, legal[i, ties[i, 0]])
            status[i] = RUN
        else:
            nties[i] = nt
            status[i] = TIE
            tied += 1
    return tied


@njit(cache=True, nogil=True)
def play(g, params, code):
    """Apply ``code`` to one rollout's game."""
    K.apply_code(g, params, code)


# ---------------------------------------------------------------- the Python side
class BatchedRollouts:
    """Every rollout of one search decision at once (module doc): ``run`` gives the leaf
    values the Python rollouts give (``CardSearchAgent._play_out``), world by world, the
    candidates in order."""

    def __init__(self, net: Any, candidates: int | None, weights: Any, leaf_weights: Any) -> None:
        """``net``: the search-value network of the base policy (None: the heuristic)."""
        self.net = net
        self.cands = -1 if candidates is None else int(candidates)
        self.hw = weights_array(weights)
        self.lw = weights_array(leaf_weights)
        self._params: dict[int, np.ndarray] = {}

    @classmethod
    def of(cls, base: Any, leaf_weights: Any) -> BatchedRollouts | None:
        """The batched rollouts of a search whose seats all play as the base agent ``base``
        (``leaf_weights``: its leaf's future weights), or None unless ``base`` is the
        search-value network over the heuristic or the heuristic itself (its
        ``misplaced="apart"`` rule)."""
        from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
        from carcassonne_rl.agents.card.value import NUM_SEARCH_INPUTS, CardSearchValueAgent

        if type(base) is CardHeuristicAgent and base.misplaced == "apart":
            return cls(None, None, base.weights, leaf_weights)
        if (
            type(base) is not CardSearchValueAgent
            or type(base.heuristic) is not CardHeuristicAgent
            or base.heuristic.misplaced != "apart"
            or base.net.inputs != NUM_SEARCH_INPUTS
        ):
            return None
        return cls(base.net, base.candidates, base.heuristic.weights, leaf_weights)

    def scored(self, world: Any, player: int, legal: list[int]) -> list[float] | None:
        """The base policy's values of seat ``player``'s options ``legal`` (``scored``: the
        heuristic's margins, or the network's values of its candidates, the others
        :data:`NOT_VALUED`) in ``world``, a state of that seat's view (it reads only the
        view), or None when the kernels cannot play it."""
        params = self.params(world)
        if params is None:
            return None
        codes = np.asarray(legal, np.int64)
        out = np.full(len(legal), NOT_VALUED)
        net_base = self.net is not None
        x = np.zeros((len(legal) if net_base else 1, self.net.inputs if net_base else 1),
                     np.float32)  # fmt: skip
        keep = np.zeros(len(legal), np.int64)
        nk = root_values(pack_state(world), player, codes, net_base, self.cands, params,
                         self.hw, x, keep, out)  # fmt: skip
        if net_base:
            out[keep[:nk]] = self.net.forward(x[:nk])[:, 0]
        return out.tolist()

    def params(self, world: Any) -> np.ndarray | None:
        """The rules of ``world`` as the kernels read them (None: rules they do not play)."""
        from carcassonne_rl.games.cardcassonne import RULES

        if world.rules != RULES:  # the base policy values by the default rules
            return None
        got = self._params.get(world.n)
        if got is None:
            got = self._params[world.n] = rules_params(GameConfig(world.n))
        return got

    def run(self, worlds: list[Any], seeds: list[int], ranked: list[int], me: int,
            future: float | None, horizon: int) -> list[float] | None:  # fmt: skip
        """The leaf value of each world x candidate rollout (index ``w * len(ranked) + c``) of
        seat ``me``'s decision, played ``horizon`` rounds on and valued by the leaf
        ``future`` (None: the network at ``me``'s next turn), or None when the kernels cannot
        play these worlds."""
        params = self.params(worlds[0])
        if params is None or any(w.rules != worlds[0].rules for w in worlds):
            return None
        k = len(ranked)
        packed = np.stack([pack_state(w) for w in worlds])
        games = np.repeat(packed, k, axis=0)
        count = games.shape[0]
        codes = np.tile(np.asarray(ranked, np.int64), len(worlds))
        stops = np.empty(count, np.int64)
        status = np.empty(count, np.int64)
        start_rollouts(games, codes, horizon, params, stops, status)
        net_base = self.net is not None
        width = self.net.inputs if net_base else 1
        per = LEGAL_CAP if self.cands < 0 else self.cands
        x = np.zeros((count * per if net_base else 1, width), np.float32)
        legal = np.zeros((count, LEGAL_CAP), np.int64)
        nlegal = np.zeros(count, np.int64)
        keep = np.zeros((count, LEGAL_CAP), np.int64)
        nkeep = np.zeros(count, np.int64)
        xrow = np.zeros(count, np.int64)
        leaf = np.zeros(count, np.float64)
        ties = np.zeros((count, LEGAL_CAP), np.int64)
        nties = np.zeros(count, np.int64)
        to_me = future is None
        fut = 0.0 if future is None else float(future)
        rngs: dict[tuple[int, int], random.Random] = {}
        while True:
            rows = advance(games, status, stops, me, to_me, fut, params, self.hw, self.lw,
                           net_base, self.cands, x, legal, nlegal, keep, nkeep, xrow, leaf,
                           ties, nties)  # fmt: skip
            if rows < 0:
                raise RuntimeError("a rollout met a decision the search's kernels do not take")
            if rows > 0:
                values = self.net.forward(x[:rows])[:, 0]
                resolve(games, status, values, params, legal, nlegal, keep, nkeep, xrow, leaf,
                        ties, nties)  # fmt: skip
            tied = np.flatnonzero(status == TIE).tolist()
            if rows == 0 and not tied:
                break
            for i in tied:  # the seat's base agent breaks the tie, reseeded for this rollout
                q = int(games[i, L.F_CURRENT])
                rng = rngs.get((i, q))
                if rng is None:
                    rng = rngs[(i, q)] = random.Random(seeds[i // k] * 8 + q)
                j = int(ties[i, rng.randrange(int(nties[i]))])
                play(games[i], params, int(legal[i, j]))
                status[i] = RUN
        return leaf.tolist()


__all__ = [
    "DECIDE",
    "DONE",
    "LEAF",
    "LEGAL_CAP",
    "RUN",
    "TIE",
    "BatchedRollouts",
    "advance",
    "leaf_margin",
    "leaf_standing",
    "play",
    "resolve",
    "root_values",
    "start_rollouts",
]
