"""Pillow picture of a Cardcassonne table: the four rows, followers, hands and scores."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from carcassonne_rl.envs.palette import PLAYER_COLOURS, draw_meeple, label_font
from carcassonne_rl.games.cardcassonne import KIND_NAMES, State, view
from carcassonne_rl.games.cardcassonne.rules_table import COLOUR_NAMES, ROW_NAMES
from carcassonne_rl.games.cardcassonne.state import FACE_DOWN

ROW_TINT = ((250, 236, 160), (240, 170, 160), (175, 220, 160), (160, 190, 235))
CARD_FILL = ((235, 190, 30), (200, 50, 40), (60, 150, 60), (50, 100, 200))
JOKER_FILL = (150, 90, 170)
CARD_W, CARD_H, GAP = 38, 54, 4
ROW_H = CARD_H + 16
LEFT = 110


def _card(
    draw: ImageDraw.ImageDraw, x: int, y: int, kind: int, owner: int | None, readable=False
) -> None:
    """A card face up (``owner`` None), its back marked with the seat that played it, or
    (``readable``) a face-down card its owner can read, framed in the owner's colour."""
    box = (x, y, x + CARD_W, y + CARD_H)
    if owner is not None and readable:
        fill = CARD_FILL[kind // 5] if kind < 20 else JOKER_FILL
        draw.rounded_rectangle(box, 5, fill=(225, 222, 210), outline=PLAYER_COLOURS[owner], width=3)
        draw.rectangle((x + 4, y + 4, x + CARD_W - 4, y + 14), fill=fill)
        draw.text((x + 8, y + 18), KIND_NAMES[kind], fill=(20, 20, 20), font=label_font(15))
        draw.text((x + 5, y + 38), "down", fill=(60, 60, 60), font=label_font(11))
        return
    if owner is not None:
        draw.rounded_rectangle(box, 5, fill=(90, 70, 50), outline=PLAYER_COLOURS[owner], width=3)
        draw.text((x + 6, y + 18), f"P{owner}", fill=(240, 230, 210), font=label_font(14))
        return
    fill = CARD_FILL[kind // 5] if kind < 20 else JOKER_FILL
    draw.rounded_rectangle(box, 5, fill=(250, 248, 240), outline=fill, width=3)
    draw.rectangle((x + 4, y + 4, x + CARD_W - 4, y + 18), fill=fill)
    name = KIND_NAMES[kind]
    draw.text((x + 8, y + 24), name, fill=(20, 20, 20), font=label_font(15))


def draw_card_table(state: State, seat: int | None = None) -> np.ndarray:
    """RGB picture (H, W, 3) uint8 of the table: face-down cards as backs; with ``seat``,
    drawn from that seat's view only, its own face-down cards readable and its hand shown."""
    v = view(state, seat) if seat is not None else None
    rows = v.rows if v is not None else state.rows
    longest = max([len(r) for r in rows] + [8])
    width = max(LEFT + longest * (CARD_W + GAP) + 20, 760)
    players_h = 26 * state.n + 40 + (CARD_H + 10 if v is not None else 0)
    height = 40 + 4 * ROW_H + players_h
    img = Image.new("RGB", (width, height), (245, 240, 225))
    draw = ImageDraw.Draw(img)
    if state.is_over:
        best = int(max(state.scores))
        winners = ", ".join(f"P{p}" for p in state.winners())
        title = f"Cardcassonne - game over - won by {winners} with {best} points"
    else:
        title = (
            f"Cardcassonne - round {state.round}/{state.rounds_total} - {state.phase} - "
            f"dealer P{state.dealer} - to move P{state.current_player} - pile {state.deck_size}"
        )
    draw.text((10, 10), title, fill=(30, 30, 30), font=label_font(16))
    for r, row in enumerate(rows):
        y = 40 + r * ROW_H
        draw.rectangle((4, y, width - 4, y + ROW_H - 6), fill=ROW_TINT[r])
        draw.text((10, y + 18), COLOUR_NAMES[r], fill=(30, 30, 30), font=label_font(15))
        draw.text((10, y + 36), ROW_NAMES[r], fill=(70, 70, 70), font=label_font(12))
        x = LEFT
        for e in row:
            if e < 0:
                draw_meeple(draw, x + 4, y + 10, 30, PLAYER_COLOURS[-e - 1])
                x += 38 + GAP
            else:
                owner = (e >> 5) - 1 if e >= FACE_DOWN else None
                readable = owner is not None and owner == seat
                _card(draw, x, y + 6, e & 31, owner, readable)
                x += CARD_W + GAP
    y = 40 + 4 * ROW_H + 6
    for p in range(state.n):
        col = PLAYER_COLOURS[p]
        draw.rectangle((10, y + 4, 24, y + 18), fill=col)
        kept = " ".join(
            f"{KIND_NAMES[k]}x{c}" if c > 1 else KIND_NAMES[k]
            for k, c in enumerate(state.collected[p])
            if c
        )
        marker = ">" if p == state.current_player else " "
        text = (
            f"{marker}P{p}  score {int(state.scores[p]):3d}   hand {state.hand_size[p]}   "
            f"kept: {kept or '-'}"
        )
        draw.text((32, y + 4), text, fill=(20, 20, 20), font=label_font(14))
        y += 26
    if v is not None:
        draw.text((10, y + 20), f"P{seat} hand", fill=(20, 20, 20), font=label_font(14))
        x = LEFT
        for k, c in enumerate(v.hand):
            for _ in range(c):
                _card(draw, x, y + 4, k, None)
                x += CARD_W + GAP
    return np.asarray(img, dtype=np.uint8).copy()
