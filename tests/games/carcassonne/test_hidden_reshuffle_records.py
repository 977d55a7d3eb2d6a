"""Reshuffling what no player has seen keeps the game's record loadable.

``State.shuffle_hidden`` (play's undo, in place) and ``State.resample_hidden`` (search
agents, a clone) permute the undrawn tiles and, with The Messages, the undrawn message
cards. After every such reshuffle, in every expansion config, ``load_json(to_json())`` must
rebuild the same position (and the reshuffle must touch neither what was drawn nor,
without The Messages, the unused message stack)."""

from __future__ import annotations

import random

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, load_json, new_game

CONFIGS = [(), ("messages",), ("labyrinth",), ("messages", "labyrinth")]


def _same_position(a, b) -> None:
    assert b.draw_order == a.draw_order
    assert b.message_order == a.message_order or not a.config.messages
    assert b.history == a.history
    assert b.phase == a.phase and b.current_player == a.current_player
    assert b.current_tile == a.current_tile
    assert b.scores.tolist() == a.scores.tolist()
    assert b.placed_tiles() == a.placed_tiles()
    assert b.legal_action_codes().tolist() == a.legal_action_codes().tolist()


@pytest.mark.parametrize("expansions", CONFIGS, ids=lambda e: "+".join(e) or "base")
@pytest.mark.parametrize("players", [2, 5])
def test_record_round_trips_after_every_reshuffle(expansions, players) -> None:
    rng = random.Random(players * 7 + len(expansions))
    state = new_game(GameConfig(players=players, seed=rng.randrange(2**128), expansions=expansions))
    unused_stack = state.message_order
    step = 0
    while not state.is_over:
        drawn = state.draw_order[: len(state.draw_order) - sum(state.remaining_tiles().values())]
        seen = state.messages_seen
        remaining = state.remaining_tiles()
        if step % 2:
            state.shuffle_hidden(rng.randrange(2**64))
        else:
            state = state.resample_hidden(rng)
        # what was drawn stays, the rest is a permutation of what remained
        assert state.draw_order.startswith(drawn)
        assert state.remaining_tiles() == remaining
        assert state.messages_seen == seen
        if not state.config.messages:
            assert state.message_order == unused_stack == "12345678"
        _same_position(state, load_json(state.to_json()))
        codes = state.legal_action_codes()
        state.apply_code(int(codes[rng.randrange(len(codes))]))
        step += 1
    _same_position(state, load_json(state.to_json()))


def test_the_messages_stack_is_reshuffled_only_below_the_seen_cards() -> None:
    state = new_game(GameConfig(players=2, seed=5, expansions=("messages",)))
    orders = set()
    for seed in range(20):
        twin = state.clone()
        twin.shuffle_hidden(seed)
        orders.add(twin.message_order)
        assert sorted(twin.message_order) == list("12345678")
        _same_position(twin, load_json(twin.to_json()))
    assert len(orders) > 10  # the unseen message cards really are reshuffled
