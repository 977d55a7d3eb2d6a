"""The Numba kernels of the tile vector env: one call steps every game (``*_serial`` in the
calling thread, ``*_parallel`` over Numba's threads, ``prange``).

Per game they call the engine's kernel (``games/carcassonne/batch.play_code``, i.e.
``kernels.apply_action``) and the encoder's (``encoders/tile/batch``), and compute the
rewards as :class:`~carcassonne_rl.envs.game_env.GameEnv` does (``win_loss`` at the end,
``score_diff`` shaping after every action, the classic wrapper's -1 for an illegal move).

``obs_mode``: 0 masks only, 1 ``carcassonne_v0`` planes, 2 ``carcassonne_v1`` board +
globals (unused arrays may be of size 1 in their first axis).
"""

from __future__ import annotations

from numba import njit, prange

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.batch import (
    index_to_code,
    invalidate,
    write_mask,
    write_v0,
    write_v1,
)
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.batch import play_code, restart_game
from carcassonne_rl.games.carcassonne.tiles import MAX_SEGMENTS

SCORE_SCALE = 100.0
GLOBAL_HIGH = 32767.0  # encoder_v1.GLOBAL_HIGH (the v1 globals' cap)


@njit(cache=True, nogil=True)
def _unmask(ints, tiles, width, x0, y0, mask):
    """Clear the entries ``kernels.fill_mask`` set in ``mask`` for the pending decision and
    the window at (x0, y0) (the mask is then all zeros, without a pass over it)."""
    phase = ints[L.R_PHASE]
    p0 = width * width * 4
    for i in range(ints[L.R_NLEGAL]):
        code = ints[L.O_LEGAL + i]
        if phase == L.PHASE_TILE:
            cell = code >> 2
            wx = cell % L.SIZE - L.OFF - x0
            wy = cell // L.SIZE - L.OFF - y0
            if 0 <= wx < width and 0 <= wy < width:
                mask[(wy * width + wx) * 4 + (code & 3)] = 0
        elif phase == L.PHASE_FOLLOWER:
            mask[p0 + code] = 0
        elif phase == L.PHASE_FIGURE:
            mask[p0 + TK.A_FIGURE + code] = 0
        elif phase == L.PHASE_MESSAGE:
            mask[p0 + TK.A_MESSAGE + code] = 0
        elif phase == L.PHASE_MSG8:
            s = code // MAX_SEGMENTS
            wx, wy = tiles[s, 2] - x0, tiles[s, 3] - y0
            if 0 <= wx < width and 0 <= wy < width:
                mask[p0 + TK.A_MSG_FOLLOWER + wy * width + wx] = 0


@njit(cache=True, nogil=True)
def _observe(board, ints, tiles, segs, n, width, obs_mode, origin, mask, planes, glob, scratch,
             view, seat, cleared):  # fmt: skip
    """Window, mask and (``obs_mode``) observation of ``seat`` for one game (``cleared``:
    the mask is all zeros already); returns the legal moves the window cannot express."""
    x0, y0 = TK.window_origin(ints, tiles, width)
    origin[0] = x0
    origin[1] = y0
    if not cleared:
        dropped = write_mask(ints, tiles, width, x0, y0, mask)
    elif ints[L.R_PHASE] == L.PHASE_OVER:
        dropped = 0
    else:
        dropped = TK.fill_mask(ints, tiles, width, x0, y0, mask)
    if obs_mode == 1:
        write_v0(board, ints, tiles, segs, seat, n, x0, y0, planes, view, scratch)
    elif obs_mode == 2:
        write_v1(board, ints, tiles, segs, seat, n, x0, y0, planes, glob, GLOBAL_HIGH, view)
    return dropped


@njit(cache=True, nogil=True)
def _step_game(i, board, ints, tiles, segs, events, pool, hist, actions, n, width, obs_mode,
             score_diff, origin, mask, planes, glob, scratch, views, last_rel, rewards, term,
             trunc, illegal, seat, status, dropped):  # fmt: skip
    """Step game ``i`` with env action ``actions[i]`` (in range); a game whose action is -1
    waits (nothing of it changes, its reward is 0)."""
    actor = ints[i, L.R_PLAYER]
    a = actions[i]
    rewards[i, :] = 0.0
    illegal[i] = -1
    status[i] = L.OK
    if a < 0:
        term[i] = False
        trunc[i] = False
        return
    pi = i if planes.shape[0] > 1 else i - i  # (i - i: 0 of the loop index's type)
    gi = i if glob.shape[0] > 1 else i - i
    if mask[i, a] == 0:  # the classic wrapper: the game ends, -1 for the actor
        rewards[i, actor] = -1.0
        term[i] = True
        trunc[i] = True
        illegal[i] = a
        nxt = 0  # the wrapper's last() then shows the first seat (PettingZoo's dead step)
    else:
        x0, y0 = origin[i, 0], origin[i, 1]
        code = index_to_code(board[i], ints[i], tiles[i], width, x0, y0, a)
        _unmask(ints[i], tiles[i], width, x0, y0, mask[i])  # (of the decision it answers)
        status[i] = play_code(board[i], ints[i], tiles[i], segs[i], events[i], pool[i],
                              hist[i], code)  # fmt: skip
        if score_diff:
            total = 0.0
            for q in range(n):
                total += float(ints[i, L.R_SCORES + q])
            for q in range(n):
                s = float(ints[i, L.R_SCORES + q])
                rel = s - (total - s) / (n - 1)  # GameEnv._relative_scores
                rewards[i, q] += (rel - last_rel[i, q]) / SCORE_SCALE
                last_rel[i, q] = rel
        over = ints[i, L.R_PHASE] == L.PHASE_OVER
        term[i] = over
        trunc[i] = False
        if over:
            best = ints[i, L.R_SCORES]
            for q in range(1, n):
                best = max(best, ints[i, L.R_SCORES + q])
            nwin = 0
            for q in range(n):
                nwin += ints[i, L.R_SCORES + q] == best
            for q in range(n):
                if ints[i, L.R_SCORES + q] != best:
                    rewards[i, q] += -1.0
                elif nwin == 1:
                    rewards[i, q] += 1.0
            nxt = (actor + 1) % n
        else:
            nxt = ints[i, L.R_PLAYER]
    seat[i] = nxt
    dropped[i] = _observe(board[i], ints[i], tiles[i], segs[i], n, width, obs_mode, origin[i],
                          mask[i], planes[pi], glob[gi], scratch[i], views[i], nxt,
                          illegal[i] < 0)  # fmt: skip
    if term[i] and not (illegal[i] >= 0 and actor == 0):
        mask[i, :] = 0  # (the wrapper's last() after an illegal move by seat 0: its mask)


@njit(cache=True, nogil=True)
def step_serial(board, ints, tiles, segs, events, pool, hist, actions, n, width, obs_mode,
             score_diff, origin, mask, planes, glob, scratch, views, last_rel, rewards, term,
             trunc, illegal, seat, status, dropped):  # fmt: skip
    """``_step_game`` for every game, one after the other in the calling thread."""
    for i in range(ints.shape[0]):
        _step_game(i, board, ints, tiles, segs, events, pool, hist, actions, n, width, obs_mode,
                   score_diff, origin, mask, planes, glob, scratch, views, last_rel, rewards,
                   term, trunc, illegal, seat, status, dropped)  # fmt: skip


@njit(cache=True, nogil=True, parallel=True)
def step_parallel(board, ints, tiles, segs, events, pool, hist, actions, n, width, obs_mode,
             score_diff, origin, mask, planes, glob, scratch, views, last_rel, rewards, term,
             trunc, illegal, seat, status, dropped):  # fmt: skip
    """``_step_game`` for every game, shared out over Numba's threads (``prange``)."""
    for i in prange(ints.shape[0]):
        _step_game(i, board, ints, tiles, segs, events, pool, hist, actions, n, width, obs_mode,
                   score_diff, origin, mask, planes, glob, scratch, views, last_rel, rewards,
                   term, trunc, illegal, seat, status, dropped)  # fmt: skip


@njit(cache=True, nogil=True)
def _start_game(j, board, ints, tiles, segs, events, pool, hist, ids, players, messages, autofig,
              decks, ndecks, msgdecks, width, obs_mode, origin, mask, planes, glob, scratch,
              views, last_rel, seat, dropped):  # fmt: skip
    """Deal game ``ids[j]`` anew (``batch.restart_game``) and write its first observation."""
    i = ids[j]
    restart_game(board[i], ints[i], tiles[i], segs[i], events[i], pool[i], players, messages,
                 autofig, decks[j], ndecks[j], msgdecks[j])  # fmt: skip
    hist[i, 0] = 0
    last_rel[i, :] = 0.0
    invalidate(views[i])
    seat[i] = ints[i, L.R_PLAYER]
    pi = i if planes.shape[0] > 1 else i - i  # (i - i: 0 of the loop index's type)
    gi = i if glob.shape[0] > 1 else i - i
    dropped[i] = _observe(board[i], ints[i], tiles[i], segs[i], players, width, obs_mode,
                          origin[i], mask[i], planes[pi], glob[gi], scratch[i], views[i],
                          seat[i], False)  # fmt: skip


@njit(cache=True, nogil=True)
def start_serial(board, ints, tiles, segs, events, pool, hist, ids, players, messages, autofig,
              decks, ndecks, msgdecks, width, obs_mode, origin, mask, planes, glob, scratch,
              views, last_rel, seat, dropped):  # fmt: skip
    """``_start_game`` for every game of ``ids``, in the calling thread."""
    for j in range(ids.shape[0]):
        _start_game(j, board, ints, tiles, segs, events, pool, hist, ids, players, messages,
                    autofig, decks, ndecks, msgdecks, width, obs_mode, origin, mask, planes,
                    glob, scratch, views, last_rel, seat, dropped)  # fmt: skip


@njit(cache=True, nogil=True, parallel=True)
def start_parallel(board, ints, tiles, segs, events, pool, hist, ids, players, messages, autofig,
              decks, ndecks, msgdecks, width, obs_mode, origin, mask, planes, glob, scratch,
              views, last_rel, seat, dropped):  # fmt: skip
    """``_start_game`` for every game of ``ids``, over Numba's threads (``prange``)."""
    for j in prange(ids.shape[0]):
        _start_game(j, board, ints, tiles, segs, events, pool, hist, ids, players, messages,
                    autofig, decks, ndecks, msgdecks, width, obs_mode, origin, mask, planes,
                    glob, scratch, views, last_rel, seat, dropped)  # fmt: skip


@njit(cache=True, nogil=True)
def _rank_in_mask(row, u):
    """The legal entry of rank ``floor(u * count)`` of ``row`` (-1: none legal)."""
    count = 0
    for a in range(row.shape[0]):
        count += row[a] != 0
    if count == 0:
        return -1
    k = min(int(u * count), count - 1)
    for a in range(row.shape[0]):
        if row[a] != 0:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True, nogil=True)
def random_legal(ints, origin, dropped, mask, width, u, out):
    """``out[i]``: a uniformly random legal action index of game ``i`` for uniform ``u[i]``
    (-1 where none is legal), drawn from the engine's legal codes rather than by a scan of
    the mask: the code of rank ``floor(u[i] * count)`` among those the window can express
    (each such code has its own mask entry), as its action index. Message-8 choices (a tile
    may hold several of them) are ranked in the mask itself."""
    p0 = width * width * 4
    for i in range(ints.shape[0]):
        phase = ints[i, L.R_PHASE]
        nl = ints[i, L.R_NLEGAL]
        a = -1
        if phase == L.PHASE_TILE and nl > 0:
            x0, y0 = origin[i, 0], origin[i, 1]
            count = nl - dropped[i]
            k = min(int(u[i] * count), count - 1)
            for j in range(nl):
                code = ints[i, L.O_LEGAL + j]
                cell = code >> 2
                wx = cell % L.SIZE - L.OFF - x0
                wy = cell // L.SIZE - L.OFF - y0
                if 0 <= wx < width and 0 <= wy < width:
                    if k == 0:
                        a = (wy * width + wx) * 4 + (code & 3)
                        break
                    k -= 1
        elif nl > 0 and phase in (L.PHASE_FOLLOWER, L.PHASE_FIGURE, L.PHASE_MESSAGE):
            code = ints[i, L.O_LEGAL + min(int(u[i] * nl), nl - 1)]
            if phase == L.PHASE_FOLLOWER:
                a = p0 + code
            elif phase == L.PHASE_FIGURE:
                a = p0 + TK.A_FIGURE + code
            else:
                a = p0 + TK.A_MESSAGE + code
        if a < 0 or a >= mask.shape[1] or mask[i, a] == 0:
            a = _rank_in_mask(mask[i], u[i])  # message 8, or a mask not of this position
        out[i] = a
