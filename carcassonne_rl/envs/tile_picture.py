"""Pillow picture of a tile-game board: fields, cities, pennants, roads, cloisters,
labyrinths and followers in player colours, with the scores underneath."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from carcassonne_rl.envs.palette import PLAYER_COLOURS, draw_meeple, label_font
from carcassonne_rl.games.carcassonne import State
from carcassonne_rl.games.carcassonne.tiles import (
    CITY,
    CLOISTER,
    FIELD,
    LABYRINTH,
    ROAD,
    TILE_TYPES,
    TYPE_OF_LETTER,
)

T = 72  # pixels per tile
FIELD_GREEN = (120, 175, 70)
CITY_BROWN = (196, 150, 90)
ROAD_WHITE = (238, 232, 215)
PENNANT_FILL = (250, 246, 235)  # a white shield: no player colour (those mark followers)
PENNANT_EDGE = (150, 30, 40)
SIDE_VEC = ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))  # N E S W side centres
HALF_POS = (  # NNW NNE ENE ESE SSE SSW WSW WNW, just inside the tile
    (0.25, 0.1),
    (0.75, 0.1),
    (0.9, 0.25),
    (0.9, 0.75),
    (0.75, 0.9),
    (0.25, 0.9),
    (0.1, 0.75),
    (0.1, 0.25),
)
SIDES = "NESW"


def rotate_points(pts: list[tuple[float, float]], side: int) -> list[tuple[float, float]]:
    """Points given for the north side, turned to ``side`` (0 N, 1 E, 2 S, 3 W)."""
    out = []
    for x, y in pts:
        for _ in range(side):
            x, y = 1 - y, x
        out.append((x, y))
    return out


def city_shapes(sides: list[int]) -> list[list[tuple[float, float]]]:
    """Polygons (unit square) of one city touching ``sides`` (after rotation)."""
    polys = [rotate_points([(0, 0), (1, 0), (0.72, 0.3), (0.28, 0.3)], s) for s in sides]
    if len(sides) >= 2:
        polys.append([(0.28, 0.28), (0.72, 0.28), (0.72, 0.72), (0.28, 0.72)])
        for s in sides:
            if (s + 1) % 4 in sides:  # corner between s and s+1 filled
                polys.append(rotate_points([(1, 0), (1, 0.5), (0.5, 0.5), (0.5, 0)], s))
    if len(sides) == 4:
        polys = [[(0, 0), (1, 0), (1, 1), (0, 1)]]
    return polys


def tile_segments(letter: str, rot: int) -> list[tuple[int, list[int], list[int], bool]]:
    """(kind, sides after rotation, halves after rotation, pennant) of each segment."""
    tt = TILE_TYPES[TYPE_OF_LETTER[letter]]
    halves = ("NNW", "NNE", "ENE", "ESE", "SSE", "SSW", "WSW", "WNW")
    out = []
    for seg in tt.segments:
        sides = [(SIDES.index(s) + rot) % 4 for s in seg.sides]
        hs = [(halves.index(h) + 2 * rot) % 8 for h in seg.halves]
        out.append((seg.kind, sides, hs, seg.pennant))
    return out


def _draw_tile(draw: ImageDraw.ImageDraw, ox: int, oy: int, letter: str, rot: int) -> None:
    def px(pts):
        return [(ox + x * T, oy + y * T) for x, y in pts]

    draw.rectangle((ox, oy, ox + T, oy + T), fill=FIELD_GREEN)
    segs = tile_segments(letter, rot)
    for kind, sides, _, _ in segs:  # roads under the cities (city gates)
        if kind not in (ROAD, LABYRINTH):
            continue
        c = (ox + T / 2, oy + T / 2)
        ends = [(ox + SIDE_VEC[s][0] * T, oy + SIDE_VEC[s][1] * T) for s in sides]
        if len(ends) == 2:
            lines = [[ends[0], c, ends[1]]]
        else:
            lines = [[e, c] for e in ends]
        for line in lines:
            draw.line(line, fill=(90, 80, 60), width=int(T * 0.16), joint="curve")
            draw.line(line, fill=ROAD_WHITE, width=int(T * 0.1), joint="curve")
    for kind, sides, _, pennant in segs:
        if kind != CITY:
            continue
        for poly in city_shapes(sides):
            draw.polygon(px(poly), fill=CITY_BROWN)
        if pennant:
            s = sides[0]
            px, py = rotate_points([(0.5, 0.16)], s)[0] if len(sides) < 4 else (0.5, 0.5)
            x, y = ox + px * T, oy + py * T
            d = T * 0.09
            draw.polygon(
                [
                    (x - d, y - d),
                    (x + d, y - d),
                    (x + d, y + 0.3 * d),
                    (x, y + 1.3 * d),
                    (x - d, y + 0.3 * d),
                ],
                fill=PENNANT_FILL,
                outline=PENNANT_EDGE,
                width=2,
            )
    for kind, _, _, _ in segs:
        cx, cy = ox + T / 2, oy + T / 2
        if kind == CLOISTER:
            w = T * 0.2
            draw.rectangle((cx - w, cy - w * 0.5, cx + w, cy + w), fill=(225, 215, 190))
            draw.polygon(
                [(cx - w * 1.2, cy - w * 0.4), (cx, cy - w * 1.4), (cx + w * 1.2, cy - w * 0.4)],
                fill=(180, 50, 40),
            )
            draw.rectangle((cx - w * 0.25, cy + w * 0.3, cx + w * 0.25, cy + w), fill=(80, 50, 30))
        elif kind == LABYRINTH:
            for i, w in enumerate((0.26, 0.18, 0.1)):
                box = (cx - w * T, cy - w * T, cx + w * T, cy + w * T)
                draw.rectangle(box, outline=(30, 90, 30), width=3, fill=None if i else ROAD_WHITE)
    draw.rectangle((ox, oy, ox + T, oy + T), outline=(60, 60, 60))


def segment_follower_spot(
    kind: int, sides: list[int], halves: list[int]
) -> tuple[float, float, bool]:
    """Unit-square position of a follower on a segment, and whether it lies (farmer)."""
    if kind in (CLOISTER, LABYRINTH):
        return 0.5, 0.62, False
    if kind == FIELD:
        x, y = HALF_POS[halves[0]]
        return x, y, True
    pts = [SIDE_VEC[s] for s in sides]
    x = sum(p[0] for p in pts) / len(pts)
    y = sum(p[1] for p in pts) / len(pts)
    if len(pts) == 1:  # move inwards from the edge
        x, y = 0.5 + (x - 0.5) * 0.55, 0.5 + (y - 0.5) * 0.55
    return x, y, False


def draw_board(state: State) -> np.ndarray:
    """RGB picture (H, W, 3) uint8 of the board, followers and scores."""
    tiles = state.placed_tiles()
    xs = [t[1] for t in tiles]
    ys = [t[2] for t in tiles]
    x_lo, x_hi, y_lo, y_hi = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    width = max((x_hi - x_lo + 1) * T, 600)
    messages = "messages" in state.config.expansions
    lines = 1 + state.config.players + int(messages)
    panel = max(12 + 22 * lines, T + 34)
    img = Image.new("RGB", (width, (y_hi - y_lo + 1) * T + panel), (236, 228, 205))
    draw = ImageDraw.Draw(img)
    where = {}
    for letter, x, y, r in tiles:
        ox, oy = (x - x_lo) * T, (y - y_lo) * T
        where[(x, y)] = (ox, oy, letter, r)
        _draw_tile(draw, ox, oy, letter, r)
    if state.num_tiles_placed:
        letter, x, y, r = tiles[-1]
        ox, oy = (x - x_lo) * T, (y - y_lo) * T
        draw.rectangle((ox + 1, oy + 1, ox + T - 1, oy + T - 1), outline=(255, 215, 0), width=3)
    for f in state.placed_followers():
        ox, oy, letter, r = where[(f.x, f.y)]
        segs = tile_segments(letter, r)
        k = _segment_index(letter, r, f.location)
        kind, sides, halves, _ = segs[k]
        fx, fy, lying = segment_follower_spot(kind, sides, halves)
        size = T * 0.3
        draw_meeple(
            draw,
            ox + fx * T - size / 2,
            oy + fy * T - size / 2,
            size,
            PLAYER_COLOURS[f.player],
            lying=lying,
        )
    y0 = (y_hi - y_lo + 1) * T + 6
    tile = state.current_tile
    if state.is_over:
        head = f"game over after turn {state.turn}"
    else:
        head = f"turn {state.turn}   phase {state.phase}"
    if tile and not state.is_over:
        head += f"   tile to place: {tile} (right, as printed)"
        ox, oy = width - T - 10, y0 + 20
        draw.text((ox, y0), f"to place: {tile}", fill=(20, 20, 20), font=label_font(13))
        _draw_tile(draw, ox, oy, tile, 0)
    draw.text((10, y0), head, fill=(20, 20, 20), font=label_font(15))
    figures = state.figures if messages else None
    for p in range(state.config.players):
        yy = y0 + 22 * (p + 1)
        draw.rectangle((10, yy, 24, yy + 14), fill=PLAYER_COLOURS[p])
        extra = f" (figure A {figures[p][0]}, figure B {figures[p][1]})" if messages else ""
        mark = ">" if p == state.current_player else " "
        points = int(state.scores[p])
        text = (
            f"{mark}P{p}  {points} point{'' if points == 1 else 's'}{extra}   "
            f"followers left {int(state.followers_left[p])}"
        )
        draw.text((30, yy), text, fill=(20, 20, 20), font=label_font(14))
    if messages:
        yy = y0 + 22 * (state.config.players + 1)
        note = "The Messages: two scoring figures per player; points = A + B (+ final scoring)"
        draw.text((10, yy), note, fill=(70, 70, 70), font=label_font(12))
    return np.asarray(img, dtype=np.uint8).copy()


def _segment_index(letter: str, rot: int, location: str) -> int:
    from carcassonne_rl.games.carcassonne.tiles import SEGMENT_OF_NAME

    return SEGMENT_OF_NAME[TYPE_OF_LETTER[letter]][rot][location]
