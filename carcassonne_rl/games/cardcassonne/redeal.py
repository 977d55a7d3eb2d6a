"""Redealing what one seat has not seen, as a *replayable* game (play's undo).

:func:`.determinize.determinize` samples the cards hidden from a seat but returns a state
without a record. :func:`redeal_unseen` goes one step further: it rewrites the game's record
(the card order and the other seats' face-down plays) so that replaying it gives a game in
which the seat's view is exactly the same as before, and every card the seat has not seen
(the other hands, the other seats' face-down cards still on the table, the pile and so the
rounds not dealt yet) is the sampled one.

The result depends only on the seat's view and on ``rng``, never on the true hidden cards:
two games that look the same to the seat are redealt identically by the same ``rng``.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from .actions import PLAY_UP
from .determinize import determinize
from .state import State, new_game
from .table import FACE_DOWN, TURN
from .views import view


def _deal_owners(state: State) -> tuple[dict[int, tuple[int, int]], list[tuple]]:
    """Replay ``state``'s record: the (seat, round) each dealt pile position went to, and
    every face-down play as (action index, seat, row, round)."""
    replayed = new_game(state.config, state.card_order)
    owners: dict[int, tuple[int, int]] = {}
    n = replayed.n

    def note_round(s: State) -> None:
        start = s.deck_pos - s.deal_size * n
        for i in range(s.deal_size):
            for j in range(1, n + 1):
                owners[start + i * n + j - 1] = ((s.dealer + j) % n, s.round)

    if replayed.round:
        note_round(replayed)
    down_plays = []
    for index, code in enumerate(state.history):
        before = replayed.round
        if replayed._phase == TURN and code < PLAY_UP:
            down_plays.append((index, replayed.current, code & 3, before))
        replayed.apply_code(code)
        if replayed.round != before:
            note_round(replayed)
    return owners, down_plays


def redeal_unseen(
    state: State, player: int, rng: random.Random | np.random.Generator | int | None = None
) -> State:
    """A replayable game that ``player`` cannot tell from ``state`` (equal views), with the
    cards hidden from ``player`` drawn afresh, uniformly from the unseen ones.

    Raises ``ValueError`` for a state without a record (made by ``determinize``)."""
    if not state.replayable:
        raise ValueError("redeal_unseen needs a replayable state, not a determinized one")
    sample = determinize(state, player, rng)
    owners, down_plays = _deal_owners(state)
    order = list(state.card_order)
    history = list(state.history)
    current = state.round if state.round and state._phase == TURN else None

    # The other seats' face-down cards still on the table: row slot -> the play that made it
    # (a row only grows, and keeps a suffix at a round's end, so the q-th face-down card of
    # a seat in a row is the q-th of that seat's last plays into that row).
    old_hidden: dict[tuple[int, int], Counter] = {}
    new_hidden: dict[tuple[int, int], Counter] = {}
    for r, row in enumerate(state.rows):
        for seat in range(state.n):
            if seat == player:
                continue
            slots = [i for i, e in enumerate(row) if e >= FACE_DOWN and (e >> 5) - 1 == seat]
            if not slots:
                continue
            plays = [p for p in down_plays if p[1] == seat and p[2] == r][-len(slots) :]
            for slot, (index, _, _, rnd) in zip(slots, plays, strict=True):
                old_kind, new_kind = row[slot] & 31, sample.rows[r][slot] & 31
                old_hidden.setdefault((seat, rnd), Counter())[old_kind] += 1
                new_hidden.setdefault((seat, rnd), Counter())[new_kind] += 1
                history[index] = new_kind * 4 + r
    if current is not None:
        for seat in range(state.n):
            if seat != player:
                for kind, count in enumerate(state.hands[seat]):
                    old_hidden.setdefault((seat, current), Counter())[kind] += count
                for kind, count in enumerate(sample.hands[seat]):
                    new_hidden.setdefault((seat, current), Counter())[kind] += count

    # Each other seat's deal of each round: the cards the player saw stay, the rest is new.
    groups: dict[tuple[int, int], list[int]] = {}
    for pos, owner in owners.items():
        if owner[0] != player:
            groups.setdefault(owner, []).append(pos)
    for group, positions in groups.items():
        dealt = Counter(order[p] for p in positions)
        seen = dealt - old_hidden.get(group, Counter())
        if sum(seen.values()) + sum(old_hidden.get(group, Counter()).values()) != len(positions):
            raise RuntimeError(f"redeal_unseen: the deal of seat/round {group} does not add up")
        kinds = sorted((seen + new_hidden.get(group, Counter())).elements())
        for p, kind in zip(sorted(positions), kinds, strict=True):
            order[p] = kind
    tail = state.deck_size
    order[130 - tail :] = sample.card_order[130 - tail :]

    redealt = new_game(state.config, order)
    for code in history:
        redealt.apply_code(code)
    if view(redealt, player) != view(state, player) or redealt.hands != sample.hands:
        raise RuntimeError("redeal_unseen: the redealt game does not match the seat's view")
    return redealt
