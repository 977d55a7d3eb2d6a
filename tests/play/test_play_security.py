"""The local server is no open door: every route needs the launch's token, answers only
local Host names, refuses cross-origin POSTs, sends strict headers, and checks the seat the
same strict way on every endpoint. Refused requests change nothing."""

from __future__ import annotations

import json

import pytest
from helpers.play import offered_moves

from carcassonne_rl.cli.play import launch_url, secured_app
from carcassonne_rl.play.server import allowed_host_names, create_app, host_name, is_loopback
from carcassonne_rl.play.session import PlaySession, ReplaySession

TOKEN = "launch-token-for-the-tests-0123456789abcdefgh"


@pytest.fixture
def served():
    """An app serving one game (the person at seat 1, so that True and 1.0, both == 1 in
    Python, would pass a lax seat check) and one replay."""
    game = PlaySession("carcassonne", 3, (), 1, ["random"], seed=11)
    replay_source = PlaySession("cardcassonne", 2, (), 0, ["random"], seed=3)
    replay = ReplaySession(json.loads(replay_source.state.to_json()), "r.json")
    return create_app({game.game_id: game}, replay=replay, token=TOKEN), game


def _routes(game_id: str) -> list[tuple[str, str, dict | None]]:
    body = {"seat": 1}
    return [
        ("get", "/", None),
        ("get", f"/game/{game_id}", None),
        ("get", "/replay", None),
        ("get", "/static/common.js", None),
        ("get", "/api/tiles", None),
        ("get", f"/api/games/{game_id}", None),
        ("get", "/api/replay?step=0", None),
        ("post", f"/api/games/{game_id}/action", {"seat": 1, "action": "none"}),
        ("post", f"/api/games/{game_id}/undo", body),
        ("post", f"/api/games/{game_id}/new", body),
    ]


def _call(client, method, url, body, **kwargs):
    if method == "post":
        return client.post(url, json=body, **kwargs)
    return client.get(url, **kwargs)


def _assert_headers(answer) -> None:
    csp = answer.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "no-referrer"


def test_every_route_needs_the_token(served):
    app, game = served
    client = app.test_client()
    before = game.state.to_json()
    for method, url, body in _routes(game.game_id):
        for headers in ({}, {"X-Play-Token": "wrong"}, {"X-Play-Token": TOKEN[:-1]}):
            answer = _call(client, method, url, body, headers=headers)
            assert answer.status_code == 403, (url, headers)
            assert "token" in answer.get_json()["error"]
            _assert_headers(answer)
        wrong = url + ("&" if "?" in url else "?") + "token=nope"
        assert _call(client, method, wrong, body).status_code == 403
    assert game.state.to_json() == before
    # with the token every GET route answers (the POSTs are checked below)
    for method, url, _ in _routes(game.game_id):
        if method == "get":
            answer = client.get(url, headers={"X-Play-Token": TOKEN})
            assert answer.status_code in (200, 302), url
            _assert_headers(answer)


def test_the_token_in_the_url_becomes_a_strict_cookie(served):
    app, game = served
    client = app.test_client()
    answer = client.get(f"/game/{game.game_id}?delay=0&token={TOKEN}")
    assert answer.status_code == 303
    assert answer.headers["Location"] == f"/game/{game.game_id}?delay=0"  # token dropped
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"carcassonne_rl_token_80={TOKEN};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    # the browser now carries the cookie: pages and API calls work without the query
    assert client.get(f"/game/{game.game_id}").status_code == 200
    assert client.get(f"/api/games/{game.game_id}").get_json()["seat"] == 1
    # an API call may carry the token in its query too (no redirect, no cookie)
    fresh = app.test_client()
    answer = fresh.get(f"/api/games/{game.game_id}?token={TOKEN}")
    assert answer.status_code == 200 and "Set-Cookie" not in answer.headers


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8765", "127.0.0.1.nip.io", "10.1.2.3"]
)
def test_a_foreign_host_header_is_refused(served, host):
    app, game = served
    client = app.test_client()
    before = game.state.to_json()
    for method, url, body in _routes(game.game_id):
        answer = _call(client, method, url, body, headers={"X-Play-Token": TOKEN, "Host": host})
        assert answer.status_code == 403, (url, host)
        assert "host name" in answer.get_json()["error"]
        _assert_headers(answer)
    assert game.state.to_json() == before


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:1234", "[::1]:8765", "LOCALHOST"])
def test_loopback_host_names_are_answered(served, host):
    app, game = served
    answer = app.test_client().get(
        f"/api/games/{game.game_id}", headers={"X-Play-Token": TOKEN, "Host": host}
    )
    assert answer.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://localhost:9999"},  # another local port is another origin
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_cross_origin_posts_are_refused(served, headers):
    app, game = served
    client = app.test_client()
    before = game.state.to_json()
    for method, url, body in _routes(game.game_id):
        if method != "post":
            continue
        answer = _call(client, method, url, body, headers={"X-Play-Token": TOKEN, **headers})
        assert answer.status_code == 403, (url, headers)
        assert "cross-" in answer.get_json()["error"]
    # a form post (no JSON content type, as a cross-site form would send) changes nothing
    answer = client.post(
        f"/api/games/{game.game_id}/undo",
        data="seat=1",
        headers={"X-Play-Token": TOKEN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 400
    assert game.state.to_json() == before


def test_a_same_origin_post_is_served(served):
    app, game = served
    move = offered_moves(game.payload())[0]
    headers = {"X-Play-Token": TOKEN, "Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    answer = app.test_client().post(
        f"/api/games/{game.game_id}/action", json={"seat": 1, "action": move}, headers=headers
    )
    assert answer.status_code == 200, answer.get_json()


@pytest.mark.parametrize("seat", [True, 1.0, "1", 0, 2, -1, None, [1], {"seat": 1}])
def test_every_endpoint_checks_the_seat_strictly(served, seat):
    app, game = served
    client = app.test_client()
    client.environ_base["HTTP_X_PLAY_TOKEN"] = TOKEN
    game_id = game.game_id
    move = offered_moves(game.payload())[0]
    before = game.state.to_json()
    bodies = {
        "action": {"seat": seat, "action": move},
        "undo": {"seat": seat},
        "new": {"seat": seat},
    }
    for what, body in bodies.items():
        answer = client.post(f"/api/games/{game_id}/{what}", json=body)
        wanted = 403 if isinstance(seat, int) and not isinstance(seat, bool) else 400
        assert answer.status_code == wanted, (what, seat, answer.get_json())
        error = answer.get_json()["error"]
        assert ("not seat" in error) if wanted == 403 else ("'seat' must be an integer" in error)
        answer = client.post(f"/api/games/{game_id}/{what}", json={})
        assert answer.status_code == 400 and "no 'seat'" in answer.get_json()["error"]
    assert game.state.to_json() == before
    assert client.get(f"/api/games/{game_id}").status_code == 200  # the game is still served


def test_game_ids_and_tokens_cannot_be_guessed():
    a = PlaySession("cardcassonne", 2, (), 0, ["random"])
    b = PlaySession("cardcassonne", 2, (), 0, ["random"])
    assert a.game_id != b.game_id and len(a.game_id) >= 22  # 128 bits, URL-safe base64
    assert a.seed != b.seed and a.state.to_json() != b.state.to_json()
    tokens = {create_app({}).config["PLAY_TOKEN"] for _ in range(3)}
    assert len(tokens) == 3 and all(len(t) >= 43 for t in tokens)  # 256 bits


def test_new_game_keeps_the_options_and_deals_afresh(served):
    app, game = served
    client = app.test_client()
    client.environ_base["HTTP_X_PLAY_TOKEN"] = TOKEN
    answer = client.post(f"/api/games/{game.game_id}/new", json={"seat": 1})
    assert answer.status_code == 200
    new_id = answer.get_json()["game_id"]
    assert answer.get_json()["url"] == f"/game/{new_id}" and new_id != game.game_id
    assert client.get(f"/api/games/{game.game_id}").status_code == 404  # the old one is gone
    payload = client.get(f"/api/games/{new_id}").get_json()
    assert payload["seat"] == 1 and payload["players"] == 3 and payload["undos"] == 0
    assert client.get(f"/game/{new_id}").status_code == 200


def test_host_names_and_urls_of_the_command():
    assert host_name("[::1]:8765") == "::1" and host_name("LocalHost:80") == "localhost"
    assert host_name("192.168.1.5") == "192.168.1.5"
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert allowed_host_names("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    assert "192.168.1.5" in allowed_host_names("192.168.1.5")
    assert launch_url("::1", 80, "/game/x?delay=0", "T") == "http://[::1]:80/game/x?delay=0&token=T"
    assert launch_url("0.0.0.0", 81, "/replay", "T") == "http://127.0.0.1:81/replay?token=T"
    # bound to every interface: a machine's own address is answered, a name is not
    app = secured_app("0.0.0.0", games={})
    client = app.test_client()
    token = {"X-Play-Token": app.config["PLAY_TOKEN"]}
    assert (
        client.get("/api/tiles", headers={**token, "Host": "192.168.1.5:8765"}).status_code == 200
    )
    assert client.get("/api/tiles", headers={**token, "Host": "evil.example"}).status_code == 403


def test_a_network_host_is_warned_about(tmp_path):
    """``play --host 0.0.0.0`` warns that the game is reachable from the network, and prints
    a URL with the token (never the deal seed)."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "carcassonne_rl.cli.main", "play", "--game", "cardcassonne"]
    command += ["--no-browser", "--port", "0", "--host", "0.0.0.0", "--save-dir", str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        warning = process.stderr.readline()
        line = process.stdout.readline()
    finally:
        process.terminate()
        process.wait(10)
    assert warning.startswith("warning: --host 0.0.0.0") and "reachable from the network" in warning
    assert line.startswith("serving on http://127.0.0.1:") and "/game/" in line
    assert "?token=" in line and "seed" not in line
