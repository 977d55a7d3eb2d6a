"""The JSON the page draws for one seat of a Cardcassonne game, built from that seat's
information state (:func:`carcassonne_rl.games.cardcassonne.view`) only.

A seat sees its own hand and its own face-down cards; other seats' face-down cards are sent
as backs (owner only), other hands as sizes, the pile as a count.
"""

from __future__ import annotations

from typing import Any

from carcassonne_rl.games.cardcassonne import ACTIONS, KIND_NAMES, PlayerView, State, view
from carcassonne_rl.games.cardcassonne.actions import PLAY_UP
from carcassonne_rl.games.cardcassonne.cards import IS_ANIMAL, IS_BUILDING, PERSON_VALUE
from carcassonne_rl.games.cardcassonne.rules_table import COLOUR_NAMES, COLOURS, ROW_NAMES, RULES
from carcassonne_rl.games.cardcassonne.state import FACE_DOWN
from carcassonne_rl.games.cardcassonne.views import HIDDEN

from .tile_payload import score_event_dict


def card_title(kind: int) -> str:
    """What a card is, in words (``GA``: "green (field) animal: pigs")."""
    name = KIND_NAMES[kind]
    jokers = {
        "DR": "dragon (joker, any row): 10 points to its claimer, then out of the game",
        "FA": "fairy (joker, any row): 10 points to its claimer, then out of the game",
        "AJ": "animal joker (any row): joins one of the claimer's animal species",
        "BJ": "building joker (any row): counts as a building of any colour",
    }
    if name in jokers:
        return jokers[name]
    colour = COLOURS.index(name[0])
    where = f"{COLOUR_NAMES[colour]} ({ROW_NAMES[colour]})"
    if PERSON_VALUE[kind]:
        return f"{where} person, value {PERSON_VALUE[kind]}"
    if IS_BUILDING[kind]:
        return f"{where} building"
    assert IS_ANIMAL[kind]
    return f"{where} animal: {RULES.species_by_colour[colour]}"


CARD_TITLES = {name: card_title(k) for k, name in enumerate(KIND_NAMES)}


def _cards(counts: tuple[int, ...] | list[int]) -> list[str]:
    """Card names, one per card, in kind order."""
    return [KIND_NAMES[k] for k, c in enumerate(counts) for _ in range(c)]


def _row_entry(e: int) -> dict[str, Any]:
    if e < 0:
        return {"type": "follower", "player": -e - 1}
    if e >= FACE_DOWN:
        kind = e & 31
        return {
            "type": "card",
            "down": True,
            "owner": (e >> 5) - 1,
            "card": None if kind == HIDDEN else KIND_NAMES[kind],
        }
    return {"type": "card", "down": False, "owner": None, "card": KIND_NAMES[e]}


def legal_choice(code: int) -> dict[str, Any]:
    """One legal action, described for the page's buttons and click targets."""
    a = ACTIONS[code]
    return {
        "code": code,
        "text": str(a),
        "verb": a.verb,
        "card": None if a.card is None else KIND_NAMES[a.card],
        "row": a.row,
        "down": a.face_down,
        "species": None if a.species is None else RULES.species_by_colour[a.species],
    }


def card_view_payload(v: PlayerView, legal: list[int] | None, version: int) -> dict[str, Any]:
    """The payload of seat ``v.player``; ``legal`` are its legal codes when it is to move."""
    return {
        "game": "cardcassonne",
        "players": v.players,
        "seat": v.player,
        "version": version,
        "phase": v.phase,
        "current_player": v.current_player,
        "is_over": v.is_over,
        "round": v.round,
        "rounds_total": v.rounds_total,
        "dealer": v.dealer,
        "deck_size": v.deck_size,
        "row_colours": list(COLOURS),
        "row_names": [f"{c} ({n})" for c, n in zip(COLOUR_NAMES, ROW_NAMES, strict=True)],
        "species": list(RULES.species_by_colour),
        "hands": {str(v.player): _cards(v.hand)},
        "hand_sizes": list(v.hand_sizes),
        "played": list(v.played),
        "follower_row": list(v.follower_row),
        "rows": [[_row_entry(e) for e in row] for row in v.rows],
        "pending_card": KIND_NAMES[v.pending_card] if v.pending_card >= 0 else None,
        "collected": [_cards(c) for c in v.collected],
        "animals": [list(a) for a in v.animals],
        "pending_jokers": list(v.pending_jokers),
        "removed": _cards(v.removed),
        "scores": list(v.scores),
        "score_events": [score_event_dict(e) for e in v.score_events],
        "claims": [[[KIND_NAMES[k], bool(m)] for k, m in c] for c in v.claims],
        "score_player": v.score_player,
        "misplaced_queue": [KIND_NAMES[k] for k in v.misplaced_queue],
        "winners": [],
        "legal": None if legal is None else [legal_choice(c) for c in legal],
        "card_titles": CARD_TITLES,
    }


def card_payload(state: State, seat: int | None, version: int) -> dict[str, Any]:
    """Seat ``seat``'s payload, from ``view(state, seat)`` only; ``None``: the spectator of
    a replay, who sees every hand and face-down card."""
    to_move = state.current_player
    legal = state.legal_codes() if seat in (None, to_move) and not state.is_over else None
    v = view(state, 0 if seat is None else seat)
    payload = card_view_payload(v, legal, version)
    if state.is_over:
        payload["winners"] = state.winners()
    if seat is None:
        payload["seat"] = None
        payload["hands"] = {str(p): _cards(state.hands[p]) for p in range(state.n)}
        payload["rows"] = [[_row_entry(e) | _face(e) for e in row] for row in state.rows]
    return payload


def _face(e: int) -> dict[str, Any]:
    """A spectator reads face-down cards too."""
    return {"card": KIND_NAMES[e & 31]} if e >= FACE_DOWN else {}


def decision_text(code: int, actor: int, seat: int | None) -> str:
    """Notation of a decision as seat ``seat`` may read it: another seat's face-down card is
    written ``??``."""
    text = str(ACTIONS[code])
    if code < PLAY_UP and seat is not None and actor != seat:
        return f"play ?? {COLOURS[code & 3]} down"
    return text
