"""Properties of random games, and a cross-check against the naive referee in tile_referee.py."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers.tile_referee import Referee

from carcassonne_rl.games.carcassonne import (
    FollowerPlacement,
    GameConfig,
    Placement,
    decode_placement,
    load_json,
    new_game,
)


def random_playout(state, rng: random.Random, check=None) -> None:
    while not state.is_over:
        if check is not None:
            check(state)
        codes = state.legal_action_codes()
        state.apply_code(int(codes[rng.randrange(len(codes))]))


def fingerprint(state) -> tuple:
    return (
        state.phase,
        state.current_player,
        state.current_tile,
        state.turn,
        tuple(state.scores),
        tuple(state.followers_left),
        tuple(state.placed_tiles()),
        tuple(state.placed_followers()),
        tuple(state.score_events),
        tuple(state.discarded),
        tuple(state.legal_action_codes()),
    )


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("labyrinth", [False, True])
def test_engine_agrees_with_naive_referee(players: int, labyrinth: bool) -> None:
    """Every legal set, tile drawn, discard and score agrees with the naive referee."""
    expansions = ("labyrinth",) if labyrinth else ()
    for seed in range(25):
        config = GameConfig(players=players, seed=seed, expansions=expansions, labyrinth_tiles=4)
        state = new_game(config)
        ref = Referee(players, state.draw_order)
        rng = random.Random(seed)
        while not state.is_over:
            assert state.current_player == ref.player
            assert state.current_tile == ref.tile
            legal = state.legal_action_codes()
            assert {decode_placement(c) for c in legal} == ref.placements(ref.tile)
            code = int(legal[rng.randrange(len(legal))])
            state.apply_code(code)
            ref.place(*decode_placement(code))
            options = state.legal_action_codes()
            assert set(options.tolist()) == ref.follower_options()
            choice = int(options[rng.randrange(len(options))])
            state.apply_code(choice)
            ref.follow(choice)
            assert state.scores.tolist() == ref.scores
            assert state.followers_left.tolist() == ref.left
        assert ref.over
        assert state.discarded == ref.discarded
        assert state.scores.tolist() == ref.scores, f"final scores differ, seed {seed}"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_game_invariants(players: int) -> None:
    for seed in range(60):
        state = new_game(GameConfig(players=players, seed=seed))
        rng = random.Random(1000 + seed)

        def check(s) -> None:
            assert len(s.legal_action_codes()) > 0
            on_board = np.bincount([f.player for f in s.placed_followers()], minlength=players)
            assert (s.followers_left + on_board == 7).all()
            assert s.current_player == (s.turn % players)

        random_playout(state, rng, check)
        # all 72 tiles accounted for: start tile + placed + discarded
        assert state.num_tiles_placed + len(state.discarded) == 72
        assert sum(state.remaining_tiles().values()) == 0
        # the score is the sum of the score events
        per_player = np.zeros(players, int)
        for e in state.score_events:
            per_player[e.player] += e.points
            assert e.points > 0 and e.kind in ("road", "city", "cloister", "field")
        assert (per_player == state.scores).all()
        best = max(state.scores)
        assert state.winners() == [p for p in range(players) if state.scores[p] == best]
        assert state.legal_action_codes().size == 0
        assert state.current_player == -1


def test_clone_and_json_give_identical_continuations() -> None:
    for seed in range(20):
        state = new_game(GameConfig(players=2 + seed % 4, seed=seed))
        rng = random.Random(seed)
        stop = rng.randrange(0, 140)
        for _ in range(stop):
            if state.is_over:
                break
            codes = state.legal_action_codes()
            state.apply_code(int(codes[rng.randrange(len(codes))]))
        clone = state.clone()
        loaded = load_json(state.to_json())
        assert fingerprint(clone) == fingerprint(state) == fingerprint(loaded)
        tail = random.getstate()
        for copy in (state, clone, loaded):
            random_playout(copy, random.Random(seed * 7 + 1))
        random.setstate(tail)
        assert fingerprint(clone) == fingerprint(state) == fingerprint(loaded)
        assert clone.history == state.history == loaded.history


def test_clone_is_independent() -> None:
    state = new_game(GameConfig(players=2, seed=3))
    before = fingerprint(state)
    clone = state.clone()
    random_playout(clone, random.Random(0))
    assert fingerprint(state) == before


def test_same_seed_same_game_different_seed_different_deck() -> None:
    a = new_game(GameConfig(players=3, seed=42))
    b = new_game(GameConfig(players=3, seed=42))
    random_playout(a, random.Random(5))
    random_playout(b, random.Random(5))
    assert fingerprint(a) == fingerprint(b)
    assert new_game(GameConfig(seed=1)).draw_order != new_game(GameConfig(seed=2)).draw_order


def test_action_objects_and_strings_round_trip() -> None:
    state = new_game(GameConfig(players=2, seed=11))
    rng = random.Random(2)
    while not state.is_over:
        actions = state.legal_actions()
        codes = state.legal_action_codes().tolist()
        assert [state.action_to_code(a) for a in actions] == codes
        assert [state.parse_action(str(a)) for a in actions] == codes
        kinds = {type(a) for a in actions}
        assert kinds == ({Placement} if state.phase == "place_tile" else {FollowerPlacement})
        state.apply(actions[rng.randrange(len(actions))])


def test_tile_set_matches_the_box() -> None:
    from carcassonne_rl.games.carcassonne import TILE_TYPES

    counts = {t.letter: t.count for t in TILE_TYPES if t.expansion is None}
    assert counts == dict(
        A=2, B=4, C=1, D=4, E=5, F=2, G=1, H=3, I=2, J=3, K=3, L=3,
        M=2, N=3, O=2, P=3, Q=1, R=3, S=2, T=1, U=8, V=9, W=4, X=1,
    )  # fmt: skip
    assert sum(counts.values()) == 72
    pennants = sum(t.count for t in TILE_TYPES if any(s.pennant for s in t.segments))
    cloisters = sum(t.count for t in TILE_TYPES if any(s.kind == 3 for s in t.segments))
    assert (pennants, cloisters) == (10, 6)
    deck = new_game(GameConfig(seed=0)).draw_order
    assert len(deck) == 71 and deck.count("D") == 3


CONFIGS = [
    (("messages",), "player"),
    (("messages",), "auto"),
    (("labyrinth",), "player"),
    (("messages", "labyrinth"), "player"),
    (("messages", "labyrinth"), "auto"),
]


@pytest.mark.parametrize(("expansions", "figure_choice"), CONFIGS)
def test_random_games_with_expansions(expansions, figure_choice) -> None:
    """Invariants of random games for every expansion config, 2-5 players."""
    labyrinths = 2 if "labyrinth" in expansions else 0
    phases = set()
    for seed in range(40):
        players = 2 + seed % 4
        cfg = GameConfig(players, seed=seed, expansions=expansions, figure_choice=figure_choice)
        state = new_game(cfg)
        rng = random.Random(seed)
        while not state.is_over:
            phases.add(state.phase)
            codes = state.legal_action_codes()
            assert len(codes) > 0
            if state.phase == "choose_figure":
                receiver, points = state.pending_award
                assert receiver == state.current_player and points > 0
            elif state.phase != "place_follower":
                assert state.current_player == state.active_player
            on_board = np.bincount([f.player for f in state.placed_followers()], minlength=players)
            assert (state.followers_left + on_board == 7).all()
            state.apply_code(int(codes[rng.randrange(len(codes))]))
        assert state.num_tiles_placed + len(state.discarded) == 72 + labyrinths
        per_player = np.zeros(players, int)
        finals = np.zeros(players, int)
        for e in state.score_events:
            per_player[e.player] += e.points
            if e.final:
                finals[e.player] += e.points
                assert e.figure is None
            elif "messages" in expansions:
                assert e.figure in ("A", "B")
        assert (per_player == state.scores).all()
        if "messages" in expansions:
            # the two figures are added before final scoring
            assert (state.figures.sum(axis=1) + finals == state.scores).all()
        if seed % 8 == 0:
            loaded = load_json(state.to_json())
            assert fingerprint(loaded) == fingerprint(state)
    if "messages" in expansions:
        assert "message" in phases
    if figure_choice == "auto":
        assert "choose_figure" not in phases


def test_shuffle_hidden_ignores_the_true_order() -> None:
    """Two games whose piles hold the same tiles in different orders resample identically."""
    cfg = GameConfig(players=2, seed=0, expansions=("messages",))
    a = new_game(cfg, draw_order="UVKEBD", message_order="12345678")
    b = new_game(cfg, draw_order="UDBEKV", message_order="87654321")
    for s in (a, b):
        s.shuffle_hidden(seed=9)
    assert a.draw_order == b.draw_order and a.message_order == b.message_order
    assert sorted(a.draw_order[1:]) == sorted("VKEBD")  # U is being placed: it stays
    assert a.draw_order[0] == "U"
    assert a.virtual_scores().tolist() == [0, 0]
