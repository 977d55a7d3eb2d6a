"""Per-player views hide exactly the hidden information; determinization respects them."""

import random

import numpy as np
import pytest
from helpers.card import census, random_playout

from carcassonne_rl.games.cardcassonne import (
    KIND_COUNTS,
    GameConfig,
    PlayerView,
    determinize,
    new_game,
    view,
)

HIDDEN = 24


def midgame_states():
    """Random states of 2-5 players at various points, scoring decisions included."""
    out = []
    for players in (2, 3, 4, 5):
        for seed in range(6):
            s = new_game(GameConfig(players=players, seed=seed))
            rng = random.Random(seed * 31 + players)
            random_playout(s, rng, stop_after=rng.randrange(0, 140))
            out.append(s)
    # States in the middle of an end-of-round decision.
    for seed in range(200):
        s = new_game(GameConfig(players=2, seed=seed))
        rng = random.Random(seed)
        while not s.is_over and s.phase in ("turn", "setup_joker"):
            random_playout(s, rng, stop_after=1)
        if s.phase in ("misplaced_card", "assign_animal_joker"):
            out.append(s)
        if len(out) > 40:
            break
    return out


STATES = midgame_states()


def test_scoring_decisions_are_covered():
    assert {s.phase for s in STATES} >= {"turn", "misplaced_card"}


def test_view_shows_own_cards_and_hides_others_face_down_cards():
    for s in STATES:
        for p in range(s.n):
            v = s.view(p)
            assert v.hand == tuple(s.hands[p])
            for r, row in enumerate(v.rows):
                for e, real in zip(row, s.rows[r], strict=True):
                    if real >= 32 and (real >> 5) - 1 != p:
                        assert e & 31 == HIDDEN and e >> 5 == real >> 5
                    else:
                        assert e == real
    names = set(PlayerView.__dataclass_fields__)
    assert not names & {"hands", "history", "card_order", "deck"}


def swap_hidden(s, p: int, rng: random.Random):
    """A copy of ``s`` differing only in what ``p`` cannot see, and the seat that can."""
    t = s.clone()
    t.card_order = list(t.card_order)
    deck_start = len(t.card_order) - t.deck_size
    if t.phase == "setup_joker":
        deck_start += 1  # the joker awaiting its row is public
    others = [q for q in range(t.n) if q != p and t.hand_size[q]]
    if others and deck_start < len(t.card_order):
        q = rng.choice(others)
        k = rng.choice([k for k, c in enumerate(t.hands[q]) if c])
        for i in range(deck_start, len(t.card_order)):
            m = t.card_order[i]
            if m != k:
                t.hands[q][k] -= 1
                t.hands[q][m] += 1
                t.card_order[i] = k
                return t, q
    for row in t.rows:  # change another player's face-down card
        for i, e in enumerate(row):
            if e >= 32 and (e >> 5) - 1 != p:
                row[i] = ((e & 31) + 1) % 20 + (e & ~31)
                return t, (e >> 5) - 1
    return None, None


def test_changing_hidden_information_leaves_view_unchanged():
    rng = random.Random(5)
    changed = 0
    for s in STATES:
        for p in range(s.n):
            t, q = swap_hidden(s, p, rng)
            if t is None:
                continue
            changed += 1
            assert view(t, p) == view(s, p)
            assert view(t, q) != view(s, q)  # the change is real: the owner sees it
    assert changed > 50


def test_view_changes_with_own_hand():
    s = new_game(GameConfig(players=3, seed=1))
    while s.phase != "turn":
        s.apply_code(int(s.legal_action_codes()[0]))
    t = s.clone()
    k = next(k for k, c in enumerate(t.hands[0]) if c)
    t.hands[0][k] -= 1
    t.hands[0][(k + 1) % 24] += 1
    assert view(t, 0) != view(s, 0)
    assert view(t, 1) == view(s, 1)


def test_determinization_is_consistent_with_the_view():
    for i, s in enumerate(STATES):
        for p in range(s.n):
            v = view(s, p)
            for rng in (random.Random(i), np.random.default_rng(i)):
                d = determinize(s, p, rng)
                assert view(d, p) == v
                assert census(d) == list(KIND_COUNTS)
                # It plays on to a legal end.
                random_playout(d, random.Random(i))
                assert d.is_over


def test_determinization_samples_the_hidden_cards():
    s = new_game(GameConfig(players=2, seed=3))
    while s.phase != "turn":
        s.apply_code(int(s.legal_action_codes()[0]))
    hands = {tuple(determinize(s.view(0), 0, random.Random(i)).hands[1]) for i in range(20)}
    assert len(hands) > 1  # the opponent's hand is really resampled
    with pytest.raises(ValueError, match="belongs to player 0"):
        determinize(s.view(0), 1, random.Random(0))


@pytest.mark.parametrize("players", [2, 3, 5])
def test_view_turn_log_is_the_rounds_turn_moves(players):
    """The view's turn log names, in order, the seat and the row entry of every turn move of
    the round in play (read against the game's own record), the face-down cards of the
    others hidden; it is empty while a round is scored."""
    from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, PLAY_UP

    s = new_game(GameConfig(players=players, seed=7))
    rng = random.Random(players)
    seats: list[int] = []  # who made each turn move of the round, from the turn order
    checked, rnd = 0, s.round
    while not s.is_over:
        if s.phase != "turn" or s.round != rnd:
            seats, rnd = [], s.round
        for p in range(players):
            v = view(s, p)
            if s.phase != "turn":
                assert v.turns == ()
                continue
            assert [seat for seat, _, _ in v.turns] == seats
            codes = s.history[len(s.history) - len(seats) :]
            for (seat, row, index), code in zip(v.turns, codes, strict=True):
                entry = v.rows[row][index]
                if code >= FOLLOWER:
                    assert (row, entry) == (code - FOLLOWER, -(seat + 1))
                elif code >= PLAY_UP:
                    assert (row, entry) == ((code - PLAY_UP) & 3, (code - PLAY_UP) >> 2)
                else:
                    kind = code >> 2 if seat == p else HIDDEN
                    assert (row, entry) == (code & 3, kind + 32 * (seat + 1))
            checked += bool(seats)
        if s.phase == "turn":
            seats.append(s.current_player)
        codes = s.legal_codes()
        s.apply_code(codes[rng.randrange(len(codes))])
    assert checked > 100
