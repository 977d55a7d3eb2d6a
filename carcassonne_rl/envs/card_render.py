"""Text and picture of a Cardcassonne table (the full state, for spectators)."""

from __future__ import annotations

import numpy as np

from carcassonne_rl.games.cardcassonne import KIND_NAMES, CardState
from carcassonne_rl.games.cardcassonne.rules_table import COLOUR_NAMES, ROW_NAMES
from carcassonne_rl.games.cardcassonne.state import FACE_DOWN


def _entry_text(e: int) -> str:
    if e < 0:
        return f"[F{-e - 1}]"
    if e >= FACE_DOWN:
        return f"{KIND_NAMES[e & 31].lower()}'{(e >> 5) - 1}"
    return KIND_NAMES[e]


def card_table_text(state: CardState) -> str:
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
            f"  seat {p}: score {state._scores[p]:3d}  follower "
            f"{COLOUR_NAMES[f] if f >= 0 else 'in hand'}  hand [{hand}]  kept [{kept}]"
        )
    return "\n".join(lines)


def card_table_image(state: CardState) -> np.ndarray:
    from .card_picture import draw_card_table

    return draw_card_table(state)
