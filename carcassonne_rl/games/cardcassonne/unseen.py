"""The cards one seat has not seen, and a full table dealt from them (determinization's
core: :func:`.determinize.determinize` and ``State.resample_hidden`` use it)."""

from __future__ import annotations

import random
from typing import TypeVar

import numpy as np

from .cards import KIND_COUNTS, NUM_KINDS
from .config import GameConfig
from .table import MISPLACED, PHASE_NAMES, SETUP, CardTable
from .views import HIDDEN, PlayerView

T = TypeVar("T", bound=CardTable)


def unseen_counts(v: PlayerView) -> list[int]:
    """Per kind, the cards hidden from ``v.player`` (other hands, others' face-down cards,
    the pile; the setup joker awaiting a row is public and not counted)."""
    counts = list(KIND_COUNTS)
    seen = list(v.hand)
    for row in v.rows:
        for e in row:
            if e >= 0 and (e & 31) != HIDDEN:
                seen[e & 31] += 1
    for c in v.collected:
        for k in range(NUM_KINDS):
            seen[k] += c[k]
    for k in range(NUM_KINDS):
        seen[k] += v.removed[k]
    # claimed cards of seats not yet scored, and the scoring seat's undecided misplaced cards
    for q in range(v.score_player + 1, len(v.claims)):
        for k, _ in v.claims[q]:
            seen[k] += 1
    for k in v.misplaced_queue:
        seen[k] += 1
    if v.phase == PHASE_NAMES[SETUP]:
        seen[v.pending_card] += 1
    out = [counts[k] - seen[k] for k in range(NUM_KINDS)]
    if min(out) < 0:
        raise ValueError("inconsistent view: more cards seen than the game has")
    return out


def deal_unseen(
    v: PlayerView,
    player: int,
    rng: random.Random | np.random.Generator | int | None,
    cls: type[T],
) -> T:
    """A ``cls`` (the card ``State``) consistent with ``v``, ``player``'s view, the hidden
    cards (other hands, others' face-down cards, the pile order) sampled uniformly from the
    unseen cards by ``rng`` (an ``int`` or ``None`` seeds a ``random.Random``)."""
    if v.player != player:
        raise ValueError(f"the view belongs to player {v.player}, not {player}")
    if rng is None or isinstance(rng, int):
        rng = random.Random(rng)
    pool = [k for k, c in enumerate(unseen_counts(v)) for _ in range(c)]
    if isinstance(rng, np.random.Generator):
        pool = [pool[i] for i in rng.permutation(len(pool))]
    else:
        rng.shuffle(pool)

    s = cls.__new__(cls)
    s.config = GameConfig(players=v.players, seed=0)
    s.n = n = v.players
    s.rules = s.config.rules
    s.replayable = False
    s.deal_size, s.rounds_total = s.rules.deal(n)
    rows = []
    for row in v.rows:
        out = []
        for e in row:
            if e >= 0 and (e & 31) == HIDDEN:
                e = pool.pop() + (e & ~31)
            out.append(e)
        rows.append(out)
    s.rows = rows
    s.turns = list(v.turns)
    hands = []
    for q in range(n):
        if q == player:
            hands.append(list(v.hand))
            continue
        h = [0] * NUM_KINDS
        for _ in range(v.hand_sizes[q]):
            h[pool.pop()] += 1
        hands.append(h)
    s.hands = hands
    deck = pool
    if v.phase == PHASE_NAMES[SETUP]:
        deck = [v.pending_card] + deck
    if len(deck) != v.deck_size:
        raise ValueError("inconsistent view: hidden card counts do not add up")
    s.card_order = [-1] * (130 - len(deck)) + deck
    s.setup_done = v.setup_done
    s.deck_pos = 0 if v.round == 0 else 130 - len(deck)
    s.hand_size = list(v.hand_sizes)
    s.played = list(v.played)
    s.follower_row = list(v.follower_row)
    s.round = v.round
    s.dealer = v.dealer
    s.current = v.current_player
    s._phase = PHASE_NAMES.index(v.phase)
    s.last_follower = v.last_follower
    s.collected = [list(c) for c in v.collected]
    s.animals = [list(a) for a in v.animals]
    s.pending_jokers = list(v.pending_jokers)
    s.removed = list(v.removed)
    s._scores = list(v.scores)
    s.events = list(v.score_events)
    s.history = []
    s.claims = [list(c) for c in v.claims]
    s.score_player = v.score_player
    s.misplaced_queue = list(v.misplaced_queue)
    s.jokers_to_assign = v.jokers_to_assign
    s.claimed_species = [list(c) for c in v.claimed_species]
    s.new_jokers = v.new_jokers
    s.joker_step_done = v.joker_step_done
    assert s._phase != MISPLACED or s.misplaced_queue
    return s
