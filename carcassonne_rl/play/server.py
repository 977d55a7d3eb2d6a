"""The local web server of ``carcassonne-rl play`` / ``replay`` (Flask).

Routes (JSON answers; every error is a 4xx with ``{"error": message}``, the game unchanged):

- ``GET /`` the current game's (or the replay's) page;
- ``GET /game/<id>`` the page of a game, ``GET /replay`` the replay page;
- ``GET /api/tiles`` SVG shapes of the tiles;
- ``GET /api/games/<id>`` the human seat's payload (reload resumes here);
- ``POST /api/games/<id>/action`` ``{"seat": K, "action": "<notation>", "version": N}``;
- ``POST /api/games/<id>/undo`` ``{"seat": K}``;
- ``GET /api/replay?step=N`` the replay at step N.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

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


def _static_text(name: str) -> str:
    return resources.files("carcassonne_rl.play").joinpath("static", name).read_text("utf-8")


def create_app(
    games: dict[str, PlaySession] | None = None,
    replay: ReplaySession | None = None,
    step_delay_ms: int = 600,
) -> Flask:
    """The app serving ``games`` (by id) and/or one ``replay``."""
    games = games if games is not None else {}
    app = Flask(__name__, static_folder=None)

    def error(message: str, status: int) -> tuple[Response, int]:
        return jsonify({"error": message}), status

    @app.errorhandler(PlayError)
    def _play_error(err: PlayError):
        return error(str(err), err.status)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        return error(f"{err.code} {err.name}: {err.description}", err.code or 400)

    def session_of(game_id: str) -> PlaySession:
        session = games.get(game_id)
        if session is None:
            raise PlayError(f"unknown game id {game_id!r}", 404)
        return session

    def body() -> dict[str, Any]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise PlayError("the request body must be a JSON object")
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
        return jsonify(session.undo(body().get("seat")))

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
