"""The card inference's likelihoods as Numba kernels: every candidate world of a decision
(batched games, ``batch.pack_state``) wound back move by move and, at each of the other
seat's decisions, its choice probability ``softmax(value / T)`` over its legal options. For
the ``heuristic`` model (:func:`log_likelihoods`) the values are the heuristic's margins
(:func:`~.heuristic_kernels.all_margins`), all in one call; for the ``policy`` model over the
search-value network (:func:`policy_rows`, :func:`add_log_choices`) the network's inputs of
every option of every such decision are written in one call, valued by one forward pass,
and their log-probabilities summed per world. A second implementation of
:func:`~carcassonne_rl.agents.card.inference.log_likelihood` (the reference;
``tests/agents/test_card_inference.py`` compares them)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.agents.card.heuristic_kernels import all_margins
from carcassonne_rl.agents.card.search_kernels import MARGIN_SCALE
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
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, NUM_ACTIONS, PLAY_UP
from carcassonne_rl.games.cardcassonne.batch import pack_state

FACE_DOWN = 32
#: the columns of a move array: the seat, the row, the last follower before it
M_SEAT, M_ROW, M_LAST = range(3)


@njit(cache=True, nogil=True)
def undo_move(g, seat, row, last_before):
    """``inference.undo`` on one batched game: the last entry of ``row`` (seat ``seat``'s
    move) taken back, that seat to move again; returns the move's action code."""
    n = g[L.O_ROWLEN + row] - 1
    at = L.O_ROWS + row * L.ROW_CAP + n
    e = g[at]
    g[at] = 0
    g[L.O_ROWLEN + row] = n
    g[L.F_CURRENT] = seat
    if e < 0:
        g[L.O_FROW + seat] = -1
        g[L.F_LASTF] = last_before
        return FOLLOWER + row
    k = e & 31
    g[L.O_HANDS + seat * L.NK + k] += 1
    g[L.O_HSIZE + seat] += 1
    g[L.O_PLAYED + seat] -= 1
    return k * 4 + row if e >= FACE_DOWN else PLAY_UP + k * 4 + row


@njit(cache=True, nogil=True)
def _in_top(values, nl, j, top):
    """Whether option ``j`` has fewer than ``top`` of ``values[:nl]`` above its own."""
    above = 0
    for t in range(nl):
        if values[t] > values[j]:
            above += 1
    return above < top


@njit(cache=True, nogil=True)
def log_choice(values, nl, index, temperature, top, eps):
    """``inference.log_choice(values[:nl], index, temperature, top, eps)``."""
    extra = 0.0
    inside = nl
    if top > 0:
        inside = 0
        for j in range(nl):
            if _in_top(values, nl, j, top):
                inside += 1
        if inside < nl:
            if not _in_top(values, nl, index, top):
                return math.log(eps / (nl - inside)) if eps > 0 else -math.inf
            extra = math.log(1.0 - eps)
    m = -math.inf
    for j in range(nl):
        if inside == nl or _in_top(values, nl, j, top):
            m = max(m, values[j] / temperature)
    total = 0.0
    for j in range(nl):
        if inside == nl or _in_top(values, nl, j, top):
            total += math.exp(values[j] / temperature - m)
    return extra + values[index] / temperature - m - math.log(total)


@njit(cache=True, nogil=True)
def legal_codes(g, code, mask, legal):
    """The pending decision's legal codes of world ``g`` into ``legal`` (code order, via
    ``mask``): ``(their number, the index of ``code`` among them or -1)``."""
    K.write_mask(g, mask)
    nl = 0
    index = -1
    for c in range(NUM_ACTIONS):
        if mask[c]:
            if c == code:
                index = nl
            legal[nl] = c
            nl += 1
    return nl, index


@njit(cache=True, nogil=True)
def log_likelihoods(games, moves, me, params, hw, temperature, top, eps, out):
    """``out[i]``: the log-probability of the other seats' ``moves`` (rows of seat, row, last
    follower before; the round's last moves in order) in world ``games[i]`` under
    ``softmax(margin / temperature)`` of the heuristic (weights ``hw``; ``top``, ``eps`` as
    :func:`log_choice` takes them); ``games`` are wound back in place."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal = np.empty(NUM_ACTIONS, np.int64)
    margins = np.empty(NUM_ACTIONS, np.float64)
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    for i in range(games.shape[0]):
        g = games[i]
        total = 0.0
        for j in range(moves.shape[0] - 1, -1, -1):
            seat = moves[j, M_SEAT]
            code = undo_move(g, seat, moves[j, M_ROW], moves[j, M_LAST])
            if seat == me:
                continue
            nl, index = legal_codes(g, code, mask, legal)
            if index < 0:
                total = -math.inf
                break
            if nl > 1:
                view_rows(g, seat, vrows, vlen)
                all_margins(g, seat, legal, nl, vrows, vlen, params, hw, margins)
                total += log_choice(margins, nl, index, temperature, top, eps)
        out[i] = total


#: the columns of a segment of :func:`policy_rows`: the world, its first row of inputs, the
#: options, the index of the option played
S_WORLD, S_FIRST, S_OPTIONS, S_INDEX = range(4)


@njit(cache=True, nogil=True)
def option_inputs(g, p, legal, nl, params, hw, x):
    """The search-value network's inputs (features, the heuristic's margin in
    :data:`~.search_kernels.MARGIN_SCALE` units) of each of seat ``p``'s options
    ``legal[:nl]`` in ``x[:nl]`` (``search_kernels._candidates`` with every option)."""
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    margins = np.empty(nl, np.float64)
    all_margins(g, p, legal, nl, vrows, vlen, params, hw, margins)
    static = np.empty(STATIC_FEATURES, np.float32)
    buf = np.empty(SEG_CAP, np.int64)
    st = np.empty(SUMMARY_LEN, np.int64)
    static_features(g, p, vrows, vlen, params, static)
    width = x.shape[1] - 1
    for t in range(nl):
        row = x[t]
        write_option_features(g, p, legal[t], vrows, vlen, params, static, row[:width], buf,
                              st)  # fmt: skip
        row[width] = np.float32(margins[t] / MARGIN_SCALE)


@njit(cache=True, nogil=True)
def policy_rows(games, moves, me, params, hw, x, seg, out):
    """The ``policy`` model's inputs: ``games`` wound back as in :func:`log_likelihoods`; at
    each of the other seat's decisions with two or more options, the network's inputs of
    every option (:func:`option_inputs`, in code order) from row
    ``seg[j, S_FIRST]`` of ``x`` and the segment ``j`` in ``seg``; ``out[i]``: 0, or -inf
    where the move was not legal. Returns the segments written (-1: ``x`` or ``seg`` is
    too small)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal = np.empty(NUM_ACTIONS, np.int64)
    ns = 0
    rows = 0
    for i in range(games.shape[0]):
        g = games[i]
        out[i] = 0.0
        for j in range(moves.shape[0] - 1, -1, -1):
            seat = moves[j, M_SEAT]
            code = undo_move(g, seat, moves[j, M_ROW], moves[j, M_LAST])
            if seat == me:
                continue
            nl, index = legal_codes(g, code, mask, legal)
            if index < 0:
                out[i] = -math.inf
                break
            if nl > 1:
                if ns >= seg.shape[0] or rows + nl > x.shape[0]:
                    return -1
                option_inputs(g, seat, legal, nl, params, hw, x[rows:])
                seg[ns, S_WORLD] = i
                seg[ns, S_FIRST] = rows
                seg[ns, S_OPTIONS] = nl
                seg[ns, S_INDEX] = index
                ns += 1
                rows += nl
    return ns


@njit(cache=True, nogil=True)
def add_log_choices(values, seg, ns, temperature, top, eps, out):
    """Add each segment's ``log softmax(value / temperature)`` of the option played to its
    world's ``out`` (``values``: the network's outputs of :func:`policy_rows`' inputs, in
    :data:`~.search_kernels.MARGIN_SCALE` units); a world at -inf stays there."""
    buf = np.empty(NUM_ACTIONS, np.float64)
    for j in range(ns):
        i = seg[j, S_WORLD]
        if out[i] == -math.inf:
            continue
        first = seg[j, S_FIRST]
        nl = seg[j, S_OPTIONS]
        for t in range(nl):
            buf[t] = np.float64(values[first + t]) * MARGIN_SCALE
        out[i] += log_choice(buf, nl, seg[j, S_INDEX], temperature, top, eps)


# ---------------------------------------------------------------- the Python side
class CompiledLikelihood:
    """The log-likelihoods of a decision's candidate worlds by the kernels (``hw``: the
    heuristic's weights; ``net``: the search-value network of the ``policy`` model, None for
    the heuristic's margins), with its inputs' buffers kept between decisions."""

    def __init__(self, hw: np.ndarray, net: Any = None) -> None:
        self.hw = hw
        self.net = net
        self._x = np.zeros((0, 1 if net is None else net.inputs), np.float32)
        self._seg = np.zeros((0, 4), np.int64)

    def __call__(self, pool: list[Any], moves: np.ndarray, me: int, params: np.ndarray,
                 temperature: float, top: int = 0, eps: float = 0.0) -> np.ndarray:  # fmt: skip
        """The log-likelihood of ``moves`` (rows of seat, row, last follower before) in each
        world of ``pool`` (states at the default rules, not changed; ``top``, ``eps``: as
        :func:`log_choice` takes them)."""
        games = np.stack([pack_state(w) for w in pool])
        out = np.empty(len(pool), np.float64)
        if self.net is None:
            log_likelihoods(games, moves, me, params, self.hw, temperature, top, eps, out)
            return out
        need = len(pool) * int((moves[:, M_SEAT] != me).sum())
        if self._seg.shape[0] < need:
            self._seg = np.zeros((need, 4), np.int64)
            self._x = np.zeros((max(need * 48, self._x.shape[0]), self.net.inputs), np.float32)
        while True:  # the inputs' buffer grows until every option of every decision fits
            ns = policy_rows(games.copy(), moves, me, params, self.hw, self._x, self._seg, out)
            if ns >= 0:
                break
            self._x = np.zeros((2 * self._x.shape[0], self.net.inputs), np.float32)
        seg = self._seg[:ns]
        rows = int((seg[:, S_FIRST] + seg[:, S_OPTIONS]).max()) if ns else 0
        if rows:
            values = self.net.forward(self._x[:rows])[:, 0]
            add_log_choices(values, seg, ns, temperature, top, eps, out)
        return out


__all__ = [
    "CompiledLikelihood",
    "add_log_choices",
    "log_choice",
    "log_likelihoods",
    "option_inputs",
    "policy_rows",
    "undo_move",
]
