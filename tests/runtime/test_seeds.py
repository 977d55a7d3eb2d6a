"""The derived seeds keep the values of the formulas they replaced (published deals, golden
games and quoted numbers replay), and the arena's deals for a given ``--seed`` are unchanged."""

from __future__ import annotations

import pytest

from carcassonne_rl.arena import match
from carcassonne_rl.arena.match import Setup, schedule
from carcassonne_rl.runtime import seeds

INPUTS = [(0, 0), (0, 7), (1, 0), (3, 5), (42, 299), (123_456, 31)]


@pytest.mark.parametrize(("a", "b"), INPUTS)
def test_each_seed_equals_the_formula_it_replaced(a: int, b: int) -> None:
    assert seeds.arena_deal(a, b, 4) == a * 1_000_003 + b * 10_007 + 4
    assert seeds.arena_deal(a, b, 4, shared=True) == a * 1_000_003 + 4
    assert seeds.arena_game_seed(a, b) == a * 8 + b
    assert seeds.seat_seed(a, b) == a * 16 + b
    assert seeds.afterstate_base(a, b) == a * 1_000_003 + b
    assert seeds.afterstate_deal(a, b) == a + b
    assert seeds.afterstate_game_rng_seed(a, b) == a * 1_000_003 + b
    assert seeds.ppo_pool_seed(a, b, 2) == a * 1000 + b * 10 + 2
    assert seeds.ppo_env_seed(a, b) == a * 1000 + b
    assert seeds.demo_first_deal(a) == a * 7919 + 10_000
    first = a * 7919 + 10_000
    assert seeds.demo_deal(first, b) == a * 7919 + 10_000 + b
    assert seeds.demo_agent_seed(first, b) == a * 7919 + 10_000 + 97 * b
    assert seeds.demo_seat_seed(a, b) == a + b
    assert seeds.teacher_deal(a, b) == 50_000_000 + a * 100_003 + b
    assert seeds.teacher_agent_seed(a, b) == a * 7919 + b
    assert seeds.openspiel_search_seed(a, b) == (a * 7919 + b) % 2**32
    assert seeds.bench_deal(a, b) == a + b
    assert seeds.bench_warmup_deal(a) == 10**9 + a


def test_openspiel_search_seeds_wrap_to_32_bits() -> None:
    assert seeds.openspiel_search_seed(2**40, 3) == (2**40 * 7919 + 3) % 2**32 < 2**32


def test_the_trainers_deal_numbering_is_unchanged() -> None:
    from carcassonne_rl.training.distill.demos import demo_deal
    from carcassonne_rl.training.expert_iteration.positions import teacher_deal

    assert [demo_deal(2, g) for g in (0, 1, 5)] == [25_838, 25_839, 25_843]
    assert [teacher_deal(1, g) for g in (0, 9)] == [50_100_003, 50_100_012]


def test_the_arena_plays_the_same_deals_for_seed_0() -> None:
    """``arena --agents a,b,c --deals 2 --seed 0`` (2 players: three lineups, two rotations)."""
    jobs = schedule(Setup(), ["a", "b", "c"], deals=2, seed=0)
    assert [(j.lineup, j.deal, j.rotation, j.agent_seed) for j in jobs] == [
        (0, 0, 0, 0), (0, 0, 1, 1), (0, 1, 0, 8), (0, 1, 1, 9),
        (1, 10007, 0, 80056), (1, 10007, 1, 80057), (1, 10008, 0, 80064), (1, 10008, 1, 80065),
        (2, 20014, 0, 160112), (2, 20014, 1, 160113), (2, 20015, 0, 160120), (2, 20015, 1, 160121),
    ]  # fmt: skip


def test_a_versus_match_shares_its_deals_across_lineups() -> None:
    jobs = schedule(Setup(players=3), ["a", "b"], deals=2, seed=3, opponents=["c"])
    assert sorted({j.deal for j in jobs}) == [3_000_009, 3_000_010]
    assert {j.lineup for j in jobs} == {0, 1}
    assert [j.agent_seed for j in jobs[:3]] == [24_000_072, 24_000_073, 24_000_074]


def test_arena_seats_are_seeded_from_the_game_seed(monkeypatch) -> None:
    seen: list[tuple[str, int]] = []
    real = match.make_agent

    def recording(spec: str, game: str, seed: int | None = None):
        seen.append((spec, seed))
        return real(spec, game, seed=seed)

    monkeypatch.setattr(match, "make_agent", recording)
    job = schedule(Setup("cardcassonne"), ["random", "greedy"], deals=1, seed=1)[1]
    match.play_game(job, warm=False)
    game_seed = 1_000_003 * 8 + 1  # deal 1_000_003 (seed 1, deal 0), rotation 1
    assert seen == [("greedy", game_seed * 16), ("random", game_seed * 16 + 1)]
