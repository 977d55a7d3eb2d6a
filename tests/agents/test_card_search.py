"""``heuristic:search``: rollouts of the heuristic in every seat of worlds drawn from the
seat's view, the same worlds for every candidate (the twin test of
tests/agents/test_agent_information.py covers it too)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.row_values import standing
from carcassonne_rl.agents.card.search import CardSearchAgent
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.games.cardcassonne import GameConfig, determinize, new_game, view


def _turn_positions(players: int, seed: int, count: int) -> list:
    """``count`` turn-phase states of a heuristic game with at least 3 legal moves."""
    state = new_game(GameConfig(players, seed))
    rng = random.Random(seed)
    agent = CardHeuristicAgent(seed)
    out = []
    while not state.is_over and len(out) < count:
        codes = state.legal_codes()
        if state.phase == "turn" and len(codes) >= 3 and rng.random() < 0.2:
            out.append(state.clone())
        state.apply_code(agent.act(state, state.current_player))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_finishes_games_with_legal_moves(players: int) -> None:
    seats = ("heuristic:search=2:2", "heuristic", "greedy", "random")[:players]
    job = Job(Setup("cardcassonne", players), seats, seats, 3, 0, 0, agent_seed=3)
    res = play_game(job, warm=False)  # the engine rejects an illegal code
    assert len(res.scores) == players and res.winners
    assert all(d > 0 for d in res.decisions)


def test_equal_views_give_equal_decisions() -> None:
    for i, state in enumerate(_turn_positions(2, 6, 4) + _turn_positions(3, 7, 2)):
        p = state.current_player
        twin = state.resample_hidden(random.Random(100 + i), p)
        assert view(twin, p) == view(state, p) and twin.hands != state.hands
        a = make_agent("heuristic:search=3:3", "cardcassonne", seed=i)
        b = make_agent("heuristic:search=3:3", "cardcassonne", seed=i)
        assert a.act(state, p) == b.act(twin, p)
        assert a.last_values == b.last_values


class Recorder(CardSearchAgent):
    """Records each rollout's candidate and the hidden cards of its world."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rollouts: list[tuple[int, tuple]] = []

    def _rollout(self, s, seed: int, me: int, future: float | None) -> None:
        others = tuple(tuple(h) for q, h in enumerate(s.hands) if q != self.me)
        self.rollouts.append((s.history[0], (others, tuple(s.deck_cards()), seed)))
        super()._rollout(s, seed, me, future)

    def decide(self, v, legal: list[int]) -> int:
        self.me = v.player
        return super().decide(v, legal)


def test_every_candidate_meets_the_same_worlds() -> None:
    for state in _turn_positions(2, 8, 3):
        p = state.current_player
        agent = Recorder(CardHeuristicAgent, 5, seed=2, candidates=3)
        agent.act(state, p)
        ranked = sorted(CardHeuristicAgent(0).scored(view(state, p), state.legal_codes()),
                        key=lambda cs: -cs[1])  # fmt: skip
        codes = {c for c, _ in agent.rollouts}
        assert codes == {c for c, _ in ranked[:3]} == set(agent.last_values)
        worlds = {w for _, w in agent.rollouts}
        assert len(worlds) == 5 and len(agent.rollouts) == 15  # 5 worlds x 3 candidates
        for code in codes:
            assert {w for c, w in agent.rollouts if c == code} == worlds


def _expected_leaf(s, q: int, future: float) -> float:
    """Seat ``q``'s leaf value, written out from the rules: score, buildings in sets of
    different colours (partial sets of 1-3 worth 4, 6, 5 points more times the future
    weight and the share of rounds left), animals' table values times 0.5 x the same."""
    if future == 0:
        return standing(s, q)
    left = future * max(0, s.rounds_total - s.round) / s.rounds_total
    col = s.collected[q]
    counts = tuple(col[c * 5 + 3] for c in range(4))  # each colour's buildings
    jokers = col[23]  # building jokers
    set_points = [0 + 4 * left, 5 + 6 * left, 15 + 5 * left, 30]

    def best_split(c: tuple) -> float:  # every way to take a set of different colours
        if not any(c):
            return 0.0
        first = next(i for i, x in enumerate(c) if x)  # the set holding one of colour first
        out = -1.0
        for others in itertools.product((0, 1), repeat=4):
            pick = [1 if i == first else others[i] * (c[i] > 0) for i in range(4)]
            if pick[first] and all(not pick[i] or i >= first for i in range(4)):
                rest = tuple(x - y for x, y in zip(c, pick, strict=True))
                out = max(out, set_points[sum(pick) - 1] + best_split(rest))
        return out

    best = max(best_split(tuple(x + js.count(i) for i, x in enumerate(counts)))
               for js in itertools.product(range(4), repeat=jokers))  # fmt: skip
    table = [0, 3, 6, 9, 12, 14, 16, 18, 19]
    animals = sum(table[min(t, 8)] for t in s.animals[q])
    return float(s.scores[q]) + best + 0.5 * left * animals


def _searched_worlds(spec: str, state):
    """Per candidate of the 2 that the search ``spec`` (seed 4) values at ``state``: its
    value and, per world the search drew (its draws: 2 worlds, then a seed per world), the
    world with the candidate applied and the rollout's seed."""
    p = state.current_player
    agent = make_agent(spec, "cardcassonne", seed=4)
    agent.act(state, p)
    rng = random.Random(4)
    worlds = [determinize(view(state, p), p, rng) for _ in range(2)]
    seeds = [rng.randrange(1 << 30) for _ in worlds]
    assert len(agent.last_values) == 2
    for code, value in agent.last_values.items():
        starts = []
        for world, seed in zip(worlds, seeds, strict=True):
            s = world.clone()
            s.apply_code(code)
            starts.append((s, seed))
        yield value, starts


@pytest.mark.parametrize(("horizon", "future"), [(1, 0.0), (1, 1.0), (2, 1.0), (1, 2.5)])
def test_values_are_mean_leaf_margins_of_heuristic_play_to_the_horizon(
    horizon: int, future: float
) -> None:
    state = _turn_positions(2, 9, 1)[0]
    p = state.current_player
    spec = f"heuristic:search=2:2:{horizon}:{future:g}"
    if (horizon, future) == (1, 1.0):
        spec = "heuristic:search=2:2"  # the defaults
    for value, starts in _searched_worlds(spec, state):
        margins = []
        for s, seed in starts:
            players = [CardHeuristicAgent(seed * 8 + q) for q in range(2)]
            stop = s.round + horizon
            while not s.is_over and (s.round < stop or s.phase != "turn"):
                s.apply_code(players[s.current_player].act(s, s.current_player))
            assert s.is_over or (s.round == stop and s.played == [0, 0])
            margins.append(_expected_leaf(s, p, future) - _expected_leaf(s, 1 - p, future))
        assert value == pytest.approx(sum(margins) / 2)


def _net_value(net, v, legal: list[int], candidates: int) -> float:
    """The network's best value (in points) of the heuristic's ``candidates`` best options,
    the network's layers applied here."""
    from carcassonne_rl.agents.card.value import MARGIN_SCALE
    from carcassonne_rl.encoders.features.card import option_features

    scored = sorted(CardHeuristicAgent(0).scored(v, legal), key=lambda cs: -cs[1])[:candidates]
    x = np.hstack([option_features(v, [c for c, _ in scored]),
                   np.array([[m / MARGIN_SCALE] for _, m in scored])])  # fmt: skip
    for i, (w, b) in enumerate(net.layers):
        x = x @ w + b
        x = np.maximum(x, 0) if i < len(net.layers) - 1 else x
    return float(x.max()) * MARGIN_SCALE


def test_a_network_leaf_values_the_seats_next_turn_by_the_network() -> None:
    """``F = net``: each world is played on by the network's agent in every seat to the
    searcher's first turn of the next round (or the game's end), where the network's best
    candidate value (or the final margin) is the world's value."""
    from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net
    from carcassonne_rl.agents.pretrained import pretrained_path

    net = load_card_net(pretrained_path("cardcassonne"))
    states = _turn_positions(2, 9, 1) + [_late_turn(2, 12)]
    ends = []
    for state in states:
        p = state.current_player
        for value, starts in _searched_worlds("pretrained:search=2:2:1:net", state):
            leaves = []
            for s, seed in starts:
                start = s.round
                players = [CardSearchValueAgent(net, seed * 8 + q) for q in range(2)]
                while not s.is_over and (s.round == start or s.phase != "turn"
                                         or s.current_player != p):  # fmt: skip
                    s.apply_code(players[s.current_player].act(s, s.current_player))
                ends.append(s.is_over)
                if s.is_over:
                    leaves.append(float(s.scores[p] - s.scores[1 - p]))
                else:
                    leaves.append(_net_value(net, view(s, p), s.legal_codes(), 3))
            assert value == pytest.approx(sum(leaves) / 2, rel=1e-5, abs=1e-3)
    assert any(ends) and not all(ends)  # both kinds of leaf were valued


def _late_turn(players: int, seed: int):
    """A turn decision of the game's last round with at least 2 options."""
    state = new_game(GameConfig(players, seed))
    agent = CardHeuristicAgent(seed)
    while not state.is_over:
        if (state.phase == "turn" and state.round == state.rounds_total
                and len(state.legal_codes()) >= 2):  # fmt: skip
            return state.clone()
        state.apply_code(agent.act(state, state.current_player))
    raise AssertionError("no turn decision in the last round")


def test_a_network_leaf_needs_a_network() -> None:
    with pytest.raises(ValueError, match="expected heuristic:search"):
        make_agent("heuristic:search=2:2:1:net", "cardcassonne")
    with pytest.raises(ValueError, match="state_value"):
        CardSearchAgent(CardHeuristicAgent, 2, future=None)
    with pytest.raises(ValueError, match="F = net"):
        make_agent("pretrained:search=2:2:1:nets", "cardcassonne")


def test_a_search_over_a_network_picks_its_leaf_by_the_table_unless_f_is_given() -> None:
    """``pretrained:search`` defaults to ``F = table``: the network's leaf at 2 seats, the
    standings with ``F`` = 1 at 3-5; ``net`` or a weight ``F`` hold at every table, and
    ``heuristic:search`` values the leaves by the standings (``F`` = 1 by default)."""
    table = {2: None, 3: 1.0, 4: 1.0, 5: 1.0}
    for spec, leaves in (("pretrained:search", table), ("pretrained:search=4:2", table),
                         ("pretrained:search=8:3:1:table", table),
                         ("pretrained:search=8:3:1:net", dict.fromkeys(table, None)),
                         ("pretrained:search=8:3:1:1", dict.fromkeys(table, 1.0)),
                         ("pretrained:search=8:3:1:0", dict.fromkeys(table, 0.0)),
                         ("heuristic:search", dict.fromkeys(table, 1.0)),
                         ("heuristic:search=4:2:1:0.5", dict.fromkeys(table, 0.5))):  # fmt: skip
        agent = make_agent(spec, "cardcassonne", seed=0)
        assert isinstance(agent, CardSearchAgent), spec
        assert {n: agent.leaf(n) for n in table} == leaves, spec
    with pytest.raises(ValueError, match="expected heuristic:search"):
        make_agent("heuristic:search=2:2:1:table", "cardcassonne")


@pytest.mark.parametrize(("players", "same_as"), [(2, "net"), (3, "1")])
def test_the_table_leaf_plays_as_the_leaf_it_picks(players: int, same_as: str) -> None:
    """The default search decides, world for world, as the spec naming its table's leaf."""
    states = _turn_positions(players, 21, 3)
    assert states
    for state in states:
        p = state.current_player
        picked = []
        for spec in ("pretrained:search=3:2", f"pretrained:search=3:2:1:{same_as}"):
            agent = make_agent(spec, "cardcassonne", seed=5)
            picked.append((agent.act(state.clone(), p), agent.last_values))
        assert picked[0] == picked[1]


def test_the_leaf_values_what_a_seat_holds_for_later_rounds() -> None:
    from carcassonne_rl.agents.card.search import leaf_standing

    states = _turn_positions(2, 11, 6)
    held = [s for s in states if any(any(a) for a in s.animals) and s.round < s.rounds_total]
    assert held  # some seat holds animals with rounds to come
    for s in held:
        for q in range(2):
            now = leaf_standing(s, q, 0.0)
            assert now == standing(s, q)
            assert leaf_standing(s, q, 1.0) == pytest.approx(_expected_leaf(s, q, 1.0))
            if any(s.animals[q]):
                assert leaf_standing(s, q, 1.0) > now


def test_a_seeded_search_reproduces_and_other_seeds_draw_other_worlds() -> None:
    state = _turn_positions(2, 10, 1)[0]
    p = state.current_player
    runs = [make_agent("heuristic:search=4:3", "cardcassonne", seed=s) for s in (1, 1, 2)]
    codes = [a.act(state, p) for a in runs]
    assert codes[0] == codes[1] and runs[0].last_values == runs[1].last_values
    assert runs[0].last_values != runs[2].last_values


@pytest.mark.parametrize(
    "spec",
    ["heuristic:search=0", "heuristic:search=x", "heuristic:searchy", "heuristic:search:3",
     "heuristic:search=2:0", "heuristic:search=2:3:0", "heuristic:search=2:3:1:-1",
     "heuristic:search=2:3:1:nan", "heuristic:search=2:3:1:1:1"],
)  # fmt: skip
def test_bad_specs_give_one_message(spec: str) -> None:
    with pytest.raises(ValueError, match=r"expected heuristic:search, heuristic:search=W,"):
        make_agent(spec, "cardcassonne")


def test_the_tile_game_has_no_heuristic_search() -> None:
    with pytest.raises(ValueError, match="card game"):
        make_agent("heuristic:search=4", "carcassonne")
    assert make_agent("heuristic", "carcassonne").name == "heuristic"


def test_the_base_policy_must_decide_from_a_view() -> None:
    from carcassonne_rl.agents.base import BaseAgent

    with pytest.raises(ValueError, match="ViewAgent"):
        CardSearchAgent(BaseAgent, 4)
    with pytest.raises(ValueError, match=">= 1"):
        CardSearchAgent(CardHeuristicAgent, 0)


def test_a_finished_game_is_valued_by_its_final_scores() -> None:
    """Once the game is over the scores hold the buildings: the standings, the rollout
    leaves and ``mcts``'s values read the final scores, not the buildings a second time."""
    from carcassonne_rl.agents.card.mcts import CardMCTSAgent
    from carcassonne_rl.agents.card.search import leaf_standing
    from carcassonne_rl.agents.common.mcts_core import squash
    from carcassonne_rl.encoders.features.card import CardFeatures

    state = new_game(GameConfig(3, 4))
    agent = CardHeuristicAgent(4)
    while not state.is_over:
        state.apply_code(agent.act(state, state.current_player))
    scores = [float(x) for x in state.scores]
    built = [sum(state.collected[q][c * 5 + 3] for c in range(4)) for q in range(3)]
    assert any(built)  # some seat kept buildings: counting them again would show
    mcts = CardMCTSAgent(simulations=1, seed=0)
    values = mcts._values(state)
    for q in range(3):
        v = view(state, q)
        assert v.is_over and standing(v, q) == standing(state, q) == scores[q]
        assert leaf_standing(state, q, 0.0) == leaf_standing(state, q, 1.0) == scores[q]
        best_other = max(scores[o] for o in range(3) if o != q)
        assert values[q] == pytest.approx(squash(scores[q] - best_other, mcts.scale))
        x = CardFeatures(v).static
        at = 8 + 24  # the seat slots start after the table, round, pile and unseen kinds
        assert x[at + 2] == pytest.approx(scores[q] / 200.0)  # own standing: the score
