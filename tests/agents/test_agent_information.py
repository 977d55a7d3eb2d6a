"""Agents never use hidden information: their moves do not change when only it changes."""

from __future__ import annotations

import random

import pytest

from carcassonne_rl.agents import make_agent
from carcassonne_rl.games import cardcassonne
from carcassonne_rl.games.cardcassonne import determinize, new_game, view


def _card_positions(n_positions: int = 12):
    """States of 2- and 3-player games at varied points (each decision phase reached)."""
    out = []
    for players, seed in ((2, 1), (3, 2), (2, 5)):
        state = new_game(cardcassonne.GameConfig(players, seed))
        rng = random.Random(seed)
        while not state.is_over and len(out) < n_positions * (1 + len(out) // n_positions):
            if rng.random() < 0.15:
                out.append(state.clone())
            codes = state.legal_codes()
            state.apply_code(codes[rng.randrange(len(codes))])
    return out


# every card agent but ``cheat-mcts``, the measuring instrument that reads the true hands on
# purpose (tests/agents/test_card_probes.py shows that it does)
@pytest.mark.parametrize(
    "spec",
    ["random", "greedy", "heuristic", "pretrained", "policy:cardcassonne_2p.npz", "mcts:40",
     "exploit:30:pretrained", "exploit:20:heuristic", "heuristic:search=3:2",
     "pretrained:search=3:2", "policy:cardcassonne_expert.npz",
     "pretrained:search=3:2:1:1@cardcassonne_expert.npz", "pretrained:search=3:2:1:1",
     "policy:cardcassonne_dmc.npz", "pretrained:30"],
)  # fmt: skip
def test_card_agents_ignore_hidden_cards(spec: str) -> None:
    positions = _card_positions()
    assert len(positions) >= 10
    changed_hidden = 0
    for i, state in enumerate(positions):
        p = state.current_player
        other = determinize(state, p, random.Random(i))  # same view, other hidden cards
        assert view(other, p) == view(state, p)
        if other.hands != state.hands or other.deck_cards() != state.deck_cards():
            changed_hidden += 1
        a = make_agent(spec, "cardcassonne", seed=i).act(state, p)
        b = make_agent(spec, "cardcassonne", seed=i).act(other, p)
        assert a == b, f"{spec} changed its move with the hidden cards at position {i}"
    assert changed_hidden >= len(positions) // 2


@pytest.mark.parametrize(
    "spec", ["greedy", "heuristic", "pretrained", "tile-net-v4", "tile-net-v3", "tile-net-v2",
             "tile-search-v4",
             "tile-search-v3", "mcts:60"]
)
@pytest.mark.parametrize("expansions", [(), ("messages",)])
def test_tile_agents_ignore_the_draw_order(spec: str, expansions: tuple[str, ...]) -> None:
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    for seed in range(3):
        base = new_game(GameConfig(2, seed=seed, expansions=expansions))
        order = base.draw_order
        rest = list(order[1:])
        random.Random(seed).shuffle(rest)
        other = new_game(
            GameConfig(2, seed=seed, expansions=expansions), draw_order=order[0] + "".join(rest)
        )
        assert other.draw_order != order and other.current_tile == base.current_tile
        for state in (base, other):  # walk both games with the same public moves
            assert state.remaining_tiles() == base.remaining_tiles()
        a = make_agent(spec, "carcassonne", seed=seed).act(base, 0)
        b = make_agent(spec, "carcassonne", seed=seed).act(other, 0)
        assert a == b


@pytest.mark.parametrize(
    "spec",
    ["pretrained", "tile-net-v6", "tile-net-v5", "tile-net-v4", "tile-net-v3",
     "pretrained:blend=0.6",
     "pretrained:blend=0.75@carcassonne_table_expert.npz"],
)
@pytest.mark.parametrize(
    ("players", "expansions"), [(3, ()), (4, ()), (5, ()), (4, ("messages", "labyrinth"))]
)
def test_tile_agents_at_tables_ignore_what_no_seat_has_seen(
    spec: str, players: int, expansions: tuple[str, ...]
) -> None:
    """The tile ``pretrained`` at 3-5 players (the table network averaged with the
    heuristic; the 5-player observation network), and the table network taught by its
    search at 3 players, decide the same when the undrawn tiles
    (and message cards) are reshuffled mid-game."""
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    state = new_game(GameConfig(players, seed=players + 30, expansions=expansions))
    mover = make_agent("greedy", "carcassonne", seed=0)
    checked = 0
    while not state.is_over and checked < 4:
        if state.phase == "place_tile" and state.turn % 9 == 4:
            twin = state.resample_hidden(random.Random(state.turn))
            assert twin.draw_order != state.draw_order
            p = state.current_player
            a = make_agent(spec, "carcassonne", seed=state.turn).act(state, p)
            b = make_agent(spec, "carcassonne", seed=state.turn).act(twin, p)
            assert a == b, f"{spec} changed its move with the hidden order at turn {state.turn}"
            checked += 1
        state.apply_code(int(mover.act(state, state.current_player)))
    assert checked == 4
