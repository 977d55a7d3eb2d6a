"""The batched tile engine is the single engine's game, action for action: the same deals
(game ``i`` of ``reset(s)`` is ``new_game`` with seed ``s + i``), the same arrays after
every action, the same records, final scores and auto-reset deals, in every configuration."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.games.carcassonne import GameConfig, IllegalActionError, new_game
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.carcassonne.batch import TileBatch
from carcassonne_rl.games.carcassonne.record import replay

CONFIGS = [
    (2, ()),
    (3, ("messages",)),
    (4, ("labyrinth",)),
    (5, ("messages", "labyrinth")),
    (2, ("messages", "labyrinth")),
]


def _same_arrays(batch: TileBatch, i: int, single) -> None:
    got = batch.state(i)
    for part in ("_board", "_ints", "_tiles", "_segs"):
        assert np.array_equal(getattr(got, part), getattr(single, part)), (i, part)
    ne, npool = single._ints[L.R_NEVENTS], single._ints[L.R_POOL]
    assert np.array_equal(got._events[:ne], single._events[:ne]), i
    assert np.array_equal(got._pool[:npool], single._pool[:npool]), i
    assert got.history == single.history
    assert got.config == single.config


@pytest.mark.parametrize(("players", "expansions"), CONFIGS)
def test_batch_plays_the_single_engine_game(players, expansions) -> None:
    n, seed = 8, 40 + players
    config = GameConfig(players=players, expansions=expansions)

    def deal(s):
        return new_game(GameConfig(players=players, expansions=expansions, seed=int(s)))

    batch = TileBatch(config, n)
    batch.reset(seed)
    singles = [deal(seed + i) for i in range(n)]
    deals = [seed + i + n for i in range(n)]  # the next seed of each game's sequence
    rng = np.random.default_rng(seed)
    finished = 0
    for i in range(n):
        _same_arrays(batch, i, singles[i])
    for _ in range(900):
        codes = np.array([int(rng.choice(s.legal_action_codes())) for s in singles])
        done = batch.step(codes)
        for i, single in enumerate(singles):
            single.apply_code(int(codes[i]))
            assert done[i] == single.is_over
            if single.is_over:
                finished += 1
                assert batch.final_scores[i].tolist() == single.scores.tolist()
                singles[i] = deal(deals[i])
                deals[i] += n
            _same_arrays(batch, i, singles[i])
    assert finished >= 4 * n


def test_a_batch_state_has_a_record_that_replays() -> None:
    batch = TileBatch(GameConfig(players=3, expansions=("messages",)), 2)
    batch.reset(7)
    rng = np.random.default_rng(0)
    for _ in range(60):
        batch.step(np.array([int(rng.choice(batch.legal_codes(i))) for i in range(2)]))
    state = batch.state(1)
    again = replay(json.loads(state.to_json()))
    assert again.to_json() == state.to_json()
    assert np.array_equal(again._ints, state._ints)


def test_an_illegal_code_changes_no_game() -> None:
    batch = TileBatch(GameConfig(), 3)
    batch.reset(0)
    before = batch.ints.copy()
    codes = np.array([batch.legal_codes(i)[0] for i in range(3)])
    codes[2] = -5
    with pytest.raises(IllegalActionError, match="game 2"):
        batch.step(codes)
    assert np.array_equal(batch.ints, before)
    status = batch.apply(codes)
    assert status.tolist() == [L.OK, L.OK, L.ERR_ILLEGAL]
    assert np.array_equal(batch.ints[2], before[2])


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_sizes_are_refused(bad) -> None:
    with pytest.raises(ValueError, match="num_games"):
        TileBatch(GameConfig(), bad)


@pytest.mark.parametrize("expansions", [(), ("messages", "labyrinth")])
def test_the_compiled_deal_is_the_single_engines_shuffle(expansions) -> None:
    from carcassonne_rl.games.carcassonne.batch import deal_arrays, deal_many

    config = GameConfig(players=3, expansions=expansions)
    seeds = [0, 1, 2, 255, 2**16, 2**31 - 2, 2**32 - 1, 2**32, 2**40 + 3]  # the last two: Python's
    seeds += np.random.default_rng(0).integers(0, 2**31 - 1, 200).tolist()
    decks, ndecks, msgdecks = deal_many(config, seeds)
    for j, seed in enumerate(seeds):
        deck, messages = deal_arrays(config, seed)
        assert ndecks[j] == len(deck) and decks[j, : len(deck)].tolist() == deck.tolist(), seed
        assert msgdecks[j].tolist() == messages.tolist(), seed
