"""Per-player information states (determinization, their inverse, is :mod:`.determinize`).

:class:`PlayerView` holds what seat ``player`` knows and nothing more: its own hand and
face-down cards, all public cards, every player's kept animals/buildings (revealed when
claimed), removed cards, scores, the counts of hidden cards, and who made each turn move of
the round in play (as everyone at the table sees).  Row entries use the state's
encoding, with kind ``HIDDEN`` (24) for a face-down card of another player.
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import FACE_DOWN, PHASE_NAMES, CardTable, ScoreEvent

HIDDEN = 24


@dataclass(frozen=True)
class PlayerView:
    """The information state of seat ``player`` (immutable, comparable with ``==``)."""

    player: int
    players: int
    phase: str
    current_player: int
    round: int
    rounds_total: int
    dealer: int
    last_follower: int
    hand: tuple[int, ...]  # own hand: count per card kind
    hand_sizes: tuple[int, ...]
    played: tuple[int, ...]  # cards played this round, per seat
    follower_row: tuple[int, ...]  # -1: not placed this round
    rows: tuple[tuple[int, ...], ...]
    #: the round's turn moves so far, in order, as ``(seat, row, index)``: ``rows[row][index]``
    #: is the card (face down: ``HIDDEN`` to the others) or follower ``seat`` put there
    turns: tuple[tuple[int, int, int], ...]
    deck_size: int  # cards not yet turned up or dealt (setup joker awaiting a row included)
    setup_done: int
    pending_card: int  # the setup joker or misplaced card awaiting a decision, else -1
    collected: tuple[tuple[int, ...], ...]  # kept animal/building cards and jokers, per seat
    animals: tuple[tuple[int, ...], ...]  # species totals per seat (assigned jokers included)
    pending_jokers: tuple[int, ...]
    removed: tuple[int, ...]
    scores: tuple[int, ...]
    score_events: tuple[ScoreEvent, ...]
    # End-of-round scoring in progress (claimed cards are public):
    claims: tuple[tuple[tuple[int, bool], ...], ...]
    score_player: int
    misplaced_queue: tuple[int, ...]
    jokers_to_assign: int
    claimed_species: tuple[tuple[int, ...], ...]
    new_jokers: int
    joker_step_done: bool

    @property
    def is_over(self) -> bool:
        """The game has ended (its scores are final, the buildings scored)."""
        return self.phase == PHASE_NAMES[-1]


def _row_entry(e: int, player: int) -> int:
    if e >= FACE_DOWN and (e >> 5) - 1 != player:
        return HIDDEN + (e & ~31)
    return e


def view(state: CardTable, player: int) -> PlayerView:
    """What seat ``player`` knows about ``state``."""
    if not 0 <= player < state.n:
        raise ValueError(f"player must be in 0..{state.n - 1}, got {player}")
    ph = state._phase
    return PlayerView(
        player=player,
        players=state.n,
        phase=PHASE_NAMES[ph],
        current_player=state.current,
        round=state.round,
        rounds_total=state.rounds_total,
        dealer=state.dealer,
        last_follower=state.last_follower,
        hand=tuple(state.hands[player]),
        hand_sizes=tuple(state.hand_size),
        played=tuple(state.played),
        follower_row=tuple(state.follower_row),
        rows=tuple(tuple(_row_entry(e, player) for e in r) for r in state.rows),
        turns=tuple(state.turns),
        deck_size=state.deck_size,
        setup_done=state.setup_done,
        pending_card=-1 if state.pending_card is None else state.pending_card,
        collected=tuple(tuple(c) for c in state.collected),
        animals=tuple(tuple(a) for a in state.animals),
        pending_jokers=tuple(state.pending_jokers),
        removed=tuple(state.removed),
        scores=tuple(state._scores),
        score_events=tuple(state.events),
        claims=tuple(tuple(c) for c in state.claims),
        score_player=state.score_player,
        misplaced_queue=tuple(state.misplaced_queue),
        jokers_to_assign=state.jokers_to_assign,
        claimed_species=tuple(tuple(c) for c in state.claimed_species),
        new_jokers=state.new_jokers,
        joker_step_done=state.joker_step_done,
    )
