"""Every turn option's afterstate features of the card game in one compiled call: the numbers
of :class:`~carcassonne_rl.encoders.features.card.CardFeatures` (``after(code)``) computed by
Numba kernels from one batched game's array (the layout of
``games/cardcassonne/batch_layout``; :func:`~carcassonne_rl.games.cardcassonne.batch.pack_state`
packs a state), for the seat ``p`` it reads as that seat's view: another seat's face-down card
is ``HIDDEN``. The same operations in the same order as the Python features (the reference,
kept): equal numbers, so a network reading them decides as it does on the Python features
(``tests/agents/test_card_options.py``).

- :func:`view_rows`: the rows as seat ``p`` sees them;
- :func:`static_features`: the part that does not depend on the option;
- :func:`write_option_features`: the features after one turn option;
- :func:`option_features_of`: the Python entry (a state, a seat, codes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, PLAY_UP, SETUP_ROW
from carcassonne_rl.games.cardcassonne.batch import pack_state, rules_params
from carcassonne_rl.games.cardcassonne.cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_BUILDING,
    KIND_COUNTS,
)
from carcassonne_rl.games.cardcassonne.config import GameConfig
from carcassonne_rl.games.cardcassonne.table import OVER, SETUP

from .card import (
    CLAIM_SCALE,
    HIDDEN_POINTS,
    NUM_CARD_FEATURES,
    OPTION_SEAT,
    ROW_FEATURES,
    SLOTS,
    STATIC_FEATURES,
    STATIC_SEAT,
)

NK = L.NK
HIDDEN = 24
FACE_DOWN = 32
ROW_CAP = L.ROW_CAP
#: entries a row segment buffer holds (a row, an option's card and a hand fed to it)
SEG_CAP = ROW_CAP + 64
COUNTS_OF = np.array(KIND_COUNTS, np.int64)
BUILDING_OF = np.array(IS_BUILDING, np.bool_)
COLOUR_OF = L.COLOUR_OF
PERSON_OF = L.PERSON_OF
ANIMAL_OF = L.ANIMAL_OF
#: a row summary's counts: persons, their sum, animals, buildings, building jokers, animal
#: jokers, dragon, fairy, hidden, own face-down, misplaced, length, buildings per colour x4
S_PERSONS, S_PSUM, S_ANIMALS, S_BUILDINGS, S_BJ, S_AJ, S_DRAGON, S_FAIRY = range(8)
S_HIDDEN, S_DOWN, S_MISPLACED, S_LENGTH, S_COLOURS = range(8, 13)
SUMMARY_LEN = S_COLOURS + 4


@njit(cache=True, nogil=True)
def view_rows(g, p, vrows, vlen):
    """``vrows[r, :vlen[r]]``: row ``r`` as seat ``p`` sees it (``views._row_entry``)."""
    for r in range(4):
        n = g[L.O_ROWLEN + r]
        vlen[r] = n
        base = L.O_ROWS + r * ROW_CAP
        for i in range(n):
            e = g[base + i]
            if e >= FACE_DOWN and (e >> 5) - 1 != p:
                e = HIDDEN + (e & ~31)
            vrows[r, i] = e


@njit(cache=True, nogil=True)
def tail_start(row, n):
    """The index after the last follower of ``row[:n]`` (0 without one)."""
    for i in range(n - 1, -1, -1):
        if row[i] < 0:
            return i + 1
    return 0


@njit(cache=True, nogil=True)
def summarize(buf, n, row, st):
    """``st``: the counts of ``RowSummary(buf[:n], row)``."""
    st[:] = 0
    st[S_LENGTH] = n
    for i in range(n):
        e = buf[i]
        k = e & 31
        if k == HIDDEN:
            st[S_HIDDEN] += 1
            continue
        if e >= FACE_DOWN:
            st[S_DOWN] += 1
            if k < 20 and COLOUR_OF[k] != row:
                st[S_MISPLACED] += 1
                continue
        if PERSON_OF[k]:
            st[S_PERSONS] += 1
            st[S_PSUM] += PERSON_OF[k]
        elif ANIMAL_OF[k]:
            st[S_ANIMALS] += 1
        elif BUILDING_OF[k]:
            st[S_BUILDINGS] += 1
            st[S_COLOURS + COLOUR_OF[k]] += 1
        elif k == BUILDING_JOKER:
            st[S_BJ] += 1
        elif k == ANIMAL_JOKER:
            st[S_AJ] += 1
        elif k == DRAGON:
            st[S_DRAGON] += 1
        elif k == FAIRY:
            st[S_FAIRY] += 1


@njit(cache=True, nogil=True)
def animal_at(params, g, q, s, total, future):
    """Seat ``q``'s points for species ``s`` at ``total`` animals, plus ``future`` times what
    that adds to the seat's collected ones (the heuristic's animal future; 0: the value)."""
    now = L.animal_value(params, total)
    return now + future * (now - L.animal_value(params, g[L.O_ANIM + q * 4 + s]))


@njit(cache=True, nogil=True)
def allot_animals(points, params, g, q, totals, species, jokers, future):
    """``points`` plus a claim's animals for seat ``q``: each of ``jokers`` animal jokers to
    the species (of those with a total) it adds most to, else the lone joker's points, then
    every species of the claim (``species``) at its total (``totals``, the collected ones
    included; both updated), by :func:`animal_at`."""
    for _ in range(jokers):
        best_s = -1
        best_gain = 0.0
        for s in range(4):
            if totals[s]:
                gain = animal_at(params, g, q, s, totals[s] + 1, future) - animal_at(
                    params, g, q, s, totals[s], future
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
            points += animal_at(params, g, q, s, totals[s], future)
    return points


@njit(cache=True, nogil=True)
def summary_claim(st, row, g, q, params, work):
    """``RowSummary.claim``: the points the summarized segment brings seat ``q`` of ``g``
    (``work``: 8 integers of scratch)."""
    points = float(st[S_PSUM] * st[S_PERSONS])
    points += params[L.P_DRAGON] * st[S_DRAGON] + params[L.P_FAIRY] * st[S_FAIRY]
    points += params[L.P_MISPLACED] * st[S_MISPLACED] + HIDDEN_POINTS * st[S_HIDDEN]
    a = L.O_ANIM + q * 4
    totals = work[0:4]
    species = work[4:8]
    for s in range(4):
        totals[s] = g[a + s]
        species[s] = 0
    if st[S_ANIMALS]:
        totals[row] += st[S_ANIMALS]
        species[row] += st[S_ANIMALS]
    points = allot_animals(points, params, g, q, totals, species, st[S_AJ], 0.0)
    if st[S_BUILDINGS] or st[S_BJ]:
        c = L.O_COLL + q * NK
        c0, c1, c2, c3 = g[c + 3], g[c + 8], g[c + 13], g[c + 18]
        jokers = g[c + BUILDING_JOKER]
        base = L.building_points_k(c0, c1, c2, c3, jokers, params)
        more = L.building_points_k(c0 + st[S_COLOURS], c1 + st[S_COLOURS + 1],
                                   c2 + st[S_COLOURS + 2], c3 + st[S_COLOURS + 3],
                                   jokers + st[S_BJ], params)  # fmt: skip
        points += more - base
    return points


@njit(cache=True, nogil=True)
def _buildings_value(g, q, params):
    c = L.O_COLL + q * NK
    return L.building_points_k(g[c + 3], g[c + 8], g[c + 13], g[c + 18], g[c + BUILDING_JOKER],
                               params)  # fmt: skip


@njit(cache=True, nogil=True)
def static_features(g, p, vrows, vlen, params, x):
    """``CardFeatures._static`` of seat ``p``'s view into ``x[:STATIC_FEATURES]``."""
    n = g[L.F_N]
    x[:STATIC_FEATURES] = 0.0
    rnd, rt = g[L.F_ROUND], g[L.F_ROUNDS]
    x[n - 2] = 1.0
    x[4] = rnd / max(1, rt)
    x[5] = max(0, rt - rnd) / max(1, rt)
    if g[L.F_PHASE] == SETUP or rnd == 0:
        deck = 130 - g[L.F_SETUPDONE]
    else:
        deck = 130 - g[L.F_DECKPOS]
    x[6] = deck / 130.0
    seen = np.zeros(NK, np.int64)
    for k in range(NK):
        seen[k] += g[L.O_HANDS + p * NK + k]
    for r in range(4):
        for i in range(vlen[r]):
            e = vrows[r, i]
            if e >= 0 and (e & 31) != HIDDEN:
                seen[e & 31] += 1
    for q in range(n):
        for k in range(NK):
            seen[k] += g[L.O_COLL + q * NK + k]
    for k in range(NK):
        seen[k] += g[L.O_REMOVED + k]
    if g[L.F_CLAIMS]:
        for q in range(g[L.F_SCORER] + 1, n):
            for j in range(g[L.O_CLLEN + q]):
                seen[g[L.O_CLAIMS + q * L.CLAIM_CAP + j] & 31] += 1
    for j in range(g[L.F_MQLEN]):
        seen[g[L.O_MQ + g[L.F_MQHEAD] + j]] += 1
    if g[L.F_PHASE] == SETUP:
        seen[g[L.O_ORDER + g[L.F_SETUPDONE]]] += 1
    total = 0
    for k in range(NK):
        u = COUNTS_OF[k] - seen[k]
        total += u
        x[7 + k] = u / COUNTS_OF[k]
    x[7 + NK] = total / 120.0
    at = 8 + NK
    mine = float(g[L.O_SCORES + p])
    held = 0.0 if g[L.F_PHASE] == OVER else 1.0
    my_standing = mine + held * _buildings_value(g, p, params)
    for i in range(n):
        q = (p + i) % n
        c = L.O_COLL + q * NK
        standing = g[L.O_SCORES + q] + held * _buildings_value(g, q, params)
        x[at] = 1.0
        if q == p:
            x[at + 1] = mine / 200.0
            x[at + 2] = my_standing / 200.0
        else:
            x[at + 1] = (g[L.O_SCORES + q] - mine) / 50.0
            x[at + 2] = (standing - my_standing) / 50.0
        for s in range(4):
            x[at + 3 + s] = g[L.O_ANIM + q * 4 + s] / 6.0
            x[at + 8 + s] = g[c + s * 5 + 3] / 3.0
        x[at + 7] = g[L.O_PJOKERS + q]
        x[at + 12] = g[c + BUILDING_JOKER]
        x[at + 13] = 1.0 if q == g[L.F_DEALER] else 0.0
        at += STATIC_SEAT


@njit(cache=True, nogil=True)
def _segment(vrows, vlen, r, start, end, extra, buf):
    """``buf[:m]``: ``vrows[r, start:end]``, then ``extra`` unless it is -1000 (none)."""
    m = 0
    for i in range(start, end):
        buf[m] = vrows[r, i]
        m += 1
    if extra != -1000:
        buf[m] = extra
        m += 1
    return m


@njit(cache=True, nogil=True)
def write_option_features(g, p, code, vrows, vlen, params, static, x, buf, st):
    """``CardFeatures(view(g, p)).after(code)`` into ``x`` (``static``: the static part of
    the same view; ``buf``, ``st``: scratch of ``SEG_CAP`` and ``SUMMARY_LEN``)."""
    n = g[L.F_N]
    deal = float(g[L.F_DEAL])
    # the option: row ``a`` gets ``entry`` appended
    last = g[L.F_LASTF]
    if code < FOLLOWER:
        down = code < PLAY_UP
        c = code if down else code - PLAY_UP
        card = c >> 2
        a = c & 3
        entry = card + FACE_DOWN * (p + 1) if down else card
        follower = False
    elif code < SETUP_ROW:
        card = -1
        a = code - FOLLOWER
        entry = -(p + 1)
        follower = True
        last = p
    else:
        return False
    x[:] = 0.0
    x[:STATIC_FEATURES] = static
    at = STATIC_FEATURES
    for k in range(NK):
        h = g[L.O_HANDS + p * NK + k] - (1 if k == card else 0)
        x[at + k] = h / 3.0
    at += NK
    starts = np.empty(4, np.int64)
    for r in range(4):
        starts[r] = tail_start(vrows[r], vlen[r])
    # per row: the tail's summary after the option (the option's row: its tail + the card,
    # or empty after the follower)
    summaries = np.zeros((4, SUMMARY_LEN), np.int64)
    for r in range(4):
        if r == a:
            if follower:
                m = 0
            else:
                m = _segment(vrows, vlen, r, starts[r], vlen[r], entry, buf)
        else:
            m = _segment(vrows, vlen, r, starts[r], vlen[r], -1000, buf)
        summarize(buf, m, r, st)
        summaries[r, :] = st
        followers = 0
        for i in range(vlen[r]):
            if vrows[r, i] < 0:
                followers += 1
        if follower and r == a:
            followers += 1
        s = summaries[r]
        x[at] = s[S_PERSONS] / 4.0
        x[at + 1] = s[S_PSUM] / 8.0
        x[at + 2] = s[S_PSUM] * s[S_PERSONS] / 40.0
        x[at + 3] = s[S_ANIMALS] / 3.0
        x[at + 4] = s[S_BUILDINGS] / 3.0
        x[at + 5] = s[S_BJ]
        x[at + 6] = s[S_AJ]
        x[at + 7] = s[S_DRAGON]
        x[at + 8] = s[S_FAIRY]
        x[at + 9] = s[S_HIDDEN] / 3.0
        x[at + 10] = s[S_DOWN] / 3.0
        x[at + 11] = s[S_MISPLACED] / 2.0
        x[at + 12] = s[S_LENGTH] / 8.0
        x[at + 13] = followers / 3.0
        at += ROW_FEATURES
    best_free_other = 0.0
    mine = 0.0
    claims = np.empty(4, np.float64)
    work = np.empty(8, np.int64)
    for i in range(n):
        q = (p + i) % n
        best = 0.0
        for r in range(4):
            claims[r] = summary_claim(summaries[r], r, g, q, params, work)
            if r == 0 or claims[r] > best:
                best = claims[r]
        fr = g[L.O_FROW + q]
        if q == p and follower:
            fr = a
        locked = 0.0
        if fr >= 0:
            if q == p and follower:  # the segment before the new follower: the old tail
                m = _segment(vrows, vlen, fr, starts[fr], vlen[fr], -1000, buf)
            else:
                idx = 0
                for j in range(vlen[fr]):
                    if vrows[fr, j] == -(q + 1):
                        idx = j
                        break
                m = _segment(vrows, vlen, fr, tail_start(vrows[fr], idx), idx, -1000, buf)
            summarize(buf, m, fr, st)
            locked = summary_claim(st, fr, g, q, params, work)
        hs = g[L.O_HSIZE + q]
        pl = g[L.O_PLAYED + q]
        if q == p and not follower:
            hs -= 1
            pl += 1
        x[at] = hs / deal
        x[at + 1] = pl / deal
        if fr >= 0:
            x[at + 2 + fr] = 1.0
        x[at + 6] = locked / CLAIM_SCALE
        for r in range(4):
            x[at + 7 + r] = claims[r] / CLAIM_SCALE
        x[at + 11] = best / CLAIM_SCALE
        x[at + 12] = 1.0 if q == last else 0.0
        x[at + 13] = 1.0 if fr < 0 else 0.0
        if q == p:
            mine = locked if fr >= 0 else best
        elif fr < 0:
            best_free_other = max(best_free_other, best)
        at += OPTION_SEAT
    x[NUM_CARD_FEATURES - 1] = (mine - best_free_other) / CLAIM_SCALE
    return True


@njit(cache=True, nogil=True)
def options_features(g, p, codes, params, out):
    """``out[j]``: the features of seat ``p``'s turn option ``codes[j]`` in ``g``."""
    vrows = np.empty((4, ROW_CAP), np.int64)
    vlen = np.empty(4, np.int64)
    view_rows(g, p, vrows, vlen)
    static = np.empty(STATIC_FEATURES, np.float32)
    static_features(g, p, vrows, vlen, params, static)
    buf = np.empty(SEG_CAP, np.int64)
    st = np.empty(SUMMARY_LEN, np.int64)
    for j in range(codes.shape[0]):
        if not write_option_features(g, p, codes[j], vrows, vlen, params, static, out[j], buf,
                                     st):  # fmt: skip
            return j
    return codes.shape[0]


def option_features_of(state, player: int, codes: list[int]) -> np.ndarray:
    """``[len(codes), NUM_CARD_FEATURES]``: what ``card.option_features(view(state, player),
    codes)`` computes, by the kernels (``codes``: turn options of ``player``)."""
    if state.phase != "turn" or state.current_player != player:
        raise ValueError(f"seat {player} has no turn decision in this state ({state.phase})")
    g = pack_state(state)
    out = np.zeros((len(codes), NUM_CARD_FEATURES), np.float32)
    params = rules_params(GameConfig(state.n, rules=state.rules))
    done = options_features(g, player, np.asarray(codes, np.int64), params, out)
    if done < len(codes):
        raise ValueError(f"code {codes[done]} is not a turn option")
    return out


assert SLOTS == L.MAX_SEATS

__all__ = [
    "SEG_CAP",
    "SUMMARY_LEN",
    "option_features_of",
    "options_features",
    "static_features",
    "summarize",
    "summary_claim",
    "tail_start",
    "view_rows",
    "write_option_features",
]
