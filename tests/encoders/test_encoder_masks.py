"""Masks are exactly the engine's legal actions; index_of/code_of are inverse; the card
cache equals a full encode; the card observation ignores everything hidden from its seat."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.encoders import CardEncoder, TileEncoder
from carcassonne_rl.encoders.card.cache import CardObservationCache
from carcassonne_rl.games import cardcassonne
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.cardcassonne import determinize
from carcassonne_rl.games.cardcassonne import new_game as new_card_game

TILE_CONFIGS = [(n, e) for n in (2, 3, 4, 5) for e in ((), ("messages", "labyrinth"))]


def _check_tile_position(enc: TileEncoder, state) -> None:
    mask = enc.action_mask(state)
    legal = [int(c) for c in state.legal_action_codes()]
    indices = [enc.index_of(state, c) for c in legal]
    assert sorted(indices) == np.flatnonzero(mask).tolist()
    assert all(enc.code_of(state, i) == c for i, c in zip(indices, legal, strict=True))
    assert enc.dropped_moves(state) == 0


@pytest.mark.parametrize("players,expansions", TILE_CONFIGS)
def test_tile_mask_equals_legal_set(players, expansions):
    phases = set()
    for seed in range(2):
        state = new_game(GameConfig(players=players, seed=seed, expansions=expansions))
        enc = TileEncoder.for_config(state.config)
        rng = random.Random(seed)
        while not state.is_over:
            _check_tile_position(enc, state)
            phases.add(state.phase)
            obs = enc.encode(state, state.current_player)
            assert enc.observation_space.contains(obs)
            codes = state.legal_action_codes()
            state.apply_code(int(codes[rng.randrange(len(codes))]))
        assert not enc.action_mask(state).any()
    assert {"place_tile", "place_follower"} <= phases


def test_tile_mask_covers_every_messages_phase():
    """Play Messages games until every decision kind has been checked at least once."""
    phases: set[str] = set()
    seed = 0
    while seed < 40 and len(phases) < 5:
        state = new_game(GameConfig(players=2, seed=seed, expansions=("messages",)))
        enc = TileEncoder.for_config(state.config)
        rng = random.Random(seed)
        while not state.is_over:
            _check_tile_position(enc, state)
            phases.add(state.phase)
            codes = state.legal_action_codes()
            # prefer carrying out messages so that message 8 comes up
            code = 1 if state.phase == "message" else int(codes[rng.randrange(len(codes))])
            state.apply_code(code)
        seed += 1
    assert phases == {
        "place_tile",
        "place_follower",
        "choose_figure",
        "message",
        "message_follower",
    }


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_card_mask_cache_and_hidden_information(players):
    enc = CardEncoder()
    for seed in range(2):
        state = new_card_game(cardcassonne.GameConfig(players=players, seed=seed))
        cache = CardObservationCache(enc, players)
        cache.reset(state)
        rng = random.Random(seed)
        while not state.is_over:
            legal = state.legal_codes()
            assert np.flatnonzero(enc.action_mask(state)).tolist() == sorted(legal)
            assert all(enc.code_of(state, enc.index_of(state, c)) == c for c in legal)
            for p in range(players):
                full = enc.encode(state, p)
                assert np.array_equal(cache.observe(state, p), full)
                other = determinize(state, p, rng.randrange(10**6))
                assert np.array_equal(enc.encode(other, p), full)
            assert enc.observation_space.contains(full)
            actor = state.current_player
            code = legal[rng.randrange(len(legal))]
            state.apply_code(code)
            cache.after_action(state, actor, code)
        assert not enc.action_mask(state).any()
