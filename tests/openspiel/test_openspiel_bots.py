"""Bots both ways: our agents as OpenSpiel bots, OpenSpiel's MCTS / IS-MCTS as our agents
(``make_agent("openspiel:...")``) in the arena."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install -e '.[openspiel]')"
)
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402

import carcassonne_rl.openspiel as cos  # noqa: E402
from carcassonne_rl.agents import make_agent  # noqa: E402
from carcassonne_rl.arena.match import Setup, play_game, schedule  # noqa: E402
from carcassonne_rl.games import cardcassonne  # noqa: E402
from carcassonne_rl.games.carcassonne import GameConfig, new_game  # noqa: E402
from carcassonne_rl.games.cardcassonne import new_game as new_card_game  # noqa: E402


def test_our_agents_play_through_openspiel_evaluate_bots() -> None:
    game = pyspiel.load_game("python_carcassonne", {"players": 3})
    bots = [cos.AgentBot(spec, game, p, seed=p) for p, spec in enumerate(["greedy", "random"] * 2)]
    returns = evaluate_bots(game.new_initial_state(), bots[:3], np.random.RandomState(0))
    assert sorted(returns) in ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    card = pyspiel.load_game("python_cardcassonne", {"players": 2})
    bots = [cos.AgentBot("greedy", card, 0, seed=1), cos.AgentBot("random", card, 1, seed=2)]
    assert sorted(evaluate_bots(card.new_initial_state(), bots, np.random.RandomState(1))) in (
        [-1.0, 1.0],
        [0.0, 0.0],
    )


def test_openspiel_bots_choose_legal_engine_codes() -> None:
    tile = new_game(GameConfig(players=2, seed=4, expansions=("messages",)))
    agent = make_agent("openspiel:mcts:8", "carcassonne", seed=1)
    for _ in range(4):
        code = agent.act(tile, tile.current_player)
        assert code in tile.legal_action_codes().tolist()
        tile.apply_code(code)
    card = new_card_game(cardcassonne.GameConfig(players=3, seed=2))
    agent = make_agent("openspiel:ismcts:8", "cardcassonne", seed=1)
    for _ in range(4):
        code = agent.act(card, card.current_player)
        assert code in card.legal_codes()
        card.apply_code(code)


def test_openspiel_agent_is_reproducible_from_its_seed() -> None:
    state = new_card_game(cardcassonne.GameConfig(players=2, seed=9))
    picks = [make_agent("openspiel:ismcts:30", "cardcassonne", seed=3).act(state, 0)]
    picks.append(make_agent("openspiel:ismcts:30", "cardcassonne", seed=3).act(state, 0))
    assert picks[0] == picks[1]


def test_arena_plays_an_openspiel_bot_against_greedy() -> None:
    job = schedule(Setup("cardcassonne"), ["openspiel:ismcts:4", "greedy"], deals=1)[0]
    result = play_game(job)
    assert result.seats == ["openspiel:ismcts:4", "greedy"] and len(result.scores) == 2
    assert result.decisions[0] > 10


def test_bad_openspiel_specs_are_refused_clearly() -> None:
    for spec, word in [
        ("openspiel:alphazero", "unknown OpenSpiel bot"),
        ("openspiel:mcts:many", "SIMS must be an integer"),
        ("openspiel:mcts:0", "positive"),
        ("openspiel", "openspiel needs bot; the keys of openspiel in carcassonne: bot"),
    ]:
        with pytest.raises(ValueError, match=word):
            make_agent(spec, "carcassonne")


@pytest.mark.parametrize("name", ["python_carcassonne", "python_cardcassonne"])
def test_engine_rollouts_end_games_without_touching_the_state(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(30):  # into the game, stopping wherever (perhaps at a chance node)
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else None
        state.apply_action(int(rng.choice(actions or state.legal_actions())))
    before = str(state)
    evaluator = cos.bots.EngineRolloutEvaluator(seed=4)
    values = [evaluator.evaluate(state) for _ in range(6)]
    assert str(state) == before
    for v in values:  # a finished game: one winner (+1, the rest -1) or shared wins (0)
        assert sorted(v.tolist()) in ([-1, -1, 1], [-1, 0, 0], [0, 0, 0])
    again = cos.bots.EngineRolloutEvaluator(seed=4)
    assert [again.evaluate(state).tolist() for _ in range(6)] == [v.tolist() for v in values]
    prior = evaluator.prior(state)
    assert sum(p for _, p in prior) == pytest.approx(1.0)


def test_cli_agent_specs_load_the_openspiel_family() -> None:
    from carcassonne_rl.cli.args import agent_specs

    assert agent_specs("openspiel:mcts:5, greedy", "carcassonne", "--agents") == [
        "openspiel:mcts:5",
        "greedy",
    ]


def test_openspiel_rl_environment_plays_a_card_game() -> None:
    """The wrapper under OpenSpiel's DQN / NFSP / PSRO code: chance nodes sampled inside."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("python_cardcassonne")
    env.seed(3)
    step, rng = env.reset(), np.random.default_rng(3)
    while not step.last():
        seat = step.observations["current_player"]
        legal = step.observations["legal_actions"][seat]
        assert len(step.observations["info_state"][seat]) == 1620 and legal
        step = env.step([int(rng.choice(legal))])
    assert sorted(step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
