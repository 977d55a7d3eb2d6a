"""Shared helpers of the play tests: the moves a page offers, and finishing a game."""

from __future__ import annotations

import random
from typing import Any


def offered_moves(payload: dict[str, Any]) -> list[str]:
    """The notations of the moves the page offers in ``payload`` (empty if none)."""
    legal = payload.get("legal")
    if not legal:
        return []
    if payload["game"] == "cardcassonne":
        return [a["text"] for a in legal]
    if "placements" in legal:
        tile = payload["current_tile"]
        return [
            f"{tile} {c['x']},{c['y']} r{r}" for c in legal["placements"] for r in c["rotations"]
        ]
    if "follower_spots" in legal:
        return ["none"] + [s["text"] for s in legal["follower_spots"]]
    if "recall_spots" in legal:
        return [s["text"] for s in legal["recall_spots"]]
    return [b["text"] for b in legal["buttons"]]


def finish(session, rng: random.Random) -> None:
    """Play the human seat of ``session`` with random offered moves to the end."""
    while not session.state.is_over:
        payload = session.payload()
        session.act(session.seat, rng.choice(offered_moves(payload)), payload["version"])


def token_client(app):
    """A Flask test client that sends the app's launch token with every request (the
    ``X-Play-Token`` header, as a script would)."""
    client = app.test_client()
    client.environ_base["HTTP_X_PLAY_TOKEN"] = app.config["PLAY_TOKEN"]
    return client
