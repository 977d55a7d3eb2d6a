"""The one card row tally (``row_values.claim_value``): values computed by hand on
constructed row segments under each misplaced-card rule, and the old rules kept for the
agents whose names pin them."""

from __future__ import annotations

import pytest

from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent, _Values
from carcassonne_rl.agents.card.row_values import FACE_DOWN, HIDDEN, claim_value
from carcassonne_rl.agents.registry import make_agent, resolution
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view
from carcassonne_rl.games.cardcassonne.cards import ANIMAL_JOKER, BUILDING_JOKER, parse_card

Y, R, G, B = range(4)  # rows (and species: Y chickens, R sheep, G pigs, B horses)


def down(name: str) -> int:
    """Seat 0's face-down card ``name``."""
    return parse_card(name) + FACE_DOWN


def holdings(animals: dict[int, int] = {}, buildings: tuple[str, ...] = ()):  # noqa: B006
    """(animals per species, collected per kind) of a seat."""
    collected = [0] * 24
    for name in buildings:
        collected[parse_card(name)] += 1
    return [animals.get(s, 0) for s in range(4)], collected


def tally(entries, row, animals, collected, rule):
    return claim_value(entries, row, animals, collected, misplaced=rule)


# (entries, row, holdings, keep, apart, best); animal table 3 6 9 12 14 16 18 19, sets of
# 1-4 colours 0 5 15 30, a misplaced card 10
CASES = {
    # a sheep in the yellow row, 5 sheep owned: keeping it makes the species score 16
    "lone sheep": ([down("RA")], Y, holdings({R: 5}), 16, 10, 16),
    # two such sheep: keep the first (16), take 10 for the second (it adds 18 - 16 = 2)
    "two sheep": ([down("RA"), down("RA")], Y, holdings({R: 5}), 18, 20, 26),
    # no sheep owned and a face-up chicken: keeping the sheep adds 3, ten is worth more
    "sheep and a chicken": ([down("RA"), parse_card("YA")], Y, holdings(), 6, 13, 13),
    # no animal owned: kept, the sheep draws the animal joker (1 + 1 sheep = 6); else the
    # joker scores 3 alone, and the sheep's keep value (3) is below 10
    "sheep and a joker": ([down("RA"), ANIMAL_JOKER], Y, holdings(), 6, 13, 13),
    # yellow and red buildings held (5): a green building and a building joker make four
    # colours (30, +25); the building joker alone makes three (+10), so keeping adds 15;
    # apart from the joker the green building adds only 10 (a set of three)
    "building and joker": (
        [down("GH"), BUILDING_JOKER],
        Y,
        holdings(buildings=("YH", "RH")),
        25,
        20,
        25,
    ),  # fmt: skip
    # a misplaced person is 10 under every rule; a face-down card in its own row is an
    # ordinary card; a card the viewer cannot see is 4
    "person, own row, hidden": ([down("Y1"), down("RA"), HIDDEN], R, holdings(), 17, 17, 17),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_tally_of_constructed_segments_under_each_rule(name: str) -> None:
    entries, row, (animals, collected), keep, apart, best = CASES[name]
    got = [tally(entries, row, animals, collected, r) for r in ("keep", "apart", "best")]
    assert got == [keep, apart, best]


def test_the_rule_never_values_a_misplaced_card_below_ten_or_its_keep_value() -> None:
    # "best" is at least the larger of the two other rules' values on one misplaced card
    for name in ("RA", "GA", "BH", "GH"):
        for owned in range(0, 9):
            animals, collected = holdings({R: owned, G: owned // 2}, ("YH", "RH")[: owned % 3])
            entries = [down(name)]
            best = tally(entries, Y, animals, collected, "best")
            assert best >= 10
            assert best == max(10, tally(entries, Y, animals, collected, "keep"))


def test_the_heuristic_tally_uses_its_longer_view_values() -> None:
    # round 1 of 10: an animal also counts 0.5 x 0.9 of its table gain for later claims
    state = new_game(GameConfig(players=2, seed=3))
    v = view(state, state.current)
    vals = _Values(v, CardHeuristicAgent(0).weights, "best")
    left = (v.rounds_total - v.round) / v.rounds_total
    sheep = 3 + 0.5 * left * 3  # one sheep, none owned before
    assert vals.value((down("RA"),), Y, 0) == 10  # keeping it (a little over 4) is below 10
    assert vals.value((parse_card("RA"),), R, 0) == pytest.approx(sheep)
    assert _Values(v, CardHeuristicAgent(0).weights, "keep").value(
        (down("RA"),), Y, 0
    ) == pytest.approx(sheep)


def test_the_pinned_agents_keep_the_old_rules() -> None:
    # the agents built on the heuristic (card-net-v2..v4, card-search-v1) construct
    # CardHeuristicAgent() and so play the old rule, as card-heuristic-v1 does; the baseline
    # heuristic is card-heuristic-v2, the rule
    assert CardHeuristicAgent(0).misplaced == "apart"
    assert make_agent("card-heuristic-v1", "cardcassonne", 0).misplaced == "apart"
    assert make_agent("card-net-v4", "cardcassonne", 0).heuristic.misplaced == "apart"
    assert make_agent("card-heuristic-v2", "cardcassonne", 0).misplaced == "best"
    assert make_agent("heuristic", "cardcassonne", 0).misplaced == "best"
    assert resolution("heuristic", "cardcassonne")["pinned"] == "card-heuristic-v2"
    assert resolution("heuristic", "carcassonne")["pinned"] is None


def test_an_unknown_rule_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="misplaced must be one of best, keep, apart: 'ten'"):
        CardHeuristicAgent(0, misplaced="ten")
    with pytest.raises(ValueError, match="misplaced must be one of"):
        claim_value([], Y, [0] * 4, [0] * 24, misplaced="ten")
