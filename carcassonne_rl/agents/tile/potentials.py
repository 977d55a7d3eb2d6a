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

The kernel reads the engine's arrays through the layout constants of the engine module
(passed in as an array, so a cached compile never holds stale offsets).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.games.carcassonne import layout as _L
from carcassonne_rl.games.carcassonne import tiles as _tiles

_T = _tiles.TABLES
NSEG = _T["nseg"]
SEG_KIND = _T["seg_kind"]
FIELD_CITIES = _T["field_cities"]
MS = _tiles.MAX_SEGMENTS
FIELD, ROAD, CITY, CLOISTER = _tiles.FIELD, _tiles.ROAD, _tiles.CITY, _tiles.CLOISTER
LABYRINTH = _tiles.LABYRINTH

# constants vector: see _consts()
(C_SPARENT, C_SKIND, C_SOPEN, C_SPENNANT, C_SNEXT, C_SOWNER, C_SDONE, C_SCOUNT) = range(8)
(C_RNSLOTS, C_RNPLAYERS, C_RDECKPOS, C_RDECKLEN, C_SIZE, C_OFF, C_MS) = range(8, 15)
(C_FIELD, C_ROAD, C_CITY, C_CLOISTER, C_LAB, C_MAXP) = range(15, 21)


def _consts() -> np.ndarray:
    L = _L
    return np.array(
        [
            L.S_PARENT,
            L.S_KIND,
            L.S_OPEN,
            L.S_PENNANT,
            L.S_NEXT,
            L.S_OWNER,
            L.S_DONE,
            L.S_COUNT,
            L.R_NSLOTS,
            L.R_NPLAYERS,
            L.R_DECKPOS,
            L.R_DECKLEN,
            L.SIZE,
            L.OFF,
            MS,
            FIELD,
            ROAD,
            CITY,
            CLOISTER,
            LABYRINTH,
            L.MAX_PLAYERS,
        ],
        np.int64,
    )


CONSTS = _consts()


@njit(cache=True, nogil=True)
def _find(segs, g, c):
    while segs[g, c[C_SPARENT]] != g:
        g = segs[g, c[C_SPARENT]]
    return g


@njit(cache=True, nogil=True)
def _ntiles(segs, root, c, seen, stamp):
    n = 0
    m = root
    while True:
        slot = m // c[C_MS]
        if seen[slot] != stamp:
            seen[slot] = stamp
            n += 1
        m = segs[m, c[C_SNEXT]]
        if m == root:
            break
    return n


@njit(cache=True, nogil=True)
def _award(out, segs, root, c, npl, value):
    best = 0
    for p in range(npl):
        best = max(best, segs[root, c[C_SCOUNT] + p])
    if best == 0:
        return
    for p in range(npl):
        if segs[root, c[C_SCOUNT] + p] == best:
            out[p] += value


@njit(cache=True, nogil=True)
def potentials_kernel(board, ints, tiles, segs, c, nseg, seg_kind, field_cities):
    """Expected points of each player's open features (see the module docstring)."""
    npl = ints[c[C_RNPLAYERS]]
    out = np.zeros(npl, np.float64)
    nslots = ints[c[C_RNSLOTS]]
    r = float(ints[c[C_RDECKLEN]] - ints[c[C_RDECKPOS]])
    grow = r / (r + 10.0)
    p_side = r / (r + 6.0)
    size = c[C_SIZE]
    off = c[C_OFF]
    ms = c[C_MS]
    seen = np.zeros(nslots + 1, np.int64)
    stamp_city = np.full(nslots * ms + 1, -1, np.int64)
    stamp = 0
    for slot in range(nslots):
        t = tiles[slot, 0]
        for k in range(nseg[t]):
            g = slot * ms + k
            kind = segs[g, c[C_SKIND]]
            if kind == c[C_CLOISTER]:
                if segs[g, c[C_SOWNER]] < 0 or segs[g, c[C_SDONE]] != 0:
                    continue
                cell = (tiles[slot, 3] + off) * size + tiles[slot, 2] + off
                nb = 0
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if (dx != 0 or dy != 0) and board[cell + dy * size + dx] >= 0:
                            nb += 1
                out[segs[g, c[C_SOWNER]]] += 1.0 + nb + (8 - nb) * grow
                continue
            if segs[g, c[C_SPARENT]] != g or segs[g, c[C_SDONE]] != 0:
                continue
            total = 0
            for p in range(npl):
                total += segs[g, c[C_SCOUNT] + p]
            if total == 0:
                continue
            stamp += 1
            if kind == c[C_ROAD] or kind == c[C_LAB]:
                n = _ntiles(segs, g, c, seen, stamp)
                openings = segs[g, c[C_SOPEN]]
                v = n + 0.5 * openings * grow
                if kind == c[C_LAB]:
                    v += 2.0 * total * p_side**openings
                _award(out, segs, g, c, npl, v)
            elif kind == c[C_CITY]:
                n = _ntiles(segs, g, c, seen, stamp)
                base = n + segs[g, c[C_SPENNANT]]
                pc = p_side ** segs[g, c[C_SOPEN]]
                _award(out, segs, g, c, npl, base * (1.0 + pc))
            elif kind == c[C_FIELD]:
                v = 0.0
                m = g
                while True:
                    mslot = m // ms
                    bits = field_cities[tiles[mslot, 0], m % ms]
                    j = 0
                    while bits:
                        if bits & 1:
                            cr = _find(segs, mslot * ms + j, c)
                            if stamp_city[cr] != g:
                                stamp_city[cr] = g
                                op = segs[cr, c[C_SOPEN]]
                                v += 3.0 if op == 0 else 3.0 * p_side**op
                        bits >>= 1
                        j += 1
                    m = segs[m, c[C_SNEXT]]
                    if m == g:
                        break
                _award(out, segs, g, c, npl, v)
    return out


def potentials(state) -> np.ndarray:
    """Per player, the expected points of its open features (0 once the game is over)."""
    if state.is_over:
        return np.zeros(state.config.players)
    a = state.kernel_arrays()
    return potentials_kernel(a.board, a.ints, a.tiles, a.segs, CONSTS, NSEG, SEG_KIND, FIELD_CITIES)


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
