"""The tile-game position: a thin Python API over the Numba kernels' arrays (``layout.py``).

Everything that reads a position lives here; :mod:`carcassonne_rl.games.carcassonne.state`
adds the decisions on top."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple, Self

import numpy as np

from . import layout as L
from .config import (
    GameConfig,
)
from .kernels import setup_game
from .scoring_kernels import final_scoring
from .tiles import KIND_NAMES, LETTERS, MAX_SEGMENTS, SEGMENT_NAMES, START_TILE, TYPE_OF_LETTER


@dataclass(frozen=True)
class ScoreEvent:
    """Points received by one player at once (one feature, or one message)."""

    player: int
    points: int
    kind: str  # "road", "city", "cloister", "field", "labyrinth", "message"
    tiles: tuple[tuple[int, int], ...]  # the tiles of the scored feature (if any)
    turn: int
    final: bool  # scored at the end of the game
    figure: str | None = None  # The Messages: "A" or "B", the figure that moved
    card: int | None = None  # The Messages: the message card (1-8) that gave the points


class KernelArrays(NamedTuple):
    """The live arrays of a position, as the Numba kernels take them (layout in
    ``layout.py``). They are the state's own arrays, not copies: read them freely, and
    write them only on a clone made for that purpose."""

    board: np.ndarray  # int32 cell -> tile slot (-1: empty), row-major over the SIZE x SIZE grid
    ints: np.ndarray  # int32 registers (R_*) and tables (O_*): phase, players, deck, legal codes
    tiles: np.ndarray  # int32 (slot, [type, rotation, x, y]) of the placed tiles
    segs: np.ndarray  # int32 (slot * MAX_SEGMENTS + k, S_*) feature segments (union-find)
    events: np.ndarray  # int32 (event, E_*) score log (rows below ints[R_NEVENTS] are used)
    pool: np.ndarray  # int32 tile slots of the scored features (below ints[R_POOL] used)


_new_tuple = tuple.__new__  # builds a KernelArrays without the Python-level __new__


@dataclass(frozen=True)
class PlacedFollower:
    player: int
    x: int
    y: int
    location: str  # canonical feature name on its tile, e.g. "city:N"
    kind: str


class Position:
    """A tile-game position: the kernels' arrays and the queries that read them.

    :class:`carcassonne_rl.games.carcassonne.state.State` adds the decisions (legal
    actions, applying them, their notation) and the record."""

    __slots__ = (
        "config",
        "history",
        "_board",
        "_ints",
        "_tiles",
        "_segs",
        "_events",
        "_pool",
        "_arrays",  # the six as KernelArrays, made on the first kernel_arrays() call
    )

    @classmethod
    def _start(cls, config: GameConfig, deck: str, messages: str) -> Position:
        self = cls.__new__(cls)
        self.config = config
        self.history: list[int] = []
        arrays = L.allocate()
        self._board, self._ints, self._tiles, self._segs, self._events, self._pool = arrays
        self._arrays = None
        setup_game(
            *arrays,
            config.players,
            int(config.messages),
            int(config.figure_choice == "auto"),
            np.array([TYPE_OF_LETTER[c] for c in deck], np.int32),
            np.array([int(c) for c in messages], np.int32),
            TYPE_OF_LETTER[START_TILE],
        )
        return self

    # ----------------------------------------------------------------- the kernels' arrays
    def kernel_arrays(self) -> KernelArrays:
        """The position's arrays (no copies) for Numba kernels and layout-aware readers."""
        arrays = self._arrays
        if arrays is None:  # a position never rebinds its arrays: made once, kept
            arrays = self._arrays = _new_tuple(
                KernelArrays,
                (self._board, self._ints, self._tiles, self._segs, self._events, self._pool),
            )
        return arrays

    # ----------------------------------------------------------------- the pending decision
    @property
    def phase_index(self) -> int:
        """The pending decision as ``layout.PHASE_*`` (``PHASE_NAMES[i]`` is :attr:`phase`)."""
        return int(self._ints[L.R_PHASE])

    @property
    def phase(self) -> str:
        """``place_tile``, ``place_follower``, ``choose_figure``, ``message``,
        ``message_follower`` or ``game_over``."""
        return L.PHASE_NAMES[self._ints[L.R_PHASE]]

    @property
    def is_over(self) -> bool:
        return self._ints[L.R_PHASE] == L.PHASE_OVER

    @property
    def current_player(self) -> int:
        """The seat that decides now (-1 when the game is over)."""
        return int(self._ints[L.R_PLAYER])

    @property
    def active_player(self) -> int:
        """The seat whose turn it is (differs from ``current_player`` in figure choices)."""
        return -1 if self.is_over else int(self._ints[L.R_ACTIVE])

    @property
    def current_tile(self) -> str | None:
        """Letter of the tile to place (``None`` when no tile is to be placed)."""
        if self._ints[L.R_PHASE] != L.PHASE_TILE:
            return None
        return LETTERS[self._ints[L.R_TILE]]

    @property
    def turn(self) -> int:
        """Number of turns completed."""
        return int(self._ints[L.R_TURN])

    def legal_action_codes(self) -> np.ndarray:
        """Codes of the legal actions (a fresh int32 array; layout in ``layout.py``)."""
        return self._ints[L.O_LEGAL : L.O_LEGAL + self._ints[L.R_NLEGAL]].copy()

    def legal_codes(self) -> list[int]:
        """The same codes as :meth:`legal_action_codes`, as a list of ints."""
        return self._ints[L.O_LEGAL : L.O_LEGAL + self._ints[L.R_NLEGAL]].tolist()

    # ----------------------------------------------------------------- notation
    # ----------------------------------------------------------------- public state
    @property
    def scores(self) -> np.ndarray:
        """Each player's score (with The Messages: the sum of both figures)."""
        return self._ints[L.R_SCORES : L.R_SCORES + self.config.players].astype(np.int64)

    @property
    def figures(self) -> np.ndarray:
        """The Messages: (players, 2) points moved by figure A and figure B during play.

        Final scoring adds to the sum only (the two figures are added before it)."""
        n = self.config.players
        a = self._ints[L.R_FIG_A : L.R_FIG_A + n]
        b = self._ints[L.R_FIG_B : L.R_FIG_B + n]
        return np.stack([a, b], axis=1).astype(np.int64)

    @property
    def message_card(self) -> int | None:
        """The message card (1-8) being decided or carried out, if any."""
        card = int(self._ints[L.R_CARD])
        return card or None

    @property
    def messages_drawn(self) -> int:
        return int(self._ints[L.R_MSGPOS])

    @property
    def messages_seen(self) -> list[int]:
        """The known part of the message cycle: cards drawn so far, top of the stack first.

        The stack cycles, so after 8 messages the whole order is known."""
        n = min(self.messages_drawn, L.NUM_MESSAGES)
        return [int(c) for c in self._ints[L.O_MSGDECK : L.O_MSGDECK + n]]

    @property
    def message_order(self) -> str:
        """The whole message stack (hidden information: for records and tests)."""
        return "".join(str(c) for c in self._ints[L.O_MSGDECK : L.O_MSGDECK + L.NUM_MESSAGES])

    @property
    def pending_award(self) -> tuple[int, int] | None:
        """The Messages: (receiver, points) waiting for the ``choose_figure`` decision."""
        if self._ints[L.R_PHASE] != L.PHASE_FIGURE:
            return None
        b = L.O_AWARDS + self._ints[L.R_AQ_HEAD] * L.AQ_FIELDS
        return int(self._ints[b]), int(self._ints[b + 1])

    def virtual_scores(self) -> np.ndarray:
        """Scores if the game ended now: current totals, points awaiting a figure choice,
        and what final scoring would give for every open feature and field. The state is
        not changed."""
        other = self.clone()
        ints = other._ints
        for i in range(ints[L.R_AQ_HEAD], ints[L.R_AQ_LEN]):
            b = L.O_AWARDS + i * L.AQ_FIELDS
            ints[L.R_SCORES + ints[b]] += ints[b + 1]
        final_scoring(other._board, ints, other._tiles, other._segs, other._events, other._pool)
        return other.scores

    def shuffle_hidden(self, seed: int | None = None) -> None:
        """Reshuffle, in place, what no player has seen: the undrawn tiles and (The Messages
        only) the message cards not drawn yet. For search on clones (sampling the hidden
        order) and for undo in play; the result depends only on ``seed`` and on what remains,
        never on the true order, and ``to_json()`` still writes a record that loads.

        Without The Messages the message stack is unused and stays in its fixed order (the
        record of such a game holds that order; a shuffled one would not load)."""
        rng = np.random.default_rng(seed)
        ints = self._ints
        lo, hi = L.O_DECK + ints[L.R_DECKPOS], L.O_DECK + ints[L.R_DECKLEN]
        # sorted first: the sample depends on which tiles remain, not on their true order
        ints[lo:hi] = rng.permutation(np.sort(ints[lo:hi]))
        seen = ints[L.R_MSGPOS]
        if self.config.messages and seen < L.NUM_MESSAGES:
            lo, hi = L.O_MSGDECK + seen, L.O_MSGDECK + L.NUM_MESSAGES
            ints[lo:hi] = rng.permutation(np.sort(ints[lo:hi]))

    def resample_hidden(self, rng: random.Random | int | None, player: int | None = None) -> Self:
        """A clone in which what no player has seen is drawn afresh by ``rng``: the order of
        the undrawn tiles (the tile being placed stays) and (The Messages only) of the message
        cards not drawn yet. The hidden part is sorted first, then shuffled with
        ``rng.shuffle``, so the result depends only on what remains and on ``rng``, never on
        the true order. ``player`` is accepted for the engines' common signature: every seat
        sees the same here. The clone's ``to_json()`` writes a record that loads (without
        The Messages the unused message stack keeps its fixed order for that reason)."""
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        other: Self = self.clone()  # type: ignore[assignment]
        ints = other._ints
        lo, hi = L.O_DECK + int(ints[L.R_DECKPOS]), L.O_DECK + int(ints[L.R_DECKLEN])
        _shuffle_slice(ints, lo, hi, rng)
        seen = int(ints[L.R_MSGPOS])
        if self.config.messages and seen < L.NUM_MESSAGES:
            _shuffle_slice(ints, L.O_MSGDECK + seen, L.O_MSGDECK + L.NUM_MESSAGES, rng)
        return other

    @property
    def tiles_drawn(self) -> int:
        """Tiles drawn from the pile so far (the one to place and the discarded ones included;
        the start tile is not part of the pile)."""
        return int(self._ints[L.R_DECKPOS])

    def stack_next(self, tiles: str = "", messages: str = "") -> None:
        """Reorder, in place, what no player has seen: ``tiles`` (letters) become the next
        tiles drawn and ``messages`` (digits 1-8, The Messages) the next message cards, first
        listed first; the rest of each stays in sorted order. Sorting leaves nothing of the
        old order, so a state can be given to search or to OpenSpiel's chance nodes (which
        choose each draw when it is needed). ``ValueError`` (state unchanged) if a tile is
        not among :meth:`remaining_tiles` or a card was already drawn."""
        ints = self._ints
        lo, hi = L.O_DECK + ints[L.R_DECKPOS], L.O_DECK + ints[L.R_DECKLEN]
        deck = _stacked(ints[lo:hi], [TYPE_OF_LETTER.get(c, -1) for c in tiles], "tile", tiles)
        seen = min(int(ints[L.R_MSGPOS]), L.NUM_MESSAGES)
        mlo, mhi = L.O_MSGDECK + seen, L.O_MSGDECK + L.NUM_MESSAGES
        cards = [int(c) if c in "12345678" else -1 for c in messages]
        stack = _stacked(ints[mlo:mhi], cards, "message card", messages)
        ints[lo:hi] = deck
        ints[mlo:mhi] = stack

    @property
    def tiles_left(self) -> int:
        """Tiles still in the draw pile (not counting the one being placed)."""
        return int(self._ints[L.R_DECKLEN] - self._ints[L.R_DECKPOS])

    @property
    def followers_left(self) -> np.ndarray:
        n = self.config.players
        return self._ints[L.R_FOLLOWERS : L.R_FOLLOWERS + n].astype(np.int64)

    @property
    def num_tiles_placed(self) -> int:
        return int(self._ints[L.R_NSLOTS])

    def placed_tiles(self) -> list[tuple[str, int, int, int]]:
        """(letter, x, y, rotation) of every tile on the board, in placement order."""
        rows = self._tiles[: self._ints[L.R_NSLOTS]]
        return [(LETTERS[t], int(x), int(y), int(r)) for t, r, x, y in rows]

    def tile_at(self, x: int, y: int) -> tuple[str, int] | None:
        """(letter, rotation) of the tile at (x, y), or ``None``."""
        if max(abs(x), abs(y)) >= L.OFF:
            return None
        slot = self._board[(y + L.OFF) * L.SIZE + x + L.OFF]
        if slot < 0:
            return None
        return LETTERS[self._tiles[slot, 0]], int(self._tiles[slot, 1])

    def placed_followers(self) -> list[PlacedFollower]:
        nrows = self._ints[L.R_NSLOTS] * MAX_SEGMENTS
        owners = self._segs[:nrows, L.S_OWNER]
        out = []
        for g in np.flatnonzero(owners >= 0):
            slot, k = divmod(int(g), MAX_SEGMENTS)
            t, r, x, y = (int(v) for v in self._tiles[slot])
            kind = KIND_NAMES[self._segs[g, L.S_KIND]]
            out.append(PlacedFollower(int(owners[g]), x, y, SEGMENT_NAMES[t][r][k], kind))
        return out

    @property
    def score_events(self) -> list[ScoreEvent]:
        out = []
        for e in self._events[: self._ints[L.R_NEVENTS]]:
            slots = self._pool[e[L.E_POOL] : e[L.E_POOL] + e[L.E_NTILES]]
            tiles = tuple((int(self._tiles[s, 2]), int(self._tiles[s, 3])) for s in slots)
            out.append(
                ScoreEvent(
                    player=int(e[L.E_PLAYER]),
                    points=int(e[L.E_POINTS]),
                    kind=KIND_NAMES[e[L.E_KIND]],
                    tiles=tiles,
                    turn=int(e[L.E_TURN]),
                    final=bool(e[L.E_FINAL]),
                    figure="AB"[e[L.E_FIGURE]] if e[L.E_FIGURE] >= 0 else None,
                    card=int(e[L.E_CARD]) or None,
                )
            )
        return out

    @property
    def draw_order(self) -> str:
        """The whole draw pile (hidden information: for records and tests)."""
        deck = self._ints[L.O_DECK : L.O_DECK + self._ints[L.R_DECKLEN]]
        return "".join(LETTERS[t] for t in deck)

    @property
    def discarded(self) -> list[str]:
        """Tiles that fitted nowhere and were removed from the game, in order."""
        d = self._ints[L.O_DISCARD : L.O_DISCARD + self._ints[L.R_NDISCARD]]
        return [LETTERS[t] for t in d]

    def remaining_tiles(self) -> dict[str, int]:
        """Tiles still in the draw pile (not counting the one being placed), by letter."""
        pos = self._ints[L.R_DECKPOS]
        rest = self._ints[L.O_DECK + pos : L.O_DECK + self._ints[L.R_DECKLEN]]
        counts = np.bincount(rest, minlength=len(LETTERS))
        return {letter: int(n) for letter, n in zip(LETTERS, counts, strict=True)}

    def winners(self) -> list[int]:
        """Seats with the highest score once the game is over (ties share the win)."""
        if not self.is_over:
            return []
        s = self.scores
        return [int(p) for p in np.flatnonzero(s == s.max())]

    # ----------------------------------------------------------------- copies and records
    def clone(self) -> Position:
        other = type(self).__new__(type(self))
        other.config = self.config
        other.history = self.history.copy()
        other._board = self._board.copy()
        other._ints = self._ints.copy()
        other._tiles = self._tiles.copy()
        other._segs = self._segs.copy()
        other._events = self._events.copy()
        other._pool = self._pool.copy()
        other._arrays = None
        return other

    def __repr__(self) -> str:
        return (
            f"<carcassonne State turn={self.turn} phase={self.phase} "
            f"player={self.current_player} scores={self.scores.tolist()}>"
        )

    # ----------------------------------------------------------------- internals
    def _last_tile(self) -> tuple[int, int]:
        slot = self._ints[L.R_LAST]
        return int(self._tiles[slot, 0]), int(self._tiles[slot, 1])


def _shuffle_slice(ints: np.ndarray, lo: int, hi: int, rng: random.Random) -> None:
    """Sort ``ints[lo:hi]``, then shuffle it with ``rng`` (nothing drawn for <= 1 item)."""
    if hi - lo > 1:
        rest = sorted(ints[lo:hi].tolist())
        rng.shuffle(rest)
        ints[lo:hi] = rest


def _stacked(rest: np.ndarray, first: list[int], what: str, text: str) -> np.ndarray:
    """``first`` followed by the others of ``rest`` in sorted order (``ValueError`` if
    ``first`` is not a sub-multiset of ``rest``)."""
    pool = sorted(int(v) for v in rest)
    for v in first:
        if v not in pool:
            raise ValueError(f"cannot draw {text!r} next: a {what} in it is not left to draw")
        pool.remove(v)
    return np.asarray(first + pool, dtype=rest.dtype)
