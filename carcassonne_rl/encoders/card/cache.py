"""Per-seat Cardcassonne observation vectors kept up to date incrementally.

A turn action (play a card, place the follower) changes a handful of entries; the cache
applies just those to each seat's vector. Anything else (setup, end-of-round scoring, a new
round) marks the vectors stale, and the next ``observe`` re-encodes that seat in full.
``observe`` always returns a fresh copy, so a handed-out observation never changes.
"""

from __future__ import annotations

import numpy as np

from carcassonne_rl.encoders.card.encoder import (
    CARD_OBS_SIZE,
    NK,
    S_CURRENT,
    S_FPLACED,
    S_FROW,
    S_HAND,
    S_LASTF,
    S_PLAYED,
    SEG_LEN,
    CardEncoder,
    seat_offset,
    seg_offset,
)
from carcassonne_rl.games.cardcassonne import State
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, PLAY_UP
from carcassonne_rl.games.cardcassonne.state import TURN


class CardObservationCache:
    """Observation vectors of every seat of one game, updated action by action."""

    def __init__(self, encoder: CardEncoder, players: int) -> None:
        self.encoder = encoder
        self.n = players
        self.vectors = np.zeros((players, CARD_OBS_SIZE), np.float32)
        self.stale = [True] * players
        self._turn_round = -1  # round of the last state seen in the turn phase, else -1
        self._state: State | None = None  # the state followed, and its history length
        self._stamp = -1

    def reset(self, state: State) -> None:
        self.stale = [True] * self.n
        self._turn_round = state.round if state.phase_index == TURN else -1
        self._state = state
        self._stamp = len(state.history)

    def observe(self, state: State, player: int) -> np.ndarray:
        """A fresh copy of ``player``'s observation of ``state`` (re-encoded in full when
        ``state`` is not the state the cache follows or was changed behind its back)."""
        if state is not self._state or len(state.history) != self._stamp:
            self.reset(state)
        v = self.vectors[player]
        if self.stale[player]:
            v[:] = 0.0
            self.encoder.encode_into(v, state, player)
            self.stale[player] = False
        return v.copy()

    def after_action(self, state: State, actor: int, code: int) -> None:
        """Update the vectors after ``actor`` applied ``code`` to reach ``state``."""
        if state is not self._state or len(state.history) != self._stamp + 1:
            self.reset(state)
            return
        self._stamp += 1
        was_turn_round = self._turn_round
        now_turn = state.phase_index == TURN
        self._turn_round = state.round if now_turn else -1
        if not now_turn or was_turn_round != state.round:
            self.stale = [True] * self.n
            return
        n = self.n
        vectors = self.vectors
        stale = self.stale
        if code < FOLLOWER:
            down = code < PLAY_UP
            c = code if down else code - PLAY_UP
            k, r = c >> 2, c & 3
            base = seg_offset(r, 0)
            for p in range(n):
                if stale[p]:
                    continue
                v = vectors[p]
                j = (actor - p) % n
                o = seat_offset(j)
                v[o + S_HAND] -= 1
                v[o + S_PLAYED] += 1
                if p == actor:
                    v[k] -= 1  # own hand
                    v[base + k] += 1
                    if down:
                        v[base + NK + 1 + k] += 1
                elif down:
                    v[base + NK] += 1
                else:
                    v[base + k] += 1
                v[o + S_CURRENT] = 0
                v[seat_offset((state.current - p) % n) + S_CURRENT] = 1
            return
        r = code - FOLLOWER
        tail = seg_offset(r, 0)
        for p in range(n):
            if stale[p]:
                continue
            v = vectors[p]
            j = (actor - p) % n
            dest = seg_offset(r, 1 + j)
            v[dest : dest + SEG_LEN] = v[tail : tail + SEG_LEN]
            v[tail : tail + SEG_LEN] = 0.0
            o = seat_offset(j)
            v[o + S_FROW + r] = 1
            v[o + S_FPLACED] = 1
            for q in range(n):
                v[seat_offset(q) + S_LASTF] = 0
            v[o + S_LASTF] = 1
            v[o + S_CURRENT] = 0
            v[seat_offset((state.current - p) % n) + S_CURRENT] = 1
