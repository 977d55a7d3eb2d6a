"""The greedy baseline's option values (``TileGreedyAgent.evaluate``) in one compiled call.

``TileGreedyAgent.evaluate`` plays every option on a clone (a placement with each of its
follower choices, the turn settled) and scores each afterstate by the heuristic margin of
:func:`.potentials.values`. :func:`greedy_scores` does the same without a Python state per
option: the options are applied on scratch copies of the engine's arrays by the option
kernel's steps (``encoders.features.afterstate_options``: the engine's own kernels, the
board shared and the tiles taken off again, the rest copied back where an option can have
changed it), and each afterstate is valued by :func:`.potentials.potentials_kernel`, the
numbers and the order of operations being the reference's, so the values are the same.

(A source of ``games.carcassonne.jit_cache``: its compiled cache is dropped whenever an
engine kernel it calls changes.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.agents.tile.potentials import (
    CONSTS,
    FIELD_CITIES,
    NSEG,
    SEG_KIND,
    potentials_kernel,
)
from carcassonne_rl.encoders.features.afterstate_options import (
    after_kernel,
    copy_position,
    scratch,
    take_off,
)
from carcassonne_rl.games.carcassonne.layout import (
    ERR_LOG_FULL,
    O_LEGAL,
    OK,
    PHASE_FOLLOWER,
    PHASE_OVER,
    PHASE_TILE,
    R_DECKLEN,
    R_DECKPOS,
    R_FOLLOWERS,
    R_NLEGAL,
    R_NPLAYERS,
    R_NSLOTS,
    R_PHASE,
    R_SCORES,
)


@njit(cache=True, nogil=True)
def _margin(board, ints, tiles, segs, player, follower_value):
    """``margin(values(state, follower_value), player)`` of the position in the arrays."""
    npl = ints[R_NPLAYERS]
    v = np.empty(npl, np.float64)
    for p in range(npl):
        v[p] = float(ints[R_SCORES + p])
    if ints[R_PHASE] != PHASE_OVER:
        pot = potentials_kernel(board, ints, tiles, segs, CONSTS, NSEG, SEG_KIND, FIELD_CITIES)
        r = float(ints[R_DECKLEN] - ints[R_DECKPOS])
        supply = follower_value * r / (r + 20.0)
        for p in range(npl):
            v[p] += pot[p]
        for p in range(npl):
            v[p] += ints[R_FOLLOWERS + p] * supply
    best = -np.inf
    for p in range(npl):
        if p != player and v[p] > best:
            best = v[p]
    return v[player] - best


@njit(cache=True, nogil=True)
def greedy_kernel(board, ints, tiles, segs, player, follower_value, out):
    """``out[i]``: the greedy margin of legal code ``i`` (a placement: of its best follower
    choice). Returns OK, or the status of an option that failed."""
    b, i1, t1, s1, i2, t2, s2, events, pool = scratch(board, ints, tiles, segs)
    placing = ints[R_PHASE] == PHASE_TILE
    slots0 = ints[R_NSLOTS]
    hi1 = slots0
    hi2 = slots0
    for i in range(ints[R_NLEGAL]):
        copy_position(ints, tiles, segs, i1, t1, s1, hi1)
        status = after_kernel(b, i1, t1, s1, events, pool, ints[O_LEGAL + i])
        if status != OK:
            return status
        slots1 = i1[R_NSLOTS]
        hi1 = max(hi1, slots1)
        if placing and i1[R_PHASE] == PHASE_FOLLOWER:
            best = -1e18
            for j in range(i1[R_NLEGAL]):
                copy_position(i1, t1, s1, i2, t2, s2, max(hi1, hi2))
                status = after_kernel(b, i2, t2, s2, events, pool, i1[O_LEGAL + j])
                if status != OK:
                    return status
                hi2 = max(hi2, i2[R_NSLOTS])
                best = max(best, _margin(b, i2, t2, s2, player, follower_value))
                take_off(b, t2, slots1, i2[R_NSLOTS])
            out[i] = best
        else:
            out[i] = _margin(b, i1, t1, s1, player, follower_value)
        take_off(b, t1, slots0, i1[R_NSLOTS])
    return OK


def greedy_scores(state: Any, player: int, follower_value: float = 3.0) -> list[tuple[int, float]]:
    """``TileGreedyAgent(follower_value=...).evaluate(state, player)``: (code, margin) of
    every legal decision, in the engine's order."""
    a = state.kernel_arrays()
    codes = state.legal_codes()
    out = np.empty(len(codes), np.float64)
    status = greedy_kernel(a.board, a.ints, a.tiles, a.segs, player, float(follower_value), out)
    if status != OK:
        if status == ERR_LOG_FULL:
            raise RuntimeError("score log overflow (raise MAX_EVENTS / MAX_POOL in layout.py)")
        raise RuntimeError(f"an option failed in the engine (status {status})")
    return list(zip(codes, out.tolist(), strict=True))
