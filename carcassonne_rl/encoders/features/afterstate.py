"""Feature vector of a tile-game position for afterstate value learning.

An *afterstate* is the position right after a player's decision (the turn settled); a
value network ranks a player's options by valuing each afterstate from that player's seat.
This module turns a position into a fixed-length float32 vector seen from seat ``player``:

- per player, ``PLAYER_FEATURES`` numbers about what that player holds: score, followers in
  supply, and for every open feature where it holds the majority (ties included) its size,
  open sides, pennants, whether the gaps around it can still be filled, farmers and the
  cities their fields touch, followers it is losing to another majority;
- the vector is ``[own, strongest opponent, sum of the other opponents, own - strongest,
  globals]`` (``strongest`` = highest score + heuristic potential; for 2 players the third
  block is zero), with globals = tiles left, player count, expansions.

"Can a gap be filled" uses public information only: the multiset of tiles not placed yet
(the pile's order and the tile the next player has drawn are not used; the drawn tile is
counted back into the unplaced set). For every empty cell next to an open side the kernel
counts the unplaced tiles that fit it in some rotation; a feature with a gap no unplaced
tile fits can never be completed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.board_kernels import (
    DELTA,
    EDGE_CODE,
    EDGES,
    FIELD_CITIES,
    PORTMAP,
    RING,
    W_CITY,
    W_SEATS,
    W_SEEN,
    cell_of,
    held_features,
    new_work,
)
from carcassonne_rl.games.carcassonne.tiles import (
    CITY,
    CLOISTER,
    FIELD,
    LABYRINTH,
    MAX_SEGMENTS,
    NUM_TYPES,
)

PLAYER_FEATURE_NAMES = (
    "score",
    "supply",
    "road_n",
    "road_tiles",
    "road_ends",
    "road_dead",
    "road_likely_tiles",
    "city_n",
    "city_points",
    "city_sides",
    "city_dead",
    "city_dead_points",
    "city_one_gap",
    "city_likely_points",
    "cloister_n",
    "cloister_neighbours",
    "cloister_dead",
    "farmers",
    "field_done_cities",
    "field_open_cities",
    "shared",
    "losing_followers",
    "heuristic_potential",
    "labyrinth_followers",
)
PLAYER_FEATURES = len(PLAYER_FEATURE_NAMES)
GLOBAL_FEATURE_NAMES = ("tiles_left", "p2", "p3", "p4", "p5", "messages", "labyrinth")
NUM_FEATURES = 4 * PLAYER_FEATURES + len(GLOBAL_FEATURE_NAMES)
# rough magnitudes, so that the network sees inputs of order 1
PLAYER_SCALE = np.array(
    [50, 7, 3, 10, 4, 2, 8, 3, 12, 4, 2, 6, 2, 10, 2, 10, 1, 2, 4, 3, 2, 2, 30, 1], np.float32
)
PLAYER_SCALE_64 = PLAYER_SCALE.astype(np.float64)
(
    F_SCORE,
    F_SUPPLY,
    F_ROAD_N,
    F_ROAD_TILES,
    F_ROAD_ENDS,
    F_ROAD_DEAD,
    F_ROAD_LIKELY,
    F_CITY_N,
    F_CITY_POINTS,
    F_CITY_SIDES,
    F_CITY_DEAD,
    F_CITY_DEAD_POINTS,
    F_CITY_ONE,
    F_CITY_LIKELY,
    F_CLOISTER_N,
    F_CLOISTER_NB,
    F_CLOISTER_DEAD,
    F_FARMERS,
    F_FIELD_DONE,
    F_FIELD_OPEN,
    F_SHARED,
    F_LOSING,
    F_POTENTIAL,
    F_LAB,
) = range(PLAYER_FEATURES)


@njit(cache=True, nogil=True)
def _root(segs, g):
    while segs[g, L.S_PARENT] != g:
        g = segs[g, L.S_PARENT]
    return g


def _fitting_types() -> np.ndarray:
    """``FITS[sides, edges]``: bit ``t`` set if tile type ``t`` fits, in some rotation, an
    empty cell whose neighbours on the sides of bit mask ``sides`` (N E S W) show the edge
    codes ``edges`` (2 bits a side, as ``EDGE_CODE``)."""
    fits = np.zeros((16, 256), np.int64)
    for sides in range(16):
        mask = sum(3 << (2 * s) for s in range(4) if sides >> s & 1)
        for con in range(256):
            if con & ~mask:
                continue
            for t in range(NUM_TYPES):
                if any((int(EDGE_CODE[t, r]) & mask) == con for r in range(4)):
                    fits[sides, con] |= 1 << t
    return fits


FITS = _fitting_types()
NO_ROWS = np.zeros(0, np.int64)


@njit(cache=True, nogil=True)
def _fit_count(board, tiles, unplaced, cell):
    """How many unplaced tiles fit the empty ``cell`` in some rotation."""
    con = 0
    sides = 0
    for s in range(4):
        ns = board[cell + DELTA[s]]
        if ns >= 0:
            e = EDGES[tiles[ns, 0], tiles[ns, 1], (s + 2) % 4]
            con |= e << (2 * s)
            sides |= 1 << s
    bits = FITS[sides, con]
    n = 0
    t = 0
    while bits:
        if bits & 1:
            n += unplaced[t]
        bits >>= 1
        t += 1
    return n


@njit(cache=True, nogil=True)
def _unplaced(ints):
    """``(count of each tile type not placed yet, their total)``: the pile, and the drawn
    tile of a pending placement (still unknown to the decider, so counted back in)."""
    unplaced = np.zeros(NUM_TYPES, np.int64)
    for i in range(ints[L.R_DECKPOS], ints[L.R_DECKLEN]):
        unplaced[ints[L.O_DECK + i]] += 1
    if ints[L.R_PHASE] == L.PHASE_TILE and ints[L.R_TILE] >= 0:
        unplaced[ints[L.R_TILE]] += 1
    r = 0.0
    for t in range(NUM_TYPES):
        r += unplaced[t]
    return unplaced, r


@njit(cache=True, nogil=True, inline="always")
def field_cities(tiles, segs, g, p_side, city_stamp, stamp):
    """``(completed cities, sum of p ** open sides of the open ones, expected farmer points)``
    of the cities bordering the field of root ``g`` (``p`` = ``p_side``; 3 points a completed
    city, 3 p an open one), each city once (``city_stamp`` stamped ``stamp`` where seen)."""
    v = 0.0
    done = 0
    open_w = 0.0
    m = g
    while True:
        mslot = m // MAX_SEGMENTS
        bits = FIELD_CITIES[tiles[mslot, 0], m % MAX_SEGMENTS]
        j = 0
        while bits:
            if bits & 1:
                cr = _root(segs, mslot * MAX_SEGMENTS + j)
                if city_stamp[cr] != stamp:
                    city_stamp[cr] = stamp
                    op = segs[cr, L.S_OPEN]
                    if op == 0:
                        done += 1
                        v += 3.0
                    else:
                        open_w += p_side**op
                        v += 3.0 * p_side**op
            bits >>= 1
            j += 1
        m = segs[m, L.S_NEXT]
        if m == g:
            break
    return done, open_w, v


@njit(cache=True, nogil=True)
def _add_features(board, tiles, segs, npl, rows, unplaced, grow, p_side, work, out):
    """Add to ``out`` what the segment rows ``rows`` (in row order) hold for each player: a
    cloister with a follower, or the root of an unfinished feature with followers (any
    other segment adds nothing). ``work``: ``board_kernels.new_work``."""
    seen = work[W_SEEN : W_SEEN + L.MAX_TILES]
    city_stamp = work[W_CITY : W_CITY + L.MAX_TILES * MAX_SEGMENTS]
    holders = work[W_SEATS : W_SEATS + L.MAX_PLAYERS]
    stamp = work[0]
    for g in rows:
        slot = g // MAX_SEGMENTS
        kind = segs[g, L.S_KIND]
        if kind == CLOISTER:
            owner = segs[g, L.S_OWNER]
            if owner < 0 or segs[g, L.S_DONE] != 0:
                continue
            cell = cell_of(tiles, slot)
            nb = 0
            dead = 0
            for d in RING:
                if board[cell + d] >= 0:
                    nb += 1
                elif _fit_count(board, tiles, unplaced, cell + d) == 0:
                    dead = 1
            out[owner, F_CLOISTER_N] += 1
            out[owner, F_CLOISTER_NB] += nb
            out[owner, F_CLOISTER_DEAD] += dead
            out[owner, F_POTENTIAL] += 1.0 + nb + (8 - nb) * grow
            continue
        if segs[g, L.S_PARENT] != g or segs[g, L.S_DONE] != 0:
            continue
        best = 0
        for p in range(npl):
            best = max(best, segs[g, L.S_COUNT + p])
        if best == 0:
            continue
        n_holders = 0
        for p in range(npl):
            c = segs[g, L.S_COUNT + p]
            holders[p] = 1 if c == best else 0
            n_holders += holders[p]
            if 0 < c < best:
                out[p, F_LOSING] += c
        stamp += 1
        if kind == FIELD:
            done, open_w, v = field_cities(tiles, segs, g, p_side, city_stamp, stamp)
            for p in range(npl):
                out[p, F_FARMERS] += segs[g, L.S_COUNT + p]
                if holders[p]:
                    out[p, F_FIELD_DONE] += done
                    out[p, F_FIELD_OPEN] += open_w
                    out[p, F_POTENTIAL] += v
                    out[p, F_SHARED] += n_holders > 1
            continue
        # road, labyrinth or city: walk the members for size and the gaps they face
        ntiles = 0
        gaps = 0
        min_fit = 1 << 30
        likely = 1.0
        m = g
        while True:
            mslot = m // MAX_SEGMENTS
            if seen[mslot] != stamp:
                seen[mslot] = stamp
                ntiles += 1
            mk = m % MAX_SEGMENTS
            mt = tiles[mslot, 0]
            mr = tiles[mslot, 1]
            mcell = cell_of(tiles, mslot)
            for s in range(4):
                if PORTMAP[mt, mr, s] == mk and board[mcell + DELTA[s]] < 0:
                    f = _fit_count(board, tiles, unplaced, mcell + DELTA[s])
                    gaps += 1
                    min_fit = min(min_fit, f)
                    likely *= f / (f + 3.0)
            m = segs[m, L.S_NEXT]
            if m == g:
                break
        openings = segs[g, L.S_OPEN]
        dead = 1 if gaps > 0 and min_fit == 0 else 0
        for p in range(npl):
            if not holders[p]:
                continue
            out[p, F_SHARED] += n_holders > 1
            if kind == CITY:
                points = ntiles + segs[g, L.S_PENNANT]
                out[p, F_CITY_N] += 1
                out[p, F_CITY_POINTS] += points
                out[p, F_CITY_SIDES] += openings
                out[p, F_CITY_DEAD] += dead
                out[p, F_CITY_DEAD_POINTS] += dead * points
                out[p, F_CITY_ONE] += 1 if (gaps == 1 and dead == 0) else 0
                out[p, F_CITY_LIKELY] += points * likely
                out[p, F_POTENTIAL] += points * (1.0 + p_side**openings)
            else:
                out[p, F_ROAD_N] += 1
                out[p, F_ROAD_TILES] += ntiles
                out[p, F_ROAD_ENDS] += openings
                out[p, F_ROAD_DEAD] += dead
                out[p, F_ROAD_LIKELY] += ntiles * likely
                v = ntiles + 0.5 * openings * grow
                if kind == LABYRINTH:
                    total = 0
                    for q in range(npl):
                        total += segs[g, L.S_COUNT + q]
                    v += 2.0 * total * p_side**openings
                    out[p, F_LAB] += segs[g, L.S_COUNT + p]
                out[p, F_POTENTIAL] += v
    work[0] = stamp


@njit(cache=True, nogil=True)
def player_features_kernel(board, ints, tiles, segs, out):
    """Fill ``out[p, :]`` (zeroed by the caller) for every player ``p``; returns tiles left."""
    return player_features_from(board, ints, tiles, segs, NO_ROWS, 0, new_work(), out)


@njit(cache=True, nogil=True)
def player_features_from(board, ints, tiles, segs, held, lo, work, out):
    """:func:`player_features_kernel` of a position whose followers on the slots below
    ``lo`` stand on rows ``held`` or have left the board (``held``: the follower rows of
    an earlier position of the turn with ``lo`` slots, ``board_kernels.follower_list``),
    with the scratch ``work`` (``board_kernels.new_work``): only the slots from ``lo`` on are
    searched for followers."""
    npl = ints[L.R_NPLAYERS]
    nslots = ints[L.R_NSLOTS]
    unplaced, r = _unplaced(ints)
    grow = r / (r + 10.0)
    p_side = r / (r + 6.0)
    for p in range(npl):
        out[p, F_SCORE] = ints[L.R_SCORES + p]
        out[p, F_SUPPLY] = ints[L.R_FOLLOWERS + p]
    if ints[L.R_PHASE] == L.PHASE_OVER:
        return r
    rows = held_features(tiles, segs, nslots, held, len(held), lo)
    _add_features(board, tiles, segs, npl, rows, unplaced, grow, p_side, work, out)
    return r


@njit(cache=True, nogil=True)
def follower_change(board, ints, tiles, segs, g, player, work, delta):
    """Write into ``delta[p, :]`` how :func:`player_features_kernel` of the position changes
    if seat ``player`` puts a follower on segment ``g`` and nothing else changes (its feature
    stays unfinished): the part of ``g``'s feature with the follower minus its part without,
    and one follower fewer in supply (``work``: ``board_kernels.new_work``). ``segs`` is as
    it was when it returns."""
    npl = ints[L.R_NPLAYERS]
    unplaced, r = _unplaced(ints)
    grow = r / (r + 10.0)
    p_side = r / (r + 6.0)
    root = g if segs[g, L.S_KIND] == CLOISTER else _root(segs, g)
    rows = np.full(1, root, np.int64)
    before = np.zeros((npl, PLAYER_FEATURES), np.float64)
    after = np.zeros((npl, PLAYER_FEATURES), np.float64)
    _add_features(board, tiles, segs, npl, rows, unplaced, grow, p_side, work, before)
    owner = segs[g, L.S_OWNER]
    segs[g, L.S_OWNER] = player
    segs[root, L.S_COUNT + player] += 1
    _add_features(board, tiles, segs, npl, rows, unplaced, grow, p_side, work, after)
    segs[root, L.S_COUNT + player] -= 1
    segs[g, L.S_OWNER] = owner
    for p in range(npl):
        for i in range(PLAYER_FEATURES):
            delta[p, i] = after[p, i] - before[p, i]
    delta[player, F_SUPPLY] = -1.0


def player_features(state) -> tuple[np.ndarray, float]:
    """``(features[players, PLAYER_FEATURES], tiles left)`` of a tile-game state (raw units)."""
    out = np.zeros((state.config.players, PLAYER_FEATURES), np.float64)
    a = state.kernel_arrays()
    left = player_features_kernel(a.board, a.ints, a.tiles, a.segs, out)
    return out, float(left)


@njit(cache=True, nogil=True)
def seat_vector_kernel(per_player, tiles_left, player, messages, labyrinth, scale, dst):
    """Write the network input of seat ``player`` into ``dst`` (see the module docstring)."""
    npl = per_player.shape[0]
    nf = per_player.shape[1]
    strongest = -1
    best = -1e18
    for q in range(npl):
        if q != player:
            v = per_player[q, F_SCORE] + per_player[q, F_POTENTIAL]
            if v > best:
                best = v
                strongest = q
    for i in range(nf):
        own = per_player[player, i] / scale[i]
        opp = per_player[strongest, i] / scale[i]
        rest = 0.0
        for q in range(npl):
            if q != player and q != strongest:
                rest += per_player[q, i] / scale[i]
        dst[i] = own
        dst[nf + i] = opp
        dst[2 * nf + i] = rest
        dst[3 * nf + i] = own - opp
    g = 4 * nf
    for i in range(7):
        dst[g + i] = 0.0
    dst[g] = tiles_left / 72.0
    dst[g + 1 + npl - 2] = 1.0
    dst[g + 5] = messages
    dst[g + 6] = labyrinth


def seat_vector(per_player: np.ndarray, tiles_left: float, player: int, config) -> np.ndarray:
    """The network input of seat ``player`` from :func:`player_features` output."""
    dst = np.empty(NUM_FEATURES, np.float32)
    seat_vector_kernel(per_player, tiles_left, player, float(config.messages),
                       float(config.labyrinth), PLAYER_SCALE_64, dst)  # fmt: skip
    return dst


def afterstate_features(state, player: int) -> np.ndarray:
    """The feature vector (``NUM_FEATURES`` float32) of ``state`` seen from seat ``player``."""
    per_player, left = player_features(state)
    return seat_vector(per_player, left, player, state.config)


FEATURE_NAMES = tuple(
    [f"own_{n}" for n in PLAYER_FEATURE_NAMES]
    + [f"opp_{n}" for n in PLAYER_FEATURE_NAMES]
    + [f"rest_{n}" for n in PLAYER_FEATURE_NAMES]
    + [f"diff_{n}" for n in PLAYER_FEATURE_NAMES]
    + list(GLOBAL_FEATURE_NAMES)
)
assert len(FEATURE_NAMES) == NUM_FEATURES
