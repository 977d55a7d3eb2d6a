"""The local web server of ``carcassonne-rl play`` / ``replay`` (Flask).

Routes (JSON answers; every error is a 4xx with ``{"error": message}``, the game unchanged):

- ``GET /`` the current game's (or the replay's) page;
- ``GET /game/<id>`` the page of a game, ``GET /replay`` the replay page;
- ``GET /api/tiles`` SVG shapes of the tiles;
- ``GET /api/games/<id>`` the human seat's payload (reload resumes here);
- ``POST /api/games/<id>/action`` ``{"seat": K, "action": "<notation>", "version": N}``;
- ``POST /api/games/<id>/undo`` ``{"seat": K}``;
- ``POST /api/games/<id>/new`` ``{"seat": K}``: a new game, same options, new deal;
- ``GET /api/replay?step=N`` the replay at step N.

What guards them (see ``docs/play.md``): a random token made per launch (256 bits) that
every request must carry (``?token=`` in the printed URL, then an HttpOnly SameSite=Strict
cookie; scripts may send the ``X-Play-Token`` header); a Host header check against DNS
rebinding; cross-origin POSTs refused (``Origin`` / ``Sec-Fetch-Site``, JSON bodies only);
CSP, frame and sniffing headers on every answer; game ids that cannot be guessed.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from importlib import resources
from typing import Any
from urllib.parse import urlencode

from flask import Flask, Response, jsonify, redirect, request
from werkzeug.exceptions import HTTPException

from .session import PlayError, PlaySession, ReplaySession
from .tile_art import tile_art_table

STATIC_FILES = {
    "play.css": "text/css",
    "common.js": "text/javascript",
    "tile.js": "text/javascript",
    "card.js": "text/javascript",
}
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})
TOKEN_HEADER = "X-Play-Token"
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _static_text(name: str) -> str:
    return resources.files("carcassonne_rl.play").joinpath("static", name).read_text("utf-8")


def host_name(host_header: str) -> str:
    """The name part of a Host header (no port; IPv6 without brackets), lower-cased."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_port(host_header: str) -> str:
    """The port of a Host header (``"80"`` when it names none)."""
    host = host_header.strip()
    if host.startswith("["):
        host = host.split("]", 1)[1]
        port = host[1:] if host.startswith(":") else ""
    else:
        port = host.split(":")[1] if host.count(":") == 1 else ""
    return port if port.isdigit() else "80"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine's loopback interface."""
    if host_name(host) == "localhost":
        return True
    try:
        return ipaddress.ip_address(host_name(host)).is_loopback
    except ValueError:
        return False


def allowed_host_names(bind_host: str) -> frozenset[str]:
    """Host header names the server answers when bound to ``bind_host``: the loopback names
    and ``bind_host`` itself (for a wildcard bind, also this machine's names)."""
    names = set(LOOPBACK_NAMES) | {host_name(bind_host)}
    if bind_host in WILDCARD_HOSTS:
        import socket

        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return frozenset(names - {""})


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def create_app(
    games: dict[str, PlaySession] | None = None,
    replay: ReplaySession | None = None,
    step_delay_ms: int = 600,
    token: str | None = None,
    allowed_hosts: Iterable[str] = LOOPBACK_NAMES,
    any_ip_host: bool = False,
) -> Flask:
    """The app serving ``games`` (by id) and/or one ``replay``.

    ``token``: the secret every request must carry (default: a fresh random one, in
    ``app.config["PLAY_TOKEN"]``); ``allowed_hosts``: the Host header names answered;
    ``any_ip_host``: also answer any IP address as Host (a wildcard bind; an address cannot
    be DNS-rebound)."""
    games = games if games is not None else {}
    app = Flask(__name__, static_folder=None)
    app.config["PLAY_TOKEN"] = token = token or secrets.token_urlsafe(32)
    hosts = frozenset(host_name(h) for h in allowed_hosts)

    def error(message: str, status: int) -> tuple[Response, int]:
        return jsonify({"error": message}), status

    @app.errorhandler(PlayError)
    def _play_error(err: PlayError):
        return error(str(err), err.status)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        return error(f"{err.code} {err.name}: {err.description}", err.code or 400)

    def cookie_name() -> str:
        # cookies ignore ports: one name per port keeps two local servers apart
        return f"carcassonne_rl_token_{host_port(request.host)}"

    def token_matches(given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), token.encode())

    @app.before_request
    def guard():
        name = host_name(request.host)
        if name not in hosts and not (any_ip_host and _is_ip_literal(name)):
            raise PlayError(f"this server does not answer the host name {name!r}", 403)
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("Origin")
            if origin is not None and origin != f"{request.scheme}://{request.host}":
                raise PlayError(f"cross-origin request from {origin!r} refused", 403)
            site = request.headers.get("Sec-Fetch-Site")
            if site is not None and site not in ("same-origin", "none"):
                raise PlayError(f"cross-site request ({site}) refused", 403)
        if token_matches(request.cookies.get(cookie_name())) or token_matches(
            request.headers.get(TOKEN_HEADER)
        ):
            return None
        if token_matches(request.args.get("token")):
            if request.method == "GET" and not request.path.startswith("/api/"):
                rest = {k: v for k, v in request.args.items() if k != "token"}
                target = request.path + (f"?{urlencode(rest)}" if rest else "")
                answer = redirect(target, 303)
                answer.set_cookie(cookie_name(), token, httponly=True, samesite="Strict", path="/")
                return answer
            return None
        raise PlayError(
            "missing or wrong access token: open the URL that `carcassonne-rl play` (or "
            "`replay`) printed, with its ?token=...",
            403,
        )

    @app.after_request
    def security_headers(answer: Response) -> Response:
        for key, value in SECURITY_HEADERS.items():
            answer.headers[key] = value
        return answer

    def session_of(game_id: str) -> PlaySession:
        session = games.get(game_id)
        if session is None:
            raise PlayError(f"unknown game id {game_id!r}", 404)
        return session

    def body() -> dict[str, Any]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise PlayError("the request body must be a JSON object (application/json)")
        return data

    def page() -> Response:
        html = _static_text("index.html").replace("__STEP_DELAY__", str(int(step_delay_ms)))
        return Response(html, mimetype="text/html")

    @app.get("/")
    def index():
        if replay is not None:
            return redirect("/replay")
        if games:
            return redirect(f"/game/{next(iter(games))}")
        raise PlayError("no game is being served", 404)

    @app.get("/game/<game_id>")
    def game_page(game_id: str):
        session_of(game_id)
        return page()

    @app.get("/replay")
    def replay_page():
        if replay is None:
            raise PlayError("no record is being replayed", 404)
        return page()

    @app.get("/static/<name>")
    def static_file(name: str):
        if name not in STATIC_FILES:
            raise PlayError(f"no static file {name!r}", 404)
        return Response(_static_text(name), mimetype=STATIC_FILES[name])

    @app.get("/api/tiles")
    def tiles():
        return jsonify(tile_art_table())

    @app.get("/api/games/<game_id>")
    def game_state(game_id: str):
        session = session_of(game_id)
        with session.lock:
            return jsonify(session.payload())

    @app.post("/api/games/<game_id>/action")
    def game_action(game_id: str):
        session = session_of(game_id)
        data = body()
        for key in ("seat", "action"):
            if key not in data:
                raise PlayError(f"the request has no {key!r} field")
        version = data.get("version")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            raise PlayError("'version' must be an integer")
        return jsonify(session.act(data["seat"], data["action"], version))

    @app.post("/api/games/<game_id>/undo")
    def game_undo(game_id: str):
        session = session_of(game_id)
        data = body()
        if "seat" not in data:
            raise PlayError("the request has no 'seat' field")
        return jsonify(session.undo(data["seat"]))

    @app.post("/api/games/<game_id>/new")
    def game_new(game_id: str):
        session = session_of(game_id)
        data = body()
        if "seat" not in data:
            raise PlayError("the request has no 'seat' field")
        with session.lock:
            fresh = session.new_game(data["seat"])
        games[fresh.game_id] = fresh
        del games[game_id]  # the page moves to the new game; the old one is dropped
        return jsonify({"game_id": fresh.game_id, "url": f"/game/{fresh.game_id}"})

    @app.get("/api/replay")
    def replay_state():
        if replay is None:
            raise PlayError("no record is being replayed", 404)
        raw = request.args.get("step", "0")
        try:
            step = int(raw)
        except ValueError:
            raise PlayError(f"step must be an integer, got {raw!r}") from None
        return jsonify(replay.payload(step))

    return app
