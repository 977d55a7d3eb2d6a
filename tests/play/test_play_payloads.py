"""Hidden information never reaches the page: every payload the server sends to seat K is
what seat K may know, and nothing more.

A payload is checked by building it again from a *twin* state that agrees with seat K's
information but has every hidden thing resampled (tile game: the undrawn tiles and message
cards reshuffled; Cardcassonne: ``determinize`` deals the other hands, others' face-down
cards and the pile afresh). A payload that carried any hidden information would differ.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers.play import offered_moves, token_client

from carcassonne_rl.games.cardcassonne import determinize
from carcassonne_rl.play import session as session_module
from carcassonne_rl.play.card_payload import card_payload
from carcassonne_rl.play.server import create_app
from carcassonne_rl.play.session import PlaySession
from carcassonne_rl.play.tile_payload import tile_payload

EXPANSION_CONFIGS = [(), ("messages",), ("labyrinth",), ("messages", "labyrinth")]


def _twin_payload(state, seat: int, rng: random.Random) -> dict:
    if hasattr(state, "view"):
        twin = determinize(state, seat, rng)
        return card_payload(twin, seat, len(state.history))
    twin = state.clone()
    twin.shuffle_hidden(rng.randrange(2**31))
    return tile_payload(twin, seat)


@pytest.fixture
def checked_builder(monkeypatch):
    """Every payload the session builds is checked against a resampled twin and kept."""
    built: list[str] = []
    original = session_module.seat_payload
    rng = random.Random(0)

    def checked(state, seat):
        payload = original(state, seat)
        assert seat is not None
        assert payload == _twin_payload(state, seat, rng), "payload depends on hidden info"
        built.append(json.dumps(payload, sort_keys=True))
        return payload

    monkeypatch.setattr(session_module, "seat_payload", checked)
    return built


SESSION_FIELDS = ("log", "game_id", "mode", "names", "allow_undo", "undos", "saved", "decision")


def _strip(payload: dict) -> str:
    return json.dumps({k: v for k, v in payload.items() if k not in SESSION_FIELDS}, sort_keys=True)


def _play_through_server(session: PlaySession, seed: int) -> list[dict]:
    """Play the human seat through the HTTP API to the end; return every body received."""
    client = token_client(create_app({"g": session}))
    rng = random.Random(seed)
    payload = client.get("/api/games/g").get_json()
    bodies = [payload]
    while not payload["is_over"]:
        move = rng.choice(offered_moves(payload))
        answer = client.post(
            "/api/games/g/action",
            json={"seat": session.seat, "action": move, "version": payload["version"]},
        )
        assert answer.status_code == 200, answer.get_json()
        bodies.append(answer.get_json())
        payload = bodies[-1]["state"]
    return bodies


def _sent_payloads(bodies: list[dict]) -> list[dict]:
    out = []
    for body in bodies:
        if "phase" in body:
            out.append(body)
            continue
        out.append(body["state"])
        out.extend(body["frames"])
    return out


def _check_bodies(session: PlaySession, bodies: list[dict], built: list[str]) -> int:
    known = set(built)
    payloads = _sent_payloads(bodies)
    for p in payloads:
        assert _strip(p) in known, "the server sent a payload not built by the checked builder"
        assert p["seat"] == session.seat
        if p["legal"] is not None:
            assert p["current_player"] == session.seat, "legal moves sent for another seat"
    text = json.dumps(bodies)
    for secret in ("draw_order", "message_order", "card_order"):
        assert secret not in text
    return len(payloads)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("expansions", EXPANSION_CONFIGS, ids=lambda e: "+".join(e) or "base")
def test_tile_payloads_carry_no_hidden_information(checked_builder, players, expansions):
    seat = players - 1
    session = PlaySession("carcassonne", players, expansions, seat, ["random"], seed=players)
    bodies = _play_through_server(session, seed=7)
    assert session.state.is_over
    sent = _check_bodies(session, bodies, checked_builder)
    assert sent > 70  # every tile of the game was shown
    # the remaining draw order (a hidden string) never appears
    order = session.state.draw_order
    assert order[-12:] not in json.dumps(bodies)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_card_payloads_carry_no_hidden_information(checked_builder, players):
    seat = 1
    session = PlaySession("cardcassonne", players, (), seat, ["random"], seed=players)
    bodies = _play_through_server(session, seed=3)
    assert session.state.is_over
    sent = _check_bodies(session, bodies, checked_builder)
    assert sent > 50
    # the log names another seat's face-down card only as ??
    final_log = bodies[-1]["state"]["log"]
    hidden_plays = [d for d in final_log if d["player"] != seat and d["text"].endswith("down")]
    assert hidden_plays and all(d["text"].startswith("play ?? ") for d in hidden_plays)
    own_plays = [d for d in final_log if d["player"] == seat and d["text"].endswith("down")]
    assert own_plays and not any("??" in d["text"] for d in own_plays)


def test_card_payload_check_would_catch_a_leak():
    """The twin comparison is sharp: a payload with another hand added differs from the twin's."""
    session = PlaySession("cardcassonne", 3, (), 0, ["random"], seed=11)
    state = session.state
    leaky = card_payload(state, None, len(state.history))  # the spectator sees every hand
    leaky["seat"] = 0
    leaky["legal"] = card_payload(state, 0, len(state.history))["legal"]
    rng = random.Random(1)
    assert leaky != _twin_payload(state, 0, rng)
    assert card_payload(state, 0, len(state.history)) == _twin_payload(state, 0, rng)


def test_tile_payload_check_would_catch_a_leak():
    """The twin comparison is sharp: the pile's order, if sent, differs in the twin."""
    session = PlaySession("carcassonne", 2, ("messages",), 0, ["random"], seed=5)
    state = session.state

    def leaky(s) -> dict:
        return tile_payload(s, 0) | {"pile": s.draw_order[-5:], "stack": s.message_order}

    rng = random.Random(2)
    assert tile_payload(state, 0) == _twin_payload(state, 0, rng)
    twin = state.clone()
    twin.shuffle_hidden(3)
    assert leaky(state) != leaky(twin)
    assert tile_payload(state, 0) == tile_payload(twin, 0)
