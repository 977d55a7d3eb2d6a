"""Helpers for scripted Cardcassonne games (fixed card orders, seat-checked actions)."""

from __future__ import annotations

from carcassonne_rl.games.cardcassonne import (
    KIND_COUNTS,
    KIND_NAMES,
    CardGameConfig,
    CardState,
    new_game,
)


def build_order(players: int, setup: list[str], deals: list[tuple[int, dict[int, list[str]]]]):
    """A 130-card order: ``setup`` (10 cards turned up), then for each round ``(dealer,
    {seat: hand})`` dealt one card at a time starting left of the dealer, then the unused
    cards in the standard order."""
    left = {name: KIND_COUNTS[i] for i, name in enumerate(KIND_NAMES)}
    order: list[str] = []

    def take(name: str) -> None:
        assert left[name] > 0, f"no {name} left"
        left[name] -= 1
        order.append(name)

    assert len(setup) == 10
    for c in setup:
        take(c)
    for dealer, hands in deals:
        size = len(hands[0])
        for i in range(size):
            for j in range(1, players + 1):
                take(hands[(dealer + j) % players][i])
    for name in KIND_NAMES:
        while left[name]:
            take(name)
    return order


def scripted(players: int, setup, deals) -> CardState:
    return new_game(CardGameConfig(players=players), build_order(players, setup, deals))


def run(state: CardState, script: list[str]) -> None:
    """Apply ``"seat: action"`` lines, checking that ``seat`` is the player to move."""
    for line in script:
        seat, text = line.split(":", 1)
        assert state.current_player == int(seat), (line, state.current_player, state.phase)
        state.apply(text.strip())


def points(state: CardState, player: int, round_: int | None = None) -> list[tuple[str, int]]:
    """(kind, points) of ``player``'s score events (of one round if given)."""
    return [
        (e.kind, e.points)
        for e in state.score_events
        if e.player == player and (round_ is None or e.round == round_)
    ]
