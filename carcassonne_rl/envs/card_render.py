"""Text and picture of a Cardcassonne table: the full state (for spectators), or one seat's
view (its own hand and face-down cards; others' face-down cards as backs)."""

from __future__ import annotations

import numpy as np

from carcassonne_rl.games.cardcassonne import KIND_NAMES, PlayerView, State, view
from carcassonne_rl.games.cardcassonne.rules_table import COLOUR_NAMES, ROW_NAMES
from carcassonne_rl.games.cardcassonne.state import FACE_DOWN
from carcassonne_rl.games.cardcassonne.views import HIDDEN


def _entry_text(e: int) -> str:
    if e < 0:
        return f"[F{-e - 1}]"
    if e >= FACE_DOWN:
        kind = "??" if e & 31 == HIDDEN else KIND_NAMES[e & 31].lower()
        return f"{kind}'{(e >> 5) - 1}"
    return KIND_NAMES[e]


def card_table_text(state: State) -> str:
    """Rows (``[F1]`` follower of seat 1, ``r2'0`` card face down by seat 0), hands, scores."""
    lines = [
        f"Cardcassonne  round {state.round}/{state.rounds_total}  phase {state.phase}  "
        f"dealer {state.dealer}  to move {state.current_player}  pile {state.deck_size}"
    ]
    for r, row in enumerate(state.rows):
        cards = " ".join(_entry_text(e) for e in row) or "-"
        lines.append(f"  {COLOUR_NAMES[r]:>6} ({ROW_NAMES[r]:>8}): {cards}")
    for p in range(state.n):
        hand = " ".join(KIND_NAMES[k] for k, c in enumerate(state.hands[p]) for _ in range(c))
        kept = " ".join(
            f"{KIND_NAMES[k]}x{c}" if c > 1 else KIND_NAMES[k]
            for k, c in enumerate(state.collected[p])
            if c
        )
        f = state.follower_row[p]
        lines.append(
            f"  seat {p}: score {int(state.scores[p]):3d}  follower "
            f"{COLOUR_NAMES[f] if f >= 0 else 'in hand'}  hand [{hand}]  kept [{kept}]"
        )
    return "\n".join(lines)


def card_view_text(v: PlayerView) -> str:
    """What seat ``v.player`` knows: rows (``??'1`` a card seat 1 played face down, own
    face-down cards readable), own hand, the others' hand sizes, scores."""
    lines = [
        f"Cardcassonne  seat {v.player}'s view  round {v.round}/{v.rounds_total}  "
        f"phase {v.phase}  dealer {v.dealer}  to move {v.current_player}  pile {v.deck_size}"
    ]
    for r, row in enumerate(v.rows):
        cards = " ".join(_entry_text(e) for e in row) or "-"
        lines.append(f"  {COLOUR_NAMES[r]:>6} ({ROW_NAMES[r]:>8}): {cards}")
    for p in range(v.players):
        if p == v.player:
            hand = " ".join(KIND_NAMES[k] for k, c in enumerate(v.hand) for _ in range(c))
            held = f"hand [{hand}]"
        else:
            held = f"hand {v.hand_sizes[p]} cards"
        kept = " ".join(
            f"{KIND_NAMES[k]}x{c}" if c > 1 else KIND_NAMES[k]
            for k, c in enumerate(v.collected[p])
            if c
        )
        f = v.follower_row[p]
        lines.append(
            f"  seat {p}: score {v.scores[p]:3d}  follower "
            f"{COLOUR_NAMES[f] if f >= 0 else 'in hand'}  {held}  kept [{kept}]"
        )
    return "\n".join(lines)


def card_seat_text(state: State, seat: int | None) -> str:
    """The spectator's text (``seat`` None) or seat ``seat``'s view."""
    return card_table_text(state) if seat is None else card_view_text(view(state, seat))


def card_table_image(state: State, seat: int | None = None) -> np.ndarray:
    """The spectator's picture (``seat`` None) or seat ``seat``'s view."""
    from carcassonne_rl.envs.card_picture import draw_card_table

    return draw_card_table(state, seat)
