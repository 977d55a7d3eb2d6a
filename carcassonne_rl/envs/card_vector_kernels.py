"""The Numba kernels of the card vector env (:mod:`.card_vector`): one call steps every game.

Per game they call the batched engine (``games/cardcassonne/batch_kernels``) and the
observation kernel (``encoders/card/batch``), and compute the rewards as
:class:`~carcassonne_rl.envs.game_env.GameEnv` does (``win_loss`` at the end,
``score_diff`` shaping after every action, the classic wrapper's -1 for an illegal move).
Each loop comes twice: ``*_serial`` in the calling thread, ``*_parallel`` over Numba's
threads (``prange``).
"""

from __future__ import annotations

from numba import njit, prange

from carcassonne_rl.encoders.card.batch import write_obs
from carcassonne_rl.games.cardcassonne import batch_kernels as K
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.table import OVER

SCORE_SCALE = 100.0  # game_env.SCORE_SCALE


@njit(cache=True, nogil=True)
def step_game(i, games, hist, params, actions, observe, score_diff, mask, obs, won, last_rel,
               rewards, term, trunc, illegal, seat, status):  # fmt: skip
    """Step game ``i`` with action ``actions[i]`` (in range), as the wrapped AEC env does."""
    g = games[i]
    n = g[L.F_N]
    actor = g[L.F_CURRENT]
    a = actions[i]
    rewards[i, :] = 0.0
    illegal[i] = -1
    status[i] = 0
    if a < 0:  # a waiting game (step_some): left as it is
        term[i] = False
        trunc[i] = False
        return
    oi = i if obs.shape[0] > 1 else i - i  # (i - i: 0 of the index's type)
    if mask[i, a] == 0:  # the classic wrapper: the game ends, -1 for the actor
        rewards[i, actor] = -1.0
        term[i] = True
        trunc[i] = True
        illegal[i] = a
        seat[i] = 0  # PettingZoo's _deads_step_first: the first agent
        if actor != 0:
            mask[i, :] = 0
        if observe:
            write_obs(g, 0, params, obs[oi])
        return
    status[i] = K.play_code(g, hist[i], params, a)
    if score_diff:
        total = 0.0
        for q in range(n):
            total += float(g[L.O_SCORES + q])
        for q in range(n):
            s = float(g[L.O_SCORES + q])
            rel = s - (total - s) / (n - 1)  # GameEnv._relative_scores
            rewards[i, q] += (rel - last_rel[i, q]) / SCORE_SCALE
            last_rel[i, q] = rel
    over = g[L.F_PHASE] == OVER
    term[i] = over
    trunc[i] = False
    if over:
        L.winners_mask(g, params, won[i])
        nwin = 0
        for q in range(n):
            nwin += won[i, q]
        for q in range(n):
            if won[i, q] == 0:
                rewards[i, q] += -1.0
            elif nwin == 1:
                rewards[i, q] += 1.0
        nxt = (actor + 1) % n
    else:
        nxt = g[L.F_CURRENT]
    seat[i] = nxt
    K.write_mask(g, mask[i])
    if observe:
        write_obs(g, nxt, params, obs[oi])


@njit(cache=True, nogil=True)
def start_game(j, games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel,
                seat):  # fmt: skip
    """Deal game ``ids[j]`` anew (shuffled by ``seeds[j]``) and observe it."""
    i = ids[j]
    g = games[i]
    K.deal_game(g, hist[i], seeds[j], deck, players, params)
    last_rel[i, :] = 0.0
    seat[i] = g[L.F_CURRENT]
    K.write_mask(g, mask[i])
    if observe:
        write_obs(g, seat[i], params, obs[i if obs.shape[0] > 1 else i - i])


@njit(cache=True, nogil=True)
def step_serial(
    games,
    hist,
    params,
    actions,
    observe,
    score_diff,
    mask,
    obs,
    won,
    last_rel,
    rewards,
    term,
    trunc,
    illegal,
    seat,
    status,
):
    """``step_game`` for every game, one after the other (no thread hand-off)."""
    for i in range(games.shape[0]):
        step_game(
            i,
            games,
            hist,
            params,
            actions,
            observe,
            score_diff,
            mask,
            obs,
            won,
            last_rel,
            rewards,
            term,
            trunc,
            illegal,
            seat,
            status,
        )


@njit(cache=True, nogil=True, parallel=True)
def step_parallel(
    games,
    hist,
    params,
    actions,
    observe,
    score_diff,
    mask,
    obs,
    won,
    last_rel,
    rewards,
    term,
    trunc,
    illegal,
    seat,
    status,
):
    """``step_game`` for every game, shared out over Numba's threads (``prange``)."""
    for i in prange(games.shape[0]):
        step_game(
            i,
            games,
            hist,
            params,
            actions,
            observe,
            score_diff,
            mask,
            obs,
            won,
            last_rel,
            rewards,
            term,
            trunc,
            illegal,
            seat,
            status,
        )


@njit(cache=True, nogil=True)
def start_serial(
    games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
):
    for j in range(ids.shape[0]):
        start_game(
            j, games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
        )


@njit(cache=True, nogil=True, parallel=True)
def start_parallel(
    games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
):
    for j in prange(ids.shape[0]):
        start_game(
            j, games, hist, params, ids, seeds, deck, players, observe, mask, obs, last_rel, seat
        )
