"""PettingZoo AEC environment of the Carcassonne tile game (The Messages, the Labyrinth).

``env(players=2, expansions=(), reward_mode="win_loss", render_mode=None, window=29,
encoder=None, labyrinth_tiles=2, figure_choice="player")`` returns the wrapped environment
(see :mod:`.classic_wrapper`), ``raw_env(...)`` the bare one. Observation and action index:
:class:`~carcassonne_rl.encoders.tile.encoder.TileEncoder`. Rewards: :mod:`.game_env`.

``reset(options={...})`` starts from a chosen draw order / message order or a saved game
(see :class:`raw_env`). A legal move that the window cannot express is reported: a
``UserWarning`` and ``infos[agent]["window_overflow"] = <number of moves left out>`` for the
agent to move.

``state()`` (PettingZoo's global state, ``state_space``): seat 0's v0 planes, uint8
``(159, W, W)``; they hold the board and all globals, the tiles left per type included.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces

from carcassonne_rl.encoders.tile.cache import TileObservationCache
from carcassonne_rl.encoders.tile.encoder import DEFAULT_WINDOW, NUM_PLANES, TileEncoder
from carcassonne_rl.envs.classic_wrapper import ClassicWrapper
from carcassonne_rl.envs.game_env import GameEnv
from carcassonne_rl.games.carcassonne import GameConfig, State, load_json, new_game, replay


def _load_record(record: str | dict) -> State:
    """A saved game (``State.to_json()`` text or its dict) replayed; ``ValueError`` if bad."""
    if isinstance(record, str):
        return load_json(record)
    if isinstance(record, dict):
        return replay(record)
    raise ValueError(
        f"reset option 'record' must be the JSON text of a saved game or its dict, "
        f"got {type(record).__name__}"
    )


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    """The tile game for 2-5 players, optionally with The Messages and the Labyrinth.

    ``reset(seed=None, options=None)``: ``options`` may fix the position to start from:
    ``draw_order`` (tile letters after the start tile), ``fill_pile`` (the rest of the pile
    follows, shuffled by the seed), ``message_order`` (The Messages' stack, top first), as
    for :func:`~carcassonne_rl.games.carcassonne.new_game`; or ``record``, a saved game
    (``state.to_json()`` text or its dict) of this env's configuration, played on from its
    last position.
    """

    metadata = {**GameEnv.metadata, "name": "carcassonne_v0"}
    RESET_OPTIONS = ("draw_order", "message_order", "fill_pile", "record")
    #: the encoder built when none is given (``carcassonne_v1`` puts its own here)
    ENCODER: type[TileEncoder] = TileEncoder

    def __init__(
        self,
        players: int = 2,
        expansions: tuple[str, ...] | list[str] | str = (),
        reward_mode: str = "win_loss",
        render_mode: str | None = None,
        window: int = DEFAULT_WINDOW,
        encoder: TileEncoder | None = None,
        labyrinth_tiles: int = 2,
        figure_choice: str = "player",
    ) -> None:
        self.config = GameConfig(
            players=players,
            expansions=expansions,
            labyrinth_tiles=labyrinth_tiles,
            figure_choice=figure_choice,
        )
        if labyrinth_tiles != 2 and not self.config.labyrinth:
            raise ValueError(
                f"labyrinth_tiles={labyrinth_tiles} is given, but the Labyrinth is not on: add "
                "'labyrinth' to expansions"
            )
        if figure_choice != "player" and not self.config.messages:
            raise ValueError(
                f"figure_choice={figure_choice!r} is given, but The Messages are not on: add "
                "'messages' to expansions"
            )
        encoder = encoder or self.ENCODER.for_config(self.config, window)
        super().__init__(players, encoder, reward_mode, render_mode)
        w = self.encoder.window
        self.state_space = spaces.Box(0, 255, (NUM_PLANES, w, w), np.uint8)

    def _new_state(self, seed: int, options: dict[str, Any]) -> State:
        """A game shuffled by ``seed``, or the position fixed by ``reset`` ``options``."""
        c = self.config
        config = GameConfig(
            players=c.players,
            seed=seed,
            expansions=c.expansions,
            labyrinth_tiles=c.labyrinth_tiles,
            figure_choice=c.figure_choice,
        )
        if "record" in options:
            state = _load_record(options["record"])
            if state.config != replace(config, seed=state.config.seed):
                raise ValueError(
                    f"reset option 'record' is a game of {state.config.to_dict()}, but this env "
                    f"plays {replace(c, seed=None).to_dict()} (seed aside)"
                )
            return state
        try:
            return new_game(
                config,
                draw_order=options.get("draw_order"),
                message_order=options.get("message_order"),
                fill_pile=options.get("fill_pile", False),
            )
        except ValueError as err:
            raise ValueError(f"reset options: {err}") from None

    def _make_observer(self) -> TileObservationCache:
        return TileObservationCache(self.encoder)

    def _global_state(self) -> np.ndarray:
        """Seat 0's ``carcassonne_v0`` planes: the board and every global (scores, followers,
        tiles left per type, phase, The Messages); the pile's order is not part of it."""
        return self._observer.observe(self._state, 0)

    def _after_action(self) -> None:
        state = self._state
        if state.is_over:
            self._mask = self._zero_mask
            return
        mask, dropped = self.encoder.mask_and_dropped(state)
        self._mask = mask
        if dropped:
            agent = self.possible_agents[state.current_player]
            self.infos[agent] = {**self.infos[agent], "window_overflow": dropped}
            warnings.warn(
                f"{dropped} legal move(s) lie outside the {self.encoder.window}x"
                f"{self.encoder.window} window and cannot be chosen (turn {state.turn})",
                stacklevel=3,
            )

    def render_text(self) -> str:
        from carcassonne_rl.envs.tile_render import board_text

        return board_text(self._state)

    def render_image(self) -> np.ndarray:
        from carcassonne_rl.envs.tile_picture import draw_board

        return draw_board(self._state)


def env(**kwargs) -> ClassicWrapper:
    """The wrapped environment (illegal move ends the game with -1 for its maker)."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1.0)
