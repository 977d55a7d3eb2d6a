"""PettingZoo AEC environment of Cardcassonne (the Carcassonne card game).

``env(players=2, reward_mode="win_loss", render_mode=None, encoder=None, render_view=None)``
returns the
wrapped environment (see :mod:`.classic_wrapper`), ``raw_env(...)`` the bare one. The
observation is :class:`~carcassonne_rl.encoders.card_encoder.CardEncoder`'s vector (own
information only: others' hands, face-down cards and the pile are never encoded), the
action index is the engine's action code (206). Rewards: :mod:`.game_env`.

Rendering (``render_mode`` ``"ansi"`` / ``"rgb_array"``): with ``render_view=None`` (default)
the omniscient spectator's table (text: every hand and face-down card; picture: every
face-down card as a back); with ``render_view=K`` only what seat K knows (its own hand and
face-down cards, the others' face-down cards as backs, their hands as sizes).
"""

from __future__ import annotations

from carcassonne_rl.encoders.card_cache import CardObservationCache
from carcassonne_rl.encoders.card_encoder import CardEncoder
from carcassonne_rl.games.cardcassonne import CardGameConfig, new_game

from .classic_wrapper import ClassicWrapper
from .game_env import GameEnv


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    """Cardcassonne for 2-5 players."""

    metadata = {**GameEnv.metadata, "name": "cardcassonne_v0"}

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

    def _new_state(self, seed: int):
        return new_game(CardGameConfig(players=self.players, seed=seed))

    def _make_observer(self) -> CardObservationCache:
        return CardObservationCache(self.encoder, self.players)

    def render_text(self) -> str:
        from .card_render import card_seat_text

        return card_seat_text(self.state, self.render_view)

    def render_image(self):
        from .card_render import card_table_image

        return card_table_image(self.state, self.render_view)


def env(**kwargs) -> ClassicWrapper:
    """The wrapped environment (illegal move ends the game with -1 for its maker)."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1.0)
