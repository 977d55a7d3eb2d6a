"""Helpers shared by the Messages scenario tests."""

from __future__ import annotations


def award(s, player: int, points: int, figure: str) -> None:
    """The pending award must be `points` (computed by hand) for `player`; move `figure`."""
    assert s.phase == "choose_figure"
    assert s.current_player == player
    assert s.pending_award == (player, points)
    s.apply(f"figure:{figure}")


def play(s, *moves: str) -> None:
    for m in moves:
        s.apply(m)
