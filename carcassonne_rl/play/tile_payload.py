"""The JSON the page draws for one seat of a tile game, built from public information only.

Public: the board, followers, scores (and The Messages figures), followers left, the tile
being placed, how many tiles of each letter remain, the message cards drawn so far. Hidden,
and never read here: the order of the draw pile and of the message stack.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from typing import Any

from carcassonne_rl.games.carcassonne import (
    FigureChoice,
    FollowerPlacement,
    FollowerRecall,
    MessageChoice,
    PlacedFollower,
    Placement,
    State,
)

from .tile_art import follower_spot

MESSAGE_TITLES = {
    1: "score the smallest road",
    2: "score the smallest city",
    3: "score the smallest cloister",
    4: "2 points per pennant in cities with your follower",
    5: "2 points per knight",
    6: "2 points per farmer",
    7: "place one more tile",
    8: "score one of your followers and take it back",
}


def score_event_dict(event: Any) -> dict[str, Any]:
    """A score event of either engine as plain JSON data."""
    out = asdict(event)
    if "tiles" in out:
        out["tiles"] = [list(t) for t in out["tiles"]]
    if "cards" in out:
        out["cards"] = list(out["cards"])
    return out


def _legal_choices(state: State) -> dict[str, Any]:
    """The pending decision's legal actions, shaped for the page."""
    actions = state.legal_actions()
    phase = state.phase
    if phase == "place_tile":
        cells: dict[tuple[int, int], list[int]] = defaultdict(list)
        for a in actions:
            assert isinstance(a, Placement)
            cells[(a.x, a.y)].append(a.rotation)
        return {
            "placements": [
                {"x": x, "y": y, "rotations": sorted(rs)} for (x, y), rs in sorted(cells.items())
            ]
        }
    if phase == "place_follower":
        letter, x, y, rot = state.placed_tiles()[-1]
        spots = []
        for a in actions:
            assert isinstance(a, FollowerPlacement)
            if a.location is not None:
                fx, fy, lying = follower_spot(letter, rot, a.location)
                spots.append({"text": str(a), "x": x, "y": y, "spot": [fx, fy], "lying": lying})
        return {"follower_spots": spots, "none": "none"}
    if phase == "message_follower":
        spots = []
        for a in actions:
            assert isinstance(a, FollowerRecall)
            tile = state.tile_at(a.x, a.y)
            assert tile is not None
            fx, fy, lying = follower_spot(tile[0], tile[1], a.location)
            spots.append({"text": str(a), "x": a.x, "y": a.y, "spot": [fx, fy], "lying": lying})
        return {"recall_spots": spots}
    buttons = []
    for a in actions:
        if isinstance(a, FigureChoice):
            label = f"move figure {a.figure}"
        elif isinstance(a, MessageChoice):
            label = "carry out the message" if a.carry_out else "take 2 points instead"
        else:  # pragma: no cover - every phase is handled above
            label = str(a)
        buttons.append({"text": str(a), "label": label})
    return {"buttons": buttons}


def tile_payload(state: State, seat: int | None) -> dict[str, Any]:
    """Everything seat ``seat`` may see (``None``: a spectator of a replay, who sees the same
    public board; legal moves are then listed for whoever is to move)."""
    n = state.config.players
    messages = "messages" in state.config.expansions
    to_move = state.current_player
    payload: dict[str, Any] = {
        "game": "carcassonne",
        "players": n,
        "seat": seat,
        "expansions": list(state.config.expansions),
        "version": len(state.history),
        "turn": state.turn,
        "phase": state.phase,
        "current_player": to_move,
        "active_player": state.active_player,
        "is_over": bool(state.is_over),
        "winners": state.winners(),
        "scores": [int(s) for s in state.scores],
        "followers_left": [int(f) for f in state.followers_left],
        "current_tile": state.current_tile,
        "tiles_left": sum(state.remaining_tiles().values()),
        "remaining": {k: v for k, v in state.remaining_tiles().items() if v},
        "discarded": state.discarded,
        "tiles": [list(t) for t in state.placed_tiles()],
        "followers": [_follower(state, f) for f in state.placed_followers()],
        "score_events": [score_event_dict(e) for e in state.score_events],
        "messages": None,
        "legal": None,
    }
    if messages:
        card = state.message_card
        award = state.pending_award
        payload["messages"] = {
            "figures": [[int(a), int(b)] for a, b in state.figures],
            "card": card,
            "card_title": MESSAGE_TITLES.get(card) if card else None,
            "seen": state.messages_seen,
            "drawn": state.messages_drawn,
            "pending_award": list(award) if award else None,
        }
    if not state.is_over and (seat is None or seat == to_move):
        payload["legal"] = _legal_choices(state)
    return payload


def _follower(state: State, follower: PlacedFollower) -> dict[str, Any]:
    """A follower on the board and where the page draws it on its tile."""
    tile = state.tile_at(follower.x, follower.y)
    assert tile is not None
    fx, fy, lying = follower_spot(tile[0], tile[1], follower.location)
    return {
        "player": follower.player,
        "x": follower.x,
        "y": follower.y,
        "location": follower.location,
        "spot": [fx, fy],
        "lying": lying,
    }
