"""The one games-in-flight self-play loop of the afterstate learner plays the same games and
records the same training data, for both games, as the two loops it replaced: fingerprints
(hashes of the recorded rows and targets, the decisions and margins) of a few runs, taken
from the loops before they were merged."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.learner import Learner, export
from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, SNAPSHOT


def fingerprint(out: dict) -> str:
    """A hash of what a self-play run returns (rows, targets, decisions, margins)."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(out["x"], np.float32).tobytes())
    h.update(np.ascontiguousarray(out["y"], np.float32).tobytes())
    h.update(repr((out["decisions"], out["games"], out["margins_vs_greedy"],
                   sorted(out["margins_vs_greedy_by_players"].items()))).encode())  # fmt: skip
    return h.hexdigest()[:16]


def _nets(config: AfterstateConfig) -> tuple:
    net = export(Learner(config).model, config)
    old = export(Learner(AfterstateConfig(**{**config.to_dict(), "seed": 5})).model, config)
    return net, old


def run(case: str, **kw: object) -> dict:
    """The self-play run named ``case`` (``kw``: passed on, e.g. ``kernel``)."""
    from carcassonne_rl.training.afterstate.card_selfplay import play_card_games
    from carcassonne_rl.training.afterstate.selfplay import play_games

    if case == "tile_warm":
        config = AfterstateConfig(workers=1, epsilon=0.2)
        return play_games(config, None, {}, [5, 6], [-1, -1], 3, **kw)
    if case == "tile_warm_heuristic":
        config = AfterstateConfig(workers=1, epsilon=0.2, baseline_agent="heuristic", players=3)
        return play_games(config, None, {}, [7], [-1], 2, **kw)
    if case == "tile_two_player":
        config = AfterstateConfig(workers=1, hidden=(16,), epsilon=0.1, td_lambda=0.7)
        net, old = _nets(config)
        tables = [(2, ()), (2, ("messages", "labyrinth")), (2, ()), (2, ())]
        lineups = [[NET, GREEDY], [GREEDY, NET], [SNAPSHOT, NET], [NET, NET]]
        return play_games(config, net.layers, net.meta, [3, 4, 5, 6], None, 1, tables,
                          lineups, old.layers, **kw)  # fmt: skip
    if case == "tile_table":
        config = AfterstateConfig(workers=1, hidden=(16,), feature_set="table", epsilon=0.1,
                                  baseline_agent="heuristic", td_lambda=0.5)  # fmt: skip
        net, old = _nets(config)
        tables = [(3, ("messages",)), (4, ()), (2, ("labyrinth",))]
        lineups = [[NET, GREEDY, SNAPSHOT], [NET, SNAPSHOT, NET, NET], [NET, NET]]
        return play_games(config, net.layers, net.meta, [3, 4, 5], None, 1, tables, lineups,
                          old.layers, **kw)  # fmt: skip
    if case == "tile_greedy_seats":
        config = AfterstateConfig(workers=1, hidden=(8,), epsilon=0.0)
        net, _ = _nets(config)
        return play_games(config, net.layers, net.meta, [8, 9], [0, 1], 4, **kw)
    if case == "card_warm":
        config = AfterstateConfig(game="cardcassonne", players=3, workers=1, epsilon=0.3)
        return play_card_games(config, None, {}, [9, 10], [-1, -1], 3)
    if case == "card_warm_heuristic":
        config = AfterstateConfig(game="cardcassonne", players=2, workers=1, epsilon=0.3,
                                  baseline_agent="heuristic")  # fmt: skip
        return play_card_games(config, None, {}, [4], [-1], 1)
    if case == "card_net":
        config = AfterstateConfig(game="cardcassonne", workers=1, hidden=(8,), epsilon=0.1,
                                  td_lambda=0.6, tables=("2", "4"))  # fmt: skip
        net, old = _nets(config)
        lineups = [[NET, GREEDY], [NET, SNAPSHOT, GREEDY, NET], [NET, NET]]
        return play_card_games(config, net.layers, net.meta, [1, 2, 3], None, 0,
                               [(2, ()), (4, ()), (2, ())], lineups, old.layers)  # fmt: skip
    if case == "card_search_value":
        config = AfterstateConfig(game="cardcassonne", card_network="search_value", workers=1,
                                  hidden=(8,), epsilon=0.1, candidates=2,
                                  baseline_agent="heuristic")  # fmt: skip
        net, _ = _nets(config)
        return play_card_games(config, net.layers, net.meta, [3, 4], [1, -1], 2)
    raise KeyError(case)


#: fingerprints of the runs, from the two loops before they were merged
EXPECTED: dict[str, str] = {
    "tile_warm": "8cf7c70e93129d23",
    "tile_warm_heuristic": "20238de4e6b2a8e5",
    "tile_two_player": "b4e43c224f790d9a",
    "tile_table": "e03a500c4c1ecca2",
    "tile_greedy_seats": "98ccfa3c1ffd773c",
    "card_warm": "e71c4aac1ad00c0f",
    "card_warm_heuristic": "158d5dbc5a99b366",
    "card_net": "d44325250e79beae",
    "card_search_value": "5e94938425a59442",
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_the_loop_records_the_same_data_as_before(case: str) -> None:
    out = run(case)
    assert fingerprint(out) == EXPECTED[case]


@pytest.mark.parametrize("epsilon", [0.0, 0.3])
def test_pick_all_makes_the_picks_and_draws_of_pick(epsilon: float) -> None:
    """The batch's picks (ties and exploration included) are ``pick``'s, decision by
    decision, and leave every generator where ``pick`` leaves it."""
    import random

    from carcassonne_rl.agents.tile.afterstate import pick
    from carcassonne_rl.training.afterstate.loop import pick_all

    gen = np.random.default_rng(0)
    sizes = gen.integers(1, 9, 200)
    vals = gen.integers(0, 4, sizes.sum()).astype(np.float64) / 3  # many ties
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    ours = [random.Random(k) for k in range(len(sizes))]
    theirs = [random.Random(k) for k in range(len(sizes))]
    got = pick_all(vals, offsets, ours, epsilon)
    want = [pick(vals[offsets[k] : offsets[k + 1]], theirs[k], epsilon) for k in range(len(sizes))]
    assert got == want and len(set(got)) > 3
    assert [r.random() for r in ours] == [r.random() for r in theirs]
