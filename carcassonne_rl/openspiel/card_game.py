"""Cardcassonne as the OpenSpiel game ``python_cardcassonne`` (imperfect information).

The deal is explicit: one chance node per card, in the order the engine turns them up
(setup) and deals them (one card at a time, starting left of the dealer), outcome = the card
kind (0-23), probability = copies of that kind left / cards left. A card dealt to a hand is
known to that seat only (our observations and information states come from the engine's
``view``, so no other seat's tensor or string changes with it). As in the tile game, the
engine state held by an OpenSpiel state keeps its undealt cards in sorted order, and an
action that deals cards (the end of a round, a setup joker's row) waits behind chance nodes
until every card it deals has been drawn.

``resample_from_infostate`` (used by OpenSpiel's ``ISMCTSBot``) is the engine's
``determinize``: the hidden cards resampled uniformly from those the seat has not seen.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from carcassonne_rl.encoders.card.encoder import CARD_OBS_SIZE, CardEncoder
from carcassonne_rl.envs.card_render import card_seat_text
from carcassonne_rl.games.cardcassonne import (
    KIND_COUNTS,
    KIND_NAMES,
    NUM_ACTIONS,
    NUM_KINDS,
    RULES,
    GameConfig,
    State,
    action_text,
    determinize,
    load_json,
    new_game,
    view,
)

from . import common

SHORT_NAME = "python_cardcassonne"
START = -1  # the pending "action" of the initial chance node: the setup
TOTAL_CARDS = sum(KIND_COUNTS)
PARAMETERS: dict[str, Any] = {"players": 2, "reward_mode": "win_loss"}
_TYPE = common.game_type(
    SHORT_NAME,
    "Python Cardcassonne (the Carcassonne card game)",
    pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    3,
    "win_loss",
    PARAMETERS,
    info_state_tensor=True,
)


def settings(params: dict[str, Any]) -> tuple[GameConfig, str, CardEncoder]:
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown {SHORT_NAME} parameters {unknown}; known: {list(PARAMETERS)}")
    p = {**PARAMETERS, **params}
    config = GameConfig(players=common.check_players(p["players"]), seed=0)
    return config, common.check_reward_mode(p["reward_mode"]), CardEncoder()


def cards_drawn(engine: State) -> int:
    """Cards of the pile turned up or dealt so far (a setup joker awaiting its row counts)."""
    return TOTAL_CARDS - engine.deck_size + (engine.phase == "setup_joker")


class CardcassonneGame(pyspiel.Game):
    """``pyspiel.load_game("python_cardcassonne(players=4)")``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**PARAMETERS, **(params or {})}
        config, mode, encoder = settings(params)
        low, high = common.utility_range(mode)
        per_round, rounds = RULES.deal(config.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_KINDS,
            num_players=config.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if config.players == 2 else None,
            # per card: played, then perhaps a joker's species and a misplaced card's choice;
            # a follower per seat and round; a row per setup card
            max_game_length=3 * TOTAL_CARDS + rounds * config.players + RULES.setup_cards,
        )
        kind = common.game_type(
            SHORT_NAME, _TYPE.long_name, _TYPE.information, config.players, mode, PARAMETERS, True
        )
        super().__init__(kind, info, params)
        self.config, self.reward_mode, self.encoder = config, mode, encoder
        self._shared = common.Shared((config, mode, encoder), (settings, (dict(params),)))

    def new_initial_state(self) -> CardcassonneCardState:
        """Before the setup: chance nodes turn up the first cards."""
        return CardcassonneCardState(self)

    def state_from_engine(self, engine: State) -> CardcassonneCardState:
        """An OpenSpiel state at an engine position of this many players (the undealt cards
        re-sorted on a copy). Its hands and face-down cards are the engine's: give it only to
        bots that read information states (ISMCTS), never to a perfect-information search."""
        if engine.config.players != self.config.players or engine.config.rules != RULES:
            raise ValueError(f"engine state plays {engine.config}, this game {self.config}")
        state = CardcassonneCardState(self)
        state._frozen = common.Frozen(_sorted_rest(engine.clone(), []), load_json)
        state._pending = None
        state._returns = tuple(state._compute_returns())
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters not supported, got {params}")
        info_state = iig_obs_type is not None and iig_obs_type.perfect_recall
        return SeatObserver(self.encoder, info_state)


def _sorted_rest(engine: State, first: list[int]) -> State:
    """``engine`` (a fresh copy) with its undealt cards replaced by ``first`` then the rest in
    sorted order."""
    d = cards_drawn(engine)
    rest = sorted(engine.card_order[d:])
    for k in first:
        rest.remove(k)
    engine.card_order = engine.card_order[:d] + first + rest
    return engine


class CardcassonneCardState(common.EngineState):
    """A Cardcassonne position, or a player action waiting for the cards it deals."""

    def __init__(self, game: CardcassonneGame) -> None:
        super().__init__(game)
        self._shared = game._shared
        self._frozen: common.Frozen | None = None  # None only before the first card
        self._pending: tuple[int, tuple[int, ...]] | None = (START, ())
        self._returns = self._rewards = (0.0,) * game.config.players

    # ------------------------------------------------------------------ OpenSpiel API
    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_codes()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        counts = self.cards_left()
        total = sum(counts)
        return [(k, c / total) for k, c in enumerate(counts) if c]

    def cards_left(self) -> list[int]:
        """Per kind, the cards the next chance node may draw."""
        if self._frozen is None:
            counts = list(KIND_COUNTS)
        else:
            engine = self.engine
            counts = np.bincount(engine.card_order[cards_drawn(engine) :], minlength=NUM_KINDS)
            counts = [int(c) for c in counts]
        for k in self._pending[1] if self._pending else ():
            counts[k] -= 1
        return counts

    def _apply_action(self, action: int) -> None:
        before = self._returns
        if self._pending is None:
            self._resolve(int(action), ())
        else:
            code, cards = self._pending
            self._resolve(code, (*cards, int(action)))
        self._returns = tuple(self._compute_returns())
        self._rewards = tuple(a - b for a, b in zip(self._returns, before, strict=True))

    def _resolve(self, code: int, cards: tuple[int, ...]) -> None:
        """Apply ``code`` with the cards drawn so far on a copy; keep the copy if it dealt no
        more than those, else wait for the next chance outcome."""
        if code == START:
            rest = [k for k, c in enumerate(KIND_COUNTS) for _ in range(c)]
            for k in cards:
                rest.remove(k)
            trial = new_game(self._shared.value[0], list(cards) + rest)
            before = 0
        else:
            base = self.engine
            before = cards_drawn(base)
            trial = base.clone()
            if cards:  # the rest lies sorted already
                trial = _sorted_rest(trial, list(cards))
            trial.apply_code(code)
        if cards_drawn(trial) - before > len(cards):
            self._pending = (code, cards)
        else:
            self._pending = None
            self._frozen = common.Frozen(trial, load_json)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {KIND_NAMES[action]}"
        return action_text(action)

    def resample_from_infostate(self, player: int, sampler: Any = None) -> CardcassonneCardState:
        """A state consistent with what ``player`` knows: the engine's ``determinize`` (the
        other hands, face-down cards and the pile resampled uniformly from the unseen cards).
        ``sampler``: a ``random.Random`` draws the hidden cards; anything else (OpenSpiel's
        ISMCTS passes a ``pyspiel`` sampler) makes ``random``'s global generator draw them.
        Such a state has no record: it cannot be serialized."""
        if self._pending is not None:
            raise ValueError("resample_from_infostate at a chance node: resample at a decision")
        game = self.get_game()
        state = CardcassonneCardState(game)
        rng = (
            sampler if isinstance(sampler, random.Random) else random.Random(random.getrandbits(64))
        )
        engine = determinize(self.engine, player, rng)
        state._frozen = common.Frozen(_sorted_rest(engine, []), load_json)
        state._pending = None
        state._returns, state._rewards = self._returns, self._rewards
        return state

    def __str__(self) -> str:
        engine = self.engine
        if engine is None:
            return "before the setup"
        text = card_seat_text(engine, None)
        if self._pending is not None:
            code, cards = self._pending
            what = "the setup" if code == START else action_text(code)
            drawn = " ".join(KIND_NAMES[k] for k in cards)
            text += f"\n{what!r} waits for a card (drawn: {drawn})"
        return text


class SeatObserver:
    """What one seat knows, from the engine's ``view``: the tensor is our encoder's vector
    (the env's observation); the string is the seat's text view (observation) or the view
    itself (information state). At a chance node: the last completed position."""

    def __init__(self, encoder: CardEncoder, info_state: bool) -> None:
        self.encoder = encoder
        self.info_state = info_state
        self.tensor = np.zeros(CARD_OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardcassonneCardState, player: int) -> None:
        engine = state.engine
        self.tensor.fill(0.0)
        if engine is not None:
            self.encoder.encode_into(self.tensor, engine, player)

    def string_from(self, state: CardcassonneCardState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return f"seat {player}: before the setup"
        if self.info_state:
            return repr(view(engine, player))
        return card_seat_text(engine, player)


pyspiel.register_game(_TYPE, CardcassonneGame)
