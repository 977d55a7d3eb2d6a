"""``redeal_unseen``: a replayable game that seat K cannot tell from the real one, with
every card K has not seen dealt afresh (play's undo relies on it)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from carcassonne_rl.games.cardcassonne import (
    GameConfig,
    determinize,
    load_json,
    new_game,
    redeal_unseen,
    view,
)
from carcassonne_rl.games.cardcassonne.table import FACE_DOWN


def _points_of_random_games(players: int, rng: random.Random, every: float = 0.12):
    """(state, seat) at random points of a random game (a fresh state each time)."""
    state = new_game(GameConfig(players=players, seed=rng.randrange(2**128)))
    while not state.is_over:
        codes = state.legal_codes()
        state.apply_code(rng.choice(codes))
        if not state.is_over and rng.random() < every:
            yield state.clone(), rng.randrange(players)


def _unseen(state, seat: int) -> Counter:
    """The cards hidden from ``seat``, independently of the engine's bookkeeping."""
    cards = Counter(state.card_order[130 - state.deck_size :])
    for q in range(state.n):
        if q != seat:
            cards.update({k: c for k, c in enumerate(state.hands[q]) if c})
    for row in state.rows:
        for e in row:
            if e >= FACE_DOWN and (e >> 5) - 1 != seat:
                cards[e & 31] += 1
    if state.phase == "setup_joker":
        cards[state.pending_card] -= 1  # the joker awaiting its row is face up
    return +cards


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_redeal_looks_the_same_to_the_seat_and_replays(players):
    rng = random.Random(players)
    checked = changed = 0
    for state, seat in _points_of_random_games(players, rng):
        redealt = redeal_unseen(state, seat, random.Random(checked))
        assert view(redealt, seat) == view(state, seat)
        assert _unseen(redealt, seat) == _unseen(state, seat)  # the same cards, redealt
        again = load_json(redealt.to_json())
        assert view(again, seat) == view(state, seat) and again.hands == redealt.hands
        if state.current_player == seat:
            assert again.legal_codes() == state.legal_codes()
        changed += redealt.card_order != state.card_order
        checked += 1
    assert checked >= 10 and changed == checked


@pytest.mark.parametrize("players", [2, 5])
def test_the_redeal_ignores_the_true_hidden_cards(players):
    """Two games that look the same to the seat are redealt identically by one ``rng``."""
    rng = random.Random(10 + players)
    for state, seat in _points_of_random_games(players, rng, every=0.05):
        twin = redeal_unseen(state, seat, random.Random(99))
        a = redeal_unseen(state, seat, random.Random(5))
        b = redeal_unseen(twin, seat, random.Random(5))
        assert a.card_order == b.card_order and a.history == b.history


def test_others_face_down_cards_are_redealt_and_own_ones_kept():
    rng = random.Random(3)
    found = 0
    for state, seat in _points_of_random_games(3, rng, every=0.3):
        down = [
            (r, i, e)
            for r, row in enumerate(state.rows)
            for i, e in enumerate(row)
            if e >= FACE_DOWN
        ]
        others = [(r, i) for r, i, e in down if (e >> 5) - 1 != seat]
        if not others:
            continue
        seen = []
        for trial in range(12):
            redealt = redeal_unseen(state, seat, random.Random(trial))
            for r, i, e in down:
                if (e >> 5) - 1 == seat:
                    assert redealt.rows[r][i] == e  # the seat's own face-down card stays
            seen.append(tuple(redealt.rows[r][i] for r, i in others))
        assert len(set(seen)) > 1  # the others' face-down cards are dealt afresh
        found += 1
    assert found >= 3


def test_a_determinized_state_cannot_be_redealt():
    state = new_game(GameConfig(players=2, seed=1))
    with pytest.raises(ValueError, match="replayable"):
        redeal_unseen(determinize(state, 0, random.Random(0)), 0)
