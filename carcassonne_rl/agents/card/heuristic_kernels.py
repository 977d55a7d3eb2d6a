"""The card heuristic as Numba kernels over one batched game's array (``batch.pack_state``):
each turn option's projected margin (``CardHeuristicAgent.project``) and the scoring
decisions, by the ``misplaced="apart"`` rule and the weights of :func:`weights_array`. A
second implementation of :mod:`~carcassonne_rl.agents.card.heuristic` (the reference), the
same sums in the same order
(``tests/agents/test_card_search_batched.py``), for the search's rollouts
(:mod:`.search_kernels`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from carcassonne_rl.encoders.features.card_options import (
    SEG_CAP,
    allot_animals,
    animal_at,
    tail_start,
    view_rows,
)
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.actions import ASSIGN, FOLLOWER, KEEP, PLAY_UP, TEN
from carcassonne_rl.games.cardcassonne.batch import pack_state, rules_params
from carcassonne_rl.games.cardcassonne.cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_BUILDING,
)
from carcassonne_rl.games.cardcassonne.config import GameConfig
from carcassonne_rl.games.cardcassonne.table import ASSIGN_JOKER, MISPLACED

#: the heuristic's weights as the kernels read them
W_UNKNOWN, W_FEED, W_HIDDEN, W_ANIMAL_FUTURE, W_BUILDING_FUTURE = range(5)
WEIGHTS_LEN = W_BUILDING_FUTURE + 3
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
def collected_sets(g, q, extra_colour, extra_joker, sp):
    """``buildings_value(collected[q], extra, sp)`` with ``extra_colour[c]`` more buildings
    of each colour and ``extra_joker`` more building jokers."""
    c = L.O_COLL + q * NK
    return building_points_f(g[c + 3] + extra_colour[0], g[c + 8] + extra_colour[1],
                             g[c + 13] + extra_colour[2], g[c + 18] + extra_colour[3],
                             g[c + BUILDING_JOKER] + extra_joker, sp)  # fmt: skip


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
                    apart = animal_at(params, g, q, s, t + 1, af) - animal_at(
                        params, g, q, s, t, af
                    )
                else:
                    one[:] = 0
                    one[COLOUR_OF[k]] = 1
                    apart = collected_sets(g, q, one, 0, sp)
                    one[:] = 0
                    apart = apart - collected_sets(g, q, one, 0, sp)
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
    points = allot_animals(points, params, g, q, totals, species, jokers, af)
    if buildings:
        with_them = collected_sets(g, q, bcol, bjokers, sp)
        one[:] = 0
        points += with_them - collected_sets(g, q, one, 0, sp)
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
        gain = animal_at(params, g, p, s, t + 1, af) - animal_at(params, g, p, s, t, af)
        if g[L.O_CSP + s] == 0:
            gain += L.animal_value(params, t)
        return gain
    one[:] = 0
    if k == BUILDING_JOKER:
        with_it = collected_sets(g, p, one, 1, sp)
    else:
        one[COLOUR_OF[k]] = 1
        with_it = collected_sets(g, p, one, 0, sp)
    one[:] = 0
    return with_it - collected_sets(g, p, one, 0, sp)


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


@njit(cache=True, nogil=True)
def all_margins(g, p, codes, nl, vrows, vlen, params, hw, margins):
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
def _margins(g, p, codes, params, hw, out):
    vrows = np.empty((4, L.ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    all_margins(g, p, codes, codes.shape[0], vrows, vlen, params, hw, out)


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


__all__ = [
    "WEIGHTS_LEN",
    "all_margins",
    "building_points_f",
    "collected_sets",
    "future_set_points",
    "heuristic_claim",
    "heuristic_margin",
    "heuristic_margins_of",
    "rounds_left",
    "scoring_code",
    "scoring_code_of",
    "weights_array",
]
