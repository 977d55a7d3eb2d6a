"""``pretrained:search``: expectimax over the next tile with the network at the leaves."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.pretrained import pretrained_path
from carcassonne_rl.agents.tile.afterstate import (
    load_value_net,
    net_feature_set,
    options,
    values_from,
)
from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT
from carcassonne_rl.agents.tile.heuristic import player_values
from carcassonne_rl.agents.tile.search import ExpectimaxAgent, unknown_tiles, with_drawn_tile
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.carcassonne.tiles import LETTERS


def _position(players: int = 2, turns: int = 30, seed: int = 4, expansions=()):
    s = new_game(GameConfig(players=players, seed=seed, expansions=expansions))
    greedy = make_agent("greedy", "carcassonne", seed=seed)
    while s.turn < turns:
        s.apply_code(greedy.act(s, s.current_player))
    return s


def test_unknown_tiles_are_the_pile_and_the_drawn_tile() -> None:
    s = _position()
    counts = {LETTERS.index(k): n for k, n in s.remaining_tiles().items() if n}
    drawn = LETTERS.index(s.current_tile)
    counts[drawn] = counts.get(drawn, 0) + 1
    assert unknown_tiles(s) == counts
    shuffled = s.resample_hidden(random.Random(1))
    assert unknown_tiles(shuffled) == counts  # the pile's order does not matter


def test_a_swapped_draw_keeps_the_unknown_tiles_and_plays_legally() -> None:
    s = _position()
    before = unknown_tiles(s)
    for tile in before:
        t = with_drawn_tile(s, tile)
        if t is None:
            continue
        assert unknown_tiles(t) == before and t.current_tile == LETTERS[tile]
        codes = t.legal_action_codes()
        assert len(codes) > 0
        t.apply_code(int(codes[-1]))  # the engine accepts the placements it generated
    with pytest.raises(ValueError, match="not among the unknown"):
        with_drawn_tile(s, next(k for k in range(len(LETTERS)) if k not in before))


def _blend_values(net, children, player: int, weight: float) -> list[float]:
    scale = float(net.meta["value_scale"])
    out = []
    for child, v in zip(children, values_from(net, children, player), strict=True):
        if child.is_over:
            out.append(float(v))  # exact already
            continue
        pv = player_values(child)
        h = pv[player] - np.delete(pv, player).max()
        out.append(math.tanh((weight * scale * math.atanh(v) + (1 - weight) * h) / scale))
    return out


@pytest.mark.parametrize("blended", [True, False])
def test_the_expectation_weighs_every_tile_by_its_count(blended) -> None:
    """Recomputed here tile by tile: the next seat's best reply by its own value (the
    network's, or its margin averaged with the heuristic's as the 2-player search does), the
    searching seat's value = minus that (2 players), weighted by the tile counts."""
    agent = make_agent("pretrained:search=4", "carcassonne", seed=0).two  # 2 players
    assert agent.samples == 0 and agent.candidates == 4
    assert agent.weight == NETWORK_2P_WEIGHT
    if not blended:
        agent = ExpectimaxAgent(agent.net, 4, seed=0)
    s = _position(turns=50)
    me = s.current_player
    after = options(s)[0].state
    nxt = after.current_player
    total = weight = 0.0
    for tile, count in unknown_tiles(after).items():
        t = with_drawn_tile(after, tile)
        if t is None:
            continue
        replies = [o.state for o in options(t)]
        if blended:
            theirs = _blend_values(agent.net, replies, nxt, NETWORK_2P_WEIGHT)
        else:
            theirs = values_from(agent.net, replies, nxt).tolist()
        total += count * -max(theirs)
        weight += count
    assert agent.expectation(after, me) == pytest.approx(total / weight, abs=1e-5)


def _near_the_end(unknown: int, seed: int = 3):
    """A 2-player position where the seat to move holds its tile and ``unknown`` tiles are
    unknown (its own included)."""
    s = new_game(GameConfig(players=2, seed=seed))
    greedy = make_agent("greedy", "carcassonne", seed=seed)
    while not (s.phase == "place_tile" and sum(unknown_tiles(s).values()) == unknown):
        s.apply_code(greedy.act(s, s.current_player))
    return s


def test_sampled_continuations_reach_the_exact_end() -> None:
    """Two tiles unknown after the searching seat's move: the next seat draws one of them
    (its best reply by its own blended value, as in the one-turn search), the searching
    seat the other, and that move ends the game. Every sampled continuation is then the
    same, and its value is the best final margin, scored by the engine."""
    agent = make_agent("pretrained:search=4:3", "carcassonne", seed=0).two
    assert agent.samples == 3 and agent.candidates == 4
    s = _near_the_end(3)
    me = s.current_player
    checked = 0
    for opt in options(s)[:6]:
        after = opt.state
        nxt = after.current_player
        unknown = unknown_tiles(after)
        total = weight = 0.0
        for tile, count in unknown.items():
            t = with_drawn_tile(after, tile)
            if t is None:
                continue
            replies = [o.state for o in options(t)]
            theirs = _blend_values(agent.net, replies, nxt, NETWORK_2P_WEIGHT)
            reply = replies[int(np.argmax(theirs))]
            value = -max(theirs)
            others = unknown | {tile: unknown[tile] - 1}  # the searching seat's tile
            (last,) = [k for k, n in others.items() for _ in range(n)]
            mine = with_drawn_tile(reply, last)
            if mine is not None and not reply.is_over:
                finals = []
                for o in options(mine):
                    assert o.state.is_over
                    sc = o.state.scores
                    finals.append(math.tanh((sc[me] - sc[1 - me]) / agent.scale))
                value = max(finals)
                checked += 1
            total += count * value
            weight += count
        assert agent.expectation(after, me) == pytest.approx(total / weight, abs=1e-5)
    assert checked >= 6


@pytest.mark.parametrize(
    "spec, players, expansions",
    [
        ("pretrained:search=2", 2, ()),
        ("pretrained:search=2", 3, ("messages", "labyrinth")),
        ("pretrained:search=2:1", 2, ("labyrinth",)),
    ],
)
def test_search_plays_legal_moves_without_reading_the_pile_order(spec, players, expansions
                                                                  ) -> None:  # fmt: skip
    """At a few decisions of a game (played on by the network alone, for speed) the search
    answers a legal move, and the same one when the hidden pile is reshuffled (the sampled
    continuations draw from the unknown tiles, not from the pile)."""
    agent = make_agent(spec, "carcassonne", seed=0)
    fast = make_agent("pretrained", "carcassonne", seed=0)
    table = agent.two if players == 2 else agent.table  # the search at this table
    assert isinstance(table, ExpectimaxAgent) and table.candidates == 2
    assert table.samples == (1 if spec.endswith(":1") else 0)
    # it searches the network pretrained plays at this table, at 2 players the network
    # pretrained:blend averages (carcassonne_2p.npz; pretrained plays expert iteration's)
    plays = load_value_net(pretrained_path("carcassonne")) if players == 2 else fast.table.net
    probe = np.random.default_rng(0).random((4, plays.inputs), dtype=np.float32)
    np.testing.assert_array_equal(table.net.forward(probe), plays.forward(probe))
    assert net_feature_set(table.net) == ("two_player" if players == 2 else "table")
    s = new_game(GameConfig(players=players, seed=2, expansions=expansions))
    checked = 0
    while not s.is_over:
        if s.phase == "place_tile" and s.turn % 20 == 7 or s.phase == "message":
            agent.reset(0)
            code = agent.act(s, s.current_player)
            assert code in s.legal_action_codes().tolist()
            twin = s.resample_hidden(random.Random(s.turn))
            agent.reset(0)
            assert agent.act(twin, twin.current_player) == code
            checked += 1
        s.apply_code(fast.act(s, s.current_player))
    assert checked >= 3 and np.all(s.scores >= 0)


def test_the_default_search_is_the_measured_one() -> None:
    """``pretrained:search`` is ``search=3:2`` (docs/research/2026-11-26-tile-search.md);
    ``search=K`` keeps the one-turn search."""
    default = make_agent("pretrained:search", "carcassonne", seed=0)
    for table in (default.two, default.table):
        assert (table.candidates, table.samples) == (3, 2)
    assert make_agent("pretrained:search=2", "carcassonne", seed=0).two.samples == 0


def test_search_spec_errors_are_clear() -> None:
    for bad in ("pretrained:search=0", "pretrained:search=x", "pretrained:searching",
                "pretrained:search=2:-1", "pretrained:search:1", "pretrained:search=2:1:1",
                "pretrained:search=2:x"):  # fmt: skip
        with pytest.raises(ValueError, match="pretrained:search=K:S"):
            make_agent(bad, "carcassonne")
    for bad in ("pretrained:search=0", "pretrained:search=x", "pretrained:search=2:0",
                "pretrained:search:1", "pretrained:search=2:1:0",
                "pretrained:search=2:1:1:-1", "pretrained:search=2:1:1:1:1"):  # fmt: skip
        with pytest.raises(ValueError, match="pretrained:search=W:K"):
            make_agent(bad, "cardcassonne")


def _network_file(folder, blend: float | None = None):
    """A copy of the shipped 2-player network with its weights changed (under a folder
    whose name has capitals: the path keeps its case)."""
    net = load_value_net(pretrained_path("carcassonne"))
    net.layers = [(w * 1.1, b - 0.01) for w, b in net.layers]
    if blend is not None:
        net.meta["heuristic_blend"] = blend
    path = folder / "Nets" / ("Blended.npz" if blend is not None else "Alone.npz")
    path.parent.mkdir(exist_ok=True)
    net.save(path)
    return path, net


def test_the_search_over_a_network_file_plays_it_as_policy_plays_it(tmp_path) -> None:
    alone, net = _network_file(tmp_path)
    agent = make_agent(f"pretrained:SEARCH=2:1@{alone}", "carcassonne", seed=0)
    two = agent.two
    assert agent.name == f"pretrained:search=2:1@{alone}"  # the spec lower case, the path not
    assert (two.candidates, two.samples, two.weight) == (2, 1, None)  # alone, as policy: plays
    x = np.random.default_rng(0).normal(size=(5, net.inputs)).astype(np.float32)
    np.testing.assert_array_equal(two.net.forward(x), net.forward(x))
    shipped = make_agent("pretrained:search=2:1", "carcassonne", seed=0)
    assert shipped.two.weight == NETWORK_2P_WEIGHT
    assert not np.allclose(shipped.two.net.forward(x), net.forward(x))
    assert agent.table.net is not None and agent.table.candidates == 2  # 3-5 seats: shipped
    blended, _ = _network_file(tmp_path, blend=0.6)
    assert make_agent(f"pretrained:search@{blended}", "carcassonne").two.weight == 0.6
    s = _position()
    assert agent.act(s, s.current_player) in set(s.legal_action_codes().tolist())


def test_search_over_a_file_errors_are_clear(tmp_path) -> None:
    from carcassonne_rl.agents.pretrained import model_dir

    with pytest.raises(ValueError, match="no such network file"):
        make_agent(f"pretrained:search=2@{tmp_path / 'missing.npz'}", "carcassonne")
    with pytest.raises(ValueError, match="not 'tile_afterstate_value'"):
        make_agent(f"pretrained:search@{model_dir() / 'cardcassonne_expert.npz'}", "carcassonne")
    with pytest.raises(ValueError, match="only pretrained:search.*and pretrained:blend=W"):
        make_agent(f"pretrained@{tmp_path}", "carcassonne")
    with pytest.raises(ValueError, match="pretrained:search=K:S"):
        make_agent("pretrained:search=2@", "carcassonne")
