"""Helpers for scripted Cardcassonne games (fixed card orders, seat-checked actions)."""

from __future__ import annotations

from carcassonne_rl.games.cardcassonne import (
    KIND_NAMES,
    GameConfig,
    State,
    deal_order,
    new_game,
)


def build_order(players: int, setup: list[str], deals: list[tuple[int, dict[int, list[str]]]]):
    """A 130-card order through the public builder (the unnamed cards in standard order)."""
    return deal_order(players, setup, deals)


def scripted(players: int, setup, deals) -> State:
    return new_game(GameConfig(players=players), build_order(players, setup, deals))


def run(state: State, script: list[str]) -> None:
    """Apply ``"seat: action"`` lines, checking that ``seat`` is the player to move."""
    for line in script:
        seat, text = line.split(":", 1)
        assert state.current_player == int(seat), (line, state.current_player, state.phase)
        state.apply(text.strip())


def points(state: State, player: int, round_: int | None = None) -> list[tuple[str, int]]:
    """(kind, points) of ``player``'s score events (of one round if given)."""
    return [
        (e.kind, e.points)
        for e in state.score_events
        if e.player == player and (round_ is None or e.round == round_)
    ]


def census(state: State) -> list[int]:
    """Per card kind: hands + rows + pile + kept + removed + claimed-but-unscored cards."""
    counts = [0] * len(KIND_NAMES)
    for h in state.hands:
        for k, c in enumerate(h):
            counts[k] += c
    for row in state.rows:
        for e in row:
            if e >= 0:
                counts[e & 31] += 1
    for k in state.deck_cards():
        counts[k] += 1
    for col in state.collected:
        for k, c in enumerate(col):
            counts[k] += c
    for k, c in enumerate(state.removed):
        counts[k] += c
    for q in range(state.score_player + 1, len(state.claims)):
        for k, _ in state.claims[q]:
            counts[k] += 1
    for k in state.misplaced_queue:
        counts[k] += 1
    return counts


def random_playout(state: State, rng, stop_after: int | None = None) -> int:
    """Play uniformly random legal actions (at most ``stop_after``); returns the count."""
    n = 0
    while not state.is_over and (stop_after is None or n < stop_after):
        codes = state.legal_action_codes()
        state.apply_code(int(codes[rng.randrange(len(codes))]))
        n += 1
    return n
