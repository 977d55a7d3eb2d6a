"""The card search's compiled rollouts (``card.search_kernels``) are the Python rollouts
(``batched=False``, the reference): the same option features, heuristic margins, scoring
decisions and leaves, so the same decisions over whole games.

The kernels do the Python code's operations in the same order (a port, not a batched
reformulation), so features and margins are compared exactly: a last-bit difference would
let a decision flip on a tie."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent, CardHeuristicWeights
from carcassonne_rl.agents.card.heuristic_kernels import heuristic_margins_of, scoring_code_of
from carcassonne_rl.agents.card.search import CardSearchAgent
from carcassonne_rl.agents.card.search_kernels import BatchedRollouts
from carcassonne_rl.agents.card.value import CardSearchValueAgent, load_card_net
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.agents.pretrained import pretrained_path
from carcassonne_rl.encoders.features.card import option_features
from carcassonne_rl.encoders.features.card_options import option_features_of
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view
from carcassonne_rl.games.cardcassonne import batch_kernels as K
from carcassonne_rl.games.cardcassonne.batch import pack_state, rules_params
from carcassonne_rl.games.cardcassonne.batch_layout import O_SCORES


def _positions(players: int, seed: int, every: int = 1) -> list:
    """States of a game between random and heuristic seats, every ``every``-th decision."""
    state = new_game(GameConfig(players, seed))
    agents = [make_agent("random" if q % 2 else "heuristic", "cardcassonne", seed=seed + q)
              for q in range(players)]  # fmt: skip
    out = []
    while not state.is_over:
        if len(out) < 10_000 and (state.history and len(state.history) % every == 0):
            out.append(state.clone())
        state.apply_code(agents[state.current_player].act(state, state.current_player))
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_option_kernel_writes_the_python_features(players: int) -> None:
    turns = [s for s in _positions(players, 3 + players) if s.phase == "turn"]
    assert len(turns) > 50
    for s in turns:
        p, codes = s.current_player, s.legal_codes()
        got = option_features_of(s, p, codes)
        assert np.array_equal(got, option_features(view(s, p), codes))


def test_the_option_kernel_names_a_seat_without_a_turn() -> None:
    s = new_game(GameConfig(2, 1))
    with pytest.raises(ValueError, match="no turn decision"):
        option_features_of(s, 1 - s.current_player, s.legal_codes())


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_heuristic_kernels_project_and_score_as_the_heuristic(players: int) -> None:
    weights = CardHeuristicWeights()
    heuristic = CardHeuristicAgent(0)
    scoring = 0
    for s in _positions(players, 20 + players):
        p, codes = s.current_player, s.legal_codes()
        if s.phase == "turn":
            want = [m for _, m in heuristic.scored(view(s, p), codes)]
            assert heuristic_margins_of(s, codes, weights) == want
        elif s.phase in ("assign_animal_joker", "misplaced_card") and len(codes) > 1:
            scoring += 1
            assert scoring_code_of(s, weights) == heuristic.act(s, p)
    assert scoring > 0


def test_a_packed_state_plays_on_as_the_engine() -> None:
    """A packed world (hidden cards redrawn, the pile's dealt part unknown) plays on in the
    batched engine as the Python engine plays it: legal codes and scores at every step."""
    rng = random.Random(0)
    checked = 0
    for players in (2, 3, 4):
        for s in _positions(players, players, every=17):
            world = s.resample_hidden(rng, s.current_player) if s.phase == "turn" else s.clone()
            g = pack_state(world)
            params = rules_params(GameConfig(players))
            mask = np.zeros(206, np.int8)
            while not world.is_over:
                K.write_mask(g, mask)
                codes = world.legal_codes()
                assert np.flatnonzero(mask).tolist() == codes
                code = codes[rng.randrange(len(codes))]
                world.apply_code(code)
                K.apply_code(g, params, code)
                assert g[O_SCORES : O_SCORES + players].tolist() == world.scores.tolist()
            checked += 1
    assert checked > 20


def _twins(spec: str | None, seed: int, net: MLP | None = None) -> tuple:
    """The search ``spec`` (or a default search over ``net``) twice: compiled, reference."""
    if spec is None:
        return tuple(CardSearchAgent(lambda s: CardSearchValueAgent(net, s), 3, seed, 3,
                                     batched=b, future="table") for b in (True, False))  # fmt: skip
    new, old = make_agent(spec, "cardcassonne", seed=seed), make_agent(spec, "cardcassonne",
                                                                      seed=seed)  # fmt: skip
    old.batched = False
    return new, old


def _same_game(players: int, seed: int, spec: str | None, net: MLP | None = None) -> int:
    """Plays a game whose seat 0 is the search (its reference decides the moves), the others
    ``pretrained``; asserts the compiled search decides alike; returns the searched count."""
    new, old = _twins(spec, seed, net)
    assert new._batched_rollouts() is not None
    others = [make_agent("pretrained", "cardcassonne", seed=seed + q) for q in range(players)]
    state = new_game(GameConfig(players, seed))
    searched = 0
    while not state.is_over:
        p = state.current_player
        if p == 0:
            a, b = old.act(state, p), new.act(state, p)
            assert a == b, (players, seed, spec, len(state.history))
            if old.last_values and state.phase == "turn":
                searched += 1
                assert new.last_values.keys() == old.last_values.keys()
                for c, v in old.last_values.items():
                    assert new.last_values[c] == pytest.approx(v, abs=1e-9)
            old.last_values = new.last_values = {}
        else:
            a = others[p].act(state, p)
        state.apply_code(a)
    return searched


@pytest.mark.parametrize(
    ("players", "spec"),
    [(2, "pretrained:search=3:3"), (3, "pretrained:search=3:3"),
     (2, "pretrained:search=2:2:2:0.5"), (4, "pretrained:search=2:3:1:net"),
     (2, "heuristic:search=4:3:1:0"), (3, "heuristic:search=3:3:2:1")],
)  # fmt: skip
def test_the_compiled_rollouts_decide_as_the_python_rollouts(players: int, spec: str) -> None:
    assert _same_game(players, 40 + players, spec) > 15


def test_tied_network_values_are_broken_by_the_seats_generators_alike() -> None:
    """A network valuing every option 0: every rollout decision is a tie, broken by the
    rollout seat's reseeded generator in both implementations."""
    net = load_card_net(pretrained_path("cardcassonne"))
    flat = MLP([(np.zeros_like(w), np.zeros_like(b)) for w, b in net.layers], net.meta)
    assert _same_game(2, 7, None, flat) > 15


def test_base_policies_the_kernels_do_not_play_keep_the_python_rollouts() -> None:
    net = load_card_net(pretrained_path("cardcassonne"))

    def best_rule(seed: int | None) -> CardSearchValueAgent:
        agent = CardSearchValueAgent(net, seed)
        agent.heuristic = CardHeuristicAgent(seed, misplaced="best")
        return agent

    class OwnRollouts(CardSearchAgent):
        def _rollout(self, s, seed: int, me: int, future: float | None) -> None:
            super()._rollout(s, seed, me, future)

    assert CardSearchAgent(best_rule, 2, 0)._batched_rollouts() is None
    assert CardSearchAgent(lambda s: CardHeuristicAgent(s, misplaced="best"), 2,
                           0)._batched_rollouts() is None  # fmt: skip
    assert OwnRollouts(CardHeuristicAgent, 2, 0)._batched_rollouts() is None
    for spec in ("pretrained:search", "heuristic:search"):
        agent = make_agent(spec, "cardcassonne", seed=0)
        assert isinstance(agent._batched_rollouts(), BatchedRollouts)


@pytest.mark.parametrize("spec", ["pretrained:search", "heuristic:search"])
def test_the_root_is_ranked_by_the_base_policys_scores(spec: str) -> None:
    """The compiled scores of the searcher's options (its candidates' ranking) are the base
    policy's ``scored`` values, read from any world of the seat's view."""
    agent = make_agent(spec, "cardcassonne", seed=0)
    kernel = agent._batched_rollouts()
    rng = random.Random(1)
    turns = [s for s in _positions(3, 9) if s.phase == "turn"]
    for s in turns[::3]:
        p, codes = s.current_player, s.legal_codes()
        want = [value for _, value in agent.base.scored(view(s, p), codes)]
        assert kernel.scored(s.resample_hidden(rng, p), p, codes) == want
