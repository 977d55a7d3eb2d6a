"""Every option of a tile-game decision and its afterstate features, in one compiled call.

The reference path (``agents.tile.afterstate.options`` then ``value_inputs``) clones a Python
state per option, applies the option, settles the turn by the default rules
(``agents.tile.greedy.settle``) and encodes each child. Here one Numba call does the same
for a position (``option_tables``: one such call per position, on the position's own
arrays; ``options_batch_kernel``: a stacked batch): it applies every option on scratch copies of
the engine's arrays with the engine's own kernels (``kernels.apply_action``, the function
every ``State.apply_code`` runs), settles the turn by the same rules, and writes each
option's

- action code and follower code (``-1``: the option is not a placement, or is the
  placement alone), in the order of the reference path (legal codes in the engine's order,
  a placement followed by each of its follower codes in the engine's order);
- whether the game is over after it, and every seat's score;
- :func:`.afterstate.player_features_kernel` numbers and the tiles left,

from which :func:`option_inputs` writes the network inputs of a seat (feature set
``two_player`` or ``table``, any table size, any expansions) for the unfinished ones,
exactly as ``value_inputs`` does. No Python state is made per option.

A placement's follower options share its afterstate: the placement alone is settled once,
and a follower that changes nothing but its own feature (the game goes on and the feature
is not finished this turn, so the scoring is the same) gives that afterstate's numbers plus
the follower's part, :func:`.afterstate.follower_change` (the same numbers to rounding: the
sums run in another order). The other follower options are played out one by one.

Scratch copies: the board is shared by all options of a position and every tile an option
placed is taken off again afterwards; the registers, tiles and segments are copied back
from the position (or from the placement, for its follower options) over the rows an
option can have changed. The score log is write-only for the engine's kernels, so one
scratch log serves all options.

With The Messages, settling a turn may draw message cards and extra tiles, so the options
are played on the position with its hidden order resampled from what the players know
(``resample_hidden(random.Random(0))``, as the reference path does): the afterstates never
depend on the true hidden order.

(A source of ``games.carcassonne.jit_cache``: its compiled cache is dropped whenever an
engine kernel it calls changes.)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.encoders.features.afterstate import (
    PLAYER_FEATURES,
    PLAYER_SCALE_64,
    player_features_from,
    seat_vector_kernel,
)
from carcassonne_rl.encoders.features.follower_options import lone_followers, may_finish
from carcassonne_rl.encoders.features.table import (
    feature_set,
    feature_set_name,
    table_vector_kernel,
)
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.board_kernels import (
    NSEG,
    cell_of,
    follower_list,
    new_work,
)
from carcassonne_rl.games.carcassonne.kernels import apply_action
from carcassonne_rl.games.carcassonne.layout import (
    MAX_EVENTS,
    MAX_PLAYERS,
    MAX_POOL,
    NEF,
    O_FRONT,
    O_LEGAL,
    OK,
    PHASE_FIGURE,
    PHASE_FOLLOWER,
    PHASE_MESSAGE,
    PHASE_OVER,
    PHASE_TILE,
    R_LAST,
    R_MESSAGES,
    R_NFRONT,
    R_NLEGAL,
    R_NPLAYERS,
    R_NSLOTS,
    R_PHASE,
    R_PLAYER,
    R_SCORES,
    R_TILE,
    R_TURN,
)
from carcassonne_rl.games.carcassonne.tiles import MAX_SEGMENTS

#: the feature sets :func:`option_inputs` writes (current names; ``table.feature_set_name``
#: maps old ones)
FEATURE_SET_IDS = {"two_player": 0, "table": 1}
SETTLE_STEPS = 64  # as ``agents.tile.greedy.settle``


@njit(cache=True, nogil=True)
def settle_kernel(board, ints, tiles, segs, events, pool, turn):
    """Play the rest of turn ``turn`` by the default rules (``agents.tile.greedy.settle``):
    a figure, a message or a follower takes code 0, anything else the first legal code;
    returns a status code (``layout.OK`` = 0)."""
    for _ in range(SETTLE_STEPS):
        phase = ints[R_PHASE]
        if phase == PHASE_OVER:
            return OK
        if phase == PHASE_TILE and ints[R_TURN] != turn:
            return OK
        code = ints[O_LEGAL]
        if phase in (PHASE_FIGURE, PHASE_MESSAGE, PHASE_FOLLOWER):
            for i in range(ints[R_NLEGAL]):
                if ints[O_LEGAL + i] == 0:
                    code = 0
                    break
        status = apply_action(board, ints, tiles, segs, events, pool, code)
        if status != OK:
            return status
    return OK


@njit(cache=True, nogil=True)
def after_kernel(board, ints, tiles, segs, events, pool, code):
    """Apply ``code`` and settle the turn unless a follower decision is pending
    (``agents.tile.greedy.after`` on the arrays in place); returns a status code."""
    turn = ints[R_TURN]
    status = apply_action(board, ints, tiles, segs, events, pool, code)
    if status != OK:
        return status
    if ints[R_PHASE] != PHASE_FOLLOWER:
        return settle_kernel(board, ints, tiles, segs, events, pool, turn)
    return OK


@njit(cache=True, nogil=True)
def option_capacity(ints):
    """An upper bound of the options of the pending decision (a placement: its codes times
    the follower choices of the tile, none included)."""
    n = ints[R_NLEGAL]
    if ints[R_PHASE] == PHASE_TILE:
        return n * (NSEG[ints[R_TILE]] + 1)
    return n


@njit(cache=True, nogil=True)
def _record(board, ints, tiles, segs, held, lo, work, n, over, scores, per, left):
    npl = ints[R_NPLAYERS]
    scores[n, :] = 0  # the seats past the table's: 0 (a batch may mix tables)
    for p in range(npl):
        scores[n, p] = ints[R_SCORES + p]
    over[n] = ints[R_PHASE] == PHASE_OVER
    per[n] = 0.0
    left[n] = player_features_from(board, ints, tiles, segs, held, lo, work,
                                   per[n, :npl])  # fmt: skip


@njit(cache=True, nogil=True)
def take_off(board, tiles, lo, hi):
    """Empty the cells of the tiles in slots ``lo .. hi - 1``."""
    for s in range(lo, hi):
        board[cell_of(tiles, s)] = -1


@njit(cache=True, nogil=True)
def scratch(board, ints, tiles, segs):
    """The scratch copies a position's options are played on (see the module docstring):
    the board, registers, tiles and segments of an option, those of a placement's follower
    option (the board shared), the score log and its pool."""
    events = np.empty((MAX_EVENTS, NEF), np.int32)
    pool = np.empty(MAX_POOL, np.int32)
    return (board.copy(), ints.copy(), tiles.copy(), segs.copy(), ints.copy(), tiles.copy(),
            segs.copy(), events, pool)  # fmt: skip


@njit(cache=True, nogil=True)
def copy_position(ints, tiles, segs, i2, t2, s2, rows):
    """Make ``(i2, t2, s2)`` play as ``(ints, tiles, segs)``, where they can differ: the
    registers and tables up to the frontier's used part, the legal codes, and the tiles and
    segments of the slots below ``rows`` (the others are the same in both), copied as one
    block each (a placed tile's unused segment rows are the same in both, so copying them
    changes nothing; one flat loop is a vectorised copy, many short ones are not). What is
    left of ``i2`` past the frontier's and the legal list's used parts, and its kernel
    scratch area, is never read before it is written."""
    for x in range(O_FRONT + ints[R_NFRONT]):
        i2[x] = ints[x]
    for x in range(O_LEGAL, O_LEGAL + ints[R_NLEGAL]):
        i2[x] = ints[x]
    src = segs.reshape(-1)
    dst = s2.reshape(-1)
    for x in range(rows * MAX_SEGMENTS * segs.shape[1]):
        dst[x] = src[x]
    tsrc = tiles.reshape(-1)
    tdst = t2.reshape(-1)
    for x in range(rows * tiles.shape[1]):
        tdst[x] = tsrc[x]


@njit(cache=True, nogil=True)
def options_kernel(board, ints, tiles, segs, start, codes, followers, over, scores, per, left):
    """Write every option of the position's pending decision from row ``start`` (see the
    module docstring; at most :func:`option_capacity` rows); returns the rows written, or a
    negative status code (``layout.ERR_*``) if an option failed. The position's arrays are
    not changed."""
    b, i1, t1, s1, i2, t2, s2, events, pool = scratch(board, ints, tiles, segs)
    placing = ints[R_PHASE] == PHASE_TILE
    delta = np.empty((ints[R_NPLAYERS], PLAYER_FEATURES), np.float64)
    slow = np.zeros(MAX_SEGMENTS + 1, np.bool_)  # follower options played out one by one
    slots0 = ints[R_NSLOTS]
    hi1 = slots0  # rows of t1 / s1 that may differ from the position's: slots below hi1
    hi2 = slots0  # likewise for t2 / s2 (against the placement's)
    # a placement's afterstates: the followers on the board are those of the position, and
    # those on the tiles placed (any other decision: all searched for)
    lo = slots0 if placing else 0
    held = follower_list(tiles, segs, lo)
    work = new_work()
    n = start
    for i in range(ints[R_NLEGAL]):
        code = ints[O_LEGAL + i]
        copy_position(ints, tiles, segs, i1, t1, s1, hi1)
        status = after_kernel(b, i1, t1, s1, events, pool, code)
        if status != OK:
            return status
        slots1 = i1[R_NSLOTS]
        hi1 = max(hi1, slots1)
        if placing and i1[R_PHASE] == PHASE_FOLLOWER:
            # the placement alone (follower code 0, the first) settled, then its follower
            # options (see the module docstring)
            nf = i1[R_NLEGAL]
            base = i1[R_LAST] * MAX_SEGMENTS
            mover = i1[R_PLAYER]
            own = True  # settled on the placement's own copy: no follower option is played out
            for j in range(nf):
                f = i1[O_LEGAL + j]
                codes[n + j] = code
                followers[n + j] = f
                slow[j] = j > 0 and (i1[R_MESSAGES] != 0 or may_finish(b, t1, s1, base + f - 1))
                own = own and not slow[j]
            if own:
                ia, ta, sa = i1, t1, s1
            else:
                copy_position(i1, t1, s1, i2, t2, s2, max(hi1, hi2))
                ia, ta, sa = i2, t2, s2
            status = after_kernel(b, ia, ta, sa, events, pool, 0)
            if status != OK:
                return status
            _record(b, ia, ta, sa, held, lo, work, n, over, scores, per, left)
            if not over[n]:
                lone_followers(b, ia, ta, sa, n, nf, base, mover, slow, work, delta, followers,
                               over,
                               scores, per, left)  # fmt: skip
            else:  # the game's last turn: every follower option played out
                slow[1:nf] = True
            if own:
                hi1 = max(hi1, i1[R_NSLOTS])
                if over[n]:  # the placement made again, for its follower options
                    take_off(b, t1, slots0, i1[R_NSLOTS])
                    copy_position(ints, tiles, segs, i1, t1, s1, hi1)
                    status = after_kernel(b, i1, t1, s1, events, pool, code)
                    if status != OK:
                        return status
            else:
                hi2 = max(hi2, i2[R_NSLOTS])
                take_off(b, t2, slots1, i2[R_NSLOTS])
            for j in range(1, nf):
                if not slow[j]:
                    continue
                copy_position(i1, t1, s1, i2, t2, s2, max(hi1, hi2))
                status = after_kernel(b, i2, t2, s2, events, pool, followers[n + j])
                if status != OK:
                    return status
                hi2 = max(hi2, i2[R_NSLOTS])
                _record(b, i2, t2, s2, held, lo, work, n + j, over, scores, per, left)
                take_off(b, t2, slots1, i2[R_NSLOTS])
            n += nf
        else:
            codes[n] = code
            followers[n] = -1
            _record(b, i1, t1, s1, held, lo, work, n, over, scores, per, left)
            n += 1
        take_off(b, t1, slots0, i1[R_NSLOTS])
    return n - start


@njit(cache=True, nogil=True)
def options_batch_kernel(boards, ints, tiles, segs, counts, codes, followers, over, scores, per,
                         left):  # fmt: skip
    """:func:`options_kernel` for every position ``k`` of the stacked arrays, one after the
    other in the rows; the rows of each into ``counts[k]``. Returns the rows written, or the
    first failing status (negative)."""
    n = 0
    for k in range(boards.shape[0]):
        c = options_kernel(boards[k], ints[k], tiles[k], segs[k], n, codes, followers, over,
                           scores, per, left)  # fmt: skip
        if c < 0:
            return c
        counts[k] = c
        n += c
    return n


@njit(cache=True, nogil=True)
def inputs_kernel(per, left, over, npl, player, messages, labyrinth, set_id, scale, dst, where):
    """Write the network inputs of seat ``player[i]`` (``set_id``: 0 ``two_player``, 1
    ``table``) of every unfinished option ``i`` into consecutive rows of ``dst``, its row
    (or -1) into ``where[i]``; returns the rows written. ``npl``, ``messages`` and
    ``labyrinth`` are per option too (a batch may mix tables)."""
    k = 0
    for i in range(over.shape[0]):
        if over[i]:
            where[i] = -1
            continue
        where[i] = k
        pp = per[i, : npl[i]]
        if set_id == 0:
            seat_vector_kernel(pp, left[i], player[i], messages[i], labyrinth[i], scale, dst[k])
        else:
            table_vector_kernel(pp, left[i], player[i], messages[i], labyrinth[i], scale, dst[k])
        k += 1
    return k


@dataclass(frozen=True)
class Options:
    """The options of one decision (or of a batch of decisions, concatenated) and their
    afterstates' numbers, in the order of the reference path."""

    code: np.ndarray  # int64[n] the decision's code
    follower: np.ndarray  # int64[n] the follower code of a placement's option, or -1
    over: np.ndarray  # bool[n] the game is over after the option
    scores: np.ndarray  # int64[n, seats] every seat's score after it (seats < npl; 0 after)
    per_player: np.ndarray  # float64[n, seats, PLAYER_FEATURES] (seats < npl; 0 after)
    left: np.ndarray  # float64[n] tiles left, as player_features gives them
    players: np.ndarray  # int64[n] the table size of the option's game
    messages: np.ndarray  # float64[n] 1.0 with The Messages
    labyrinth: np.ndarray  # float64[n] 1.0 with the Labyrinth

    def __len__(self) -> int:
        return len(self.code)

    def columns(self) -> tuple[np.ndarray, ...]:
        """The arrays, in field order."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def features_of(self, i: int) -> tuple[np.ndarray, float]:
        """``(player_features, tiles left)`` of option ``i``, as ``player_features`` gives
        them for its afterstate."""
        return self.per_player[i, : self.players[i]].copy(), float(self.left[i])

    def scores_of(self, i: int) -> np.ndarray:
        """Every seat's score after option ``i`` (as ``state.scores``)."""
        return self.scores[i, : self.players[i]].copy()

    def take(self, index: np.ndarray) -> Options:
        """The options at ``index``."""
        return Options(*(a[index] for a in self.columns()))


def _empty(capacity: int, seats: int = MAX_PLAYERS) -> list[np.ndarray]:
    return [
        np.empty(capacity, np.int64),
        np.empty(capacity, np.int64),
        np.empty(capacity, np.bool_),
        np.empty((capacity, seats), np.int64),  # each row written whole by _record
        np.empty((capacity, seats, PLAYER_FEATURES), np.float64),
        np.empty(capacity, np.float64),
    ]


def _source(state: Any) -> Any:
    """The position the options are played on (see the module docstring)."""
    return state.resample_hidden(random.Random(0)) if state.config.messages else state


def _raise(status: int) -> None:
    if status == L.ERR_LOG_FULL:
        raise RuntimeError("score log overflow (raise MAX_EVENTS / MAX_POOL in layout.py)")
    raise RuntimeError(f"an option failed in the engine (status {status})")


def _config_columns(config: Any, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.full(n, config.players, np.int64), np.full(n, float(config.messages)),
            np.full(n, float(config.labyrinth)))  # fmt: skip


def option_table(state: Any) -> Options:
    """Every option of ``state``'s pending decision with its afterstate's numbers (the
    reference: ``agents.tile.afterstate.options``)."""
    a = _source(state).kernel_arrays()
    out = _empty(int(option_capacity(a.ints)), state.config.players)
    n = int(options_kernel(a.board, a.ints, a.tiles, a.segs, 0, *out))
    if n < 0:
        _raise(n)
    return Options(*(x[:n] for x in out), *_config_columns(state.config, n))


def option_tables(states: list[Any]) -> tuple[Options, np.ndarray]:
    """The options of every position of ``states`` in one call: ``(options concatenated,
    offsets)``, position ``k``'s rows being ``offsets[k] : offsets[k + 1]`` (the seat
    columns: as many as the largest table among them)."""
    if not states:
        return Options(*_empty(0), *_config_columns_empty()), np.zeros(1, np.int64)
    sources = [_source(s).kernel_arrays() for s in states]
    capacity = sum(int(option_capacity(a.ints)) for a in sources)
    out = _empty(capacity, max(s.config.players for s in states))
    counts = np.zeros(len(states), np.int64)
    total = 0  # one call a position, on its own arrays (stacking them would copy them all)
    for k, a in enumerate(sources):
        c = int(options_kernel(a.board, a.ints, a.tiles, a.segs, total, *out))
        if c < 0:
            _raise(c)
        counts[k] = c
        total += c
    offsets = np.concatenate([[0], np.cumsum(counts)])
    columns = [np.repeat(np.array(v, dtype), counts) for v, dtype in (
        ([s.config.players for s in states], np.int64),
        ([float(s.config.messages) for s in states], np.float64),
        ([float(s.config.labyrinth) for s in states], np.float64))]  # fmt: skip
    return Options(*(x[:total] for x in out), *columns), offsets


def _config_columns_empty() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)


def option_inputs(opts: Options, player: int | np.ndarray, features: str = "two_player"
                  ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``(inputs of the unfinished options seen from seat player, index of each option's
    row or -1)``: what ``value_inputs`` gives for the options' afterstates. ``player``: one
    seat, or one per option (a batch of decisions)."""
    name = feature_set_name(features)
    width = feature_set(name)[0]
    n = len(opts.code)
    seats = np.full(n, player, np.int64) if np.isscalar(player) else np.asarray(player, np.int64)
    dst = np.empty((n, width), np.float32)
    where = np.empty(n, np.int64)
    rows = inputs_kernel(opts.per_player, opts.left, opts.over, opts.players, seats,
                         opts.messages, opts.labyrinth, FEATURE_SET_IDS[name], PLAYER_SCALE_64,
                         dst, where)  # fmt: skip
    return dst[:rows], where
