"""A placement's follower options from its settled afterstate, for the tile option kernel
(``afterstate_options.options_kernel``): which follower options can be read off the
placement alone, and their rows.

(A source of ``games.carcassonne.jit_cache``: its compiled cache is dropped whenever an
engine kernel it calls changes.)
"""

from __future__ import annotations

from numba import njit

from carcassonne_rl.encoders.features.afterstate import PLAYER_FEATURES, follower_change
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.board_kernels import cell_of, find, neighbour_count
from carcassonne_rl.games.carcassonne.tiles import CLOISTER, FIELD, MAX_SEGMENTS


@njit(cache=True, nogil=True)
def may_finish(board, tiles, segs, g):
    """Whether the feature of segment ``g`` of the tile just placed may be finished this turn
    (then a follower on it changes the scoring: it is scored and comes back): a cloister with
    all eight neighbours, a road, city or labyrinth with no open side left."""
    kind = segs[g, L.S_KIND]
    if kind == CLOISTER:
        return neighbour_count(board, cell_of(tiles, g // MAX_SEGMENTS)) == 8
    if kind == FIELD:
        return False
    return segs[find(segs, g), L.S_OPEN] == 0


@njit(cache=True, nogil=True)
def lone_followers(board, ints, tiles, segs, n, nf, base, mover, slow, work, delta, followers,
                   over, scores, per, left):  # fmt: skip
    """Rows ``n + j`` (``0 < j < nf``, not ``slow[j]``) of a placement's follower options whose
    follower changes nothing but its own feature: row ``n`` (the placement alone, settled
    into the arrays) plus :func:`.afterstate.follower_change` (``work``: its scratch)."""
    npl = ints[L.R_NPLAYERS]
    for j in range(1, nf):
        if slow[j]:
            continue
        follower_change(board, ints, tiles, segs, base + followers[n + j] - 1, mover, work, delta)
        over[n + j] = False
        scores[n + j, :] = scores[n, :]
        left[n + j] = left[n]
        per[n + j] = per[n]
        for q in range(npl):
            for x in range(PLAYER_FEATURES):
                per[n + j, q, x] += delta[q, x]
