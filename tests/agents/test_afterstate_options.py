"""The option kernel (``encoders.features.afterstate_options``) against the reference path
(a cloned state per option, ``agents.tile.afterstate.options`` + ``value_inputs``), and the
agents that moved onto it playing the same moves as on the reference path."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile.afterstate import options, value_inputs
from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
from carcassonne_rl.encoders.features.afterstate import player_features
from carcassonne_rl.encoders.features.afterstate_options import (
    option_inputs,
    option_table,
    option_tables,
)
from carcassonne_rl.games.carcassonne import GameConfig, new_game

EXPANSION_SETS = [(), ("messages",), ("labyrinth",), ("messages", "labyrinth")]
CONFIGS = [(p, e) for p in (2, 3, 4, 5) for e in EXPANSION_SETS]


def _positions(players: int, expansions: tuple[str, ...], seed: int, every: int = 3) -> list:
    """Positions of every decision phase along two games: one of random moves, one of the
    greedy agent against random moves (every ``every``-th decision, every decision that is
    not a tile placement or a follower choice, and those of the last tile)."""
    out = []
    greedy = TileGreedyAgent(seed)
    for game, agent in enumerate((None, greedy)):
        rng = random.Random(seed * 10 + game)
        state = new_game(GameConfig(players, seed=seed * 10 + game, expansions=expansions))
        step = 0
        while not state.is_over:
            rare = state.phase not in ("place_tile", "place_follower")
            if rare or step % every == 0 or state.tiles_left == 0:
                out.append(state.clone())
            codes = state.legal_codes()
            if agent is not None and state.current_player == 0:
                code = agent.act(state, 0)
            else:
                code = codes[rng.randrange(len(codes))]
            state.apply_code(code)
            step += 1
    return out


@pytest.mark.parametrize(("players", "expansions"), CONFIGS)
def test_kernel_options_equal_the_reference_path(players: int, expansions: tuple) -> None:
    positions = _positions(players, expansions, seed=players)
    phases = set()
    finished = 0
    for state in positions:
        ref = options(state)
        opts = option_table(state)
        phases.add(state.phase)
        assert opts.code.tolist() == [o.code for o in ref]
        assert opts.follower.tolist() == [-1 if o.follower is None else o.follower for o in ref]
        assert opts.over.tolist() == [o.state.is_over for o in ref]
        finished += int(opts.over.sum())
        for i, child in enumerate(o.state for o in ref):
            np.testing.assert_array_equal(opts.scores_of(i), child.scores)
            per, left = player_features(child)
            got_per, got_left = opts.features_of(i)
            np.testing.assert_allclose(got_per, per, rtol=1e-12, atol=1e-12)
            assert got_left == pytest.approx(left)
        children = [o.state for o in ref]
        for features in ("two_player", "table"):
            for seat in range(players):
                want, want_where = value_inputs(children, seat, features)
                got, where = option_inputs(opts, seat, features)
                np.testing.assert_array_equal(where, want_where)
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert {"place_tile", "place_follower"} <= phases
    if "messages" in expansions:
        assert "choose_figure" in phases
    assert finished > 0  # options that end the game were among them


def test_a_batch_of_positions_equals_each_position_alone() -> None:
    states = _positions(3, ("messages", "labyrinth"), seed=5, every=7)
    states += _positions(2, (), seed=6, every=7)
    batch, offsets = option_tables(states)
    assert offsets[-1] == len(batch.code)
    seats = np.concatenate([np.full(offsets[k + 1] - offsets[k], s.current_player)
                            for k, s in enumerate(states)])  # fmt: skip
    for features in ("two_player", "table"):
        x_batch, where_batch = option_inputs(batch, seats, features)
        for k, state in enumerate(states):
            alone = option_table(state)
            rows = slice(offsets[k], offsets[k + 1])
            np.testing.assert_array_equal(batch.code[rows], alone.code)
            np.testing.assert_array_equal(batch.follower[rows], alone.follower)
            npl = state.config.players
            np.testing.assert_array_equal(batch.per_player[rows, :npl], alone.per_player)
            assert not batch.per_player[rows, npl:].any()
            x, where = option_inputs(alone, state.current_player, features)
            got = where_batch[rows]
            np.testing.assert_array_equal(got >= 0, where >= 0)
            np.testing.assert_allclose(x_batch[got[got >= 0]], x[where[where >= 0]], rtol=1e-6)


@pytest.mark.parametrize(("players", "expansions"), [(2, ("messages",)), (4, ("labyrinth",))])
def test_feature_walks_from_the_positions_followers_are_the_full_scans(players, expansions):
    """The kernels' way of finding the features to walk (the position's follower rows and the
    tiles an option placed; one scratch for all the options) gives the very numbers of the
    full scan of each afterstate (``player_features_kernel``, ``potentials_kernel``)."""
    from carcassonne_rl.agents.tile.potentials import potentials_from, potentials_kernel
    from carcassonne_rl.encoders.features.afterstate import (
        PLAYER_FEATURES,
        player_features_from,
        player_features_kernel,
    )
    from carcassonne_rl.games.carcassonne import layout as L
    from carcassonne_rl.games.carcassonne.board_kernels import follower_rows, new_work
    from carcassonne_rl.games.carcassonne.tiles import MAX_SEGMENTS

    work = new_work()
    compared = 0
    for state in _positions(players, expansions, seed=players + 20):
        if state.phase != "place_tile":
            continue
        a = state.kernel_arrays()
        lo = int(a.ints[L.R_NSLOTS])
        rows = np.empty(lo * MAX_SEGMENTS, np.int64)
        held = rows[: follower_rows(a.tiles, a.segs, 0, lo, rows, 0)]
        for opt in options(state):
            if opt.state.is_over:
                continue
            c = opt.state.kernel_arrays()
            want = np.zeros((players, PLAYER_FEATURES))
            got = np.zeros((players, PLAYER_FEATURES))
            left = player_features_kernel(c.board, c.ints, c.tiles, c.segs, want)
            assert player_features_from(c.board, c.ints, c.tiles, c.segs, held, lo, work,
                                        got) == left  # fmt: skip
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(
                potentials_from(c.board, c.ints, c.tiles, c.segs, held, lo, work),
                potentials_kernel(c.board, c.ints, c.tiles, c.segs),
            )
            compared += 1
    assert compared > 500


def test_the_position_is_not_changed() -> None:
    state = _positions(2, ("messages",), seed=3, every=11)[-1]
    before = [a.copy() for a in state.kernel_arrays()]
    option_table(state)
    for a, b in zip(state.kernel_arrays(), before, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("spec", "players", "expansions"),
    [
        ("pretrained", 2, ()),
        ("pretrained", 2, ("messages", "labyrinth")),
        ("pretrained", 3, ("messages",)),
        ("pretrained", 4, ("labyrinth",)),
        ("pretrained:blend=0.75", 2, ()),
        ("pretrained:blend=0.6", 5, ("messages", "labyrinth")),
    ],
)
def test_value_agents_play_the_reference_paths_moves(spec: str, players: int,
                                                     expansions: tuple) -> None:  # fmt: skip
    """Whole games of ``pretrained`` (and the blend) in every seat, played by the option
    kernel and by the reference path in lockstep: the same move at every decision, and the
    same values of every option every few decisions."""
    fast = make_agent(spec, "carcassonne", seed=7)
    slow = make_agent(spec, "carcassonne", seed=7)
    slow.kernel = False
    assert fast.kernel and not slow.kernel
    state = new_game(GameConfig(players, seed=40 + players, expansions=expansions))
    decisions = 0
    while not state.is_over:
        p = state.current_player
        code = fast.act(state, p)
        assert slow.act(state, p) == code, f"decision {decisions} differs"
        if decisions % 9 == 0:
            codes, vals = fast.decision_values(state, p)
            slow_codes, slow_vals = slow.decision_values(state, p)
            assert codes == slow_codes
            np.testing.assert_array_equal(vals, slow_vals)
        state.apply_code(code)
        decisions += 1
    assert decisions > 100


@pytest.mark.parametrize(("feature_set", "baseline"), [("two_player", "greedy"),
                                                      ("table", "heuristic")])  # fmt: skip
def test_self_play_plays_the_same_games_on_both_paths(feature_set: str, baseline: str) -> None:
    """The afterstate self-play (games in flight, network, snapshot and baseline seats,
    mixed tables with the expansions) records the same positions and targets on the option
    kernel as on the reference path."""
    from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, SNAPSHOT, play_games
    from carcassonne_rl.training.afterstate.trainer import AfterstateConfig, Learner, export

    config = AfterstateConfig(workers=1, hidden=(16,), feature_set=feature_set, epsilon=0.1,
                              baseline_agent=baseline)  # fmt: skip
    net = export(Learner(config).model, config)
    old = export(Learner(AfterstateConfig(workers=1, hidden=(16,), feature_set=feature_set,
                                          seed=5)).model, config)  # fmt: skip
    if feature_set == "table":
        tables = [(3, ("messages",)), (4, ()), (2, ("labyrinth",))]
        lineups = [[NET, GREEDY, SNAPSHOT], [NET, SNAPSHOT, NET, NET], [NET, NET]]
    else:
        tables = [(2, ()), (2, ("messages", "labyrinth")), (2, ())]
        lineups = [[NET, GREEDY], [GREEDY, NET], [SNAPSHOT, NET]]
    runs = [play_games(config, net.layers, net.meta, [3, 4, 5], None, 1, tables, lineups,
                       old.layers, kernel=kernel) for kernel in (True, False)]  # fmt: skip
    fast, slow = runs
    assert fast["decisions"] == slow["decisions"] > 300
    np.testing.assert_array_equal(fast["x"], slow["x"])
    np.testing.assert_array_equal(fast["y"], slow["y"])
    assert fast["margins_vs_greedy"] == slow["margins_vs_greedy"]


def test_greedy_scores_equal_the_greedy_agents_evaluation() -> None:
    """The compiled greedy values are the agent's own (a placement's lone follower options
    from its afterstate: the same to float rounding), with the same best moves."""
    from carcassonne_rl.agents.tile.potentials_options import greedy_scores

    greedy = TileGreedyAgent(0, follower_value=2.5)
    exact = 0
    for players, expansions in [(2, ()), (3, ("messages",)), (5, ("messages", "labyrinth")),
                                (2, ("labyrinth",))]:  # fmt: skip
        for state in _positions(players, expansions, seed=players, every=6):
            for seat in range(players):
                got, want = greedy_scores(state, seat, 2.5), greedy.evaluate(state, seat)
                assert [c for c, _ in got] == [c for c, _ in want]
                a = np.array([v for _, v in got])
                b = np.array([v for _, v in want])
                np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
                best = np.flatnonzero(a >= a.max() - 1e-9)  # the agent's ties
                assert np.array_equal(best, np.flatnonzero(b >= b.max() - 1e-9))
                exact += np.array_equal(a, b)
    assert exact > 50



def test_greedy_follower_margins_are_the_follower_decisions() -> None:
    """``greedy_values``' follower margins of a placement are the greedy agent's evaluation
    of the follower decision after it (the same codes in the same order, the same margins to
    float rounding, the same best choices): what self-play plays a greedy seat's follower
    decision from."""
    from carcassonne_rl.agents.tile.potentials_options import greedy_values

    greedy = TileGreedyAgent(0)
    checked = 0
    for players, expansions in [(2, ()), (3, ("labyrinth",)), (4, ("messages",))]:
        for state in _positions(players, expansions, seed=players + 1, every=5):
            if state.phase != "place_tile":
                continue
            seat = state.current_player
            codes, _, fout, counts = greedy_values(state, seat, greedy.follower_value)
            for i in range(0, len(codes), 7):
                child = state.clone()
                child.apply_code(int(codes[i]))
                if child.phase != "place_follower":
                    assert counts[i] == 0
                    continue
                want = greedy.evaluate(child, seat)
                assert counts[i] == len(want)
                assert child.legal_codes() == [c for c, _ in want]
                a, b = fout[i, : counts[i]], np.array([v for _, v in want])
                np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
                assert np.array_equal(np.flatnonzero(a >= a.max() - 1e-9),
                                      np.flatnonzero(b >= b.max() - 1e-9))  # fmt: skip
                checked += 1
    assert checked > 100

@pytest.mark.parametrize(
    ("spec", "players", "expansions", "searched"),
    [
        ("pretrained:search=3:2", 2, (), 6),
        ("pretrained:search=2:1", 3, ("messages",), 3),
        ("pretrained:search=2:1", 2, ("messages", "labyrinth"), 3),
    ],
)
def test_search_plays_the_reference_paths_moves(spec: str, players: int, expansions: tuple,
                                                searched: int) -> None:  # fmt: skip
    """The tile search (``pretrained:search``) on the option kernel and on the reference path
    in lockstep along a game: the same network values, the same expectations of the searched
    candidates, the same move."""
    fast = make_agent(spec, "carcassonne", seed=3).value_agent_at(players)
    slow = make_agent(spec, "carcassonne", seed=3).value_agent_at(players)
    slow.kernel = False
    greedy = TileGreedyAgent(0)
    state = new_game(GameConfig(players, seed=20 + players, expansions=expansions))
    checked = 0
    while checked < searched:
        p = state.current_player
        if state.phase == "place_tile" and state.turn % 7 == 3:
            opts, vals, refined = fast.search(state, p)
            ref_opts, ref_vals, ref_refined = slow.search(state, p)
            assert opts.code.tolist() == [o.code for o in ref_opts]
            np.testing.assert_array_equal(vals, ref_vals)
            np.testing.assert_array_equal(refined, ref_refined)
            assert np.isfinite(refined).sum() == min(len(opts), fast.candidates)
            assert fast.nodes == slow.nodes
            assert fast.act(state, p) == slow.act(state, p)
            checked += 1
        elif state.phase != "place_tile":
            assert fast.act(state, p) == slow.act(state, p)
        state.apply_code(greedy.act(state, p))


@pytest.mark.parametrize(("players", "expansions"), [(2, ()), (3, ("messages", "labyrinth"))])
def test_search_on_the_kernel_ignores_what_no_seat_has_seen(players: int, expansions: tuple
                                                            ) -> None:  # fmt: skip
    """The twin test for the search on the option kernel: the same move when the undrawn
    tiles (and message cards) are reshuffled."""
    state = new_game(GameConfig(players, seed=players + 60, expansions=expansions))
    greedy = TileGreedyAgent(1)
    checked = 0
    while checked < 2:
        if state.phase == "place_tile" and state.turn % 11 == 5:
            twin = state.resample_hidden(random.Random(state.turn))
            assert twin.draw_order != state.draw_order
            p = state.current_player
            a = make_agent("pretrained:search=2:1", "carcassonne", seed=state.turn)
            b = make_agent("pretrained:search=2:1", "carcassonne", seed=state.turn)
            assert a.kernel and b.kernel
            assert a.act(state, p) == b.act(twin, p)
            checked += 1
        state.apply_code(greedy.act(state, state.current_player))
