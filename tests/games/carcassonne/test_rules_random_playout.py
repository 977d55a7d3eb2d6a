"""Whole random games: invariants that hold whatever the deal (no expected scores)."""

import random

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, load_json, new_game


@pytest.mark.parametrize("seed,players", [(0, 2), (1, 3), (2, 5)])
def test_random_game_invariants(seed, players):
    rng = random.Random(seed)
    s = new_game(GameConfig(players=players, seed=seed))
    while not s.is_over:
        legal = s.legal_actions()
        assert legal, f"no legal action in phase {s.phase}"
        s.apply(rng.choice(legal))
        assert all(0 <= f <= 7 for f in s.followers_left.tolist())
    # every tile was either placed or discarded: 1 start tile + 71
    placed = sum(1 for x in range(-72, 73) for y in range(-72, 73) if s.tile_at(x, y) is not None)
    assert placed + len(s.discarded) == 72
    assert sum(s.remaining_tiles().values()) == 0
    # the scores are exactly the sum of the score events
    totals = [0] * players
    for e in s.score_events:
        totals[e.player] += e.points
    assert s.scores.tolist() == totals
    best = max(totals)
    assert sorted(s.winners()) == [p for p in range(players) if totals[p] == best]
    # saving and loading gives the same game
    t = load_json(s.to_json())
    assert t.scores.tolist() == s.scores.tolist()
    assert t.is_over
