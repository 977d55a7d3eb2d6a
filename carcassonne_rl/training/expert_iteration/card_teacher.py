"""Teacher games of the card game's expert iteration: a card search (``heuristic:search`` or
``pretrained:search``) plays every seat of one deal, and each turn decision is recorded
with what the search made of it.

Per turn decision with two or more options, every legal option is one row (the card value
network ranks them all; the search valued its candidates):

- ``x``: the option's inputs to the card search-value network (``agents.card.value``:
  the seat's afterstate features and the heuristic's projected margin, from the seat's view);
- ``target``: the search's mean margin for the option minus the seat's margin before the
  move, in points / :data:`~carcassonne_rl.agents.card.value.MARGIN_SCALE` (NaN for an
  option it did not search);
- ``prior``: the heuristic's projected margin (same units); ``network``: the value the
  search's base network gives the option (NaN when the base is the heuristic);
- ``decision``: the decision's number in the game; ``chosen``: the option the search played.

Each seat's search decides from its own view (the searches draw the hidden cards from it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.card.search import CardSearchAgent, margin
from carcassonne_rl.agents.card.value import MARGIN_SCALE, search_inputs


def make_card_teacher(spec: str, seed: int) -> CardSearchAgent:
    """The card search of ``spec``; ``ValueError`` for any other agent."""
    from carcassonne_rl.agents import make_agent

    agent = make_agent(spec, "cardcassonne", seed=seed)
    if not isinstance(agent, CardSearchAgent):
        raise ValueError(
            f"teacher {spec!r} is not a card search (expected heuristic:search=W:K or "
            "pretrained:search=W:K)"
        )
    return agent


def play_card_teacher_game(spec: str, deal: int, seed: int, players: int = 2,
                           decisions: int | None = None) -> dict[str, np.ndarray]:  # fmt: skip
    """Play deal ``deal`` at a table of ``players`` with the teacher in every seat; the
    rows of its turn decisions (module doc). ``decisions``: stop after that many recorded
    decisions (a shortened game, for tests and throughput measurements)."""
    from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view

    seats = [make_card_teacher(spec, seed * 8 + q) for q in range(players)]
    state = new_game(GameConfig(players=players, seed=deal))
    rows: dict[str, list] = {k: [] for k in ("x", "target", "prior", "network", "decision",
                                             "chosen", "players")}  # fmt: skip
    decision = 0
    while not state.is_over and (decisions is None or decision < decisions):
        p = state.current_player
        legal = state.legal_codes()
        if state.phase != "turn" or len(legal) < 2:
            state.apply_code(int(seats[p].act(state, p)))
            continue
        v = view(state, p)
        teacher = seats[p]
        teacher.last_values = {}
        code = int(teacher.decide(v, legal))
        x, heuristic, network = search_inputs(teacher.base, v, legal)
        now = margin(state, p, teacher.leaf(players) or 0.0)  # a constant per decision
        for i, c in enumerate(legal):
            value = teacher.last_values.get(c)
            rows["x"].append(x[i])
            rows["target"].append(np.nan if value is None else (value - now) / MARGIN_SCALE)
            rows["prior"].append(heuristic[i])
            rows["network"].append(network[i])
            rows["decision"].append(decision)
            rows["chosen"].append(c == code)
            rows["players"].append(players)
        decision += 1
        state.apply_code(code)
    out: dict[str, Any] = {k: np.asarray(v) for k, v in rows.items() if k != "x"}
    out["x"] = np.stack(rows["x"]).astype(np.float32) if rows["x"] else np.zeros((0, 0))
    out["scores"] = np.asarray(state.scores)
    return out


__all__ = ["make_card_teacher", "play_card_teacher_game"]
