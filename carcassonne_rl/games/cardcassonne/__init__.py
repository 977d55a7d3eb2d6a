"""Cardcassonne (the Carcassonne card game) rules engine, with hidden information.

Pure Python + numpy.  Rules: ``docs/rules/cardcassonne.md`` and the decisions in
:mod:`.rules_table` (:data:`RULES`, :data:`DECISIONS`).

Usage::

    state = new_game(GameConfig(players=3, seed=7))
    while not state.is_over:
        codes = state.legal_action_codes()
        state.apply_code(int(codes[0]))
    state.scores, state.winners()

A chosen deal (setup cards, the hands of the first rounds): ``new_game(config,
deal_order(players, setup, [(dealer, hands), ...]))``, see :mod:`.deal`.

Action codes (``NUM_ACTIONS = 206``, the same for 2-5 players; see :mod:`.actions`):
0-95 play kind ``k`` face down to row ``r`` (``k*4+r``); 96-191 play face up (``96+k*4+r``);
192-195 follower on row ``r``; 196-199 setup joker to row ``r``; 200-203 assign the animal
joker to species ``s``; 204 keep a misplaced card; 205 take 10 points for it.
Card kinds (0-23): ``Y1 Y2 Y3 YH YA R1 ... BA DR FA AJ BJ`` (:mod:`.cards`).

Phases: ``setup_joker``, ``turn``, ``assign_animal_joker``, ``misplaced_card``, ``game_over``.
"""

from ..errors import IllegalActionError, NotationError, SavedGameError
from .actions import ACTIONS, NUM_ACTIONS, Action, action_text, parse_action_code
from .cards import KIND_COUNTS, KIND_NAMES, NUM_KINDS, card_name, parse_card
from .config import GameConfig
from .deal import deal_order
from .determinize import determinize
from .redeal import redeal_unseen
from .replay import load_json, replay
from .rules_table import DECISIONS, RULES, RulesTable
from .scoring import building_points
from .state import PHASE_NAMES, ScoreEvent, State, new_game
from .views import PlayerView, view

__all__ = [
    "ACTIONS",
    "DECISIONS",
    "KIND_COUNTS",
    "KIND_NAMES",
    "NUM_ACTIONS",
    "NUM_KINDS",
    "PHASE_NAMES",
    "RULES",
    "Action",
    "GameConfig",
    "State",
    "IllegalActionError",
    "NotationError",
    "PlayerView",
    "RulesTable",
    "SavedGameError",
    "ScoreEvent",
    "action_text",
    "building_points",
    "card_name",
    "deal_order",
    "determinize",
    "load_json",
    "new_game",
    "parse_action_code",
    "parse_card",
    "redeal_unseen",
    "replay",
    "view",
]
