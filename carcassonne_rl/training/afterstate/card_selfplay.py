"""Self-play games of the card game's afterstate learner (``train --game cardcassonne --algo
afterstate``): many games in flight per worker, the turn options of all the network seats
valued in one batched pass per step, and Monte-Carlo (lambda-return) targets.

Each seat decides from its own view only. After every turn decision (of any seat, baseline
seats included) the seat's afterstate features (``encoders.features.card``: the view with
the chosen option applied) are recorded for that seat; at the end of the game each gets the
target of its seat (``selfplay.seat_targets``: ``tanh(final margin / value_scale)``). The
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
from carcassonne_rl.agents.tile.afterstate import pick
from carcassonne_rl.encoders.features.card import NUM_CARD_FEATURES, CardFeatures
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view
from carcassonne_rl.runtime.seeds import afterstate_game_rng_seed
from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.selfplay import (
    GREEDY,
    NET,
    SNAPSHOT,
    SelfPlayGame,
    greedy_lineup,
    seat_targets,
)


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
    agent_class = CardHeuristicAgent if config.baseline_agent == "heuristic" else CardGreedyAgent
    baseline = agent_class(seed=seed)  # plays the GREEDY seats (and every seat in warm-up)
    helper = CardHeuristicAgent(seed=seed)  # the network seats' non-turn decisions
    tables = tables or [(config.players, ())] * len(deals)
    if lineups is None:
        lineups = [greedy_lineup(t[0], g) for t, g in zip(tables, greedy_seats, strict=True)]
    games = []
    for (players, _), deal, seats in zip(tables, deals, lineups, strict=True):
        state = new_game(GameConfig(players=players, seed=deal))
        rng = random.Random(afterstate_game_rng_seed(seed, deal))
        games.append(SelfPlayGame(state, list(seats), [[] for _ in range(players)], rng))
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    margins_vs_greedy: dict[int, list[float]] = {}
    decisions = 0
    live = list(games)
    while live:
        pending: dict[int, list] = {NET: [], SNAPSHOT: []}
        for game in live:
            s = game.state
            p = s.current_player
            v = view(s, p)
            legal = s.legal_codes()
            kind = game.seats[p]
            if net is None or kind == GREEDY:
                epsilon = config.epsilon if net is None else 0.0  # warm-up games explore
                code = _baseline_move(baseline, v, legal, game.rng, epsilon)
                if v.phase == "turn":
                    game.features[p].append(_rows(config, helper, v, [code])[1][0])
                s.apply_code(code)
                decisions += 1
            elif v.phase != "turn":
                s.apply_code(int(helper.decide(v, legal)))
                decisions += 1
            else:
                pending[kind].append((game, p, *_rows(config, helper, v, legal)))
        for kind, model in ((NET, net), (SNAPSHOT, past)):
            items = pending[kind]
            if not items:
                continue
            out = model.forward(np.concatenate([it[3] for it in items]))[:, 0]
            start = 0
            for game, p, legal, x in items:
                vals = out[start : start + len(x)].astype(np.float64)
                start += len(x)
                i = pick(vals, game.rng, config.epsilon) if len(legal) > 1 else 0
                game.features[p].append(x[i])
                game.state.apply_code(legal[i])
                decisions += 1
        still = []
        for game in live:
            if not game.state.is_over:
                still.append(game)
                continue
            x, y = seat_targets(game, net, config)
            xs.append(x)
            ys.append(y)
            if GREEDY in game.seats and NET in game.seats and net is not None:
                scores = game.state.scores
                n = len(scores)
                for me in (q for q in range(n) if game.seats[q] == NET):
                    m = float(scores[me] - np.delete(scores, me).max())
                    margins_vs_greedy.setdefault(n, []).append(m)
        live = still
    width = NUM_SEARCH_INPUTS if config.linear else NUM_CARD_FEATURES
    return {
        "x": np.concatenate(xs) if xs else np.zeros((0, width), np.float32),
        "y": np.concatenate(ys) if ys else np.zeros(0, np.float32),
        "margins_vs_greedy": [m for ms in margins_vs_greedy.values() for m in ms],
        "margins_vs_greedy_by_players": margins_vs_greedy,
        "decisions": decisions,
        "games": len(games),
    }
