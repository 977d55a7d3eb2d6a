"""The batched card engine is the Python engine's game, action for action: deals, legal
codes, every table field, scores and the end of game, over random games at 2-5 players."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.games.cardcassonne import RULES, GameConfig, RulesTable, new_game
from carcassonne_rl.games.cardcassonne import batch as B
from carcassonne_rl.games.cardcassonne import batch_layout as L
from carcassonne_rl.games.cardcassonne.cards import standard_deck
from carcassonne_rl.games.errors import IllegalActionError


def same_table(g: np.ndarray, state, where: str) -> None:
    """Every field of the batched game ``g`` equals the Python ``state``'s."""
    n = state.n
    assert g[L.F_PHASE] == state.phase_index, where
    assert g[L.F_CURRENT] == state.current, where
    assert g[L.F_ROUND] == state.round, where
    assert g[L.F_DEALER] == state.dealer, where
    assert g[L.F_LASTF] == state.last_follower, where
    assert g[L.F_SETUPDONE] == state.setup_done, where
    assert g[L.F_SCORER] == state.score_player, where
    assert g[L.F_JOKERS] == state.jokers_to_assign, where
    assert bool(g[L.F_CLAIMS]) == bool(state.claims), where
    hands = g[L.O_HANDS : L.O_HANDS + n * L.NK].reshape(n, L.NK)
    assert hands.tolist() == state.hands, where
    assert g[L.O_HSIZE : L.O_HSIZE + n].tolist() == state.hand_size, where
    assert g[L.O_PLAYED : L.O_PLAYED + n].tolist() == state.played, where
    assert g[L.O_FROW : L.O_FROW + n].tolist() == state.follower_row, where
    for r in range(4):
        start = L.O_ROWS + r * L.ROW_CAP
        assert g[start : start + g[L.O_ROWLEN + r]].tolist() == state.rows[r], (where, r)
    coll = g[L.O_COLL : L.O_COLL + n * L.NK].reshape(n, L.NK)
    assert coll.tolist() == state.collected, where
    assert g[L.O_ANIM : L.O_ANIM + 4 * n].reshape(n, 4).tolist() == state.animals, where
    assert g[L.O_PJOKERS : L.O_PJOKERS + n].tolist() == state.pending_jokers, where
    assert g[L.O_REMOVED : L.O_REMOVED + L.NK].tolist() == state.removed, where
    assert g[L.O_SCORES : L.O_SCORES + n].tolist() == state.scores.tolist(), where
    head, length = g[L.F_MQHEAD], g[L.F_MQLEN]
    assert g[L.O_MQ + head : L.O_MQ + head + length].tolist() == state.misplaced_queue, where
    if state.claims:
        for q in range(n):
            got = g[L.O_CLAIMS + q * L.CLAIM_CAP : L.O_CLAIMS + q * L.CLAIM_CAP + g[L.O_CLLEN + q]]
            assert [(x & 31, bool(x >> 5)) for x in got.tolist()] == state.claims[q], where
    if state.score_player >= 0:
        csp = [len(c) for c in state.claimed_species]
        assert g[L.O_CSP : L.O_CSP + 4].tolist() == csp, where


def test_shuffle_is_cpythons() -> None:
    out = np.empty(130, np.int64)
    for seed in [0, 1, 2, 7, 255, 65536, 12345, 2**31 - 2, 2**32 - 1, *range(100, 140)]:
        deck = standard_deck()
        random.Random(seed).shuffle(deck)
        L.shuffle_deck(seed, L.STANDARD_DECK, out)
        assert out.tolist() == deck, seed


# another rules table: every number and decision the kernels read from it changed
OTHER_RULES = RulesTable(
    deal_table=((2, 5, 12), (3, 4, 10)),
    setup_cards=8,
    animal_points=(1, 2, 4, 8, 16),
    building_set_points=(1, 4, 9, 16),
    dragon_points=7,
    fairy_points=4,
    misplaced_points=6,
    lone_animal_joker_points=5,
    first_dealer=0,
    tie_break_counts_building_jokers=False,
)


@pytest.mark.parametrize(
    ("players", "rules"), [(2, RULES), (3, RULES), (4, RULES), (5, RULES), (3, OTHER_RULES)]
)
def test_batch_plays_the_python_game(players: int, rules: RulesTable) -> None:
    num = 6
    batch = B.CardBatch(GameConfig(players, rules=rules), num)
    seed = 1000 * players + (rules != RULES)
    batch.reset(seed)
    states = [new_game(GameConfig(players, seed=seed + i, rules=rules)) for i in range(num)]
    next_seed = [seed + num + i for i in range(num)]
    rng = random.Random(players)
    finished = decisions = 0
    kinds_seen: set[int] = set()
    while finished < 2 * num:
        codes = np.zeros(num, np.int64)
        masks = batch.masks()
        for i, state in enumerate(states):
            where = f"{players}p game {i} decision {len(state.history)}"
            same_table(batch.games[i], state, where)
            legal = state.legal_codes()
            assert np.flatnonzero(masks[i]).tolist() == sorted(legal), where
            codes[i] = rng.choice(legal)
            kinds_seen.add(state.phase_index)
        done = batch.step(codes)
        decisions += num
        for i, state in enumerate(states):
            state.apply_code(int(codes[i]))
            assert done[i] == state.is_over
            if state.is_over:
                finished += 1
                assert batch.final_scores[i].tolist() == state.scores.tolist()
                won = np.zeros(players, np.int64)
                L.winners_mask(_over_game(state), batch.params, won)
                assert np.flatnonzero(won).tolist() == state.winners()
                states[i] = new_game(GameConfig(players, seed=next_seed[i], rules=rules))
                next_seed[i] += num
    assert kinds_seen == {0, 1, 2, 3}  # setup, turn, joker and misplaced decisions all met
    assert decisions > 1000


def _over_game(state) -> np.ndarray:
    """The finished game ``state`` replayed in a batch of one (its array, game over)."""
    one = B.CardBatch(state.config, 1)
    one.restart([0], [state.config.seed])
    for code in state.history:
        one.apply(np.array([code]))
    return one.games[0]


def test_state_replays_a_batched_game() -> None:
    batch = B.CardBatch(GameConfig(3), 2)
    batch.reset(5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        masks = batch.masks()
        batch.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    for i in range(2):
        state = batch.state(i)
        same_table(batch.games[i], state, f"game {i}")
        assert state.history == batch.record(i)


def test_illegal_code_is_refused() -> None:
    batch = B.CardBatch(GameConfig(2), 2)
    batch.reset(0)
    before = batch.games.copy()
    illegal = int(np.flatnonzero(batch.masks()[1] == 0)[0])
    legal = int(np.flatnonzero(batch.masks()[0])[0])
    with pytest.raises(IllegalActionError, match="game 1"):
        batch.step(np.array([legal, illegal]))
    assert (batch.games == before).all()
    assert batch.apply(np.array([legal, illegal])).tolist() == [0, 1]
    with pytest.raises(ValueError, match="int array"):
        batch.step(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="seeds"):
        batch.restart([0], [-1])
    six = RulesTable(deal_table=((6, 4, 5),))
    with pytest.raises(ValueError, match="at most 5"):
        B.CardBatch(GameConfig(6, rules=six), 1)


@pytest.mark.parametrize(("players", "specs"), [(2, ("heuristic", "greedy")), (4, ("heuristic",))])
def test_batch_plays_agent_chosen_games(players: int, specs: tuple[str, ...]) -> None:
    """Games played by agents (other positions than random play reaches) stay in lockstep."""
    from carcassonne_rl.agents.registry import make_agent

    agents = [make_agent(specs[p % len(specs)], "cardcassonne", seed=p) for p in range(players)]
    num = 3
    batch = B.CardBatch(GameConfig(players), num)
    batch.reset(77)
    states = [new_game(GameConfig(players, seed=77 + i)) for i in range(num)]
    while not all(s.is_over for s in states):
        codes = np.zeros(num, np.int64)
        masks = batch.masks()
        for i, state in enumerate(states):
            same_table(batch.games[i], state, f"{specs} game {i} decision {len(state.history)}")
            if state.is_over:
                codes[i] = -1
                continue
            assert np.flatnonzero(masks[i]).tolist() == sorted(state.legal_codes())
            codes[i] = agents[state.current_player].act(state.clone(), state.current_player)
        live = codes >= 0
        status = batch.apply(np.where(live, codes, 0))
        assert (status[live] == 0).all() and (status[~live] == 1).all()
        for i, state in enumerate(states):
            if live[i]:
                state.apply_code(int(codes[i]))
    for i, state in enumerate(states):
        assert batch.scores[i].tolist() == state.scores.tolist()
