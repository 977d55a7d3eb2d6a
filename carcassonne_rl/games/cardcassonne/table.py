"""The cards of a Cardcassonne game: where each one is, and the queries that read them.

Internal layout (flat Python lists, cheap to clone):

* ``hands[p][k]``: number of cards of kind ``k`` in seat ``p``'s hand;
* ``rows[r]``: entries from the start of row ``r``: ``k`` (face-up card), ``k + 32 * (p + 1)``
  (card played face down by ``p``) or ``-(p + 1)`` (the big follower of ``p``);
* ``turns``: the turn moves of the round in play, in order, as ``(seat, row, index)``: the
  entry ``rows[row][index]`` is the card or follower ``seat`` put there (empty between rounds);
* ``collected[p][k]``: animal/building cards and jokers ``p`` keeps; ``animals[p][s]``:
  species totals (assigned animal jokers included); ``pending_jokers[p]``: animal jokers not
  yet assigned; ``removed[k]``: cards out of the game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import BUILDING_JOKER, NUM_KINDS
from .config import GameConfig

SETUP, TURN, ASSIGN_JOKER, MISPLACED, OVER = range(5)
PHASE_NAMES = ("setup_joker", "turn", "assign_animal_joker", "misplaced_card", "game_over")
FACE_DOWN = 32  # row entry = kind + FACE_DOWN * (player + 1) for a face-down card


@dataclass(frozen=True)
class ScoreEvent:
    """Points scored: ``kind`` is persons, misplaced, dragon, fairy, animals,
    lone_animal_joker or buildings; ``cards`` are the notations of the cards scored."""

    player: int
    points: int
    kind: str
    cards: tuple[str, ...]
    round: int


class CardTable:
    """The cards on and under the table, and the queries that read them.

    :class:`carcassonne_rl.games.cardcassonne.state.State` adds the rules (legal actions,
    applying them, scoring)."""

    __slots__ = (
        "config",
        "n",
        "rules",
        "card_order",
        "replayable",
        "deck_pos",
        "setup_done",
        "hands",
        "hand_size",
        "played",
        "follower_row",
        "rows",
        "turns",
        "round",
        "rounds_total",
        "deal_size",
        "dealer",
        "current",
        "_phase",
        "last_follower",
        "collected",
        "animals",
        "pending_jokers",
        "removed",
        "_scores",
        "events",
        "history",
        "claims",
        "score_player",
        "misplaced_queue",
        "jokers_to_assign",
        "claimed_species",
        "new_jokers",
        "joker_step_done",
    )

    # ------------------------------------------------------------------ creation
    def __init__(self, config: GameConfig, card_order: list[int]):
        rules = config.rules
        n = config.players
        self.config = config
        self.n = n
        self.rules = rules
        self.card_order = card_order
        self.replayable = True
        self.deal_size, self.rounds_total = rules.deal(n)
        self.deck_pos = 0
        self.setup_done = 0
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_size = [0] * n
        self.played = [0] * n
        self.follower_row = [-1] * n
        self.rows: list[list[int]] = [[], [], [], []]
        self.turns: list[tuple[int, int, int]] = []
        self.round = 0
        self.dealer = rules.first_dealer % n
        self.current = self.dealer
        self._phase = SETUP
        self.last_follower = -1
        self.collected = [[0] * NUM_KINDS for _ in range(n)]
        self.animals = [[0] * 4 for _ in range(n)]
        self.pending_jokers = [0] * n
        self.removed = [0] * NUM_KINDS
        self._scores = [0] * n
        self.events: list[ScoreEvent] = []
        self.history: list[int] = []
        self.claims: list[list[tuple[int, bool]]] = []
        self.score_player = -1
        self.misplaced_queue: list[int] = []
        self.jokers_to_assign = 0
        self.claimed_species: list[list[int]] = [[], [], [], []]
        self.new_jokers = 0
        self.joker_step_done = False

    def clone(self) -> CardTable:
        """An independent copy."""
        c = type(self).__new__(type(self))
        c.config = self.config
        c.n = self.n
        c.rules = self.rules
        c.card_order = self.card_order  # never mutated
        c.replayable = self.replayable
        c.deck_pos = self.deck_pos
        c.setup_done = self.setup_done
        c.hands = [h[:] for h in self.hands]
        c.hand_size = self.hand_size[:]
        c.played = self.played[:]
        c.follower_row = self.follower_row[:]
        c.rows = [r[:] for r in self.rows]
        c.turns = self.turns[:]
        c.round = self.round
        c.rounds_total = self.rounds_total
        c.deal_size = self.deal_size
        c.dealer = self.dealer
        c.current = self.current
        c._phase = self._phase
        c.last_follower = self.last_follower
        c.collected = [h[:] for h in self.collected]
        c.animals = [h[:] for h in self.animals]
        c.pending_jokers = self.pending_jokers[:]
        c.removed = self.removed[:]
        c._scores = self._scores[:]
        c.events = self.events[:]
        c.history = self.history[:]
        c.claims = [h[:] for h in self.claims]
        c.score_player = self.score_player
        c.misplaced_queue = self.misplaced_queue[:]
        c.jokers_to_assign = self.jokers_to_assign
        c.claimed_species = [h[:] for h in self.claimed_species]
        c.new_jokers = self.new_jokers
        c.joker_step_done = self.joker_step_done
        return c

    # ------------------------------------------------------------------ interface
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def current_player(self) -> int:
        """Seat that must decide now; -1 once the game is over."""
        return self.current

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    @property
    def phase_index(self) -> int:
        """The pending decision as an index into ``PHASE_NAMES`` (``SETUP``, ``TURN``, ...)."""
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def scores(self) -> np.ndarray:
        return np.array(self._scores, dtype=np.int64)

    @property
    def score_events(self) -> list[ScoreEvent]:
        return list(self.events)

    @property
    def deck_size(self) -> int:
        return len(self.deck_cards())

    @property
    def pending_card(self) -> int | None:
        """Kind of the card awaiting a decision (setup joker or misplaced card), else None."""
        if self._phase == SETUP:
            return self.card_order[self.setup_done]
        if self._phase == MISPLACED:
            return self.misplaced_queue[0]
        return None

    def winners(self) -> list[int]:
        """Seats sharing the win (empty until the game is over)."""
        if self._phase != OVER:
            return []
        best = max(self._scores)
        tied = [p for p in range(self.n) if self._scores[p] == best]
        if len(tied) > 1:
            nb = [self.building_count(p) for p in tied]
            most = max(nb)
            tied = [p for p, b in zip(tied, nb, strict=True) if b == most]
        return tied

    def deck_cards(self) -> list[int]:
        """Kinds not yet turned up or dealt, top first (hidden; the setup joker awaiting
        its row is the first of them during ``setup_joker``)."""
        if self._phase == SETUP or self.round == 0:
            return self.card_order[self.setup_done :]
        return self.card_order[self.deck_pos :]

    def building_count(self, p: int) -> int:
        """Building cards under ``p``'s chest (jokers included if the rules table says so)."""
        col = self.collected[p]
        b = sum(col[c * 5 + 3] for c in range(4))
        if self.rules.tie_break_counts_building_jokers:
            b += col[BUILDING_JOKER]
        return b
