"""Every agent plays full games of every configuration with legal moves only, reproducibly."""

from __future__ import annotations

import pytest

from carcassonne_rl.agents import Agent, make_agent
from carcassonne_rl.arena.match import Job, Setup, play_game

TILE_SETUPS = [
    Setup("carcassonne", 2),
    Setup("carcassonne", 4),
    Setup("carcassonne", 2, ("messages",)),
    Setup("carcassonne", 3, ("labyrinth",)),
    Setup("carcassonne", 2, ("messages", "labyrinth")),
]
CARD_SETUPS = [Setup("cardcassonne", n) for n in (2, 3, 4, 5)]


def _job(setup: Setup, specs: list[str], deal: int = 1) -> Job:
    seats = [specs[i % len(specs)] for i in range(setup.players)]
    return Job(setup, tuple(seats), tuple(seats), deal, 0, 0, agent_seed=deal)


@pytest.mark.parametrize("setup", TILE_SETUPS + CARD_SETUPS, ids=repr)
def test_random_and_greedy_finish_games(setup: Setup) -> None:
    res = play_game(_job(setup, ["greedy", "random"]))  # play_game applies through the engine
    assert len(res.scores) == setup.players
    assert res.winners and all(0 <= w < setup.players for w in res.winners)
    assert all(d > 0 for d in res.decisions)


@pytest.mark.parametrize(
    "setup", [TILE_SETUPS[0], TILE_SETUPS[4], CARD_SETUPS[0], CARD_SETUPS[2]], ids=repr
)
def test_mcts_finishes_games(setup: Setup) -> None:
    res = play_game(_job(setup, ["mcts:8", "greedy"]))
    assert len(res.scores) == setup.players and res.winners


def test_figure_choice_auto_config() -> None:
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    state = new_game(GameConfig(2, seed=4, expansions=("messages",), figure_choice="auto"))
    agents = [make_agent("greedy", "carcassonne", 0), make_agent("mcts:5", "carcassonne", 1)]
    while not state.is_over:
        p = state.current_player
        state.apply_code(agents[p].act(state, p))
    assert state.winners()


def test_protocol_and_specs() -> None:
    for game in ("carcassonne", "cardcassonne"):
        for spec in ("random", "greedy", "mcts:10", "mcts:100:0.05"):
            agent = make_agent(spec, game, seed=0)
            assert isinstance(agent, Agent)
            assert agent.name == spec
    for bad in ("mcts:x", "greedy:3", "alphazero", "mcts:0"):
        with pytest.raises(ValueError):
            make_agent(bad, "carcassonne")


@pytest.mark.parametrize("game", ["carcassonne", "cardcassonne"])
@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:6"])
def test_seeded_agents_are_reproducible(game: str, spec: str) -> None:
    setup = Setup(game, 2)

    def moves(seed: int) -> list[int]:
        state = setup.new_state(7)
        agents = [make_agent(spec, game, seed), make_agent("random", game, seed + 1)]
        out = []
        for _ in range(40):
            p = state.current_player
            code = agents[p].act(state, p)
            out.append(code)
            state.apply_code(code)
        return out

    assert moves(3) == moves(3)
    if spec == "random":
        assert moves(3) != moves(4)


def test_mcts_time_limit_bounds_a_decision() -> None:
    import time

    setup = Setup("carcassonne", 2)
    state = setup.new_state(2)
    agent = make_agent("mcts:1000000:0.05", "carcassonne", 0)
    t0 = time.perf_counter()
    code = agent.act(state, state.current_player)
    assert time.perf_counter() - t0 < 1.0
    assert code in state.legal_action_codes()
