"""Heuristic value of a tile-game position: score + an estimate of every open feature.

``potentials(state)`` gives, per player, the points its open features are expected to bring
by the end of the game. Each feature goes to its majority holder(s) (ties share), like the
rules. With ``r`` tiles left in the pile:

- road: 1 per tile, + 0.5 per open end times ``r / (r + 10)`` (expected growth);
- city: (tiles + pennants) x (1 + p), where ``p = (r / (r + 6)) ** open_sides`` estimates the
  chance that it is completed (a completed city scores double);
- cloister: 1 + neighbours, + ``r / (r + 10)`` per empty neighbour cell (each likely filled);
- field (farmer): 3 per completed bordering city, + 3 x p per open bordering city;
- labyrinth (centre segment): like a road, + 2 points per follower standing on the centre
  (the network bonus), times the completion estimate of its arms (approximation: the arms
  are valued as separate roads).

A follower still in the supply is worth ``follower_value x r / (r + 20)`` points (it can
still earn; it is worth less late in the game). ``value(state, p)`` = score + potential +
supply value; agents compare ``margin`` = own value - best opponent value.

The kernel reads the engine's arrays through the engine's layout constants (compile-time
constants; the compile-cache guard ``games.carcassonne.jit_cache`` drops the compiled kernel
whenever the layout changes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.encoders.features.afterstate import field_cities
from carcassonne_rl.games.carcassonne import tiles as _tiles
from carcassonne_rl.games.carcassonne.board_kernels import (
    W_CITY,
    W_SEEN,
    held_features,
    new_work,
)
from carcassonne_rl.games.carcassonne.layout import (
    MAX_TILES,
    OFF,
    R_DECKLEN,
    R_DECKPOS,
    R_NPLAYERS,
    R_NSLOTS,
    S_COUNT,
    S_DONE,
    S_KIND,
    S_NEXT,
    S_OPEN,
    S_OWNER,
    S_PARENT,
    S_PENNANT,
    SIZE,
)

_T = _tiles.TABLES
NSEG = _T["nseg"]
SEG_KIND = _T["seg_kind"]
MS = _tiles.MAX_SEGMENTS
FIELD, ROAD, CITY, CLOISTER = _tiles.FIELD, _tiles.ROAD, _tiles.CITY, _tiles.CLOISTER
LABYRINTH = _tiles.LABYRINTH
NO_ROWS = np.zeros(0, np.int64)


@njit(cache=True, nogil=True)
def _find(segs, g):
    while segs[g, S_PARENT] != g:
        g = segs[g, S_PARENT]
    return g


@njit(cache=True, nogil=True)
def _ntiles(segs, root, seen, stamp):
    n = 0
    m = root
    while True:
        slot = m // MS
        if seen[slot] != stamp:
            seen[slot] = stamp
            n += 1
        m = segs[m, S_NEXT]
        if m == root:
            break
    return n


@njit(cache=True, nogil=True)
def _award(out, segs, root, npl, value):
    best = 0
    for p in range(npl):
        best = max(best, segs[root, S_COUNT + p])
    if best == 0:
        return
    for p in range(npl):
        if segs[root, S_COUNT + p] == best:
            out[p] += value


@njit(cache=True, nogil=True)
def _cloister_value(board, tiles, slot, grow):
    cell = (tiles[slot, 3] + OFF) * SIZE + tiles[slot, 2] + OFF
    nb = 0
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if (dx != 0 or dy != 0) and board[cell + dy * SIZE + dx] >= 0:
                nb += 1
    return 1.0 + nb + (8 - nb) * grow


@njit(cache=True, nogil=True)
def _root_value(tiles, segs, g, kind, total, grow, p_side, seen, stamp, stamp_city):
    """The expected points of the open road, labyrinth, city or field of root ``g`` for its
    holders (``total`` followers on it; ``seen`` stamped ``stamp`` where the walk passed)."""
    if kind in (ROAD, LABYRINTH):
        n = _ntiles(segs, g, seen, stamp)
        openings = segs[g, S_OPEN]
        v = n + 0.5 * openings * grow
        if kind == LABYRINTH:
            v += 2.0 * total * p_side**openings
        return v
    if kind == CITY:
        n = _ntiles(segs, g, seen, stamp)
        base = n + segs[g, S_PENNANT]
        pc = p_side ** segs[g, S_OPEN]
        return base * (1.0 + pc)
    return field_cities(tiles, segs, g, p_side, stamp_city, stamp)[2]  # a field


@njit(cache=True, nogil=True)
def _rates(ints):
    r = float(ints[R_DECKLEN] - ints[R_DECKPOS])
    return r / (r + 10.0), r / (r + 6.0)


@njit(cache=True, nogil=True)
def potentials_kernel(board, ints, tiles, segs):
    """Expected points of each player's open features (see the module docstring)."""
    return potentials_from(board, ints, tiles, segs, NO_ROWS, 0, new_work())


@njit(cache=True, nogil=True)
def potentials_from(board, ints, tiles, segs, held, lo, work):
    """:func:`potentials_kernel` of a position whose followers on the slots below ``lo``
    stand on rows ``held`` or have left the board (as for
    ``encoders.features.afterstate.player_features_from``), with the scratch ``work``
    (``board_kernels.new_work``)."""
    npl = ints[R_NPLAYERS]
    out = np.zeros(npl, np.float64)
    grow, p_side = _rates(ints)
    seen = work[W_SEEN : W_SEEN + MAX_TILES]
    stamp_city = work[W_CITY : W_CITY + MAX_TILES * MS]
    stamp = work[0]
    for g in held_features(tiles, segs, ints[R_NSLOTS], held, len(held), lo):
        kind = segs[g, S_KIND]
        if kind == CLOISTER:
            if segs[g, S_OWNER] < 0 or segs[g, S_DONE] != 0:
                continue
            out[segs[g, S_OWNER]] += _cloister_value(board, tiles, g // MS, grow)
            continue
        if segs[g, S_PARENT] != g or segs[g, S_DONE] != 0:
            continue
        total = 0
        for p in range(npl):
            total += segs[g, S_COUNT + p]
        if total == 0:
            continue
        stamp += 1
        v = _root_value(tiles, segs, g, kind, total, grow, p_side, seen, stamp, stamp_city)
        _award(out, segs, g, npl, v)
    work[0] = stamp
    return out


@njit(cache=True, nogil=True)
def lone_follower_value(board, ints, tiles, segs, g, work):
    """What :func:`potentials_kernel` adds for a follower put on segment ``g``, whose feature
    has no follower yet and stays open: the feature's value, to that follower's player
    (``work``: ``board_kernels.new_work``)."""
    grow, p_side = _rates(ints)
    slot = g // MS
    if segs[g, S_KIND] == CLOISTER:
        return _cloister_value(board, tiles, slot, grow)
    root = _find(segs, g)
    work[0] += 1
    return _root_value(tiles, segs, root, segs[root, S_KIND], 1, grow, p_side,
                       work[W_SEEN : W_SEEN + MAX_TILES], work[0],
                       work[W_CITY : W_CITY + MAX_TILES * MS])  # fmt: skip


def potentials(state) -> np.ndarray:
    """Per player, the expected points of its open features (0 once the game is over)."""
    if state.is_over:
        return np.zeros(state.config.players)
    a = state.kernel_arrays()
    return potentials_kernel(a.board, a.ints, a.tiles, a.segs)


def tiles_left(state) -> int:
    return sum(state.remaining_tiles().values())


def values(state, follower_value: float = 3.0) -> np.ndarray:
    """Per player: score + potential of open features + value of followers in supply."""
    v = state.scores.astype(np.float64)
    if state.is_over:
        return v
    r = float(state.tiles_left)
    v += potentials(state)
    v += state.followers_left * (follower_value * r / (r + 20.0))
    return v


def margin(vals: np.ndarray, player: int) -> float:
    """Own value minus the best other player's value."""
    others = np.delete(vals, player)
    return float(vals[player] - others.max())
