"""The greedy baseline's option values (``TileGreedyAgent.evaluate``) in one compiled call.

``TileGreedyAgent.evaluate`` plays every option on a clone (a placement with each of its
follower choices, the turn settled) and scores each afterstate by the heuristic margin of
:func:`.potentials.values`. :func:`greedy_scores` does the same without a Python state per
option: the options are applied on scratch copies of the engine's arrays by the option
kernel's steps (``encoders.features.afterstate_options``: the engine's own kernels, the
board shared and the tiles taken off again, the rest copied back where an option can have
changed it), and each afterstate is valued by :func:`.potentials.potentials_kernel`, the
numbers and the order of operations being the reference's (the features with followers
found from the position's followers and the tiles the option placed). A placement's follower options
share its settled afterstate as in the option kernel (a follower that changes nothing but
its own feature adds that feature's value to its player, and one follower leaves the
supply), so their values are the reference's to float rounding (1e-14 on whole games) and
the best moves, ties within 1e-9 included, are the same.

(A source of ``games.carcassonne.jit_cache``: its compiled cache is dropped whenever an
engine kernel it calls changes.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.agents.tile.potentials import lone_follower_value, potentials_from
from carcassonne_rl.encoders.features.afterstate_options import (
    after_kernel,
    copy_position,
    scratch,
    take_off,
)
from carcassonne_rl.encoders.features.follower_options import may_finish
from carcassonne_rl.games.carcassonne.board_kernels import follower_list, new_work
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
    R_LAST,
    R_MESSAGES,
    R_NLEGAL,
    R_NPLAYERS,
    R_NSLOTS,
    R_PHASE,
    R_PLAYER,
    R_SCORES,
)
from carcassonne_rl.games.carcassonne.tiles import MAX_SEGMENTS


@njit(cache=True, nogil=True)
def _values(board, ints, tiles, segs, held, lo, work, follower_value, pot, v):
    """``values(state, follower_value)`` of the position in the arrays into ``v``, its
    potentials into ``pot`` (``held``, ``lo``, ``work``: as for
    :func:`.potentials.potentials_from`); returns the value of a follower in supply."""
    npl = ints[R_NPLAYERS]
    pot[:] = 0.0
    for p in range(npl):
        v[p] = float(ints[R_SCORES + p])
    if ints[R_PHASE] == PHASE_OVER:
        return 0.0
    pot[:npl] = potentials_from(board, ints, tiles, segs, held, lo, work)
    r = float(ints[R_DECKLEN] - ints[R_DECKPOS])
    supply = follower_value * r / (r + 20.0)
    for p in range(npl):
        v[p] += pot[p]
    for p in range(npl):
        v[p] += ints[R_FOLLOWERS + p] * supply
    return supply


@njit(cache=True, nogil=True)
def _margin(v, npl, player):
    """``margin(v, player)``: own value minus the best other seat's."""
    best = -np.inf
    for p in range(npl):
        if p != player and v[p] > best:
            best = v[p]
    return v[player] - best


@njit(cache=True, nogil=True)
def greedy_kernel(board, ints, tiles, segs, player, follower_value, out, fout, nf_out):
    """``out[i]``: the greedy margin of legal code ``i`` (a placement: of its best follower
    choice); a placement with follower options: their count in ``nf_out[i]`` (else 0) and
    each one's margin in ``fout[i, j]``, in the engine's order of the follower decision
    (``j`` = 0: none). Returns OK, or the status of an option that failed. A placement's follower
    options share its afterstate as in the option kernel (``options_kernel``): the
    placement alone is settled once, and a follower that changes nothing but its own
    feature adds that feature's value to its player's potential
    (:func:`.potentials.lone_follower_value`) and takes one follower out of the supply (the
    same values to float rounding); the others are played out one by one."""
    b, i1, t1, s1, i2, t2, s2, events, pool = scratch(board, ints, tiles, segs)
    npl = ints[R_NPLAYERS]
    pot = np.empty(npl, np.float64)
    v0 = np.empty(npl, np.float64)
    v = np.empty(npl, np.float64)
    slow = np.zeros(MAX_SEGMENTS + 1, np.bool_)
    fcode = np.zeros(MAX_SEGMENTS + 1, np.int64)
    placing = ints[R_PHASE] == PHASE_TILE
    slots0 = ints[R_NSLOTS]
    hi1 = slots0
    hi2 = slots0
    lo = slots0 if placing else 0  # as in the option kernel
    held = follower_list(tiles, segs, lo)
    work = new_work()
    for i in range(ints[R_NLEGAL]):
        copy_position(ints, tiles, segs, i1, t1, s1, hi1)
        status = after_kernel(b, i1, t1, s1, events, pool, ints[O_LEGAL + i])
        if status != OK:
            return status
        slots1 = i1[R_NSLOTS]
        hi1 = max(hi1, slots1)
        if placing and i1[R_PHASE] == PHASE_FOLLOWER:
            # the placement alone (follower code 0, the first) settled, on the placement's own
            # copy if no follower option is played out, then its follower options
            nf = i1[R_NLEGAL]
            base = i1[R_LAST] * MAX_SEGMENTS
            mover = i1[R_PLAYER]
            own = True
            for j in range(1, nf):
                fcode[j] = i1[O_LEGAL + j]  # (settling on i1 writes over its legal list)
                slow[j] = i1[R_MESSAGES] != 0 or may_finish(b, t1, s1, base + fcode[j] - 1)
                own = own and not slow[j]
            if own:
                ia, ta, sa = i1, t1, s1
            else:
                copy_position(i1, t1, s1, i2, t2, s2, max(hi1, hi2))
                ia, ta, sa = i2, t2, s2
            status = after_kernel(b, ia, ta, sa, events, pool, 0)
            if status != OK:
                return status
            supply = _values(b, ia, ta, sa, held, lo, work, follower_value, pot, v0)
            best = _margin(v0, npl, player)
            nf_out[i] = nf
            fout[i, 0] = best
            if ia[R_PHASE] == PHASE_OVER:  # the game's last turn: every follower played out
                slow[1:nf] = True
            for j in range(1, nf):
                if slow[j]:
                    continue
                g = base + fcode[j] - 1
                for p in range(npl):
                    v[p] = v0[p]
                v[mover] = float(ia[R_SCORES + mover]) + (
                    pot[mover] + lone_follower_value(b, ia, ta, sa, g, work))
                v[mover] += (ia[R_FOLLOWERS + mover] - 1) * supply
                fout[i, j] = _margin(v, npl, player)
                best = max(best, fout[i, j])
            if own:
                hi1 = max(hi1, i1[R_NSLOTS])
                if ia[R_PHASE] == PHASE_OVER and nf > 1:  # the placement made again
                    take_off(b, t1, slots0, i1[R_NSLOTS])
                    copy_position(ints, tiles, segs, i1, t1, s1, hi1)
                    status = after_kernel(b, i1, t1, s1, events, pool, ints[O_LEGAL + i])
                    if status != OK:
                        return status
            else:
                hi2 = max(hi2, i2[R_NSLOTS])
                take_off(b, t2, slots1, i2[R_NSLOTS])
            for j in range(1, nf):  # the others played out
                if not slow[j]:
                    continue
                copy_position(i1, t1, s1, i2, t2, s2, max(hi1, hi2))
                status = after_kernel(b, i2, t2, s2, events, pool, fcode[j])
                if status != OK:
                    return status
                hi2 = max(hi2, i2[R_NSLOTS])
                _values(b, i2, t2, s2, held, lo, work, follower_value, pot, v)
                fout[i, j] = _margin(v, npl, player)
                best = max(best, fout[i, j])
                take_off(b, t2, slots1, i2[R_NSLOTS])
            out[i] = best
        else:
            _values(b, i1, t1, s1, held, lo, work, follower_value, pot, v)
            out[i] = _margin(v, npl, player)
            nf_out[i] = 0
        take_off(b, t1, slots0, i1[R_NSLOTS])
    return OK


def greedy_values(state: Any, player: int, follower_value: float = 3.0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """``(legal codes, margins, follower margins, follower counts)`` of ``state``'s pending
    decision for the greedy agent of ``follower_value``: the margins of
    ``TileGreedyAgent.evaluate`` in the engine's order and, for a placement, row ``i`` of
    the follower margins holds the first ``counts[i]`` margins of the follower decision
    after legal placement ``i`` (its follower options in the engine's order; the same
    margins as the greedy agent's evaluation of that decision, to float rounding)."""
    a = state.kernel_arrays()
    codes = state.legal_action_codes()
    n = len(codes)
    out = np.empty(n, np.float64)
    fout = np.empty((n, MAX_SEGMENTS + 1), np.float64)
    counts = np.empty(n, np.int64)
    status = greedy_kernel(a.board, a.ints, a.tiles, a.segs, player, float(follower_value), out,
                           fout, counts)  # fmt: skip
    if status != OK:
        if status == ERR_LOG_FULL:
            raise RuntimeError("score log overflow (raise MAX_EVENTS / MAX_POOL in layout.py)")
        raise RuntimeError(f"an option failed in the engine (status {status})")
    return codes, out, fout, counts


def greedy_scores(state: Any, player: int, follower_value: float = 3.0) -> list[tuple[int, float]]:
    """``TileGreedyAgent(follower_value=...).evaluate(state, player)``: (code, margin) of
    every legal decision, in the engine's order."""
    codes, out, _, _ = greedy_values(state, player, follower_value)
    return list(zip(codes.tolist(), out.tolist(), strict=True))
