"""Card inference (``search(infer=...)``): the round's moves read from the seat's views, the
likelihood of the other seat's play, the degenerate weights' fallback and the twin test."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.inference import (
    TABLE_TEMPERATURE,
    TEMPERATURE,
    TOP_EPS,
    TOP_TEMPERATURE,
    InferenceSearchAgent,
    Move,
    RoundLog,
    ess,
    heuristic_values,
    log_choice,
    log_likelihood,
    resample,
    tempered,
    turn_moves,
    undo,
    with_inference,
)
from carcassonne_rl.agents.card.inference_draw import DRAWS, draw_distinct
from carcassonne_rl.agents.card.search import CardSearchAgent
from carcassonne_rl.games.cardcassonne import determinize, new_game, redeal_unseen, view
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, PLAY_UP
from carcassonne_rl.games.cardcassonne.config import GameConfig

CARD = "cardcassonne"
SMALL = "search(base=heuristic, worlds=2, candidates=2, infer=heuristic)"


def heuristic_game(seed: int, players: int = 2):
    """A game of heuristic seats: (state, agents)."""
    return new_game(GameConfig(players=players, seed=seed)), [
        CardHeuristicAgent(q) for q in range(players)
    ]


@pytest.mark.parametrize("seed", [0, 1])
def test_round_log_undoes_the_true_moves(seed):
    """The moves a seat reads from its views, taken back, are the game's last moves."""
    s, agents = heuristic_game(seed)
    logs = [RoundLog(), RoundLog()]
    checked = evidence = 0
    while not s.is_over:
        p = s.current_player
        logs[p].observe(view(s, p))
        logs[p].observe(view(s, p))  # the same decision seen twice: nothing new
        moves = logs[p].moves
        if s.phase == "turn" and moves:
            w = s.clone()
            codes = [undo(w, m) for m in reversed(moves)][::-1]
            assert codes == s.history[-len(moves) :]
            checked += 1
            evidence += sum(m.seat != p for m in moves)
        s.apply_code(agents[p].act(s, p))
    assert checked > 50 and evidence > checked


@pytest.mark.parametrize("players", [2, 3, 5])
def test_turn_moves_undo_the_true_moves(players):
    """The round's moves read from the view's turn log (every table size), taken back, are
    the game's last moves, and the wound-back world shows the view of the round's start."""
    s, agents = heuristic_game(players, players=players)
    checked = evidence = 0
    while not s.is_over:
        p = s.current_player
        if s.phase == "turn":
            moves = turn_moves(view(s, p))
            w = s.clone()
            codes = [undo(w, m) for m in reversed(moves)][::-1]
            assert codes == s.history[len(s.history) - len(moves) :]
            assert w.turns == [] and w.last_follower == -1 and not any(w.played)
            checked += bool(moves)
            evidence += sum(m.seat != p for m in moves)
        s.apply_code(agents[p].act(s, p))
    assert checked > 50 and evidence > checked


def test_round_log_reads_the_turn_log_or_its_end():
    """At 2 players the moves the ``RoundLog`` reads from the seat's views are the turn log's,
    or its last ones (the other seat's first move skipped when two rows end in its face-down
    cards): both evidence readings see the same moves but for that."""
    whole = part = 0
    for seed in range(6):
        s, agents = heuristic_game(seed)
        logs = [RoundLog(), RoundLog()]
        while not s.is_over:
            p = s.current_player
            v = view(s, p)
            logs[p].observe(v)
            if s.phase == "turn":
                read, log = logs[p].moves if logs[p].round == v.round else [], turn_moves(v)
                assert read == log[len(log) - len(read) :]
                whole += read == log
                part += read != log
            s.apply_code(agents[p].act(s, p))
    assert whole > 500 and part < whole / 20


def test_round_log_is_off_at_three_players():
    s, agents = heuristic_game(2, players=3)
    log = RoundLog()
    while s.round < 2:
        if s.current_player == 0:
            log.observe(view(s, 0))
            assert log.moves == []
        s.apply_code(agents[s.current_player].act(s, s.current_player))


def _swap(s, seat: int, out: int, into: int):
    """``s`` with one ``out`` of ``seat``'s hand exchanged for an ``into`` of the pile."""
    t = s.clone()
    t.card_order = list(t.card_order)  # clones share the pile order
    pos = t.card_order.index(into, t.deck_pos)
    t.card_order[pos] = out
    t.hands[seat][out] -= 1
    t.hands[seat][into] += 1
    return t


def test_likelihood_prefers_the_world_where_the_best_play_was_made():
    """Seat 1 played its heuristic-best face-up card. A world where it also held a card whose
    play would have been far better (and skipped it) is less likely than the true one."""
    values, temp = heuristic_values(), TEMPERATURE["heuristic"]
    h = CardHeuristicAgent(0)
    for seed in range(20):
        s, agents = heuristic_game(seed)
        while not s.is_over:
            p = s.current_player
            if p == 1 and s.phase == "turn" and s.played[1] and s.hand_size[1] > 1:
                break
            s.apply_code(agents[p].act(s, p))
        else:
            continue
        before = s.clone()
        legal = s.legal_codes()
        scored = dict(h.scored(view(s, 1), legal))
        best = max(legal, key=scored.get)
        if not PLAY_UP <= best < FOLLOWER:  # a card, face up
            continue
        played = ((best - PLAY_UP) >> 2, (best - PLAY_UP) & 3)
        last = s.last_follower
        s.apply_code(best)
        if s.current_player != 0:
            continue
        pile = set(s.card_order[s.deck_pos :])
        held = [k for k, c in enumerate(s.hands[1]) if c]
        for into in sorted(pile):
            for out in held:
                if out == into:
                    continue
                alt = _swap(before, 1, out, into)
                alt_legal = alt.legal_codes()
                alt_scores = dict(h.scored(view(alt, 1), alt_legal))
                skipped = max(alt_scores.values())
                if best not in alt_scores or skipped < alt_scores[best] + 10:
                    continue
                world = _swap(s, 1, out, into)
                assert view(world, 0) == view(s, 0)  # both fit seat 0's view
                moves = [Move(1, played[1], last)]
                hands = [list(h) for h in s.hands]
                true_ll = log_likelihood(s, moves, 0, values, temp)
                skip_ll = log_likelihood(world, moves, 0, values, temp)
                assert true_ll > skip_ll + 1.0
                assert s.hands == hands  # the world is not changed
                return
    pytest.fail("no position with an obviously better skipped play found")


def test_log_choice_among_the_best():
    """With ``top`` the choice is among the ``top`` best options (ties counted in) with
    probability ``1 - eps``, else uniform over the others."""
    values = np.array([3.0, 1.0, 2.0, 2.0, -5.0])
    assert log_choice(values, 0, 2.0) == pytest.approx(1.5 - np.log(np.exp(values / 2).sum()))
    inside = np.exp(np.array([3.0, 2.0, 2.0]) / 2.0)
    for i, x in ((0, 3.0), (2, 2.0), (3, 2.0)):  # the 2 best, with the tie: 3 options
        expect = np.log(0.9) + x / 2 - np.log(inside.sum())
        assert log_choice(values, i, 2.0, top=2, eps=0.1) == pytest.approx(expect)
    assert log_choice(values, 1, 2.0, top=2, eps=0.1) == pytest.approx(np.log(0.05))
    assert log_choice(values, 4, 2.0, top=2) == -np.inf
    assert log_choice(values, 4, 2.0, top=5, eps=0.1) == pytest.approx(log_choice(values, 4, 2.0))


def test_degenerate_weights_are_tempered():
    log_w = np.array([0.0] + [-500.0] * 15)
    assert ess(np.exp(log_w)) < 1.01
    weights, power = tempered(log_w, 4.0)
    assert 0.0 < power < 1.0 and ess(weights) >= 4.0 - 1e-6
    picks = resample(weights, 8, random.Random(0))
    assert len(set(picks)) >= 3
    flat, power = tempered(np.zeros(16), 4.0)
    assert power == 1.0 and np.allclose(flat, 1 / 16)
    uniform, power = tempered(np.full(5, -np.inf), 2.0)
    assert power == 0.0 and np.allclose(uniform, 0.2)
    weights, _ = tempered(np.array([0.0, -np.inf, 0.0, -1.0]), 1.0)
    assert weights[1] == 0.0 and abs(weights.sum() - 1) < 1e-12
    assert sorted(set(resample(np.array([0.0, 1.0, 0.0]), 4, random.Random(1)))) == [1]


def _to_decision(seed: int, round_: int):
    """A heuristic game stopped at seat 0's third turn decision of round ``round_``."""
    s, agents = heuristic_game(seed)
    seen = 0
    while True:
        p = s.current_player
        if p == 0 and s.phase == "turn" and s.round == round_:
            seen += 1
            if seen == 3:
                return s
        s.apply_code(agents[p].act(s, p))


def test_distinct_draw_has_no_repeats_and_follows_the_weights():
    """``draw_distinct``: ``count`` different indices, zero weights last; one draw of one
    index is a draw from the weights (the Gumbel-max trick), checked by its frequencies."""
    weights = np.array([0.5, 0.0, 0.2, 0.3, 0.0])
    picks = draw_distinct(weights, 3, random.Random(0))
    assert sorted(picks) == [0, 2, 3]
    assert draw_distinct(weights, 5, random.Random(1))[3:] == [1, 4]
    rng = random.Random(2)
    counts = np.bincount([draw_distinct(weights, 1, rng)[0] for _ in range(4000)], minlength=5)
    assert counts[1] == counts[4] == 0
    assert np.abs(counts / 4000 - weights).max() < 0.03
    assert set(DRAWS) == {"resample", "distinct"} and DRAWS["resample"] is resample


def test_distinct_draw_searches_different_worlds():
    """``draw="distinct"``: the worlds searched at a decision with evidence are different
    candidates (resampling repeats some); another draw is one clear error."""
    state = _to_decision(3, 2)
    agents = {}
    for draw in ("resample", "distinct"):
        search = make_agent("search(base=heuristic, worlds=8, candidates=2, infer=heuristic)",
                            CARD, seed=5)  # fmt: skip
        agents[draw] = agent = with_inference(search, "heuristic", 2, draw)
        assert isinstance(agent, InferenceSearchAgent) and agent.draw == draw
        s, counts = new_game(state.config, state.card_order), []
        for code in state.history:
            if s.current_player == 0:
                agent.act(s, 0)
                worlds = agent.draw_worlds(view(s, 0), 0)
                if agent.last_inference["evidence"]:
                    counts.append(len({id(w) for w in worlds}))
            s.apply_code(code)
        assert len(counts) >= 5
        if draw == "distinct":
            assert counts == [8] * len(counts)
        else:
            assert min(counts) < 8
    with pytest.raises(ValueError, match=r"the draw must be one of resample, distinct"):
        InferenceSearchAgent(agents["resample"].base_factory, model="heuristic", draw="often")


@pytest.mark.parametrize("spec", [SMALL, "card-search-v2", "card-search-v3"])
def test_twin_same_decisions_from_the_same_views(spec):
    """Hidden cards redrawn (the other hand, its face-down cards, the pile), the seat's views
    unchanged: the inference search (and the pinned one) decides the same at each of its
    decisions."""
    state = _to_decision(3, 2)
    twin = redeal_unseen(state, 0, random.Random(11))
    assert twin.hands[1] != state.hands[1] and view(twin, 0) == view(state, 0)
    a, b = make_agent(spec, CARD, seed=5), make_agent(spec, CARD, seed=5)
    assert isinstance(a, InferenceSearchAgent)
    s, t = new_game(state.config, state.card_order), new_game(twin.config, twin.card_order)
    evidence = 0
    for x, y in zip(state.history, twin.history, strict=True):
        if s.current_player == 0:
            assert view(s, 0) == view(t, 0)
            assert a.act(s, 0) == b.act(t, 0)
            assert a.last_inference == b.last_inference
            evidence += a.last_inference.get("evidence", 0) > 0
        s.apply_code(x)
        t.apply_code(y)
    assert a.act(s, 0) == b.act(t, 0)
    assert evidence >= 2


def test_plain_search_without_evidence_and_at_three_players():
    """Without the other seat's moves to read (3 players) it is the plain search."""
    s, agents = heuristic_game(4, players=3)
    a = make_agent(SMALL, CARD, seed=2)
    b = make_agent("search(base=heuristic, worlds=2, candidates=2)", CARD, seed=2)
    assert not isinstance(b, InferenceSearchAgent) and isinstance(b, CardSearchAgent)
    for _ in range(20):
        p = s.current_player
        if p == 0:
            assert a.act(s, 0) == b.act(s, 0)
        s.apply_code(agents[p].act(s, p))


@pytest.mark.parametrize("players", [3, 5])
def test_turn_evidence_at_larger_tables(players):
    """``evidence=turns`` reads every other seat's moves at 3-5 players: compiled weights equal
    to the Python reference's at the table size's fitted temperature, decisions that differ
    from the plain search's somewhere, and the same decisions when the hidden cards are
    redrawn (the twin test)."""
    spec = "search(base=heuristic, worlds=2, candidates=2, infer=heuristic, evidence=turns)"
    a = make_agent(spec, CARD, seed=3)
    assert isinstance(a, InferenceSearchAgent) and a.evidence == "turns"
    t = TABLE_TEMPERATURE["heuristic"][players]
    s, agents = heuristic_game(11, players=players)
    rng, checked = random.Random(1), 0
    while s.round < 2:
        p = s.current_player
        v = view(s, p)
        moves = turn_moves(v) if s.phase == "turn" else []
        if p == 0 and sum(m.seat != 0 for m in moves) >= 2 and checked < 4:
            pool = [determinize(v, 0, rng) for _ in range(4)]
            ref = np.array([log_likelihood(w, moves, 0, a.values, t) for w in pool])
            assert np.isfinite(ref).all() and ref.min() < -0.5
            np.testing.assert_allclose(a.log_weights(pool, moves, 0), ref, rtol=1e-9, atol=1e-9)
            checked += 1
        s.apply_code(agents[p].act(s, p))
    assert checked == 4

    state = s
    twin = redeal_unseen(state, 0, random.Random(5))
    assert twin.hands[1] != state.hands[1] and view(twin, 0) == view(state, 0)
    a, b = make_agent(spec, CARD, seed=5), make_agent(spec, CARD, seed=5)
    plain = make_agent("search(base=heuristic, worlds=2, candidates=2)", CARD, seed=5)
    s, t = new_game(state.config, state.card_order), new_game(twin.config, twin.card_order)
    evidence, same_as_plain = 0, []
    for x, y in zip(state.history, twin.history, strict=True):
        if s.current_player == 0 and s.phase == "turn":
            got = a.act(s, 0)
            assert got == b.act(t, 0) and a.last_inference == b.last_inference
            evidence += a.last_inference.get("evidence", 0) > 0
            same_as_plain.append(got == plain.act(s, 0))
        s.apply_code(x)
        t.apply_code(y)
    assert evidence >= 3 and False in same_as_plain


def test_infer_key():
    agent = make_agent("search(infer=policy)", CARD)
    assert isinstance(agent, InferenceSearchAgent) and agent.model == "policy"
    assert agent.temperature == TEMPERATURE["policy"]
    assert not isinstance(make_agent("search(infer=none)", CARD), InferenceSearchAgent)
    with pytest.raises(ValueError, match=r"infer=bogus is not none, policy or heuristic"):
        make_agent("search(infer=bogus)", CARD)
    with pytest.raises(ValueError, match="inference model must be one of"):
        InferenceSearchAgent(CardHeuristicAgent, model="bogus")
    top = InferenceSearchAgent(CardHeuristicAgent, model="heuristic", top=3)
    assert top.temperature == TOP_TEMPERATURE["heuristic"] and top.eps == TOP_EPS
    with pytest.raises(ValueError, match="top must be >= 0"):
        InferenceSearchAgent(CardHeuristicAgent, model="heuristic", top=-1)


def _evidence_positions(seed: int, every: int = 3):
    """Seat 0's turn decisions of a heuristic game with the other seat's moves to read:
    (state, its view, the round's moves), every ``every``-th of them."""
    s, agents = heuristic_game(seed)
    log, out, seen = RoundLog(), [], 0
    while not s.is_over:
        p = s.current_player
        if p == 0:
            v = view(s, 0)
            log.observe(v)
            if s.phase == "turn" and log.round == v.round and any(m.seat for m in log.moves):
                seen += 1
                if seen % every == 0:
                    out.append((s.clone(), v, list(log.moves)))
        s.apply_code(agents[p].act(s, p))
    return out


@pytest.mark.parametrize(
    ("spec", "top"),
    [
        ("search(infer=heuristic)", 0),
        ("search(infer=heuristic)", 3),
        ("search(infer=policy)", 0),
        ("search(infer=policy)", 2),
        ("search(base=heuristic, infer=policy)", 0),
    ],
)
def test_compiled_likelihood_matches_the_python_one(spec, top):
    """The kernels' log-likelihood of every candidate world (``log_weights``) is the Python
    reference's (``log_likelihood`` with the model's values: the heuristic's margins, the
    search-value network's values, the base heuristic's margins; over every option or the
    ``top`` best) to float tolerance, and the worlds are not changed."""
    a = make_agent(spec, CARD, seed=0)
    assert isinstance(a, InferenceSearchAgent) and a.batched
    a.top = top
    rng = random.Random(3)
    checked = 0
    for seed in (0, 1):
        for _, v, moves in _evidence_positions(seed, every=3 if "heuristic)" in spec else 6):
            pool = [determinize(v, 0, rng) for _ in range(6)]
            before = [(w.hands, w.rows) for w in pool]
            ref = np.array([log_likelihood(w, moves, 0, a.values, a.temperature, top, a.eps)
                            for w in pool])  # fmt: skip
            got = a.log_weights(pool, moves, 0)
            assert [(w.hands, w.rows) for w in pool] == before
            assert np.isfinite(ref).all() and ref.min() < -0.5
            np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)
            checked += 1
    assert checked >= 10


def test_compiled_and_python_inference_decide_the_same():
    """Over whole games against the heuristic, the inference search with its likelihoods and
    rollouts compiled makes the Python reference's (``batched=False``) decisions."""
    spec = "search(base=heuristic, worlds=4, candidates=2, infer=heuristic)"
    for seed in (6, 7):
        s, agents = heuristic_game(seed)
        a, b = make_agent(spec, CARD, seed=seed), make_agent(spec, CARD, seed=seed)
        assert isinstance(a, InferenceSearchAgent) and isinstance(b, InferenceSearchAgent)
        b.batched = False
        evidence = 0
        while not s.is_over:
            p = s.current_player
            if p == 0:
                code = a.act(s, 0)
                assert b.act(s, 0) == code
                ia, ib = a.last_inference, b.last_inference
                assert ia.keys() == ib.keys()
                assert all(abs(ia[k] - ib[k]) < 1e-6 for k in ia)
                evidence += ia.get("evidence", 0) > 0
            else:
                code = agents[p].act(s, p)
            s.apply_code(code)
        assert evidence > 20


def test_pool_key_sets_the_candidate_worlds():
    """``pool=P``: P candidate worlds drawn per world searched at a decision with evidence;
    ``pool`` without ``infer`` is one clear error."""
    state = _to_decision(3, 2)
    for pool in (1, 2, 3):
        agent = make_agent(SMALL.replace(")", f", pool={pool})"), CARD, seed=5)
        assert isinstance(agent, InferenceSearchAgent) and agent.factor == pool
        s = new_game(state.config, state.card_order)
        for code in state.history:
            if s.current_player == 0:
                agent.act(s, 0)
            s.apply_code(code)
        agent.act(s, 0)
        assert agent.last_inference["evidence"] > 0
        assert agent.last_inference["candidates"] == 2 * pool  # worlds=2
    assert make_agent(SMALL, CARD).factor == 2
    with pytest.raises(ValueError, match=r"pool= needs infer=policy or infer=heuristic"):
        make_agent("search(base=heuristic, pool=3)", CARD)
    with pytest.raises(ValueError, match=r"pool=0 is not int >= 1"):
        make_agent("search(infer=heuristic, pool=0)", CARD)
    with pytest.raises(ValueError, match=r"evidence= needs infer=policy or infer=heuristic"):
        make_agent("search(evidence=turns)", CARD)
    with pytest.raises(ValueError, match=r"evidence=log is not views or turns"):
        make_agent("search(infer=heuristic, evidence=log)", CARD)
    assert make_agent("search(infer=heuristic)", CARD).evidence == "views"


def test_card_search_v2_is_its_spec():
    """The pinned ``card-search-v2`` decides as ``search(infer=heuristic, pool=3)`` (and
    differs from ``card-search-v1`` somewhere in a game with evidence to read)."""
    from carcassonne_rl.agents import registry

    assert (
        registry.resolution("search(infer=heuristic, pool=3)", CARD)["pinned"] == "card-search-v2"
    )
    state = _to_decision(5, 3)
    pinned = make_agent("card-search-v2", CARD, seed=4)
    spec = make_agent("search(infer=heuristic, pool=3)", CARD, seed=4)
    plain = make_agent("card-search-v1", CARD, seed=4)
    assert isinstance(pinned, InferenceSearchAgent) and (pinned.factor, pinned.model) == (
        3,
        "heuristic",
    )
    s = new_game(state.config, state.card_order)
    same_as_plain = []
    for code in [*state.history, None]:
        if s.current_player == 0 and not s.is_over:
            got = pinned.act(s, 0)
            assert got == spec.act(s, 0)
            same_as_plain.append(got == plain.act(s, 0))
        if code is not None:
            s.apply_code(code)
    assert len(same_as_plain) >= 10 and False in same_as_plain


def test_card_search_v3_is_its_spec_and_twin_at_three_players():
    """The pinned ``card-search-v3`` decides as ``search(infer=heuristic, pool=3,
    evidence=turns)``, differs from ``card-search-v1`` somewhere at 3 players, and decides the
    same with the hidden cards redrawn (the twin test)."""
    from carcassonne_rl.agents import registry

    spec = "search(infer=heuristic, pool=3, evidence=turns)"
    assert registry.resolution(spec, CARD)["pinned"] == "card-search-v3"
    s, agents = heuristic_game(8, players=3)
    while s.round < 2:
        s.apply_code(agents[s.current_player].act(s, s.current_player))
    twin = redeal_unseen(s, 0, random.Random(2))
    assert twin.hands[1] != s.hands[1] and view(twin, 0) == view(s, 0)
    pinned, named = make_agent("card-search-v3", CARD, seed=4), make_agent(spec, CARD, seed=4)
    twin_agent = make_agent("card-search-v3", CARD, seed=4)
    plain = make_agent("card-search-v1", CARD, seed=4)
    a, b = new_game(s.config, s.card_order), new_game(twin.config, twin.card_order)
    same_as_plain, evidence = [], 0
    for x, y in zip(s.history, twin.history, strict=True):
        if a.current_player == 0 and a.phase == "turn":
            got = pinned.act(a, 0)
            assert got == named.act(a, 0) == twin_agent.act(b, 0)
            evidence += pinned.last_inference.get("evidence", 0) > 0
            same_as_plain.append(got == plain.act(a, 0))
        a.apply_code(x)
        b.apply_code(y)
    assert evidence >= 3 and False in same_as_plain
