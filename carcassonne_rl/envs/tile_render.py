"""Text board of the tile game (3 x 5 characters per tile)."""

from __future__ import annotations

from carcassonne_rl.games.carcassonne import State
from carcassonne_rl.games.carcassonne.tiles import LETTERS, TABLES

EDGES = TABLES["edges"]
_EDGE_CHAR = {1: ".", 2: "=", 3: "#"}  # field, road, city


def board_text(state: State) -> str:
    """The placed tiles (``#`` city, ``=`` road, ``.`` field on each side, the tile letter in
    the middle, ``+`` cloister), a follower as its seat digit (top right), then the scores."""
    tiles = state.placed_tiles()
    followers = {(f.x, f.y): f for f in state.placed_followers()}
    xs = [t[1] for t in tiles]
    ys = [t[2] for t in tiles]
    x_lo, x_hi, y_lo, y_hi = min(xs), max(xs), min(ys), max(ys)
    grid = [[" "] * (5 * (x_hi - x_lo + 1)) for _ in range(3 * (y_hi - y_lo + 1))]
    for letter, x, y, r in tiles:
        t = LETTERS.index(letter)
        e = [_EDGE_CHAR[int(EDGES[t, r, s])] for s in range(4)]
        f = followers.get((x, y))
        mark = str(f.player) if f else " "
        centre = "+" if letter in "AB" else letter
        rows = (
            f" {e[0]}{e[0]}{e[0]}{mark}",
            f"{e[3]}{e[3]}{centre}{e[1]}{e[1]}",
            f" {e[2]}{e[2]}{e[2]} ",
        )
        gx, gy = 5 * (x - x_lo), 3 * (y - y_lo)
        for dy, line in enumerate(rows):
            for dx, ch in enumerate(line.ljust(5)):
                grid[gy + dy][gx + dx] = ch
    lines = ["".join(row).rstrip() for row in grid]
    head = (
        f"turn {state.turn}  phase {state.phase}  to move {state.current_player}  "
        f"tile {state.current_tile or '-'}  x {x_lo}..{x_hi}  y {y_lo}..{y_hi}"
    )
    seats = "  ".join(
        f"P{p}: {int(s)} pts, {int(f)} followers"
        for p, (s, f) in enumerate(zip(state.scores, state.followers_left, strict=True))
    )
    return "\n".join([head, *lines, seats])
