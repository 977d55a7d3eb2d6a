"""PettingZoo AEC environment of Cardcassonne (the Carcassonne card game).

``env(players=2, reward_mode="win_loss", render_mode=None, encoder=None, render_view=None)``
returns the
wrapped environment (see :mod:`.classic_wrapper`), ``raw_env(...)`` the bare one. The
observation is :class:`~carcassonne_rl.encoders.card.encoder.CardEncoder`'s vector (own
information only: others' hands, face-down cards and the pile are never encoded), the
action index is the engine's action code (206). Rewards: :mod:`.game_env`.

Rendering (``render_mode`` ``"ansi"`` / ``"rgb_array"``): with ``render_view=None`` (default)
the omniscient spectator's table (text: every hand and face-down card; picture: every
face-down card as a back); with ``render_view=K`` only what seat K knows (its own hand and
face-down cards, the others' face-down cards as backs, their hands as sizes).

``state()`` (PettingZoo's global state, ``state_space``): float32, ``players * 1620 + 24``
entries: the observation vector of every seat, seat 0 first (together: every hand and every
face-down card), then the cards left in the pile per kind (their order is not part of it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from carcassonne_rl.encoders.card.cache import CardObservationCache
from carcassonne_rl.encoders.card.encoder import CARD_OBS_SIZE, CardEncoder
from carcassonne_rl.envs.classic_wrapper import ClassicWrapper
from carcassonne_rl.envs.game_env import GameEnv
from carcassonne_rl.games.cardcassonne import (
    NUM_KINDS,
    RULES,
    GameConfig,
    State,
    new_game,
    replay,
)


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    """Cardcassonne for 2-5 players.

    ``reset(seed=None, options=None)``: ``options`` may fix the game to start from:
    ``card_order`` (all 130 cards, top of the pile first, e.g. built with
    :func:`~carcassonne_rl.games.cardcassonne.deal_order`), or ``record``, a saved game
    (``state.to_json()`` text or its dict) of this many players, played on from its last
    position.
    """

    metadata = {**GameEnv.metadata, "name": "cardcassonne_v0"}
    RESET_OPTIONS = ("card_order", "record")

    def __init__(
        self,
        players: int = 2,
        reward_mode: str = "win_loss",
        render_mode: str | None = None,
        encoder: CardEncoder | None = None,
        render_view: int | None = None,
    ) -> None:
        super().__init__(players, encoder or CardEncoder(), reward_mode, render_mode)
        if render_view is not None and (
            isinstance(render_view, bool)
            or not isinstance(render_view, int)
            or not 0 <= render_view < players
        ):
            raise ValueError(
                f"render_view must be None or a seat 0..{players - 1}, got {render_view!r}"
            )
        self.render_view = render_view
        size = players * CARD_OBS_SIZE + NUM_KINDS
        self.state_space = spaces.Box(0.0, np.inf, (size,), np.float32)

    def _new_state(self, seed: int, options: dict[str, Any]) -> State:
        """A game shuffled by ``seed``, or the deal / saved game of ``reset`` ``options``."""
        if "record" in options:
            record = options["record"]
            if not isinstance(record, (str, dict)):
                raise ValueError(
                    f"reset option 'record' must be the JSON text of a saved game or its dict, "
                    f"got {type(record).__name__}"
                )
            state = replay(record)
            if state.config.players != self.players or state.config.rules != RULES:
                raise ValueError(
                    f"reset option 'record' is a game of {state.config.to_dict()}, but this env "
                    f"plays {self.players} players with the default rules"
                )
            return state
        config = GameConfig(players=self.players, seed=seed)
        if "card_order" not in options:
            return new_game(config)
        order = options["card_order"]
        if isinstance(order, str) or not isinstance(order, (list, tuple)):
            raise ValueError(
                "reset option 'card_order' must be a list of the 130 card notations "
                f"(see deal_order), got {type(order).__name__}"
            )
        try:
            return new_game(config, order)
        except ValueError as err:
            raise ValueError(f"reset option 'card_order': {err}") from None

    def _make_observer(self) -> CardObservationCache:
        return CardObservationCache(self.encoder, self.players)

    def _global_state(self) -> np.ndarray:
        """Every seat's observation vector (seat 0 first; together they hold every hand and
        every face-down card), then the pile's cards by kind."""
        state = self._state
        pile = np.bincount(state.deck_cards(), minlength=NUM_KINDS).astype(np.float32)
        seats = [self._observer.observe(state, p) for p in range(self.players)]
        return np.concatenate([*seats, pile])

    def render_text(self) -> str:
        from carcassonne_rl.envs.card_render import card_seat_text

        return card_seat_text(self._state, self.render_view)

    def render_image(self):
        from carcassonne_rl.envs.card_render import card_table_image

        return card_table_image(self._state, self.render_view)


def env(**kwargs) -> ClassicWrapper:
    """The wrapped environment (illegal move ends the game with -1 for its maker)."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1.0)
