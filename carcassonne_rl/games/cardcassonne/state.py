"""The rules of Cardcassonne over its table (see ``docs/engine_api.md``): legal actions,
applying them, rounds and scoring.  The layout of the table
(:mod:`carcassonne_rl.games.cardcassonne.table`):

Internal layout (flat Python lists, cheap to clone):

* ``hands[p][k]``: number of cards of kind ``k`` in seat ``p``'s hand;
* ``rows[r]``: entries from the start of row ``r``: ``k`` (face-up card), ``k + 32 * (p + 1)``
  (card played face down by ``p``) or ``-(p + 1)`` (the big follower of ``p``);
* ``collected[p][k]``: animal/building cards and jokers ``p`` keeps; ``animals[p][s]``:
  species totals (assigned animal jokers included); ``pending_jokers[p]``: animal jokers not
  yet assigned; ``removed[k]``: cards out of the game.
"""

from __future__ import annotations

import random

import numpy as np

from ..errors import IllegalActionError, NotationError
from .actions import (
    ACTIONS,
    ASSIGN,
    FOLLOWER,
    KEEP,
    NUM_ACTIONS,
    PLAY_UP,
    SETUP_ROW,
    TEN,
    Action,
    action_text,
    parse_action_code,
)
from .cards import (
    ANIMAL_JOKER,
    BUILDING_JOKER,
    DRAGON,
    FAIRY,
    IS_ANIMAL,
    IS_JOKER,
    KIND_COLOUR,
    KIND_NAMES,
    NUM_KINDS,
    PERSON_VALUE,
    parse_card_order,
    standard_deck,
)
from .config import GameConfig
from .record import to_json
from .scoring import building_points
from .table import (
    ASSIGN_JOKER,
    FACE_DOWN,
    MISPLACED,
    OVER,
    PHASE_NAMES,
    SETUP,
    TURN,
    CardTable,
    ScoreEvent,
)
from .unseen import deal_unseen
from .views import PlayerView, view

__all__ = ["FACE_DOWN", "PHASE_NAMES", "TURN", "State", "ScoreEvent", "new_game"]


# Per card kind: the codes of playing it face down (any row) / face up (own row; jokers any).
_DOWN_CODES = tuple(tuple(k * 4 + r for r in range(4)) for k in range(NUM_KINDS))
_UP_CODES = tuple(
    tuple(PLAY_UP + k * 4 + r for r in range(4))
    if IS_JOKER[k]
    else (PLAY_UP + k * 4 + KIND_COLOUR[k],)
    for k in range(NUM_KINDS)
)
_FOLLOWER_CODES = tuple(FOLLOWER + r for r in range(4))
_SETUP_CODES = [SETUP_ROW + r for r in range(4)]


class State(CardTable):
    """A Cardcassonne game in progress.  Create it with :func:`new_game`."""

    __slots__ = ()

    def __init__(self, config: GameConfig, card_order: list[int]):
        super().__init__(config, card_order)
        self._run_setup()

    def clone(self) -> State:
        """An independent copy."""
        return super().clone()  # type: ignore[return-value]

    def to_json(self) -> str:
        """Save as JSON (the record: config + card order + actions; see
        :mod:`carcassonne_rl.games.cardcassonne.record`)."""
        return to_json(self)

    def view(self, player: int) -> PlayerView:
        """What seat ``player`` knows (a :class:`.views.PlayerView`)."""
        return view(self, player)

    def resample_hidden(
        self, rng: random.Random | np.random.Generator | int | None, player: int
    ) -> State:
        """``determinize(self, player, rng)``: a state ``player`` cannot tell from this one, the
        cards hidden from it drawn afresh (no replayable record; ``redeal_unseen`` makes one)."""
        return deal_unseen(view(self, player), player, rng, type(self))

    def legal_codes(self) -> list[int]:
        """Legal action codes as a list of ints (sorted; as an array: ``legal_action_codes``)."""
        ph = self._phase
        if ph == TURN:
            p = self.current
            codes: list[int] = []
            if self.hand_size[p]:
                table = _DOWN_CODES if self.played[p] == 0 else _UP_CODES
                for k, c in enumerate(self.hands[p]):
                    if c:
                        codes.extend(table[k])
                if table is _DOWN_CODES:
                    codes.sort()
            if self.follower_row[p] < 0:
                codes.extend(_FOLLOWER_CODES)
            return codes
        if ph == SETUP:
            return _SETUP_CODES[:]
        if ph == MISPLACED:
            return [KEEP, TEN]
        if ph == ASSIGN_JOKER:
            a = self.animals[self.score_player]
            return [ASSIGN + s for s in range(4) if a[s]]
        return []

    def legal_action_codes(self) -> np.ndarray:
        """The same codes as :meth:`legal_codes`, as a fresh int32 array."""
        return np.array(self.legal_codes(), dtype=np.int32)

    def legal_actions(self) -> list[Action]:
        return [ACTIONS[c] for c in self.legal_codes()]

    def action_to_string(self, action: Action | int) -> str:
        code = action.code if isinstance(action, Action) else int(action)
        return action_text(code)

    def parse_action(self, text: str) -> Action:
        return ACTIONS[parse_action_code(text)]

    def apply(self, action: Action | str | int) -> None:
        """Apply an action object, its notation or its integer code."""
        if isinstance(action, Action):
            code = action.code
        elif isinstance(action, str):
            code = parse_action_code(action)
        elif isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            code = int(action)
            if not 0 <= code < NUM_ACTIONS:
                raise NotationError(f"action code {code} out of range 0..{NUM_ACTIONS - 1}")
        else:
            raise NotationError(f"cannot apply {action!r}: expected Action, str or int code")
        self.apply_code(code)

    # ------------------------------------------------------------------ apply
    def _illegal(self, code: int, why: str) -> IllegalActionError:
        try:
            text = action_text(code)
        except NotationError:
            text = str(code)
        n_legal = len(self.legal_codes())
        return IllegalActionError(
            f"illegal action {text!r} (code {code}) in phase {self.phase!r} for player "
            f"{self.current}: {why} ({n_legal} legal actions)"
        )

    def apply_code(self, code: int) -> None:
        """Apply an integer action code (fast path)."""
        code = int(code)
        ph = self._phase
        if ph == TURN:
            p = self.current
            if 0 <= code < FOLLOWER:
                down = code < PLAY_UP
                c = code if down else code - PLAY_UP
                k = c >> 2
                r = c & 3
                hand = self.hands[p]
                if not hand[k]:
                    raise self._illegal(code, f"player {p} holds no {KIND_NAMES[k]}")
                if down != (self.played[p] == 0):
                    raise self._illegal(
                        code,
                        "the first card of a round goes face down"
                        if down is False
                        else "only the first card of a round goes face down",
                    )
                if not down and k < 20 and KIND_COLOUR[k] != r:
                    raise self._illegal(code, "a face-up card goes to the row of its colour")
                hand[k] -= 1
                self.hand_size[p] -= 1
                self.played[p] += 1
                row = self.rows[r]
                self.turns.append((p, r, len(row)))
                row.append(k + FACE_DOWN * (p + 1) if down else k)
            elif FOLLOWER <= code < SETUP_ROW:
                if self.follower_row[p] >= 0:
                    raise self._illegal(code, f"player {p} has placed the follower this round")
                r = code - FOLLOWER
                self.follower_row[p] = r
                row = self.rows[r]
                self.turns.append((p, r, len(row)))
                row.append(-(p + 1))
                self.last_follower = p
            else:
                raise self._illegal(code, "not a turn action")
            self.history.append(code)
            n = self.n
            hs = self.hand_size
            fr = self.follower_row
            for i in range(1, n + 1):
                q = (p + i) % n
                if hs[q] or fr[q] < 0:
                    self.current = q
                    return
            self._end_round()
            return
        if ph == SETUP:
            if not SETUP_ROW <= code < ASSIGN:
                raise self._illegal(code, "the dealer must choose a row for the joker")
            self.history.append(code)
            self.rows[code - SETUP_ROW].append(self.card_order[self.setup_done])
            self.setup_done += 1
            self._run_setup()
            return
        if ph == MISPLACED:
            if code != KEEP and code != TEN:
                raise self._illegal(code, "choose 'keep' or 'ten' for the misplaced card")
            self.history.append(code)
            p = self.score_player
            k = self.misplaced_queue.pop(0)
            if code == KEEP:
                self.collected[p][k] += 1
                if IS_ANIMAL[k]:
                    s = KIND_COLOUR[k]
                    self.animals[p][s] += 1
                    self.claimed_species[s].append(k)
            else:
                self.removed[k] += 1
                self._score(p, self.rules.misplaced_points, "misplaced", [k])
            self._continue_player()
            return
        if ph == ASSIGN_JOKER:
            p = self.score_player
            s = code - ASSIGN
            if not (ASSIGN <= code < KEEP) or not self.animals[p][s]:
                raise self._illegal(code, "assign the animal joker to a species you own")
            self.history.append(code)
            self.animals[p][s] += 1
            self.claimed_species[s].append(ANIMAL_JOKER)
            self.jokers_to_assign -= 1
            self._continue_player()
            return
        raise self._illegal(code, "the game is over")

    # ------------------------------------------------------------------ flow
    def _run_setup(self) -> None:
        order = self.card_order
        while self.setup_done < self.rules.setup_cards:
            k = order[self.setup_done]
            if IS_JOKER[k]:
                self._phase = SETUP
                self.current = self.dealer
                return
            self.rows[KIND_COLOUR[k]].append(k)
            self.setup_done += 1
        self.deck_pos = self.rules.setup_cards
        self._start_round()

    def _start_round(self) -> None:
        n = self.n
        self.round += 1
        order = self.card_order
        pos = self.deck_pos
        hands = self.hands
        d = self.dealer
        for _ in range(self.deal_size):
            for j in range(1, n + 1):
                hands[(d + j) % n][order[pos]] += 1
                pos += 1
        self.deck_pos = pos
        self.hand_size = [self.deal_size] * n
        self.played = [0] * n
        self.follower_row = [-1] * n
        self.last_follower = -1
        self._phase = TURN
        self.current = (d + 1) % n

    def _end_round(self) -> None:
        """Resolve the rows: claimed cards to their followers, the rest stays."""
        claims: list[list[tuple[int, bool]]] = [[] for _ in range(self.n)]
        rows = self.rows
        for r in range(4):
            seg: list[int] = []
            for e in rows[r]:
                if e < 0:
                    dest = claims[-e - 1]
                    for x in seg:
                        k = x & 31
                        if x >= FACE_DOWN:
                            mis = k < 20 and KIND_COLOUR[k] != r  # jokers: never
                        else:
                            mis = False
                        dest.append((k, mis))
                    seg = []
                else:
                    seg.append(e)
            rows[r] = seg
        self.turns = []
        self.claims = claims
        self.dealer = self.last_follower
        self.score_player = -1
        self._next_player_scoring()

    def _score(self, p: int, pts: int, kind: str, cards: list[int]) -> None:
        self._scores[p] += pts
        self.events.append(
            ScoreEvent(p, pts, kind, tuple(KIND_NAMES[k] for k in cards), self.round)
        )

    def _next_player_scoring(self) -> None:
        """Score the next seat's claims; stops at the first decision."""
        rules = self.rules
        while self.score_player + 1 < self.n:
            p = self.score_player = self.score_player + 1
            persons: list[int] = []
            col = self.collected[p]
            anim = self.animals[p]
            claimed = self.claimed_species = [[], [], [], []]
            queue = self.misplaced_queue = []
            new_jokers = 0
            for k, mis in self.claims[p]:
                if PERSON_VALUE[k]:
                    if mis:
                        self.removed[k] += 1
                        self._score(p, rules.misplaced_points, "misplaced", [k])
                    else:
                        persons.append(k)
                elif k in (DRAGON, FAIRY):
                    self.removed[k] += 1
                    pts = rules.dragon_points if k == DRAGON else rules.fairy_points
                    self._score(p, pts, "dragon" if k == DRAGON else "fairy", [k])
                elif mis:
                    queue.append(k)
                elif k == ANIMAL_JOKER:
                    new_jokers += 1
                    col[k] += 1
                else:
                    col[k] += 1
                    if IS_ANIMAL[k]:
                        s = KIND_COLOUR[k]
                        anim[s] += 1
                        claimed[s].append(k)
            if persons:
                total = sum(PERSON_VALUE[k] for k in persons) * len(persons)
                for k in persons:
                    self.removed[k] += 1
                self._score(p, total, "persons", persons)
            self.new_jokers = new_jokers
            self.joker_step_done = False
            if self._decision_pending():
                return
        self._after_scoring()

    def _continue_player(self) -> None:
        if not self._decision_pending():
            self._next_player_scoring()

    def _decision_pending(self) -> bool:
        """Finish the scoring seat's claims up to its next decision (True if one is due)."""
        p = self.score_player
        if self.misplaced_queue:
            self._phase = MISPLACED
            self.current = p
            return True
        anim = self.animals[p]
        claimed = self.claimed_species
        if not self.joker_step_done:
            self.joker_step_done = True
            owned = [s for s in range(4) if anim[s]]
            new = self.new_jokers
            if not owned:
                if new:
                    self.pending_jokers[p] += new
                    pts = self.rules.lone_animal_joker_points * new
                    self._score(p, pts, "lone_animal_joker", [ANIMAL_JOKER] * new)
            else:
                todo = self.pending_jokers[p] + new
                self.pending_jokers[p] = 0
                if len(owned) == 1 and todo:
                    anim[owned[0]] += todo
                    claimed[owned[0]].extend([ANIMAL_JOKER] * todo)
                    todo = 0
                self.jokers_to_assign = todo
        if self.jokers_to_assign:
            self._phase = ASSIGN_JOKER
            self.current = p
            return True
        rules = self.rules
        for s in range(4):
            if claimed[s]:
                self._score(p, rules.animal_value(anim[s]), "animals", claimed[s])
        return False

    def _after_scoring(self) -> None:
        self.claims = []
        self.score_player = -1
        self.misplaced_queue = []
        self.claimed_species = [[], [], [], []]
        if self.round < self.rounds_total:
            self._start_round()
            return
        sp = self.rules.building_set_points
        for p in range(self.n):
            col = self.collected[p]
            counts = [col[c * 5 + 3] for c in range(4)]
            jokers = col[BUILDING_JOKER]
            if sum(counts) + jokers:
                cards = [c * 5 + 3 for c in range(4) for _ in range(counts[c])]
                cards += [BUILDING_JOKER] * jokers
                self._score(p, building_points(counts, jokers, sp), "buildings", cards)
        self._phase = OVER
        self.current = -1


def new_game(config: GameConfig | None = None, card_order=None) -> State:
    """A fresh game.  ``card_order``: optional list of the 130 card notations (or kind ints),
    top of the pile first: the first 10 are turned up in setup, the rest dealt in order
    (one card at a time, starting left of the dealer).  Without it the pile is shuffled
    from ``config.seed``."""
    config = config or GameConfig()
    if card_order is None:
        order = standard_deck()
        random.Random(config.seed).shuffle(order)
    else:
        order = parse_card_order(list(card_order))
    return State(config, order)


assert NUM_ACTIONS == 206
