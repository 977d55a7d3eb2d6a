"""Self-play games of the card game's afterstate learner (``train --game cardcassonne --algo
afterstate``): the card game's side (:class:`CardAdapter`) of the one games-in-flight loop
(``loop.play_loop``): the turn options of all the network seats valued in one batched pass
per step, and Monte-Carlo (lambda-return) targets.

Each seat decides from its own view only. After every turn decision (of any seat, baseline
seats included) the seat's afterstate features (``encoders.features.card``: the view with
the chosen option applied) are recorded for that seat; at the end of the game each gets the
target of its seat (``loop.seat_targets``: ``tanh(final margin / value_scale)``). The
other decisions (setup joker, animal joker, misplaced card) are the card heuristic's for
the network seats, as ``agents.card.value.CardValueAgent`` plays them.

With ``card_network=search_value`` the network is expert iteration's student
(``agents.card.value.CardSearchValueAgent``): a position's inputs are its afterstate features
and the heuristic's projected margin of the option, a network seat picks among the
heuristic's ``candidates`` best options, and the targets are linear margins.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from carcassonne_rl.agents.card.greedy import CardGreedyAgent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.value import NUM_SEARCH_INPUTS, heuristic_margins, net_inputs
from carcassonne_rl.agents.common.value_net import MLP, single_threaded_blas
from carcassonne_rl.encoders.features.card import NUM_CARD_FEATURES, CardFeatures
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view
from carcassonne_rl.runtime.seeds import afterstate_game_rng_seed
from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.loop import SelfPlayGame, greedy_lineup, play_loop


def _baseline_move(agent: Any, v: Any, legal: list[int], rng: random.Random, epsilon: float) -> int:
    """The baseline agent's decision; in a turn, with probability ``epsilon`` one of its 4
    best options instead."""
    if epsilon <= 0 or v.phase != "turn" or len(legal) == 1 or rng.random() >= epsilon:
        return int(agent.decide(v, legal))
    scored = sorted(agent.scored(v, legal), key=lambda cs: -cs[1])[:4]
    return int(scored[rng.randrange(len(scored))][0])


def _rows(config: AfterstateConfig, helper: CardHeuristicAgent, v: Any, codes: list[int]
          ) -> tuple[list[int], np.ndarray]:  # fmt: skip
    """The options a network seat ranks and their input rows: all ``codes`` and their
    afterstate features, or (``search_value``) the heuristic's ``candidates`` best with its
    margins appended."""
    if not config.linear:
        f = CardFeatures(v)
        return codes, np.stack([f.after(c) for c in codes])
    margins = heuristic_margins(helper, v, codes)
    keep = np.argsort(-margins, kind="stable")[: config.candidates]
    kept = [codes[i] for i in keep]
    return kept, net_inputs(v, kept, margins[keep])


class CardAdapter:
    """The card game's side of ``loop.play_loop``: each seat decides from its own view; a
    turn decision records the chosen option's input row for its seat (baseline seats'
    too), the other decisions of a network seat are the card heuristic's."""

    def __init__(self, config: AfterstateConfig, seed: int) -> None:
        self.config = config
        self.width = NUM_SEARCH_INPUTS if config.linear else NUM_CARD_FEATURES
        heuristic = config.baseline_agent == "heuristic"  # the GREEDY seats' agent (all in warm-up)
        self.agent = (CardHeuristicAgent if heuristic else CardGreedyAgent)(seed=seed)
        self.helper = CardHeuristicAgent(seed=seed)  # the network seats' non-turn decisions

    def new_game(self, table: tuple[int, tuple[str, ...]], deal: int, seats: list[int],
                 seed: int) -> SelfPlayGame:  # fmt: skip
        players = table[0]
        state = new_game(GameConfig(players=players, seed=deal))
        rng = random.Random(afterstate_game_rng_seed(seed, deal))
        return SelfPlayGame(state, list(seats), [[] for _ in range(players)], rng)

    def baseline(self, game: SelfPlayGame, player: int, epsilon: float) -> None:
        s = game.state
        v = view(s, player)
        code = _baseline_move(self.agent, v, s.legal_codes(), game.rng, epsilon)
        if v.phase == "turn":
            game.features[player].append(_rows(self.config, self.helper, v, [code])[1][0])
        s.apply_code(code)

    def item(self, game: SelfPlayGame, player: int) -> tuple | None:
        s = game.state
        v = view(s, player)
        legal = s.legal_codes()
        if v.phase != "turn":
            s.apply_code(int(self.helper.decide(v, legal)))
            return None
        return (game, player, *_rows(self.config, self.helper, v, legal))

    def rows(self, items: list) -> tuple[np.ndarray, np.ndarray, Any]:
        offsets = np.concatenate([[0], np.cumsum([len(it[2]) for it in items])])
        return np.concatenate([it[3] for it in items]), offsets, None

    def values(self, out: np.ndarray, context: Any) -> np.ndarray:
        return out.astype(np.float64)

    def play(self, item: tuple, context: Any, values: np.ndarray, lo: int, hi: int, choice: int
             ) -> None:  # fmt: skip
        game, p, legal, x = item
        game.features[p].append(x[choice])
        game.state.apply_code(legal[choice])


def play_card_games(
    config: AfterstateConfig,
    layers: list | None,
    meta: dict,
    deals: list[int],
    greedy_seats: list[int] | None,
    seed: int,
    tables: list[tuple[int, tuple[str, ...]]] | None = None,
    lineups: list[list[int]] | None = None,
    snapshot_layers: list | None = None,
) -> dict[str, Any]:
    """``selfplay.play_games`` for the card game: the same arguments and result (the card
    engine, card features; ``layers=None``: every seat the baseline agent, exploring)."""
    single_threaded_blas()
    net = MLP(layers, meta) if layers is not None else None
    past = MLP(snapshot_layers, meta) if (snapshot_layers is not None and net) else net
    adapter = CardAdapter(config, seed)
    tables = tables or [(config.players, ())] * len(deals)
    if lineups is None:
        lineups = [greedy_lineup(t[0], g) for t, g in zip(tables, greedy_seats, strict=True)]
    games = [adapter.new_game(t, d, k, seed) for t, d, k in zip(tables, deals, lineups,
                                                                strict=True)]  # fmt: skip
    return play_loop(adapter, config, net, past, games)
