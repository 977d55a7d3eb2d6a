"""Fixed deals for scripted Cardcassonne games: the order of all 130 cards.

``new_game(config, card_order)`` takes the pile top first: the 10 cards turned up in setup,
then each round's cards as the dealer hands them out (one card at a time, starting with
the player left of the dealer). The dealing order of a round thus depends on its dealer:
the first dealer is fixed by the rules table (the last seat by default); every later round
is dealt by the player who placed their follower last in the round before (so a script
that fixes several rounds must name the dealers its moves lead to).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ..errors import NotationError
from .cards import KIND_COUNTS, KIND_NAMES, card_name, parse_card, standard_deck
from .rules_table import RULES, RulesTable

Hands = Mapping[int, Sequence[str]] | Sequence[Sequence[str]]


def deal_order(
    players: int,
    setup: Sequence[str],
    rounds: Sequence[tuple[int, Hands]] = (),
    seed: int | None = None,
    rules: RulesTable = RULES,
) -> list[str]:
    """The 130 card notations, top of the pile first, that deal a chosen game.

    - ``setup``: the 10 cards the first dealer turns up, in order.
    - ``rounds``: for the first rounds, ``(dealer, hands)``, where ``hands[seat]`` lists
      the cards ``seat`` is dealt (as many as the rules deal per round); ``hands`` is a
      list by seat or a ``{seat: cards}`` mapping naming every seat.
    - the cards not named follow in the standard order, or shuffled by ``seed``.

    Bad input raises ``NotationError`` (a ``ValueError``) naming what is wrong.
    """
    if isinstance(players, bool) or players not in rules.player_counts:
        raise NotationError(f"players must be one of {list(rules.player_counts)}, got {players!r}")
    per_round, total_rounds = rules.deal(players)
    left = dict(zip(KIND_NAMES, KIND_COUNTS, strict=True))
    order: list[str] = []

    def take(text: object, where: str) -> None:
        if not isinstance(text, str):
            raise NotationError(f"{where}: a card must be a notation string, got {text!r}")
        name = card_name(parse_card(text))
        if left[name] == 0:
            raise NotationError(
                f"{where}: no {name} left (the game has {KIND_COUNTS[KIND_NAMES.index(name)]})"
            )
        left[name] -= 1
        order.append(name)

    if isinstance(setup, str) or len(setup) != rules.setup_cards:
        raise NotationError(f"setup must list {rules.setup_cards} cards, got {setup!r:.80}")
    for card in setup:
        take(card, "setup")
    if len(rounds) > total_rounds:
        raise NotationError(f"{players} players play {total_rounds} rounds, got {len(rounds)}")
    first_dealer = rules.first_dealer % players
    for number, item in enumerate(rounds, 1):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise NotationError(f"round {number}: expected (dealer, hands), got {item!r:.80}")
        dealer, hands = item
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise NotationError(f"round {number}: dealer must be a seat 0-{players - 1}")
        if number == 1 and dealer != first_dealer:
            raise NotationError(f"round 1 is dealt by seat {first_dealer}, got dealer {dealer}")
        by_seat = _hands_by_seat(hands, players, number)
        for seat, cards in by_seat.items():
            if isinstance(cards, str) or len(cards) != per_round:
                raise NotationError(
                    f"round {number}: seat {seat} must be dealt {per_round} cards, "
                    f"got {cards!r:.80}"
                )
        for i in range(per_round):
            for j in range(1, players + 1):
                seat = (dealer + j) % players
                take(by_seat[seat][i], f"round {number}, seat {seat}")
    rest = [KIND_NAMES[k] for k in standard_deck() if _consume(left, KIND_NAMES[k])]
    if seed is not None:
        random.Random(seed).shuffle(rest)
    return order + rest


def _hands_by_seat(hands: Hands, players: int, number: int) -> dict[int, Sequence[str]]:
    if isinstance(hands, Mapping):
        by_seat = dict(hands)
    elif isinstance(hands, (list, tuple)):
        by_seat = dict(enumerate(hands))
    else:
        raise NotationError(f"round {number}: hands must be a list by seat or a dict seat -> cards")
    if sorted(by_seat) != list(range(players)):
        raise NotationError(
            f"round {number}: hands must name every seat 0-{players - 1}, got {sorted(by_seat)}"
        )
    return by_seat


def _consume(left: dict[str, int], name: str) -> bool:
    if left[name] == 0:
        return False
    left[name] -= 1
    return True
