"""The tile-game state: a thin Python API over the Numba kernels in ``kernels.py``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels as K
from .actions import (
    Action,
    FollowerPlacement,
    Placement,
    looks_like_placement,
    parse_location,
    parse_placement,
)
from .config import GameConfig, check_draw_order, shuffled_deck
from .errors import IllegalActionError, NotationError
from .tiles import (
    KIND_NAMES,
    LETTERS,
    SEGMENT_NAMES,
    SEGMENT_OF_NAME,
    SIDES,
    START_TILE,
    TILE_TYPES,
    TYPE_OF_LETTER,
)

PHASES = ("place_tile", "place_follower", "game_over")
_EDGE_NAMES = {1: "field", 2: "road", 3: "city"}


@dataclass(frozen=True)
class ScoreEvent:
    """Points received by one player for one feature."""

    player: int
    points: int
    kind: str  # "road", "city", "cloister", "field"
    tiles: tuple[tuple[int, int], ...]
    turn: int
    final: bool  # scored at the end of the game


@dataclass(frozen=True)
class PlacedFollower:
    player: int
    x: int
    y: int
    location: str  # canonical feature name on its tile, e.g. "city:N"
    kind: str


def new_game(config: GameConfig | None = None, draw_order: str | None = None) -> State:
    """A new game: the start tile D at (0, 0) r0, seat 0 to place the first drawn tile.

    ``draw_order`` fixes the tiles drawn after the start tile (letters A-X); the game then ends
    after the last of them. Without it, the 71 other tiles are shuffled by ``config.seed``.
    """
    config = config or GameConfig()
    deck = shuffled_deck(config.seed) if draw_order is None else check_draw_order(draw_order)
    return State._start(config, deck)


class State:
    """A tile-game position and the decision pending in it (see docs/engine_api.md)."""

    __slots__ = ("config", "history", "_board", "_ints", "_tiles", "_segs", "_events", "_pool")

    @classmethod
    def _start(cls, config: GameConfig, deck: str) -> State:
        self = cls.__new__(cls)
        self.config = config
        self.history: list[int] = []
        arrays = K.allocate()
        self._board, self._ints, self._tiles, self._segs, self._events, self._pool = arrays
        ints = self._ints
        ints[K.R_NPLAYERS] = config.players
        ints[K.R_DECKLEN] = len(deck)
        ints[K.O_DECK : K.O_DECK + len(deck)] = [TYPE_OF_LETTER[c] for c in deck]
        ints[K.R_FOLLOWERS : K.R_FOLLOWERS + config.players] = 7
        K.start_game(*arrays, TYPE_OF_LETTER[START_TILE])
        return self

    # ----------------------------------------------------------------- the pending decision
    @property
    def phase(self) -> str:
        return PHASES[self._ints[K.R_PHASE]]

    @property
    def is_over(self) -> bool:
        return self._ints[K.R_PHASE] == K.PHASE_OVER

    @property
    def current_player(self) -> int:
        return int(self._ints[K.R_PLAYER])

    @property
    def current_tile(self) -> str | None:
        """Letter of the tile to place (``None`` when no tile is to be placed)."""
        if self._ints[K.R_PHASE] != K.PHASE_TILE:
            return None
        return LETTERS[self._ints[K.R_TILE]]

    @property
    def turn(self) -> int:
        """Number of turns completed."""
        return int(self._ints[K.R_TURN])

    def legal_action_codes(self) -> np.ndarray:
        """Codes of the legal actions (a fresh int32 array; see ``kernels`` for the layout)."""
        return self._ints[K.O_LEGAL : K.O_LEGAL + self._ints[K.R_NLEGAL]].copy()

    def legal_actions(self) -> list[Action]:
        return [self.code_to_action(int(c)) for c in self.legal_action_codes()]

    def apply_code(self, code: int) -> None:
        status = K.apply_action(
            self._board, self._ints, self._tiles, self._segs, self._events, self._pool, code
        )
        if status:
            self._raise_for(code, status)
        self.history.append(int(code))

    def apply(self, action: Action | str | int) -> None:
        """Apply an action object, its text notation or its integer code."""
        if isinstance(action, str):
            code = self.parse_action(action)
        elif isinstance(action, (Placement, FollowerPlacement)):
            code = self.action_to_code(action)
        elif isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            code = int(action)
        else:
            raise IllegalActionError(f"not an action: {action!r}")
        self.apply_code(code)

    # ----------------------------------------------------------------- notation
    def code_to_action(self, code: int) -> Action:
        """Interpret ``code`` in the pending decision."""
        phase = self._ints[K.R_PHASE]
        if phase == K.PHASE_TILE:
            x, y, r = decode_placement(code)
            return Placement(LETTERS[self._ints[K.R_TILE]], x, y, r)
        if phase == K.PHASE_FOLLOWER:
            if code == 0:
                return FollowerPlacement(None)
            t, r = self._last_tile()
            names = SEGMENT_NAMES[t][r]
            if not 1 <= code <= len(names):
                raise IllegalActionError(f"follower code {code} out of range 0..{len(names)}")
            return FollowerPlacement(names[code - 1])
        raise IllegalActionError("the game is over: no action is pending")

    def action_to_string(self, action: Action | int) -> str:
        if isinstance(action, (int, np.integer)):
            action = self.code_to_action(int(action))
        return str(action)

    def action_to_code(self, action: Action) -> int:
        return self.parse_action(str(action))

    def parse_action(self, text: str) -> int:
        """Text notation of an action of the pending decision -> its code."""
        if not isinstance(text, str):
            raise NotationError(f"action text must be a string, got {text!r}")
        phase = self._ints[K.R_PHASE]
        if phase == K.PHASE_OVER:
            raise IllegalActionError(f"the game is over: cannot apply {text!r}")
        looks_like_location = text.strip() in ("none", "pass", "cloister") or ":" in text
        if phase == K.PHASE_TILE:
            if looks_like_location:
                raise IllegalActionError(
                    f"{text!r} is a follower decision, but a tile is to be placed now "
                    f"(tile {self.current_tile}, e.g. '{self.code_to_action(self._first_legal())}')"
                )
            letter, x, y, r = parse_placement(text)
            tile = LETTERS[self._ints[K.R_TILE]]
            if letter is not None and letter != tile:
                raise IllegalActionError(f"{text!r}: the tile to place is {tile}, not {letter}")
            if max(abs(x), abs(y)) >= K.OFF:
                raise IllegalActionError(f"{text!r}: position ({x}, {y}) is off the board")
            return encode_placement(x, y, r)
        if not looks_like_location and looks_like_placement(text):
            raise IllegalActionError(
                f"{text!r} is not a follower decision; a follower location or 'none' is due now"
            )
        location = parse_location(text)
        if location is None:
            return 0
        t, r = self._last_tile()
        k = SEGMENT_OF_NAME[t][r].get(location)
        if k is None:
            x, y = (int(v) for v in self._tiles[self._ints[K.R_LAST], 2:4])
            names = ", ".join(SEGMENT_NAMES[t][r])
            raise IllegalActionError(
                f"tile {LETTERS[t]} r{r} at {x},{y} has no feature {location!r}; "
                f"its features: {names}"
            )
        return k + 1

    # ----------------------------------------------------------------- public state
    @property
    def scores(self) -> np.ndarray:
        n = self.config.players
        return self._ints[K.R_SCORES : K.R_SCORES + n].astype(np.int64)

    @property
    def followers_left(self) -> np.ndarray:
        n = self.config.players
        return self._ints[K.R_FOLLOWERS : K.R_FOLLOWERS + n].astype(np.int64)

    @property
    def num_tiles_placed(self) -> int:
        return int(self._ints[K.R_NSLOTS])

    def placed_tiles(self) -> list[tuple[str, int, int, int]]:
        """(letter, x, y, rotation) of every tile on the board, in placement order."""
        rows = self._tiles[: self._ints[K.R_NSLOTS]]
        return [(LETTERS[t], int(x), int(y), int(r)) for t, r, x, y in rows]

    def tile_at(self, x: int, y: int) -> tuple[str, int] | None:
        """(letter, rotation) of the tile at (x, y), or ``None``."""
        if max(abs(x), abs(y)) >= K.OFF:
            return None
        slot = self._board[(y + K.OFF) * K.SIZE + x + K.OFF]
        if slot < 0:
            return None
        return LETTERS[self._tiles[slot, 0]], int(self._tiles[slot, 1])

    def placed_followers(self) -> list[PlacedFollower]:
        nrows = self._ints[K.R_NSLOTS] * K.MAX_SEGMENTS
        owners = self._segs[:nrows, K.S_OWNER]
        out = []
        for g in np.flatnonzero(owners >= 0):
            slot, k = divmod(int(g), K.MAX_SEGMENTS)
            t, r, x, y = (int(v) for v in self._tiles[slot])
            name = SEGMENT_NAMES[t][r][k]
            kind = TILE_TYPES[t].segments[k].kind
            out.append(PlacedFollower(int(owners[g]), x, y, name, KIND_NAMES[kind]))
        return out

    @property
    def score_events(self) -> list[ScoreEvent]:
        out = []
        for e in self._events[: self._ints[K.R_NEVENTS]]:
            slots = self._pool[e[K.E_POOL] : e[K.E_POOL] + e[K.E_NTILES]]
            tiles = tuple((int(self._tiles[s, 2]), int(self._tiles[s, 3])) for s in slots)
            out.append(
                ScoreEvent(
                    player=int(e[K.E_PLAYER]),
                    points=int(e[K.E_POINTS]),
                    kind=KIND_NAMES[e[K.E_KIND]],
                    tiles=tiles,
                    turn=int(e[K.E_TURN]),
                    final=bool(e[K.E_FINAL]),
                )
            )
        return out

    @property
    def draw_order(self) -> str:
        """The whole draw pile (hidden information: for records and tests)."""
        deck = self._ints[K.O_DECK : K.O_DECK + self._ints[K.R_DECKLEN]]
        return "".join(LETTERS[t] for t in deck)

    @property
    def discarded(self) -> list[str]:
        """Tiles that fitted nowhere and were removed from the game, in order."""
        d = self._ints[K.O_DISCARD : K.O_DISCARD + self._ints[K.R_NDISCARD]]
        return [LETTERS[t] for t in d]

    def remaining_tiles(self) -> dict[str, int]:
        """Tiles still in the draw pile (not counting the one being placed), by letter."""
        pos = self._ints[K.R_DECKPOS]
        rest = self._ints[K.O_DECK + pos : K.O_DECK + self._ints[K.R_DECKLEN]]
        counts = np.bincount(rest, minlength=len(LETTERS))
        return {letter: int(n) for letter, n in zip(LETTERS, counts, strict=True)}

    def winners(self) -> list[int]:
        """Seats with the highest score once the game is over (ties share the win)."""
        if not self.is_over:
            return []
        s = self.scores
        return [int(p) for p in np.flatnonzero(s == s.max())]

    # ----------------------------------------------------------------- copies and records
    def clone(self) -> State:
        other = State.__new__(State)
        other.config = self.config
        other.history = self.history.copy()
        other._board = self._board.copy()
        other._ints = self._ints.copy()
        other._tiles = self._tiles.copy()
        other._segs = self._segs.copy()
        other._events = self._events.copy()
        other._pool = self._pool.copy()
        return other

    def to_json(self, indent: int | None = None) -> str:
        from .record import to_json

        return to_json(self, indent=indent)

    def __repr__(self) -> str:
        return (
            f"<carcassonne State turn={self.turn} phase={self.phase} "
            f"player={self.current_player} scores={self.scores.tolist()}>"
        )

    # ----------------------------------------------------------------- internals
    def _last_tile(self) -> tuple[int, int]:
        slot = self._ints[K.R_LAST]
        return int(self._tiles[slot, 0]), int(self._tiles[slot, 1])

    def _first_legal(self) -> int:
        return int(self._ints[K.O_LEGAL])

    def _raise_for(self, code: int, status: int) -> None:
        if status == K.ERR_OVER:
            raise IllegalActionError("the game is over: no action is pending")
        if status == K.ERR_LOG_FULL:
            raise RuntimeError("score event log overflow (MAX_EVENTS too small)")
        if self._ints[K.R_PHASE] == K.PHASE_TILE:
            raise IllegalActionError(self._placement_problem(code))
        raise IllegalActionError(self._follower_problem(code))

    def _placement_problem(self, code: int) -> str:
        tile = LETTERS[self._ints[K.R_TILE]]
        if code < 0 or code >= K.SIZE * K.SIZE * 4:
            return f"placement code {code} is out of range"
        x, y, r = decode_placement(code)
        where = f"tile {tile} at {x},{y} r{r}"
        if max(abs(x), abs(y)) >= K.OFF - 1:
            return f"{where}: off the board"
        if self.tile_at(x, y) is not None:
            return f"{where}: the cell is already occupied by {self.tile_at(x, y)[0]}"
        t = TYPE_OF_LETTER[tile]
        edges = TILE_TYPES[t].edges
        steps = ((0, -1), (1, 0), (0, 1), (-1, 0))
        for s, (dx, dy) in enumerate(steps):
            other = self.tile_at(x + dx, y + dy)
            if other is None:
                continue
            mine = edges[(s - r) % 4]
            letter, orot = other
            theirs = TILE_TYPES[TYPE_OF_LETTER[letter]].edges[((s + 2) % 4 - orot) % 4]
            if mine != theirs:
                names = {"C": "city", "R": "road", "F": "field"}
                return (
                    f"{where}: its {SIDES[s]} side is {names[mine]} but the neighbouring "
                    f"{letter} at {x + dx},{y + dy} shows {names[theirs]} there"
                )
        if all(
            self.tile_at(x + dx, y + dy) is None for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))
        ):
            return f"{where}: does not touch any placed tile edge to edge"
        return f"{where}: not a legal placement"

    def _follower_problem(self, code: int) -> str:
        t, r = self._last_tile()
        names = SEGMENT_NAMES[t][r]
        p = self.current_player
        if not 0 <= code <= len(names):
            return f"follower code {code} out of range 0..{len(names)}"
        if self.followers_left[p] == 0:
            return f"player {p} has no follower left to place on {names[code - 1]}"
        return f"{names[code - 1]}: a follower already stands on that feature"


def encode_placement(x: int, y: int, rotation: int) -> int:
    return ((y + K.OFF) * K.SIZE + x + K.OFF) * 4 + rotation


def decode_placement(code: int) -> tuple[int, int, int]:
    cell, r = divmod(int(code), 4)
    y, x = divmod(cell, K.SIZE)
    return x - K.OFF, y - K.OFF, r
