"""The ``heuristic`` tile agent: its position values, its choices, and legal play everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile.afterstate import options
from carcassonne_rl.agents.tile.heuristic import (
    HeuristicWeights,
    TileHeuristicAgent,
    heuristic_margin,
    player_values,
)
from carcassonne_rl.arena.match import Setup, play_game, schedule
from carcassonne_rl.encoders.features import afterstate as af
from carcassonne_rl.games.carcassonne import GameConfig, new_game


@pytest.mark.parametrize(
    "players, expansions", [(2, ()), (4, ("messages",)), (5, ("messages", "labyrinth"))]
)
def test_heuristic_plays_legal_moves_to_the_end(players, expansions) -> None:
    agent = make_agent("heuristic", "carcassonne", seed=3)
    s = new_game(GameConfig(players=players, seed=11, expansions=expansions))
    while not s.is_over:
        code = agent.act(s, s.current_player)
        assert code in s.legal_action_codes().tolist()
        s.apply_code(code)
    assert np.array_equal(player_values(s), s.scores)  # finished: the exact scores


def test_values_add_up_the_public_estimates() -> None:
    """Mid-game, each player's value is its score plus the estimate written out here from
    the public feature counts, and an extra follower in supply is worth more than 0."""
    s = new_game(GameConfig(players=3, seed=2))
    agent = TileHeuristicAgent(seed=0)
    for _ in range(40):
        s.apply_code(agent.act(s, s.current_player))
    f, left = af.player_features(s)
    w = HeuristicWeights()
    grow, late = left / (left + 10), left / (left + 20)
    expect = (
        f[:, af.F_SCORE]
        + f[:, af.F_CITY_POINTS] + f[:, af.F_CITY_LIKELY]
        + w.city_growth * grow * (f[:, af.F_CITY_SIDES] - f[:, af.F_CITY_DEAD])
        + f[:, af.F_ROAD_TILES]
        + w.road_growth * grow * (f[:, af.F_ROAD_ENDS] - f[:, af.F_ROAD_DEAD])
        + f[:, af.F_CLOISTER_N] + f[:, af.F_CLOISTER_NB]
        + w.cloister_growth * grow * (8 * f[:, af.F_CLOISTER_N] - f[:, af.F_CLOISTER_NB])
        * (f[:, af.F_CLOISTER_DEAD] == 0)
        + w.farm_city * (f[:, af.F_FIELD_DONE] + f[:, af.F_FIELD_OPEN])
        + late * w.follower * f[:, af.F_SUPPLY]
        + late * w.last_followers * np.minimum(f[:, af.F_SUPPLY], 2)
        - w.stuck_follower * late * (f[:, af.F_LOSING] + f[:, af.F_CITY_DEAD])
    )  # fmt: skip
    assert np.allclose(player_values(s), expect)
    assert player_values(s, HeuristicWeights(follower=9.0))[0] > player_values(s)[0] or (
        f[0, af.F_SUPPLY] == 0
    )


def test_the_agent_takes_the_option_of_best_margin() -> None:
    s = new_game(GameConfig(players=2, seed=5))
    agent = TileHeuristicAgent(seed=0)
    for _ in range(6):
        s.apply_code(agent.act(s, s.current_player))
    me = s.current_player
    margins = {}
    for o in options(s):
        m = heuristic_margin(player_values(o.state), me)
        margins[o.code] = max(margins.get(o.code, -1e9), m)
    assert margins[agent.act(s, me)] == pytest.approx(max(margins.values()))


def test_heuristic_beats_greedy_on_a_few_deals() -> None:
    """A small sample (the 200-deal measurement is the heuristic row of docs/agents.md)."""
    jobs = schedule(Setup(), ["heuristic"], deals=3, opponents=["greedy"])
    results = [play_game(j) for j in jobs]
    margin = sum(r.scores[r.seats.index("heuristic")] - r.scores[r.seats.index("greedy")]
                 for r in results)  # fmt: skip
    assert margin > 0


def test_heuristic_specs() -> None:
    assert type(make_agent("heuristic", "cardcassonne")).__name__ == "CardHeuristicAgent"
    assert type(make_agent("heuristic", "carcassonne")).__name__ == "TileHeuristicAgent"
    with pytest.raises(ValueError, match="takes no parameters"):
        make_agent("heuristic:5", "carcassonne")
