"""A game between a person and agents, and a record to replay: the server-side objects.

Every payload a :class:`PlaySession` returns is built for the human seat from that seat's
information only (:mod:`.tile_payload`, :mod:`.card_payload`); the decision log redacts what
the seat cannot know (others' face-down cards in Cardcassonne).

Undo takes back the person's last decision, and everything the seat had not seen at that
point is drawn afresh from what was still hidden (:meth:`PlaySession.undo`): the tile pile
and the unseen message cards (tile game), the other hands, the other seats' face-down cards
and the rounds not dealt yet (Cardcassonne). Cards the seat had seen stay as they were;
what it saw only after that point (a tile drawn later, a face-down card revealed at a
round's end) is forgotten by the game. So undo never shows what the game has not shown.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from carcassonne_rl.agents import make_agent
from carcassonne_rl.games import registry
from carcassonne_rl.games.carcassonne.views import for_agent
from carcassonne_rl.games.record_header import game_of
from carcassonne_rl.runtime.seeds import seat_seed

from .card_payload import card_payload, decision_text
from .tile_payload import score_event_dict, tile_payload


class PlayError(ValueError):
    """A request that cannot be served; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Decision:
    """One applied action: who decided, its code, full notation and the points it gave."""

    index: int
    player: int
    code: int
    text: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def for_seat(self, game: str, seat: int | None) -> dict[str, Any]:
        """The decision as ``seat`` may read it."""
        text = self.text
        if game == "cardcassonne":
            text = decision_text(self.code, self.player, seat)
        return {"index": self.index, "player": self.player, "text": text, "events": self.events}


SEED_BITS = 128


def fresh_seed() -> int:
    """A deal seed from the operating system's entropy (128 bits: not searchable)."""
    return secrets.randbits(SEED_BITS)


def check_seat_value(seat: Any, expected: int) -> None:
    """A seat in a request must be the integer ``expected`` itself (not ``True``, ``1.0``,
    ``"1"`` or another seat)."""
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise PlayError("'seat' must be an integer")
    if seat != expected:
        raise PlayError(f"this page plays seat {expected}, not seat {seat}", 403)


def redraw_unseen(state: Any, seat: int, rng: random.Random) -> Any:
    """``state`` with everything ``seat`` has not seen drawn afresh by ``rng`` (a replayable
    game that looks the same to ``seat``; it depends on ``rng`` and on what the seat knows,
    never on the old hidden order)."""
    if _game_name(state) == "carcassonne":
        state.shuffle_hidden(rng.getrandbits(SEED_BITS))
        return state
    from carcassonne_rl.games.cardcassonne import redeal_unseen

    return redeal_unseen(state, seat, random.Random(rng.getrandbits(SEED_BITS)))


def game_of_record(record: Any) -> str:
    """Which game a record (a parsed JSON object) belongs to."""
    try:
        game = registry.check_game(game_of(record))
    except ValueError as err:
        raise PlayError(
            f"not a game record of carcassonne-rl (tile game or Cardcassonne): {err}"
        ) from None
    return game


def load_record(record: Any) -> Any:
    """The final state of a record of either game (``PlayError`` if it does not replay)."""
    game_of_record(record)
    try:
        return registry.load_record(record)
    except ValueError as err:
        raise PlayError(f"the record does not replay: {err}") from None


def apply_logged(state: Any, code: int, log: list[Decision]) -> Decision:
    """Apply ``code`` to ``state`` and append the decision (with its score events) to ``log``."""
    player = state.current_player
    text = state.action_to_string(code)
    before = len(state.score_events)
    state.apply_code(int(code))
    events = [score_event_dict(e) for e in state.score_events[before:]]
    decision = Decision(len(log), player, int(code), text, events)
    log.append(decision)
    return decision


def _game_name(state: Any) -> str:
    return "cardcassonne" if hasattr(state, "view") else "carcassonne"


def seat_payload(state: Any, seat: int | None) -> dict[str, Any]:
    """The page's payload of ``state`` for ``seat`` (``None``: replay spectator)."""
    if _game_name(state) == "carcassonne":
        return tile_payload(state, seat)
    return card_payload(state, seat, len(state.history))


class PlaySession:
    """One person (seat ``seat``) against agents; agents move as soon as it is their turn."""

    def __init__(
        self,
        game: str,
        players: int = 2,
        expansions: tuple[str, ...] = (),
        seat: int = 0,
        opponents: list[str] | None = None,
        seed: int | None = None,
        save_dir: Path | None = None,
        game_id: str | None = None,
        allow_undo: bool = True,
    ) -> None:
        try:
            registry.check_setup(game, players, expansions)
        except ValueError as err:
            raise PlayError(str(err)) from None
        if not 0 <= seat < players:
            raise PlayError(f"seat must be 0-{players - 1} for {players} players, got {seat}")
        specs = opponents or ["random"]
        if len(specs) == 1:
            specs = specs * (players - 1)
        if len(specs) != players - 1:
            raise PlayError(
                f"give one opponent spec for all, or {players - 1} (one per other seat); "
                f"got {len(specs)}"
            )
        self.game = game
        self.seat = seat
        self.game_id = secrets.token_urlsafe(16) if game_id is None else game_id
        self.seed = fresh_seed() if seed is None else seed
        self.options = {
            "game": game,
            "players": players,
            "expansions": tuple(expansions),
            "seat": seat,
            "opponents": list(specs),
            "save_dir": save_dir,
            "allow_undo": allow_undo,
        }
        # undo's redraws: reproducible under a given seed, secret under a fresh one
        self.undo_rng = random.Random(f"carcassonne-rl undo {self.seed}")
        self.undos = 0
        self.save_dir = save_dir
        self.saved_path: Path | None = None
        other_seats = [p for p in range(players) if p != seat]
        try:
            self.agents = {
                p: make_agent(spec, game, seed=seat_seed(self.seed, p))
                for p, spec in zip(other_seats, specs, strict=True)
            }
            for agent in self.agents.values():
                if hasattr(agent, "check_expansions"):
                    agent.check_expansions(tuple(expansions))
        except (ValueError, OSError, ImportError) as err:
            raise PlayError(f"bad opponent: {err}") from None
        self.opponent_names = {p: a.name for p, a in self.agents.items()}
        self.allow_undo = allow_undo and all(
            getattr(a, "allows_undo", True) for a in self.agents.values()
        )
        try:
            self.state = registry.new_game(game, players, self.seed, expansions)
        except ValueError as err:
            raise PlayError(str(err)) from None
        self.log: list[Decision] = []
        self.lock = threading.Lock()
        self.play_agents()

    # ------------------------------------------------------------------ payloads
    def payload(self) -> dict[str, Any]:
        """The human seat's view of the game now, with the whole (redacted) decision log."""
        out = seat_payload(self.state, self.seat)
        out["log"] = [d.for_seat(self.game, self.seat) for d in self.log]
        out["game_id"] = self.game_id
        out["mode"] = "play"
        out["names"] = self._names()
        out["allow_undo"] = self.allow_undo
        out["undos"] = self.undos
        out["saved"] = str(self.saved_path) if self.saved_path else None
        return out

    def _names(self) -> list[str]:
        n = len(self.agents) + 1
        return ["you" if p == self.seat else self.opponent_names[p] for p in range(n)]

    # ------------------------------------------------------------------ moves
    def play_agents(self) -> list[dict[str, Any]]:
        """Let the agents move until the human decides or the game ends; one frame (payload
        for the human seat plus the decision) per agent move."""
        frames = []
        while not self.state.is_over and self.state.current_player != self.seat:
            p = self.state.current_player
            agent = self.agents[p]
            code = agent.act(for_agent(self.state, p, agent), p)  # the seat's view
            decision = apply_logged(self.state, int(code), self.log)
            frame = seat_payload(self.state, self.seat)
            frame["decision"] = decision.for_seat(self.game, self.seat)
            frames.append(frame)
        if self.state.is_over:
            self.save()
        return frames

    def check_turn(self, seat: Any, version: Any) -> None:
        """Reject a move by another seat, out of turn, after the end, or on a stale page."""
        check_seat_value(seat, self.seat)
        if self.state.is_over:
            raise PlayError("the game is over: no more moves", 409)
        if self.state.current_player != seat:
            raise PlayError(f"it is seat {self.state.current_player}'s turn, not yours", 409)
        if version is not None and version != len(self.state.history):
            raise PlayError(
                f"the page is out of date (move {version}, the game is at move "
                f"{len(self.state.history)}): reload it",
                409,
            )

    def act(self, seat: Any, action: Any, version: Any = None) -> dict[str, Any]:
        """The human's move (notation or code); then the agents'. Nothing changes on error."""
        with self.lock:
            self.check_turn(seat, version)
            code = self._parse(action)
            legal = [int(c) for c in self.state.legal_action_codes()]
            if code not in legal:
                what = repr(action) if isinstance(action, str) else f"move code {code}"
                raise PlayError(
                    f"{what} is not legal now ({self.state.phase}); {len(legal)} legal moves",
                    409,
                )
            decision = apply_logged(self.state, code, self.log)
            frames = self.play_agents()  # saves the record if the game ended
            return {
                "decision": decision.for_seat(self.game, self.seat),
                "frames": frames,
                "state": self.payload(),
            }

    def _parse(self, action: Any) -> int:
        if isinstance(action, bool) or not isinstance(action, (str, int)):
            raise PlayError("'action' must be the text notation of a move (or its code)")
        if isinstance(action, int):
            return action
        try:
            code = self.state.parse_action(action)
        except ValueError as err:
            raise PlayError(f"cannot read the move {action!r}: {err}") from None
        return int(getattr(code, "code", code))

    def undo(self, seat: Any) -> dict[str, Any]:
        """Take back the human's last decision (and the agents' moves after it); what the
        seat had not seen at that point is drawn afresh (:func:`redraw_unseen`) and the
        agents are reseeded, so playing ahead and undoing reveals nothing."""
        with self.lock:
            check_seat_value(seat, self.seat)
            if not self.allow_undo:
                raise PlayError("undo is off for this game", 409)
            if self.state.is_over:
                raise PlayError("the game is over: no more moves", 409)
            mine = [d.index for d in self.log if d.player == self.seat]
            if not mine:
                raise PlayError("nothing to undo: you have not moved yet", 409)
            keep = mine[-1]
            record = json.loads(self.state.to_json())
            record["actions"] = record["actions"][:keep]
            self.state = self.redraw(load_record(record))
            del self.log[keep:]
            self.undos += 1
            for agent in self.agents.values():
                agent.reset(self.undo_rng.getrandbits(64))
            return {"state": self.payload()}

    def redraw(self, state: Any) -> Any:
        """What undo does to the hidden part of the rebuilt ``state`` (see the module)."""
        return redraw_unseen(state, self.seat, self.undo_rng)

    def new_game(self, seat: Any) -> PlaySession:
        """A new game with the same options and a fresh deal (this one is left as it is)."""
        check_seat_value(seat, self.seat)
        return PlaySession(**self.options)

    def save(self) -> Path | None:
        """Write the game's record (the engine's JSON) to ``save_dir`` (once)."""
        if self.save_dir is None or self.saved_path is not None:
            return self.saved_path
        self.save_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.save_dir / f"{self.game}-seed{self.seed}-{stamp}.json"
        path.write_text(self.state.to_json())
        self.saved_path = path
        return path


class ReplaySession:
    """A record of either game, stepped through by a spectator (every card shown)."""

    def __init__(self, record: Any, name: str = "record") -> None:
        final = load_record(record)
        self.game = game_of_record(record)
        self.name = name
        actions = list(record["actions"])
        start = json.loads(final.to_json())
        start["actions"] = []
        state = load_record(start)
        self.log: list[Decision] = []
        self.states = [state.clone()]
        for text in actions:
            code = state.parse_action(text)
            apply_logged(state, int(getattr(code, "code", code)), self.log)
            self.states.append(state.clone())

    @property
    def steps(self) -> int:
        return len(self.states) - 1

    def payload(self, step: Any) -> dict[str, Any]:
        """The position after ``step`` decisions, with the whole log."""
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise PlayError(f"step must be an integer from 0 to {self.steps}, got {step!r}")
        out = seat_payload(self.states[step], None)
        out["log"] = [d.for_seat(self.game, None) for d in self.log]
        out["mode"] = "replay"
        out["step"] = step
        out["steps"] = self.steps
        out["name"] = self.name
        out["names"] = [f"seat {p}" for p in range(out["players"])]
        return out
