"""Bots both ways: our agents as OpenSpiel bots, OpenSpiel's search bots as our agents.

- :class:`AgentBot`: any agent of :mod:`carcassonne_rl.agents` (``make_agent`` specs) as a
  ``pyspiel.Bot`` for ``evaluate_bots`` and OpenSpiel code; it reads the engine state held by
  our OpenSpiel state (whose undrawn tiles / cards are sorted: no hidden order to read).
- :class:`OpenSpielAgent`: an OpenSpiel bot as our agent (``act(engine_state, seat)``), for
  the arena; it plays on ``game.state_from_engine(state)``. Specs (``make_agent`` loads the
  family through its entry point, in any process): ``openspiel:mcts[:SIMS]`` (``MCTSBot``,
  random rollouts, UCT c = 2, default 1,000 simulations; for the tile game: perfect
  information) and ``openspiel:ismcts[:SIMS]`` (``ISMCTSBot``, random rollouts, UCT c = 2;
  for Cardcassonne: it sees only information states and resamples the hidden cards).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.registry import register_agent_family
from carcassonne_rl.games.carcassonne.views import TileView, for_agent
from carcassonne_rl.runtime.seeds import openspiel_search_seed

from .card_game import cards_drawn
from .common import returns_of
from .tile_game import CarcassonneGame

UCT_C = 2.0
BOTS = ("mcts", "ismcts")


class AgentBot(pyspiel.Bot):
    """Our agent ``agent`` (or a ``make_agent`` spec) playing seat ``player_id`` in one of
    our OpenSpiel games."""

    def __init__(self, agent: Any, game: pyspiel.Game, player_id: int, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        if isinstance(agent, str):
            name = "carcassonne" if isinstance(game, CarcassonneGame) else "cardcassonne"
            agent = make_agent(agent, name, seed=seed)
        self.agent = agent
        self._game = game
        self._player_id = player_id

    def player_id(self) -> int:
        return self._player_id

    def restart_at(self, state: pyspiel.State) -> None:
        self.agent.reset()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def step(self, state: pyspiel.State) -> int:
        engine = state.engine
        seat = state.current_player()
        # a tile seat is handed its view
        code = int(self.agent.act(for_agent(engine, seat, self.agent), seat))
        index = self._game.encoder.index_of(engine, code)
        if index < 0:
            raise ValueError(
                f"{self.agent.name} chose {engine.action_to_string(code)}, outside the "
                f"{self._game.encoder.window}x{self._game.encoder.window} action window"
            )
        return index


def game_for(engine: Any, reward_mode: str = "win_loss") -> pyspiel.Game:
    """The OpenSpiel game of an engine state's configuration."""
    config = engine.config
    if hasattr(config, "expansions"):
        return pyspiel.load_game(
            "python_carcassonne",
            {
                "players": config.players,
                "messages": config.messages,
                "labyrinth": config.labyrinth,
                "labyrinth_tiles": config.labyrinth_tiles,
                "figure_choice": config.figure_choice,
                "reward_mode": reward_mode,
            },
        )
    return pyspiel.load_game(
        "python_cardcassonne", {"players": config.players, "reward_mode": reward_mode}
    )


class EngineRolloutEvaluator(mcts.Evaluator):
    """OpenSpiel's ``RandomRolloutEvaluator`` played on our engine: from the state (its chance
    node resolved first), the undrawn tiles / cards in random order and uniformly random
    legal actions to the end. The same distribution of playouts (up to a tile-game move
    outside the action window, which OpenSpiel's rollout cannot take), about 10 times faster
    than stepping OpenSpiel states. Returns the terminal returns, as OpenSpiel's does."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._np_rng = np.random.RandomState(None if seed is None else seed % 2**32)

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        state = state.clone()
        while state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(actions[self._np_rng.choice(len(actions), p=probs)])
        if state.is_terminal():
            return np.asarray(state.returns())
        engine = state.engine.clone()
        rng = self._rng
        if hasattr(engine, "shuffle_hidden"):  # the tile game
            engine.shuffle_hidden(rng.getrandbits(32))
            while not engine.is_over:
                codes = engine.legal_action_codes()
                engine.apply_code(int(codes[rng.randrange(len(codes))]))
        else:
            drawn = cards_drawn(engine)
            rest = engine.card_order[drawn:]
            rng.shuffle(rest)
            engine.card_order = engine.card_order[:drawn] + rest
            while not engine.is_over:
                codes = engine.legal_codes()
                engine.apply_code(codes[rng.randrange(len(codes))])
        mode = state.get_game().reward_mode
        return np.asarray(returns_of(engine, True, mode))

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


def make_bot(kind: str, game: pyspiel.Game, simulations: int, seed: int | None) -> pyspiel.Bot:
    """OpenSpiel's ``MCTSBot`` or ``ISMCTSBot`` with random-rollout evaluation
    (:class:`EngineRolloutEvaluator`)."""
    rng = np.random.RandomState(seed)
    evaluator = EngineRolloutEvaluator(seed)
    if kind == "mcts":
        return mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=True, random_state=rng)
    if kind == "ismcts":
        return ismcts.ISMCTSBot(game, evaluator, UCT_C, simulations, random_state=rng)
    raise ValueError(f"unknown OpenSpiel bot {kind!r}; expected one of {BOTS}")


class OpenSpielAgent:
    """An OpenSpiel bot (``mcts`` / ``ismcts``) as an agent of our arena."""

    def __init__(self, kind: str, simulations: int = 1000, seed: int | None = None) -> None:
        if kind not in BOTS:
            raise ValueError(f"unknown OpenSpiel bot {kind!r}; expected one of {BOTS}")
        if simulations <= 0:
            raise ValueError(f"simulations must be positive, got {simulations}")
        self.kind, self.simulations, self.seed = kind, simulations, seed
        self.name = f"openspiel:{kind}:{simulations}"
        self._games: dict[str, pyspiel.Game] = {}
        self._calls = 0

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else self.seed
        self._calls = 0

    def act(self, state: Any, player: int) -> int:
        if isinstance(state, TileView):  # OpenSpiel's chance nodes draw: the order is unused
            state = state.public_world()
        key = repr(state.config)
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = game_for(state)
        seed = None if self.seed is None else openspiel_search_seed(self.seed, self._calls)
        self._calls += 1
        bot = make_bot(self.kind, game, self.simulations, seed)
        if self.kind == "ismcts":
            worlds = random.Random(seed)
            bot.set_resampler(lambda s, p: s.resample_from_infostate(p, worlds))
        index = bot.step(game.state_from_engine(state))
        return int(game.encoder.code_of(state, index))

    def __repr__(self) -> str:
        return f"<OpenSpielAgent {self.name}>"


def agent_from_spec(params: list[str], game: str, seed: int | None) -> OpenSpielAgent:
    """``openspiel:KIND[:SIMS]`` -> :class:`OpenSpielAgent` (the ``openspiel`` entry point of
    the ``carcassonne_rl.agent_families`` group: ``make_agent`` loads it on first use)."""
    if not params or len(params) > 2:
        raise ValueError("bad openspiel spec: expected openspiel:mcts[:SIMS] or openspiel:ismcts")
    try:
        sims = int(params[1]) if len(params) > 1 else 1000
    except ValueError:
        raise ValueError(
            f"bad openspiel spec: SIMS must be an integer, got {params[1]!r}"
        ) from None
    return OpenSpielAgent(params[0], sims, seed)


register_agent_family("openspiel", agent_from_spec)
