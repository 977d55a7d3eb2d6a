"""The card search's rollouts as Numba kernels: every world x candidate rollout of
``pretrained:search`` (:mod:`.search`) stepped together on the batched card engine
(``games/cardcassonne/batch_kernels``), the base network's options of all of them valued by
one forward pass per step.

The kernels are a second implementation of the base policy
(:class:`~carcassonne_rl.agents.card.value.CardSearchValueAgent` over the card heuristic,
``misplaced="apart"``): the heuristic's projected margin of every turn option
(``CardHeuristicAgent.project``,
the same sums in the same order), its scoring decisions (animal jokers, misplaced cards), the
network's inputs of its best candidates (``encoders/features/card_options``) and the leaves
(``search.margin``, ``search.leaf_standing``). The Python search stays the reference
(``batched=False``); ``tests/agents/test_card_search_batched.py`` checks both decide alike.

A rollout's status: :data:`RUN` (stepping), :data:`DECIDE` (a turn decision waits for the
network), :data:`LEAF` (the leaf waits for the network), :data:`TIE` (the network's values
tie: the seat's generator picks, in Python), :data:`DONE` (its leaf value is known).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.encoders.features.card import STATIC_FEATURES
from carcassonne_rl.encoders.features.card_options import (
    SEG_CAP,
    SUMMARY_LEN,
    static_features,
    tail_start,
    view_rows,
    write_option_features,
)
from carcassonne_rl.games.cardcassonne import batch_kernels as K
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.actions import (
    ASSIGN,
    FOLLOWER,
    KEEP,
    NUM_ACTIONS,
    PLAY_UP,
    TEN,
)
from carcassonne_rl.games.cardcassonne.batch import pack_state, rules_params
from carcassonne_rl.games.cardcassonne.cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_BUILDING,
)
from carcassonne_rl.games.cardcassonne.config import GameConfig
from carcassonne_rl.games.cardcassonne.table import ASSIGN_JOKER, MISPLACED, OVER, TURN

RUN, DECIDE, LEAF, TIE, DONE = range(5)
#: legal codes a turn can have (every kind in hand on every row, and the follower)
LEGAL_CAP = NUM_ACTIONS
#: the heuristic's weights as the kernels read them
W_UNKNOWN, W_FEED, W_HIDDEN, W_ANIMAL_FUTURE, W_BUILDING_FUTURE = range(5)
WEIGHTS_LEN = W_BUILDING_FUTURE + 3
#: points per unit of the search-value network's margin input (``value.MARGIN_SCALE``)
MARGIN_SCALE = 30.0
#: the value of an option the network does not value (``ranked_values``)
NOT_VALUED = -1e6

NK = L.NK
#: integers of scratch of :func:`heuristic_margin`
WORK_LEN = 18 + NK
HIDDEN = 24
FACE_DOWN = 32
NONE = -1000
COLOUR_OF = L.COLOUR_OF
PERSON_OF = L.PERSON_OF
ANIMAL_OF = L.ANIMAL_OF
BUILDING_OF = np.array(IS_BUILDING, np.bool_)


def weights_array(w) -> np.ndarray:
    """A :class:`~carcassonne_rl.agents.card.heuristic.CardHeuristicWeights` as the kernels'
    float64 array."""
    return np.array([w.unknown_card, w.feed, w.hidden, w.animal_future, *w.building_future],
                    np.float64)  # fmt: skip


# ---------------------------------------------------------------- the heuristic's values
@njit(cache=True, nogil=True)
def _sets_value_f(c0, c1, c2, c3, sp):
    top = max(max(c0, c1), max(c2, c3))
    total = 0.0
    for t in range(1, top + 1):
        size = int(c0 >= t) + int(c1 >= t) + int(c2 >= t) + int(c3 >= t)
        total += sp[size - 1]
    return total


@njit(cache=True, nogil=True)
def building_points_f(c0, c1, c2, c3, jokers, sp):
    """``scoring.building_points`` with float set values ``sp``."""
    if jokers == 0:
        return _sets_value_f(c0, c1, c2, c3, sp)
    best = 0.0
    for a in range(jokers + 1):
        for b in range(jokers - a + 1):
            for c in range(jokers - a - b + 1):
                d = jokers - a - b - c
                best = max(best, _sets_value_f(c0 + a, c1 + b, c2 + c, c3 + d, sp))
    return best


@njit(cache=True, nogil=True)
def future_set_points(params, bf0, bf1, bf2, left, sp):
    """``heuristic.future_set_points`` into ``sp``."""
    sp[0] = params[L.P_BSET] + bf0 * left
    sp[1] = params[L.P_BSET + 1] + bf1 * left
    sp[2] = params[L.P_BSET + 2] + bf2 * left
    sp[3] = float(params[L.P_BSET + 3])


@njit(cache=True, nogil=True)
def rounds_left(g):
    """``heuristic.rounds_left``."""
    return max(0, g[L.F_ROUNDS] - g[L.F_ROUND]) / max(1, g[L.F_ROUNDS])


@njit(cache=True, nogil=True)
def _collected_sets(g, q, extra_colour, extra_joker, sp):
    """``buildings_value(collected[q], extra, sp)`` with ``extra_colour[c]`` more buildings
    of each colour and ``extra_joker`` more building jokers."""
    c = L.O_COLL + q * NK
    return building_points_f(g[c + 3] + extra_colour[0], g[c + 8] + extra_colour[1],
                             g[c + 13] + extra_colour[2], g[c + 18] + extra_colour[3],
                             g[c + BUILDING_JOKER] + extra_joker, sp)  # fmt: skip


@njit(cache=True, nogil=True)
def _animal(params, g, q, s, total, af):
    """``_Values._animal``: species ``s`` at ``total`` for seat ``q`` with its future."""
    old = g[L.O_ANIM + q * 4 + s]
    now = L.animal_value(params, total)
    return now + af * (now - L.animal_value(params, old))


@njit(cache=True, nogil=True)
def heuristic_claim(buf, m, row, g, q, params, hidden, af, sp, scratch):
    """``row_values.claim_value(buf[:m], row, ..., misplaced="apart")`` with the heuristic's
    animal values (``af``: its animal future) and set values ``sp`` for seat ``q``."""
    points = 0.0
    person_sum = 0
    persons = 0
    jokers = 0
    species = scratch[0:4]
    bcol = scratch[4:8]
    totals = scratch[8:12]
    one = scratch[12:16]
    species[:] = 0
    bcol[:] = 0
    bjokers = 0
    buildings = 0
    for i in range(m):
        e = buf[i]
        k = e & 31
        if k == HIDDEN:
            points += hidden
            continue
        if e >= FACE_DOWN and k < 20 and COLOUR_OF[k] != row:
            if not (ANIMAL_OF[k] or BUILDING_OF[k]):
                points += params[L.P_MISPLACED]
            else:
                if ANIMAL_OF[k]:
                    s = COLOUR_OF[k]
                    t = g[L.O_ANIM + q * 4 + s]
                    apart = _animal(params, g, q, s, t + 1, af) - _animal(params, g, q, s, t, af)
                else:
                    one[:] = 0
                    one[COLOUR_OF[k]] = 1
                    apart = _collected_sets(g, q, one, 0, sp)
                    one[:] = 0
                    apart = apart - _collected_sets(g, q, one, 0, sp)
                if apart > params[L.P_MISPLACED]:
                    points += apart
                else:
                    points += params[L.P_MISPLACED]
            continue
        if PERSON_OF[k]:
            person_sum += PERSON_OF[k]
            persons += 1
        elif ANIMAL_OF[k]:
            species[COLOUR_OF[k]] += 1
        elif BUILDING_OF[k]:
            bcol[COLOUR_OF[k]] += 1
            buildings += 1
        elif k == BUILDING_JOKER:
            bjokers += 1
            buildings += 1
        elif k == ANIMAL_JOKER:
            jokers += 1
        elif k == DRAGON:
            points += params[L.P_DRAGON]
        elif k == FAIRY:
            points += params[L.P_FAIRY]
    points += person_sum * persons
    for s in range(4):
        totals[s] = g[L.O_ANIM + q * 4 + s] + species[s]
    for _ in range(jokers):
        best_s = -1
        best_gain = 0.0
        for s in range(4):
            if totals[s]:
                gain = _animal(params, g, q, s, totals[s] + 1, af) - _animal(
                    params, g, q, s, totals[s], af
                )
                if best_s < 0 or gain > best_gain:
                    best_s = s
                    best_gain = gain
        if best_s < 0:
            points += params[L.P_LONE]
            continue
        totals[best_s] += 1
        species[best_s] += 1
    for s in range(4):
        if species[s]:
            points += _animal(params, g, q, s, totals[s], af)
    if buildings:
        with_them = _collected_sets(g, q, bcol, bjokers, sp)
        one[:] = 0
        points += with_them - _collected_sets(g, q, one, 0, sp)
    return points


@njit(cache=True, nogil=True)
def _fill(vrows, vlen, r, start, end, extra, buf, m):
    """Append ``vrows[r, start:end]`` and ``extra`` (unless :data:`NONE`) to ``buf[m:]``."""
    for i in range(start, end):
        buf[m] = vrows[r, i]
        m += 1
    if extra != NONE:
        buf[m] = extra
        m += 1
    return m


@njit(cache=True, nogil=True)
def _follower_index(vrows, vlen, r, q):
    for j in range(vlen[r]):
        if vrows[r, j] == -(q + 1):
            return j
    return -1


@njit(cache=True, nogil=True)
def heuristic_margin(g, p, code, vrows, vlen, starts, params, hw, af, sp, buf, scratch, work,
                     claims):  # fmt: skip
    """``CardHeuristicAgent.project`` of seat ``p``'s turn option ``code`` (its view;
    ``scratch``, ``work``: 16 and :data:`WORK_LEN` integers, ``claims``: a float per seat)."""
    n = g[L.F_N]
    hidden = hw[W_HIDDEN]
    if code < FOLLOWER:
        down = code < PLAY_UP
        c = code if down else code - PLAY_UP
        card = c >> 2
        a = c & 3
        entry = card + FACE_DOWN * (p + 1) if down else card
        follower = False
    else:
        card = -1
        a = code - FOLLOWER
        entry = -(p + 1)
        follower = True
    fr = work[0:5]
    order = work[5:10]
    extra = work[10:14]
    empty = work[14:18]  # the row is taken (or cut by the new follower)
    hand = work[18 : 18 + NK]
    for q in range(n):
        claims[q] = 0.0
        fr[q] = g[L.O_FROW + q]
    if follower:
        fr[p] = a
    for q in range(n):
        if fr[q] >= 0:
            r = fr[q]
            if q == p and follower:
                m = _fill(vrows, vlen, r, starts[r], vlen[r], NONE, buf, 0)
            else:
                idx = _follower_index(vrows, vlen, r, q)
                m = _fill(vrows, vlen, r, tail_start(vrows[r], idx), idx, NONE, buf, 0)
            claims[q] = heuristic_claim(buf, m, r, g, q, params, hidden, af, sp, scratch)
    # the rows' tails after the option
    for r in range(4):
        empty[r] = 0
        extra[r] = NONE
    if follower:
        empty[a] = 1
    else:
        extra[a] = entry
    no = 0
    for i in range(1, n):
        q = (p + i) % n
        if fr[q] < 0:
            order[no] = q
            no += 1
    cards = 0
    for k in range(NK):
        hand[k] = g[L.O_HANDS + p * NK + k] - (1 if k == card else 0)
        cards += hand[k]
    my_free = fr[p] < 0
    takers = no if my_free else no - 1
    for t in range(takers):
        q = order[t]
        best_r = -1
        best = 0.0
        for r in range(4):
            m = 0 if empty[r] else _fill(vrows, vlen, r, starts[r], vlen[r], extra[r], buf, 0)
            val = heuristic_claim(buf, m, r, g, q, params, hidden, af, sp, scratch)
            if best_r < 0 or val > best:
                best_r = r
                best = val
        claims[q] = best
        empty[best_r] = 1
        extra[best_r] = NONE
    if my_free or no > 0:
        q = p if my_free else order[no - 1]
        now = 0.0
        fed = 0.0
        for r in range(4):
            m = 0 if empty[r] else _fill(vrows, vlen, r, starts[r], vlen[r], extra[r], buf, 0)
            if not my_free:
                val = heuristic_claim(buf, m, r, g, q, params, hidden, af, sp, scratch)
                if r == 0 or val > now:
                    now = val
            for k in range(20):  # the hand fed to the row of its colour, kinds in order
                if COLOUR_OF[k] == r:
                    for _ in range(hand[k]):
                        buf[m] = k
                        m += 1
            if my_free:
                for k in range(20, NK):  # and the jokers to the row I claim
                    for _ in range(hand[k]):
                        buf[m] = k
                        m += 1
            val = heuristic_claim(buf, m, r, g, q, params, hidden, af, sp, scratch)
            if r == 0 or val > fed:
                fed = val
        if my_free:
            turns = cards + 1
            others = 0
            for q2 in range(n):
                if q2 != p:
                    others += min(g[L.O_HSIZE + q2], turns)
            claims[p] = fed
            claims[p] += hw[W_UNKNOWN] * others
        else:
            claims[q] = now + hw[W_FEED] * (fed - now)
    best_other = 0.0
    first = True
    for q in range(n):
        if q != p and (first or claims[q] > best_other):
            best_other = claims[q]
            first = False
    return claims[p] - best_other


@njit(cache=True, nogil=True)
def heuristic_context(g, params, hw, sp):
    """The animal future of ``g``'s decision (``_Values.animal_future``); ``sp`` its set
    values."""
    left = rounds_left(g)
    future_set_points(params, hw[W_BUILDING_FUTURE], hw[W_BUILDING_FUTURE + 1],
                      hw[W_BUILDING_FUTURE + 2], left, sp)  # fmt: skip
    return hw[W_ANIMAL_FUTURE] * left


@njit(cache=True, nogil=True)
def _scoring_gain(g, p, k, params, af, sp, one):
    """``CardHeuristicAgent.scoring_gain`` of keeping card ``k`` for the scoring seat ``p``."""
    if ANIMAL_OF[k]:
        s = COLOUR_OF[k]
        t = g[L.O_ANIM + p * 4 + s]
        gain = _animal(params, g, p, s, t + 1, af) - _animal(params, g, p, s, t, af)
        if g[L.O_CSP + s] == 0:
            gain += L.animal_value(params, t)
        return gain
    one[:] = 0
    if k == BUILDING_JOKER:
        with_it = _collected_sets(g, p, one, 1, sp)
    else:
        one[COLOUR_OF[k]] = 1
        with_it = _collected_sets(g, p, one, 0, sp)
    one[:] = 0
    return with_it - _collected_sets(g, p, one, 0, sp)


@njit(cache=True, nogil=True)
def scoring_code(g, params, hw):
    """The heuristic's code at a scoring decision of ``g`` (an animal joker's species, keep
    or ten for a misplaced card); -1 at another phase."""
    sp = np.empty(4, np.float64)
    one = np.zeros(4, np.int64)
    af = heuristic_context(g, params, hw, sp)
    p = g[L.F_SCORER]
    ph = g[L.F_PHASE]
    if ph == ASSIGN_JOKER:
        best_s = -1
        best = 0.0
        owned = 0
        for s in range(4):
            if g[L.O_ANIM + p * 4 + s]:
                owned += 1
        for s in range(4):
            if g[L.O_ANIM + p * 4 + s]:
                if owned == 1:
                    return ASSIGN + s
                gain = _scoring_gain(g, p, s * 5 + 4, params, af, sp, one)
                if best_s < 0 or gain > best:
                    best_s = s
                    best = gain
        return ASSIGN + best_s
    if ph == MISPLACED:
        k = g[L.O_MQ + g[L.F_MQHEAD]]
        return KEEP if _scoring_gain(g, p, k, params, af, sp, one) >= params[L.P_MISPLACED] else TEN
    return -1


# ---------------------------------------------------------------- the leaves
@njit(cache=True, nogil=True)
def leaf_standing(g, q, future, params, lw):
    """``search.leaf_standing`` of seat ``q`` (``lw``: the leaf's heuristic weights)."""
    over = g[L.F_PHASE] == OVER
    score = float(g[L.O_SCORES + q])
    if future == 0.0 or over:
        if over:
            return score
        c = L.O_COLL + q * NK
        return score + L.building_points_k(g[c + 3], g[c + 8], g[c + 13], g[c + 18],
                                           g[c + BUILDING_JOKER], params)  # fmt: skip
    left = future * rounds_left(g)
    sp = np.empty(4, np.float64)
    future_set_points(params, lw[W_BUILDING_FUTURE], lw[W_BUILDING_FUTURE + 1],
                      lw[W_BUILDING_FUTURE + 2], left, sp)  # fmt: skip
    zero = np.zeros(4, np.int64)
    sets = _collected_sets(g, q, zero, 0, sp)
    animals = 0
    for s in range(4):
        animals += L.animal_value(params, g[L.O_ANIM + q * 4 + s])
    return score + sets + lw[W_ANIMAL_FUTURE] * left * animals


@njit(cache=True, nogil=True)
def leaf_margin(g, p, future, params, lw):
    """``search.margin``: seat ``p``'s leaf standing minus the best other seat's."""
    n = g[L.F_N]
    mine = leaf_standing(g, p, future, params, lw)
    best = 0.0
    first = True
    for q in range(n):
        if q != p:
            v = leaf_standing(g, q, future, params, lw)
            if first or v > best:
                best = v
                first = False
    return mine - best


# ---------------------------------------------------------------- the rollouts
@njit(cache=True, nogil=True)
def _legal(g, out):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    K.write_mask(g, mask)
    nl = 0
    for c in range(NUM_ACTIONS):
        if mask[c]:
            out[nl] = c
            nl += 1
    return nl


@njit(cache=True, nogil=True)
def _all_margins(g, p, codes, nl, vrows, vlen, params, hw, margins):
    """``margins[j]``: the heuristic's margin of seat ``p``'s option ``codes[j]``, ``j < nl``
    (``vrows``, ``vlen``: the rows of its view)."""
    starts = np.empty(4, np.int64)
    for r in range(4):
        starts[r] = tail_start(vrows[r], vlen[r])
    sp = np.empty(4, np.float64)
    af = heuristic_context(g, params, hw, sp)
    buf = np.empty(SEG_CAP, np.int64)
    scratch = np.empty(16, np.int64)
    work = np.empty(WORK_LEN, np.int64)
    claims = np.empty(L.MAX_SEATS, np.float64)
    for j in range(nl):
        margins[j] = heuristic_margin(g, p, codes[j], vrows, vlen, starts, params, hw, af, sp,
                                      buf, scratch, work, claims)  # fmt: skip


@njit(cache=True, nogil=True)
def _candidates(g, p, legal, nl, cands, params, hw, x, keep):
    """The base policy's candidates at seat ``p``'s turn decision: the heuristic's margins of
    the ``legal[:nl]`` options, the ``cands`` best (all when -1 or more) in ``keep`` and
    their network inputs in ``x`` (features, margin); returns how many."""
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    margins = np.empty(nl, np.float64)
    _all_margins(g, p, legal, nl, vrows, vlen, params, hw, margins)
    for j in range(nl):
        margins[j] = margins[j] / MARGIN_SCALE
    if cands < 0 or nl <= cands:
        nk = nl
        for j in range(nl):
            keep[j] = j
    else:  # np.argsort(-margins, kind="stable")[:cands]
        nk = cands
        taken = np.zeros(nl, np.bool_)
        for t in range(cands):
            best = -1
            for j in range(nl):
                if not taken[j] and (best < 0 or margins[j] > margins[best]):
                    best = j
            taken[best] = True
            keep[t] = best
    static = np.empty(STATIC_FEATURES, np.float32)
    buf = np.empty(SEG_CAP, np.int64)
    st = np.empty(SUMMARY_LEN, np.int64)
    static_features(g, p, vrows, vlen, params, static)
    width = x.shape[1] - 1
    for t in range(nk):
        row = x[t]
        write_option_features(g, p, legal[keep[t]], vrows, vlen, params, static, row[:width],
                              buf, st)  # fmt: skip
        row[width] = np.float32(margins[keep[t]])
    return nk


@njit(cache=True, nogil=True)
def _heuristic_ties(g, p, legal, nl, params, hw, ties):
    """``CardHeuristicAgent.decide`` at seat ``p``'s turn decision: the indices of the
    options whose margin is within 1e-9 of the best in ``ties``; returns how many."""
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    margins = np.empty(nl, np.float64)
    _all_margins(g, p, legal, nl, vrows, vlen, params, hw, margins)
    best = margins[0]
    for j in range(1, nl):
        best = max(best, margins[j])
    nt = 0
    for j in range(nl):
        if margins[j] >= best - 1e-9:
            ties[nt] = j
            nt += 1
    return nt


@njit(cache=True, nogil=True)
def start_rollouts(games, codes, horizon, params, stops, status):
    """Apply candidate ``codes[i]`` to rollout ``i`` and set its stop round."""
    for i in range(games.shape[0]):
        K.apply_code(games[i], params, codes[i])
        stops[i] = games[i, L.F_ROUND] + horizon
        status[i] = RUN


@njit(cache=True, nogil=True)
def advance(games, status, stops, me, to_me, future, params, hw, lw, net_base, cands, x, legal,
            nlegal, keep, nkeep, xrow, leaf, ties, nties):  # fmt: skip
    """Step every running rollout with the base policy (``net_base``: the search-value
    network over the heuristic, else the heuristic alone) up to its next decision that needs
    the network (:data:`DECIDE`, :data:`LEAF`: its inputs in ``x`` from ``xrow[i]``), a tie
    (:data:`TIE`) or its end (:data:`DONE`, ``leaf[i]``); returns the rows of ``x`` written
    (-1: a rollout met a decision the base policy's kernels do not take)."""
    rows = 0
    for i in range(games.shape[0]):
        if status[i] != RUN:
            continue
        g = games[i]
        while True:
            ph = g[L.F_PHASE]
            if ph == OVER:
                leaf[i] = leaf_margin(g, me, 0.0 if to_me else future, params, lw)
                status[i] = DONE
                break
            if ph == TURN and g[L.F_ROUND] >= stops[i] and (not to_me or g[L.F_CURRENT] == me):
                if not to_me:
                    leaf[i] = leaf_margin(g, me, future, params, lw)
                    status[i] = DONE
                    break
                nl = _legal(g, legal[i])
                nlegal[i] = nl
                nk = _candidates(g, me, legal[i], nl, cands, params, hw, x[rows:], keep[i])
                nkeep[i] = nk
                xrow[i] = rows
                rows += nk
                status[i] = LEAF
                break
            if ph != TURN:
                code = scoring_code(g, params, hw)
                if code < 0:
                    return -1
                nl = _legal(g, legal[i])
                if nl == 1:
                    code = legal[i, 0]
                K.apply_code(g, params, code)
                continue
            nl = _legal(g, legal[i])
            if nl == 1:
                K.apply_code(g, params, legal[i, 0])
                continue
            nlegal[i] = nl
            p = g[L.F_CURRENT]
            if not net_base:
                nt = _heuristic_ties(g, p, legal[i], nl, params, hw, ties[i])
                if nt == 1:
                    K.apply_code(g, params, legal[i, ties[i, 0]])
                    continue
                nties[i] = nt
                status[i] = TIE
                break
            nk = _candidates(g, p, legal[i], nl, cands, params, hw, x[rows:], keep[i])
            nkeep[i] = nk
            xrow[i] = rows
            rows += nk
            status[i] = DECIDE
            break
    return rows


@njit(cache=True, nogil=True)
def resolve(games, status, values, params, legal, nlegal, keep, nkeep, xrow, leaf, ties,
            nties):  # fmt: skip
    """Take the network's ``values`` of the waiting rollouts: a decision plays the best option
    (``afterstate.pick``; tied ones: :data:`TIE`, their indices in ``ties[i, :nties[i]]``),
    a leaf is the best value in margin points. Returns the count of ties."""
    tied = 0
    out = np.empty(LEGAL_CAP, np.float64)
    for i in range(games.shape[0]):
        st = status[i]
        if st != DECIDE and st != LEAF:  # noqa: PLR1714 - as Numba compiles it
            continue
        nl = nlegal[i]
        out[:nl] = NOT_VALUED
        for t in range(nkeep[i]):
            out[keep[i, t]] = np.float64(values[xrow[i] + t])
        best = out[0]
        for j in range(1, nl):
            best = max(best, out[j])
        if st == LEAF:
            leaf[i] = best * MARGIN_SCALE
            status[i] = DONE
            continue
        nt = 0
        for j in range(nl):
            if out[j] >= best - 1e-7:
                ties[i, nt] = j
                nt += 1
        if nt == 1:
            K.apply_code(games[i], params, legal[i, ties[i, 0]])
            status[i] = RUN
        else:
            nties[i] = nt
            status[i] = TIE
            tied += 1
    return tied


@njit(cache=True, nogil=True)
def play(g, params, code):
    """Apply ``code`` to one rollout's game."""
    K.apply_code(g, params, code)


@njit(cache=True, nogil=True)
def _margins(g, p, codes, params, hw, out):
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    _all_margins(g, p, codes, codes.shape[0], vrows, vlen, params, hw, out)


def heuristic_margins_of(state: Any, codes: list[int], weights: Any) -> list[float]:
    """``CardHeuristicAgent(weights=weights).scored(view, codes)``'s margins by the kernels, at
    a turn decision of ``state`` (the current seat's view; default rules)."""
    if state.phase != "turn":
        raise ValueError(f"no turn decision in this state ({state.phase})")
    out = np.empty(len(codes), np.float64)
    params = rules_params(GameConfig(state.n))
    _margins(pack_state(state), state.current_player, np.asarray(codes, np.int64), params,
             weights_array(weights), out)  # fmt: skip
    return out.tolist()


def scoring_code_of(state: Any, weights: Any) -> int:
    """The card heuristic's code at a scoring decision of ``state`` by the kernels (-1 at
    another phase; default rules)."""
    return int(scoring_code(pack_state(state), rules_params(GameConfig(state.n)),
                            weights_array(weights)))  # fmt: skip


# ---------------------------------------------------------------- the Python side
class BatchedRollouts:
    """Every rollout of one search decision at once (module doc): ``run`` gives the leaf
    values the Python rollouts give (``CardSearchAgent._play_out``), world by world, the
    candidates in order."""

    def __init__(self, net: Any, candidates: int | None, weights: Any, leaf_weights: Any,
                 horizon: int) -> None:  # fmt: skip
        """``net``: the search-value network of the base policy (None: the heuristic)."""
        self.net = net
        self.cands = -1 if candidates is None else int(candidates)
        self.hw = weights_array(weights)
        self.lw = weights_array(leaf_weights)
        self.horizon = horizon
        self._params: dict[int, np.ndarray] = {}

    @classmethod
    def of(cls, search: Any) -> BatchedRollouts | None:
        """The batched rollouts of ``search`` (a ``CardSearchAgent``), or None unless its base
        policy is the search-value network over the heuristic or the heuristic itself (its
        ``misplaced="apart"`` rule) and its rollouts are the reference's."""
        from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
        from carcassonne_rl.agents.card.search import WEIGHTS, CardSearchAgent
        from carcassonne_rl.agents.card.value import NUM_SEARCH_INPUTS, CardSearchValueAgent

        base = search.base
        if (
            type(search)._rollout is not CardSearchAgent._rollout
            or type(search)._leaf is not CardSearchAgent._leaf
            or type(search)._play_out is not CardSearchAgent._play_out
        ):
            return None
        if type(base) is CardHeuristicAgent and base.misplaced == "apart":
            return cls(None, None, base.weights, WEIGHTS, search.horizon)
        if (
            type(base) is not CardSearchValueAgent
            or type(base.heuristic) is not CardHeuristicAgent
            or base.heuristic.misplaced != "apart"
            or base.net.inputs != NUM_SEARCH_INPUTS
        ):
            return None
        return cls(base.net, base.candidates, base.heuristic.weights, WEIGHTS, search.horizon)

    def params(self, world: Any) -> np.ndarray | None:
        """The rules of ``world`` as the kernels read them (None: rules they do not play)."""
        from carcassonne_rl.games.cardcassonne import RULES

        if world.rules != RULES:  # the base policy values by the default rules
            return None
        got = self._params.get(world.n)
        if got is None:
            got = self._params[world.n] = rules_params(GameConfig(world.n))
        return got

    def run(self, worlds: list[Any], seeds: list[int], ranked: list[int], me: int,
            future: float | None) -> list[float] | None:  # fmt: skip
        """The leaf value of each world x candidate rollout (index ``w * len(ranked) + c``),
        or None when the kernels cannot play these worlds."""
        params = self.params(worlds[0])
        if params is None or any(w.rules != worlds[0].rules for w in worlds):
            return None
        k = len(ranked)
        packed = np.stack([pack_state(w) for w in worlds])
        games = np.repeat(packed, k, axis=0)
        count = games.shape[0]
        codes = np.tile(np.asarray(ranked, np.int64), len(worlds))
        stops = np.empty(count, np.int64)
        status = np.empty(count, np.int64)
        start_rollouts(games, codes, self.horizon, params, stops, status)
        net_base = self.net is not None
        width = self.net.inputs if net_base else 1
        per = LEGAL_CAP if self.cands < 0 else self.cands
        x = np.zeros((count * per if net_base else 1, width), np.float32)
        legal = np.zeros((count, LEGAL_CAP), np.int64)
        nlegal = np.zeros(count, np.int64)
        keep = np.zeros((count, LEGAL_CAP), np.int64)
        nkeep = np.zeros(count, np.int64)
        xrow = np.zeros(count, np.int64)
        leaf = np.zeros(count, np.float64)
        ties = np.zeros((count, LEGAL_CAP), np.int64)
        nties = np.zeros(count, np.int64)
        to_me = future is None
        fut = 0.0 if future is None else float(future)
        rngs: dict[tuple[int, int], random.Random] = {}
        while True:
            rows = advance(games, status, stops, me, to_me, fut, params, self.hw, self.lw,
                           net_base, self.cands, x, legal, nlegal, keep, nkeep, xrow, leaf,
                           ties, nties)  # fmt: skip
            if rows < 0:
                raise RuntimeError("a rollout met a decision the search's kernels do not take")
            if rows > 0:
                values = self.net.forward(x[:rows])[:, 0]
                resolve(games, status, values, params, legal, nlegal, keep, nkeep, xrow, leaf,
                        ties, nties)  # fmt: skip
            tied = np.flatnonzero(status == TIE).tolist()
            if rows == 0 and not tied:
                break
            for i in tied:  # the seat's base agent breaks the tie, reseeded for this rollout
                q = int(games[i, L.F_CURRENT])
                rng = rngs.get((i, q))
                if rng is None:
                    rng = rngs[(i, q)] = random.Random(seeds[i // k] * 8 + q)
                j = int(ties[i, rng.randrange(int(nties[i]))])
                play(games[i], params, int(legal[i, j]))
                status[i] = RUN
        return leaf.tolist()


__all__ = [
    "BatchedRollouts",
    "DECIDE",
    "DONE",
    "LEAF",
    "LEGAL_CAP",
    "RUN",
    "TIE",
    "advance",
    "heuristic_margin",
    "heuristic_margins_of",
    "leaf_margin",
    "play",
    "resolve",
    "scoring_code",
    "scoring_code_of",
    "start_rollouts",
    "weights_array",
]
