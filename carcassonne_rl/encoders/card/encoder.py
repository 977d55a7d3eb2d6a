"""Cardcassonne observation vector and action indices.

The observation of seat ``p`` is a flat float32 vector of :data:`CARD_OBS_SIZE` entries, with
every seat ordered "me first" (relative seat ``j = (q - p) % n``; slots of absent seats are
zero). It holds what ``p`` knows and nothing else (the engine's ``view(state, p)``):

========================  =====================================================================
block                     entries
========================  =====================================================================
``hand``                  own hand: count per card kind (24)
``rows``                  per row (Y R G B) x segment: segment 0 is the claimable tail (after
                          the row's last follower); segment ``1 + j`` is the part claimed by
                          the follower of relative seat ``j``. Per segment: counts of the
                          cards known to ``p`` by kind (face-up and own face-down) (24), the
                          number of others' face-down cards (1), own face-down by kind (24)
``seats``                 per relative seat (5 x 42): kept cards by kind (24), animal totals
                          per species (4), unassigned animal jokers, score / 100, hand size,
                          cards played this round, follower row one-hot (4), follower placed,
                          building cards (tie-break count), is dealer, placed the follower
                          last, is to move, seat exists
``global``                round, rounds in the game, cards left in the pile / 130, removed
                          cards by kind (24), phase one-hot (5), pending card one-hot (24)
                          (setup joker or misplaced card), scoring seat one-hot (5), animal
                          jokers to assign, misplaced cards queued by kind (24), claimed
                          cards not yet scored per relative seat (5 x 24), players one-hot (4)
========================  =====================================================================

Action index = engine action code (206, see ``games.cardcassonne.actions``): (card kind, row,
face) 0-191, follower row 192-195, setup joker row 196-199, animal joker species 200-203,
keep 204, ten points 205.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from carcassonne_rl.games.cardcassonne import NUM_ACTIONS, NUM_KINDS, State
from carcassonne_rl.games.cardcassonne.state import FACE_DOWN

MAX_SEATS = 5
NK = NUM_KINDS
SEG_LEN = 2 * NK + 1  # kinds seen, others' face-down count, own face-down kinds
ROW_LEN = (1 + MAX_SEATS) * SEG_LEN
SEAT_LEN = 42

O_HAND = 0
O_ROWS = O_HAND + NK
O_SEATS = O_ROWS + 4 * ROW_LEN
O_GLOBAL = O_SEATS + MAX_SEATS * SEAT_LEN
# offsets inside a seat block
S_COLLECTED, S_ANIMALS, S_PJOKERS, S_SCORE, S_HAND, S_PLAYED = 0, 24, 28, 29, 30, 31
S_FROW, S_FPLACED, S_BUILDINGS, S_DEALER, S_LASTF, S_CURRENT, S_PRESENT = 32, 36, 37, 38, 39, 40, 41
# offsets inside the global block
G_ROUND, G_ROUNDS, G_DECK, G_REMOVED, G_PHASE, G_PENDING = 0, 1, 2, 3, 27, 32
G_SCORER, G_JOKERS, G_MISPLACED, G_CLAIMS, G_PLAYERS = 56, 61, 62, 86, 206
GLOBAL_LEN = 210
CARD_OBS_SIZE = O_GLOBAL + GLOBAL_LEN
SCORE_SCALE = 100.0


def seg_offset(row: int, seg: int) -> int:
    """Start of segment ``seg`` (0 claimable, 1 + j claimed by relative seat j) of ``row``."""
    return O_ROWS + row * ROW_LEN + seg * SEG_LEN


def seat_offset(rel: int) -> int:
    return O_SEATS + rel * SEAT_LEN


class CardEncoder:
    """Observation vector, action mask and action indices of Cardcassonne (any player count).

    ``encode`` is stateless; :class:`CardObservationCache` keeps per-seat vectors up to date
    incrementally for an env.
    """

    num_actions = NUM_ACTIONS
    obs_size = CARD_OBS_SIZE

    def __init__(self) -> None:
        self.observation_space = spaces.Box(0.0, np.inf, (CARD_OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}

    # ------------------------------------------------------------------ observation
    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh observation vector of ``state`` for seat ``player``."""
        v = np.zeros(CARD_OBS_SIZE, np.float32)
        self.encode_into(v, state, player)
        return v

    def encode_into(self, v: np.ndarray, state: State, p: int) -> None:
        """Write the observation of seat ``p`` into the zeroed vector ``v``."""
        n = state.n
        v[O_HAND : O_HAND + NK] = state.hands[p]
        own_tag = FACE_DOWN * (p + 1)
        for r, row in enumerate(state.rows):
            # entries after the last follower form the claimable tail (segment 0)
            owners = [-e - 1 for e in row if e < 0]
            seg_of = iter([1 + (q - p) % n for q in owners] + [0])
            base = seg_offset(r, next(seg_of))
            for e in row:
                if e < 0:
                    base = seg_offset(r, next(seg_of))
                elif e < FACE_DOWN:
                    v[base + e] += 1
                elif own_tag <= e < own_tag + FACE_DOWN:
                    k = e - own_tag
                    v[base + k] += 1
                    v[base + NK + 1 + k] += 1
                else:
                    v[base + NK] += 1
        g = O_GLOBAL
        scores = state.scores.tolist()
        for q in range(n):
            j = (q - p) % n
            o = seat_offset(j)
            v[o + S_COLLECTED : o + S_COLLECTED + NK] = state.collected[q]
            v[o + S_ANIMALS : o + S_ANIMALS + 4] = state.animals[q]
            v[o + S_PJOKERS] = state.pending_jokers[q]
            v[o + S_SCORE] = scores[q] / SCORE_SCALE
            v[o + S_HAND] = state.hand_size[q]
            v[o + S_PLAYED] = state.played[q]
            if state.follower_row[q] >= 0:
                v[o + S_FROW + state.follower_row[q]] = 1
                v[o + S_FPLACED] = 1
            v[o + S_BUILDINGS] = state.building_count(q)
            v[o + S_DEALER] = q == state.dealer
            v[o + S_LASTF] = q == state.last_follower
            v[o + S_CURRENT] = q == state.current
            v[o + S_PRESENT] = 1
            if q > state.score_player and state.claims:
                for k, _ in state.claims[q]:
                    v[g + G_CLAIMS + j * NK + k] += 1
        v[g + G_ROUND] = state.round
        v[g + G_ROUNDS] = state.rounds_total
        v[g + G_DECK] = state.deck_size / 130.0
        v[g + G_REMOVED : g + G_REMOVED + NK] = state.removed
        v[g + G_PHASE + state.phase_index] = 1
        pending = state.pending_card
        if pending is not None:
            v[g + G_PENDING + pending] = 1
        if state.score_player >= 0:
            v[g + G_SCORER + (state.score_player - p) % n] = 1
        v[g + G_JOKERS] = state.jokers_to_assign
        for k in state.misplaced_queue:
            v[g + G_MISPLACED + k] += 1
        v[g + G_PLAYERS + n - 2] = 1

    # ------------------------------------------------------------------ actions
    def action_mask(self, state: State) -> np.ndarray:
        """int8 mask over the 206 action indices: the legal actions of ``state.current_player``."""
        codes = tuple(state.legal_codes())
        m = self._mask_cache.get(codes)
        if m is None:
            m = np.zeros(NUM_ACTIONS, np.int8)
            m[list(codes)] = 1
            if len(self._mask_cache) < 100_000:
                self._mask_cache[codes] = m
        return m.copy()

    def index_of(self, state: State, code: int) -> int:
        """Env action index of engine code ``code`` (the identity for this game)."""
        return int(code)

    def code_of(self, state: State, index: int) -> int:
        """Engine action code of env action index ``index`` (the identity)."""
        return int(index)
