"""Shared helpers for the Carcassonne rulebook scenario tests.

Every expected number in these tests is computed by hand from the rules
(docs/rules/carcassonne.md), never by asking the engine.

Geometry reminder (rules section 1/2): x grows east, y grows SOUTH; rotation r turns the
printed tile r quarter turns clockwise, so the rotated side s shows the printed side
(s - r) mod 4 (sides N=0 E=1 S=2 W=3). The start tile D lies at (0,0) r0:
N city, E road, S field, W road (road runs W-E), fields {ENE WNW} (north of the road,
borders the city) and {ESE SSE SSW WSW}.
"""

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, new_game


def _play(state, *moves):
    """Apply a list of notation strings in order; return the state."""
    for move in moves:
        state.apply(move)
    return state


def _start(draw_order, players=2):
    """A fresh game with a fixed draw order after the start tile."""
    return new_game(GameConfig(players=players), draw_order=draw_order)


@pytest.fixture
def play():
    return _play


@pytest.fixture
def start():
    return _start


def events(state, kind=None, player=None, final=None):
    """Filter score events (helper used via the `ev` fixture)."""
    out = []
    for e in state.score_events:
        if kind is not None and e.kind != kind:
            continue
        if player is not None and e.player != player:
            continue
        if final is not None and bool(e.final) != final:
            continue
        out.append(e)
    return out


@pytest.fixture
def ev():
    return events
