"""The card game's measuring instruments: ``cheat-mcts`` and ``cheat:SEARCH`` read the true
hands (by design),
``exploit:N:TARGET`` lets the frozen target play the other seats of worlds drawn from its own
view (the twin test of tests/agents/test_agent_information.py covers it too)."""

from __future__ import annotations

import random

import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.agents.card.probes import ExploitAgent, reshuffled_pile
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.games.cardcassonne import GameConfig, determinize, new_game, view
from carcassonne_rl.games.cardcassonne.table import FACE_DOWN


def _turn_positions(players: int, seed: int, count: int) -> list:
    """``count`` turn-phase states of a random game with at least 3 legal moves."""
    state = new_game(GameConfig(players, seed))
    rng = random.Random(seed)
    out = []
    while not state.is_over and len(out) < count:
        codes = state.legal_codes()
        if state.phase == "turn" and len(codes) >= 3 and rng.random() < 0.3:
            out.append(state.clone())
        state.apply_code(codes[rng.randrange(len(codes))])
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_probes_finish_games_with_legal_moves(players: int) -> None:
    seats = ("exploit:6:greedy", "cheat-mcts:6", "cheat:pretrained:search=2:2", "greedy")[:players]
    job = Job(Setup("cardcassonne", players), seats, seats, 3, 0, 0, agent_seed=3)
    res = play_game(job, warm=False)  # the engine rejects an illegal code
    assert len(res.scores) == players and res.winners
    assert all(d > 0 for d in res.decisions)


class SpyTarget(BaseAgent):
    """Greedy, recording the states and seats it is asked about."""

    def __init__(self) -> None:
        super().__init__(0)
        self.inner = make_agent("greedy", "cardcassonne")
        self.calls: list[tuple[bool, int, int]] = []

    def act(self, state, player: int) -> int:
        code = self.inner.act(state, player)
        self.calls.append((state.replayable, player, state.current_player))
        return code


def test_the_exploiter_asks_the_target_for_the_other_seats_on_sampled_worlds() -> None:
    for state in _turn_positions(3, 4, 3):
        me = state.current_player
        spy = SpyTarget()
        ExploitAgent(spy, simulations=25, seed=1).act(state, me)
        assert len(spy.calls) >= 25  # each simulation plays the others to the round's end
        for replayable, seat, mover in spy.calls:
            assert seat == mover and seat != me  # only the other seats, each as itself
            assert not replayable  # a determinized world, never the true game


def test_cheat_mcts_reads_the_true_hands() -> None:
    positions = _turn_positions(2, 7, 10)
    changed = 0
    for i, state in enumerate(positions):
        p = state.current_player
        twin = determinize(state, p, random.Random(i))  # same view, other hidden cards
        assert view(twin, p) == view(state, p) and twin.hands != state.hands
        a = make_agent("cheat-mcts:60", "cardcassonne", seed=i).act(state, p)
        b = make_agent("cheat-mcts:60", "cardcassonne", seed=i).act(twin, p)
        changed += a != b
    assert changed >= 2, "cheat-mcts should follow the hidden cards it reads"


def test_the_cheater_reshuffles_only_the_pile() -> None:
    state = _turn_positions(3, 2, 1)[0]
    order = list(state.card_order)
    worlds = [reshuffled_pile(state, random.Random(k)) for k in range(4)]
    for w in worlds:
        assert w.hands == state.hands and w.rows == state.rows  # true hands and table
        assert sorted(w.deck_cards()) == sorted(state.deck_cards())
        w.apply_code(w.legal_codes()[0])
    assert len({tuple(w.deck_cards()) for w in worlds}) > 1  # the pile order is not read
    assert state.card_order == order  # the true game is untouched


def test_cheat_search_reads_the_true_hands_and_the_search_does_not() -> None:
    """``cheat:SEARCH`` values its candidates on the true hands (the pile reshuffled), so its
    values move with hidden cards its seat cannot see; ``SEARCH`` itself, same seed, values
    the same view the same."""
    from carcassonne_rl.agents.card.probes import CheatingCardSearchAgent

    moved = 0
    for i, state in enumerate(_turn_positions(2, 9, 8)):
        p = state.current_player
        twin = determinize(state, p, random.Random(i))
        assert view(twin, p) == view(state, p) and twin.hands != state.hands
        values = {}
        for spec in ("heuristic:search=3:3", "cheat:heuristic:search=3:3"):
            runs = []
            for s in (state, twin):
                agent = make_agent(spec, "cardcassonne", seed=i)
                agent.act(s, p)
                runs.append(agent.last_values)
            values[spec] = runs
        plain, cheat = values["heuristic:search=3:3"], values["cheat:heuristic:search=3:3"]
        assert plain[0] == plain[1]  # the seat's view only
        moved += cheat[0] != cheat[1]
        agent = make_agent("cheat:heuristic:search=3:3", "cardcassonne", seed=i)
        assert isinstance(agent, CheatingCardSearchAgent)
        assert (agent.worlds, agent.candidates, agent.horizon, agent.future) == (3, 3, 1, 1.0)
    assert moved >= 4, "cheat:SEARCH should follow the hidden cards it reads"


def test_cheat_search_takes_a_card_search_only() -> None:
    for bad in ("cheat:greedy", "cheat:", "cheat:mcts:20", "cheat:pretrained:search=0"):
        with pytest.raises(ValueError, match="bad spec 'cheat:"):
            make_agent(bad, "cardcassonne")
    with pytest.raises(ValueError, match="card game"):
        make_agent("cheat:heuristic:search", "carcassonne")
    agent = make_agent("cheat:pretrained:search=2:2:1:1@cardcassonne_dmc.npz", "cardcassonne")
    assert agent.name == "cheat:pretrained:search=2:2:1:1@cardcassonne_dmc.npz"
    assert agent.future == 1.0


def _hidden(state, me: int) -> list[int]:
    """The kinds hidden from seat ``me``: the pile, the other hands and face-down cards."""
    start = len(state.card_order) - state.deck_size
    out = list(state.card_order[start:])
    for q in range(state.n):
        if q != me:
            out += [k for k, c in enumerate(state.hands[q]) for _ in range(c)]
    out += [e & 31 for row in state.rows for e in row if e >= FACE_DOWN and (e >> 5) - 1 != me]
    return sorted(out)


@pytest.mark.parametrize("players", [2, 3])
def test_a_cheat_told_a_share_keeps_that_share_of_the_hidden_cards(players: int) -> None:
    """``cheat(SEARCH, told=P)``: every world shows the seat its true view and holds the same
    hidden cards; the kept ones are the true ones, and the share of the other hands a world
    gets right grows from the uniform draw's (``told=0``, as ``determinize``'s) to all."""
    right = {0.0: [0, 0], 0.5: [0, 0], 1.0: [0, 0]}
    uniform = [0, 0]
    for i, state in enumerate(_turn_positions(players, 11, 12)):
        me = state.current_player
        for told in right:
            agent = make_agent(
                f"cheat(search(base=heuristic, worlds=2, candidates=2), told={told})",
                "cardcassonne",
                i,
            )
            agent._state = state
            worlds, seeds = agent.sample_worlds(view(state, me), me)
            assert len(worlds) == len(seeds) == 2
            for w in worlds:
                assert view(w, me) == view(state, me)
                assert _hidden(w, me) == _hidden(state, me)
                for q in range(players):
                    if q != me:
                        right[told][0] += sum(map(min, w.hands[q], state.hands[q]))
                        right[told][1] += state.hand_size[q]
        for k in range(8):
            w = determinize(state, me, random.Random(100 * i + k))
            for q in range(players):
                if q != me:
                    uniform[0] += sum(map(min, w.hands[q], state.hands[q]))
                    uniform[1] += state.hand_size[q]
    share = {t: a / b for t, (a, b) in right.items()}
    assert share[1.0] == 1.0
    assert share[0.0] < 0.45 and abs(share[0.0] - uniform[0] / uniform[1]) < 0.12
    assert share[0.0] + 0.15 < share[0.5] < 0.9


def test_told_must_be_a_share() -> None:
    for bad in ("1.5", "-0.1", "half"):
        with pytest.raises(ValueError, match="told"):
            make_agent(f"cheat(card-search-v1, told={bad})", "cardcassonne")
