"""``carcassonne-rl play`` and ``carcassonne-rl replay``: argument parsing and serving."""

from __future__ import annotations

import argparse
import json
import sys
import webbrowser
from pathlib import Path

from carcassonne_rl.agents.registry import families_help
from carcassonne_rl.agents.spec import split_specs
from carcassonne_rl.games.registry import GAMES, PLAYER_COUNTS
from carcassonne_rl.play.session import PlayError, PlaySession, ReplaySession

from .args import expansions, non_negative_int
from .extras import require


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0-65535 (0: any free port), got {port}")
    return port


def _add_server_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=_port, default=8765, help="0 picks a free port")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to serve on (default: loopback only; another one is reachable from "
        "the network and is warned about)",
    )
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")


def add_play_parser(sub) -> argparse.ArgumentParser:
    """Register ``play`` on an ``add_subparsers()`` object."""
    p = sub.add_parser("play", help="play against agents in the browser (or --tui)")
    p.add_argument("--game", choices=GAMES, default="carcassonne")
    p.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2)
    p.add_argument(
        "--expansions", type=expansions, default=(), help="tile game: messages,labyrinth"
    )
    p.add_argument(
        "--opponents",
        default="random",
        help="agent specs, one for every other seat or one per seat (comma-separated): "
        + families_help(),
    )
    p.add_argument("--seat", type=non_negative_int, default=0, help="your seat (0 plays first)")
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        help="deal seed: the same seed deals the same game (default: a fresh 128-bit one)",
    )
    p.add_argument(
        "--step-delay", type=non_negative_int, default=600, help="ms between the agents' moves"
    )
    p.add_argument("--save-dir", type=Path, default=Path("games"), help="finished game records")
    p.add_argument(
        "--no-undo",
        action="store_true",
        help="turn off undo (undo takes back your decision; what you have not seen is reshuffled)",
    )
    p.add_argument("--tui", action="store_true", help="play in the terminal instead")
    _add_server_arguments(p)
    return p


def add_replay_parser(sub) -> argparse.ArgumentParser:
    """Register ``replay`` on an ``add_subparsers()`` object."""
    p = sub.add_parser("replay", help="step through a saved game record in the browser")
    p.add_argument("record", type=Path, help="a game record (JSON) of either game")
    _add_server_arguments(p)
    return p


def secured_app(host: str, **kwargs):
    """The play/replay app for a server bound to ``host``: a fresh token, and the Host
    header names that ``host`` is reached by."""
    from carcassonne_rl.play.server import WILDCARD_HOSTS, allowed_host_names, create_app

    return create_app(
        allowed_hosts=allowed_host_names(host), any_ip_host=host in WILDCARD_HOSTS, **kwargs
    )


def launch_url(host: str, port: int, path: str, token: str) -> str:
    """The URL to open: ``path`` (with its query, if any) on the server, with the launch's
    token."""
    from carcassonne_rl.play.server import WILDCARD_HOSTS

    name = "127.0.0.1" if host in WILDCARD_HOSTS else host
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    joiner = "&" if "?" in path else "?"
    return f"http://{name}:{port}{path}{joiner}token={token}"


def serve(app, host: str, port: int, path: str, open_browser: bool) -> int:
    """Serve ``app`` until Ctrl-C, opening ``path`` (with the app's token) in a browser
    unless told not to; warns when ``host`` is reachable from other machines."""
    from werkzeug.serving import make_server

    from carcassonne_rl.play.server import is_loopback

    try:
        server = make_server(host, port, app, threaded=True)
    except OSError as err:
        print(f"error: cannot serve on {host}:{port}: {err}", file=sys.stderr)
        return 2
    if not is_loopback(host):
        print(
            f"warning: --host {host} is not this machine's loopback: the game is reachable "
            "from the network. Whoever learns the URL below (its token travels unencrypted "
            "over http) can see your seat's view and play for you.",
            file=sys.stderr,
            flush=True,
        )
    url = launch_url(host, server.server_port, path, app.config["PLAY_TOKEN"])
    print(f"serving on {url}  (Ctrl-C to stop)", flush=True)
    if open_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    return 0


def run_play(args: argparse.Namespace) -> int:
    if not args.tui:
        require("flask", "the play page", "; or play in the terminal with --tui")
    try:  # PlaySession checks the setup (game registry) first
        session = PlaySession(
            args.game,
            args.players,
            tuple(args.expansions),
            args.seat,
            split_specs(args.opponents),
            args.seed,
            args.save_dir,
            allow_undo=not args.no_undo,
        )
    except PlayError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.tui:
        from carcassonne_rl.play.tui import run_tui

        return run_tui(session)
    app = secured_app(args.host, games={session.game_id: session}, step_delay_ms=args.step_delay)
    return serve(app, args.host, args.port, f"/game/{session.game_id}", not args.no_browser)


def run_replay(args: argparse.Namespace) -> int:
    require("flask", "the replay page")
    try:
        record = json.loads(args.record.read_text())
        replay = ReplaySession(record, args.record.name)
    except OSError as err:
        print(f"error: cannot read {args.record}: {err.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as err:
        print(f"error: {args.record} is not JSON: {err}", file=sys.stderr)
        return 2
    except PlayError as err:
        print(f"error: {args.record}: {err}", file=sys.stderr)
        return 2
    app = secured_app(args.host, replay=replay)
    return serve(app, args.host, args.port, "/replay", not args.no_browser)
