"""Every agent decides from its seat's view: the tile game's TileView (nothing of the undrawn
order in it, ``sample_world`` the engine's one redraw), the arena handing every tile seat a
view, and no built-in agent of either game receiving a full state in its decision."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.base import BaseAgent
from carcassonne_rl.arena import match
from carcassonne_rl.envs.random_agent import RandomAgent
from carcassonne_rl.games import cardcassonne
from carcassonne_rl.games.carcassonne import GameConfig, State, new_game
from carcassonne_rl.games.carcassonne.views import HIDDEN_ORDER, TileView, for_agent


def _mid_game(expansions: tuple[str, ...] = ("messages",), seed: int = 2) -> State:
    state = new_game(GameConfig(2, seed=seed, expansions=expansions))
    rng = random.Random(seed)
    while state.turn < 12 or state.phase != "place_tile":
        codes = state.legal_codes()
        state.apply_code(codes[rng.randrange(len(codes))])
    return state


def test_the_view_answers_what_the_table_sees() -> None:
    state = _mid_game()
    v = TileView(state, 1)
    assert v.player == 1 and v.current_player == state.current_player
    assert v.current_tile == state.current_tile and v.phase == state.phase
    assert v.legal_codes() == state.legal_codes()
    assert v.remaining_tiles() == state.remaining_tiles() and v.tiles_left == state.tiles_left
    assert v.scores.tolist() == state.scores.tolist()
    assert v.followers_left.tolist() == state.followers_left.tolist()
    assert v.placed_tiles() == state.placed_tiles()
    assert v.placed_followers() == state.placed_followers()
    assert v.messages_seen == state.messages_seen and v.discarded == state.discarded
    assert v.virtual_scores().tolist() == state.virtual_scores().tolist()
    assert v.history == state.history and v.config == state.config


def test_the_view_holds_nothing_of_the_undrawn_order() -> None:
    state = _mid_game()
    twin = state.resample_hidden(random.Random(9))  # the same table, another hidden order
    assert twin.draw_order != state.draw_order and twin.message_order != state.message_order
    a, b = TileView(state, 0), TileView(twin, 0)
    for x, y, true in zip(a.kernel_arrays(), b.kernel_arrays(), state.kernel_arrays(), strict=True):
        assert np.array_equal(x, y)  # nothing in the view depends on the hidden order
        assert not np.shares_memory(x, true) and not x.flags.writeable
    for name in ("draw_order", "message_order"):
        with pytest.raises(AttributeError, match="sample_world"):
            getattr(a, name)
    with pytest.raises(AttributeError, match="seat's view"):
        a.clone()  # the engine state's API is not there
    world = a.public_world()
    world.apply_code(world.legal_codes()[0])  # a copy: the view is unchanged
    assert a.legal_codes() == state.legal_codes()


def test_sample_world_is_the_engines_redraw() -> None:
    state = _mid_game()
    v = TileView(state, 0)
    worlds = [v.sample_world(random.Random(s)) for s in range(3)]
    for s, world in enumerate(worlds):
        same = state.resample_hidden(random.Random(s))
        assert world.draw_order == same.draw_order and world.message_order == same.message_order
        assert world.remaining_tiles() == state.remaining_tiles()
        assert world.legal_codes() == state.legal_codes()
    assert len({w.draw_order for w in worlds}) == 3


class _OldProtocolAgent:
    """A user's agent written against ``act(state, player)`` (no BaseAgent)."""

    name = "mine"

    def __init__(self, peek: bool) -> None:
        self.peek = peek
        self.seen: list[Any] = []

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, state: Any, player: int) -> int:
        self.seen.append(type(state))
        if self.peek:
            _ = state.draw_order
        codes = state.legal_action_codes()
        return int(codes[0]) if state.phase == "place_tile" else int(codes[-1])


def _job(specs: tuple[str, ...], game: str = "carcassonne", deal: int = 1) -> match.Job:
    setup = match.Setup(game, len(specs))
    return match.Job(setup, specs, specs, deal, 0, 0, agent_seed=5)


def _short_tile_games(monkeypatch: pytest.MonkeyPatch) -> None:
    def new_state(self: match.Setup, deal: int) -> Any:
        if self.game != "carcassonne":
            return match.registry.new_game(self.game, self.players, deal, self.expansions)
        return new_game(GameConfig(self.players, seed=deal), draw_order="EUVKLBJ")

    monkeypatch.setattr(match.Setup, "new_state", new_state)


def test_an_old_protocol_agent_gets_the_view_and_one_clear_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _short_tile_games(monkeypatch)
    honest, peeker = _OldProtocolAgent(False), _OldProtocolAgent(True)
    agents = iter([honest, make_agent("greedy", "carcassonne", 0)])
    monkeypatch.setattr(match, "make_agent", lambda *a, **k: next(agents))
    result = match.play_game(_job(("mine", "greedy")), warm=False)
    assert result.decisions[0] > 0 and set(honest.seen) == {TileView}
    agents = iter([peeker, make_agent("greedy", "carcassonne", 0)])
    with pytest.raises(AttributeError) as err:
        match.play_game(_job(("mine", "greedy")), warm=False)
    assert str(err.value) == HIDDEN_ORDER


# every built-in family of each game; the card probes that read the true state on purpose
# (``cheat-mcts``, ``cheat(...)``: measuring instruments) are the exceptions
TILE_SPECS = ["random", "greedy", "heuristic", "pretrained", "tile-net-v1", "pretrained-obs",
              "search(candidates=2, samples=1)", "blend(weight=0.6)", "mcts(sims=8)",
              "policy(model=carcassonne_2p)", "pretrained(sims=8)"]  # fmt: skip
CARD_SPECS = ["random", "greedy", "heuristic", "pretrained", "card-net-v1", "mcts(sims=8)",
              "search(worlds=2, candidates=2, horizon=1, leaf=net)",
              "search(base=heuristic, worlds=2, candidates=2, leaf=0)",
              "exploit(target=heuristic, sims=8)", "card-search-v2", "card-search-v3"]  # fmt: skip
VIEWS = {"carcassonne": TileView, "cardcassonne": cardcassonne.PlayerView}
FULL = {"carcassonne": State, "cardcassonne": cardcassonne.State}


@pytest.mark.parametrize(
    ("game", "spec"),
    [("carcassonne", s) for s in TILE_SPECS] + [("cardcassonne", s) for s in CARD_SPECS],
)
def test_no_built_in_agent_receives_a_full_state(
    game: str, spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arena's games with every agent watched: a tile seat is handed a TileView, and
    each agent's decision (``decide``) gets its seat's view, never the full state."""
    _short_tile_games(monkeypatch)
    calls: list[str] = []
    real_make = match.make_agent

    def watched(spec_: str, game_: str, seed: int | None = None) -> Any:
        agent = real_make(spec_, game_, seed=seed)
        # the only thing between the state and the decision is the base class's act
        assert type(agent).act in (BaseAgent.act, RandomAgent.act), type(agent)
        decide = agent.decide

        def checked(v: Any, legal: list[int]) -> int:
            assert isinstance(v, VIEWS[game_]) and not isinstance(v, FULL[game_])
            calls.append(type(v).__name__)
            return decide(v, legal)

        agent.decide = checked
        act = agent.act

        def handed(state: Any, player: int) -> int:
            if game_ == "carcassonne":
                assert isinstance(state, TileView), "a tile seat was handed the full state"
            return act(state, player)

        agent.act = handed
        return agent

    monkeypatch.setattr(match, "make_agent", watched)
    other = "random"
    result = match.play_game(_job((spec, other), game), warm=False)
    assert result.decisions[0] > 0 and len(calls) >= sum(result.decisions)


def test_for_agent_hands_tile_seats_a_view_only() -> None:
    state = new_game(GameConfig(2, seed=0))
    assert isinstance(for_agent(state, 1), TileView) and for_agent(state, 1).player == 1
    card = cardcassonne.new_game(cardcassonne.GameConfig(2, 0))
    assert for_agent(card, 0) is card  # card agents build their PlayerView themselves


#: the first 36 moves of a 3-player game (deal 5) as ``tile-search-v1`` played them; then
#: a tile drawn after one of its candidates fits nowhere, and which tile that is comes from
#: the pile
SEARCH_MOVES = [51845, 2, 52491, 2, 51199, 2, 53135, 1, 52492, 0, 51193, 1, 51839, 2, 52496, 2,
                51855, 1, 52482, 0, 52501, 4, 51210, 4, 52507, 1, 53145, 0, 51213, 2, 53129, 0,
                53791, 3, 51860, 2]  # fmt: skip


def test_tile_search_v1_reads_the_pile_and_v2_decides_from_the_view() -> None:
    """``tile-search-v1`` is kept as it played (handed the full state: its move here follows
    the true pile); ``tile-search-v2``, what ``pretrained:search`` is now, does not."""
    state = new_game(GameConfig(3, seed=5))
    for code in SEARCH_MOVES:
        state.apply_code(code)
    games = [state] + [state.resample_hidden(random.Random(k)) for k in range(2)]
    moves = {}
    for name in ("tile-search-v1", "tile-search-v2"):
        moves[name] = []
        for s in games:
            agent = make_agent(name, "carcassonne", seed=0)
            handed = for_agent(s, s.current_player, agent)
            assert isinstance(handed, State if name.endswith("v1") else TileView)
            moves[name].append(agent.act(handed, s.current_player))
    assert moves["tile-search-v1"] == [53777, 53776, 53776]
    assert moves["tile-search-v2"] == [53776, 53776, 53776]
    with pytest.raises(ValueError, match="full state"):
        make_agent("tile-search-v1", "carcassonne", seed=0).act(TileView(state, 0), 0)


def test_only_the_kept_yardstick_is_handed_the_full_state() -> None:
    from carcassonne_rl.agents.catalog import PINNED

    specs = [(p.game, name) for name, p in PINNED.items()]
    specs += [("carcassonne", s) for s in TILE_SPECS] + [("cardcassonne", s) for s in CARD_SPECS]
    full = {name for game, name in specs
            if getattr(make_agent(name, game, seed=0), "reads_hidden_order", False)}  # fmt: skip
    assert full == {"tile-search-v1"}


@pytest.mark.parametrize("expansions", [(), ("messages", "labyrinth")])
def test_tile_net_v8_twin_at_five_players(expansions: tuple[str, ...]) -> None:
    """``tile-net-v8`` at 5 players (its own table network there): the undrawn tiles and
    messages redrawn, the same seed makes the same decisions, move by move."""
    state = new_game(GameConfig(players=5, seed=11, expansions=expansions))
    for _ in range(60):
        twin = state.resample_hidden(random.Random(len(state.history)))
        p = state.current_player
        moves = [make_agent("tile-net-v8", "carcassonne", seed=3).act(for_agent(s, p, None), p)
                 for s in (state, twin)]  # fmt: skip
        assert moves[0] == moves[1]
        state.apply_code(int(moves[0]))
        if state.is_over:
            break
