"""Hidden information through OpenSpiel: a Cardcassonne seat's information state and
observation do not change when what it cannot see is resampled; in the tile game no state
holds (or shows) the future draws."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install -e '.[openspiel]')"
)
import carcassonne_rl.openspiel  # noqa: E402,F401
from carcassonne_rl.games.carcassonne import GameConfig, new_game  # noqa: E402


def _decision_states(game, seed: int, every: int):
    rng = random.Random(seed)
    state = game.new_initial_state()
    out, decisions = [], 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        if decisions % every == 0:
            out.append(state.clone())
        decisions += 1
        state.apply_action(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_card_information_unchanged_when_the_unseen_is_resampled(players: int) -> None:
    game = pyspiel.load_game("python_cardcassonne", {"players": players})
    hands_differ = 0
    for state in _decision_states(game, seed=players, every=9):
        for p in range(players):
            info_t = state.information_state_tensor(p)
            obs_t = state.observation_tensor(p)
            info_s, obs_s = state.information_state_string(p), state.observation_string(p)
            for k in range(3):
                other = state.resample_from_infostate(p, random.Random(k))
                assert other.information_state_tensor(p) == info_t
                assert other.observation_tensor(p) == obs_t
                assert other.information_state_string(p) == info_s
                assert other.observation_string(p) == obs_s
                assert other.legal_actions() == state.legal_actions() or p != state.current_player()
                hands_differ += other.engine.hands != state.engine.hands
    assert hands_differ > 0  # the resampling did change what the seat cannot see


def test_cards_dealt_to_another_seat_are_invisible() -> None:
    """The deal of round 2 twice, seat 0's and seat 1's first cards swapped: seat 2 sees the
    same; seat 0 does not."""
    game = pyspiel.load_game("python_cardcassonne", {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(2)
    while not (state.is_chance_node() and state.engine is not None and state.engine.round == 1):
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    a, deal = state.clone(), []
    while a.is_chance_node():
        action = rng.choice([x for x, _ in a.chance_outcomes()])
        deal.append(action)
        a.apply_action(action)
    assert a.engine.round == 2 and len(deal) == 5 * 3
    first = (a.engine.dealer + 1) % 3  # the deal goes one card at a time from here
    to = {seat: [i for i in range(len(deal)) if (first + i) % 3 == seat] for seat in range(3)}
    i0, i1 = next((i, j) for i in to[0] for j in to[1] if deal[i] != deal[j])
    swapped = list(deal)
    swapped[i0], swapped[i1] = deal[i1], deal[i0]
    b = state.clone()
    for action in swapped:
        b.apply_action(action)
    assert a.engine.hands[2] == b.engine.hands[2] and a.engine.hands[0] != b.engine.hands[0]
    assert a.information_state_tensor(2) == b.information_state_tensor(2)
    assert a.information_state_string(2) == b.information_state_string(2)
    assert a.observation_string(2) == b.observation_string(2)
    assert a.information_state_tensor(0) != b.information_state_tensor(0)


def test_tile_states_hold_no_future_draws() -> None:
    """The undrawn tiles and message cards lie sorted, so two games that differ only in their
    future give the same OpenSpiel state: same observations, strings and chance outcomes."""
    config = GameConfig(players=2, expansions=("messages",))
    game = carcassonne_rl.openspiel.game_for(new_game(config))
    first = new_game(config, draw_order="VUKE", message_order="12345678", fill_pile=True)
    second = new_game(config, draw_order="VUKE", message_order="87654321", fill_pile=True)
    second_rest = second.draw_order[4:]
    assert first.draw_order[4:] != second_rest  # different futures (seeded shuffles aside)
    rng = random.Random(0)
    for _ in range(6):
        code = int(rng.choice(list(first.legal_action_codes())))
        first.apply_code(code)
        second.apply_code(code)
    a, b = game.state_from_engine(first), game.state_from_engine(second)
    for p in range(2):
        assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.observation_string(p) == b.observation_string(p)
    assert str(a) == str(b)
    for s in (a, b):
        rest = s.engine.draw_order[s.engine.tiles_drawn :]
        assert rest == "".join(sorted(rest))
    action = a.legal_actions()[0]
    a.apply_action(action)
    b.apply_action(action)
    while not a.is_chance_node():
        action = a.legal_actions()[0]
        a.apply_action(action)
        b.apply_action(action)
    assert a.chance_outcomes() == b.chance_outcomes()
    assert np.isclose(sum(p for _, p in a.chance_outcomes()), 1.0)
