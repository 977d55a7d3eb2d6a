"""The play server answers bad requests with a clear 4xx and leaves the game unchanged;
replay steps through a record; a finished game is saved as the engine's record."""

from __future__ import annotations

import json
import random

import pytest
from helpers.play import finish, offered_moves, token_client

from carcassonne_rl.games.carcassonne import load_json as load_tile_json
from carcassonne_rl.games.cardcassonne import load_json as load_card_json
from carcassonne_rl.play.server import create_app
from carcassonne_rl.play.session import PlaySession, ReplaySession


@pytest.fixture(params=["carcassonne", "cardcassonne"])
def served(request, tmp_path):
    session = PlaySession(request.param, 2, (), 0, ["greedy"], seed=4, save_dir=tmp_path)
    return session, token_client(create_app({"g1": session}))


def _refused(client, session, method, url, status, words, **kwargs):
    """The request gets ``status`` with a JSON message containing ``words``; nothing changes."""
    before = session.state.to_json()
    answer = getattr(client, method)(url, **kwargs)
    assert answer.status_code == status, answer.get_data(as_text=True)
    message = answer.get_json()["error"]
    assert words.lower() in message.lower(), message
    assert session.state.to_json() == before


def test_bad_requests_get_clear_4xx_and_change_nothing(served):
    session, client = served
    payload = client.get("/api/games/g1").get_json()
    move = offered_moves(payload)[0]
    version = payload["version"]
    url = "/api/games/g1/action"
    _refused(client, session, "get", "/api/games/nope", 404, "unknown game id 'nope'")
    _refused(client, session, "post", "/api/games/nope/action", 404, "unknown game id")
    _refused(client, session, "get", "/game/nope", 404, "unknown game id")
    _refused(client, session, "post", url, 400, "JSON object", data="not json")
    _refused(client, session, "post", url, 400, "JSON object", json=[1, 2])
    _refused(client, session, "post", url, 400, "no 'action'", json={"seat": 0})
    _refused(client, session, "post", url, 400, "no 'seat'", json={"action": move})
    _refused(client, session, "post", url, 400, "'action' must be", json={"seat": 0, "action": [1]})
    _refused(
        client, session, "post", url, 400, "cannot read the move", json={"seat": 0, "action": "fly"}
    )
    _refused(
        client, session, "post", url, 400, "'seat' must be", json={"seat": "0", "action": move}
    )
    _refused(client, session, "post", url, 403, "not seat 1", json={"seat": 1, "action": move})
    _refused(
        client,
        session,
        "post",
        url,
        409,
        "out of date",
        json={"seat": 0, "action": move, "version": version + 3},
    )
    _refused(
        client,
        session,
        "post",
        url,
        400,
        "'version' must",
        json={"seat": 0, "action": move, "version": "x"},
    )
    _refused(client, session, "post", url, 409, "not legal now", json={"seat": 0, "action": 99999})
    if session.game == "carcassonne":
        wrong = {"seat": 0, "action": "none"}
        _refused(client, session, "post", url, 400, "pending decision is place_tile", json=wrong)
    else:
        wrong = {"seat": 0, "action": "keep"}
        _refused(client, session, "post", url, 409, "not legal now", json=wrong)
    _refused(client, session, "post", "/api/games/g1/undo", 403, "not seat 1", json={"seat": 1})
    _refused(client, session, "get", "/api/replay", 404, "no record")
    _refused(client, session, "get", "/static/../server.py", 404, "")
    _refused(client, session, "get", "/no/such/page", 404, "not found")
    _refused(client, session, "delete", url, 405, "method not allowed")
    # and a good move still works afterwards
    answer = client.post(url, json={"seat": 0, "action": move, "version": version})
    assert answer.status_code == 200
    assert answer.get_json()["decision"]["text"] == move


def test_requests_after_the_end_are_refused_and_the_record_is_saved(served, tmp_path):
    session, client = served
    finish(session, random.Random(1))
    final = session.state.to_json()
    payload = client.get("/api/games/g1").get_json()
    assert payload["is_over"] and payload["legal"] is None
    assert payload["winners"] == session.state.winners()
    _refused(
        client,
        session,
        "post",
        "/api/games/g1/action",
        409,
        "game is over",
        json={"seat": 0, "action": "none"},
    )
    _refused(client, session, "post", "/api/games/g1/undo", 409, "game is over", json={"seat": 0})
    saved = list(tmp_path.glob("*.json"))
    assert len(saved) == 1 and payload["saved"] == str(saved[0])
    load = load_tile_json if session.game == "carcassonne" else load_card_json
    again = load(saved[0].read_text())
    assert again.to_json() == final
    assert list(again.scores) == list(session.state.scores)


def test_undo_takes_back_the_last_own_move_and_redraws_the_unseen(served):
    session, client = served
    start = json.loads(session.state.to_json())
    payload = client.get("/api/games/g1").get_json()
    _refused(
        client, session, "post", "/api/games/g1/undo", 409, "nothing to undo", json={"seat": 0}
    )
    move = offered_moves(payload)[-1]
    client.post("/api/games/g1/action", json={"seat": 0, "action": move})
    assert session.state.history != []
    answer = client.post("/api/games/g1/undo", json={"seat": 0})
    assert answer.status_code == 200
    after = answer.get_json()["state"]
    # the seat sees exactly what it saw before its move ...
    assert {k: v for k, v in after.items() if k != "undos"} == {
        k: v for k, v in payload.items() if k != "undos"
    }
    assert after["undos"] == 1 and payload["undos"] == 0
    undone = json.loads(session.state.to_json())
    assert undone["actions"] == start["actions"]
    # ... but what it had not seen was drawn afresh (and the record still loads)
    hidden = "draw_order" if session.game == "carcassonne" else "card_order"
    assert undone[hidden] != start[hidden]
    load = load_tile_json if session.game == "carcassonne" else load_card_json
    assert load(session.state.to_json()).to_json() == session.state.to_json()


def test_agents_move_first_when_the_human_sits_later():
    session = PlaySession("carcassonne", 3, (), 2, ["random", "greedy"], seed=9)
    assert [d.player for d in session.log] == [0, 0, 1, 1]
    assert session.state.current_player == 2
    assert session.payload()["names"] == ["random", "greedy", "you"]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "carcassonne", "seat": 3}, "seat must be 0-1"),
        ({"game": "carcassonne", "opponents": ["random", "greedy"]}, "one opponent spec"),
        ({"game": "carcassonne", "opponents": ["nobody"]}, "bad opponent"),
        ({"game": "cardcassonne", "expansions": ("messages",)}, "only for the tile game"),
    ],
)
def test_bad_session_settings_are_refused(kwargs, words):
    from carcassonne_rl.play.session import PlayError

    with pytest.raises(PlayError, match=words):
        PlaySession(**kwargs)


@pytest.mark.parametrize("game", ["carcassonne", "cardcassonne"])
def test_replay_steps_through_a_record(game):
    session = PlaySession(game, 2, (), 0, ["random"], seed=2)
    finish(session, random.Random(5))
    record = json.loads(session.state.to_json())
    replay = ReplaySession(record, "r.json")
    client = token_client(create_app(replay=replay))
    steps = len(record["actions"])
    assert replay.steps == steps
    last = client.get(f"/api/replay?step={steps}").get_json()
    assert last["is_over"] and last["scores"] == [int(s) for s in session.state.scores]
    assert [d["text"] for d in last["log"]] == record["actions"]  # the spectator reads all
    first = client.get("/api/replay?step=0").get_json()
    assert first["version"] == 0 and first["scores"] == [0, 0]
    middle = client.get(f"/api/replay?step={steps // 2}").get_json()
    assert middle["version"] == steps // 2
    # the score events shown up to a step are those of the decisions before it
    shown = sum(len(d["events"]) for d in last["log"][: steps // 2])
    assert len(middle["score_events"]) == shown
    for bad in ("-1", str(steps + 1), "x"):
        answer = client.get(f"/api/replay?step={bad}")
        assert answer.status_code == 400 and "step must be an integer" in answer.get_json()["error"]
    assert client.get("/api/games/g1").status_code == 404


def test_replay_refuses_what_is_not_a_record():
    from carcassonne_rl.play.session import PlayError

    with pytest.raises(PlayError, match="not a game record"):
        ReplaySession({"hello": 1})
    session = PlaySession("carcassonne", 2, (), 0, ["random"], seed=2)
    record = json.loads(session.state.to_json())
    record["actions"] = record["actions"] + ["Z 9,9 r0"]
    with pytest.raises(PlayError, match="does not replay"):
        ReplaySession(record)
