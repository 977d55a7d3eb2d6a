"""The Carcassonne tile game as the OpenSpiel game ``python_carcassonne``.

Chance nodes draw what the engine needs when it needs it: the first tile, the tile of every
turn (again after a tile that fits nowhere is discarded, and for message 7), and each message
card until all 8 were seen (the stack then cycles in a known order). The engine state held
by an OpenSpiel state never knows its future: its undrawn tiles and cards lie in sorted
order (``State.stack_next``). A player action that makes the engine draw is first tried on a
copy; if the copy drew more than the chance outcomes chosen so far, the action waits behind
a chance node for the next draw (outcome = the tile type, or 25 + card - 1 for message
``card``; probabilities = counts left / total left), and is applied once every draw it makes
has been chosen.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from carcassonne_rl.encoders.tile.encoder import DEFAULT_WINDOW, TileEncoder
from carcassonne_rl.envs.tile_render import board_text
from carcassonne_rl.games.carcassonne import GameConfig, State, load_json, new_game
from carcassonne_rl.games.carcassonne.config import draw_pile_counts
from carcassonne_rl.games.carcassonne.tiles import LETTERS

from . import common

SHORT_NAME = "python_carcassonne"
NUM_TILE_TYPES = len(LETTERS)  # chance outcomes 0-24: the tile type drawn
MESSAGE_OUTCOME = NUM_TILE_TYPES  # chance outcomes 25-32: message card 1-8 drawn
START = -1  # the pending "action" of the initial chance node: laying out the game
MAX_DECISIONS_PER_TILE = 68  # place, follower, <= 64 figure choices (award queue), message, 8
PARAMETERS: dict[str, Any] = {
    "players": 2,
    "messages": False,
    "labyrinth": False,
    "labyrinth_tiles": 2,
    "figure_choice": "player",
    "reward_mode": "win_loss",
    "window": DEFAULT_WINDOW,
}
_TYPE = common.game_type(
    SHORT_NAME,
    "Python Carcassonne (tile game: 2010 rules, The Messages, the Labyrinth)",
    pyspiel.GameType.Information.PERFECT_INFORMATION,
    3,
    "win_loss",
    PARAMETERS,
    info_state_tensor=False,
)


def settings(params: dict[str, Any]) -> tuple[GameConfig, str, TileEncoder]:
    """(engine config, reward mode, encoder) of OpenSpiel game parameters; ``ValueError``
    names a bad one."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown {SHORT_NAME} parameters {unknown}; known: {list(PARAMETERS)}")
    p = {**PARAMETERS, **params}
    for flag in ("messages", "labyrinth"):
        if not isinstance(p[flag], bool):
            raise ValueError(f"{flag} must be True or False, got {p[flag]!r}")
    expansions = tuple(e for e in ("messages", "labyrinth") if p[e])
    if p["labyrinth_tiles"] != PARAMETERS["labyrinth_tiles"] and not p["labyrinth"]:
        raise ValueError(f"labyrinth_tiles={p['labyrinth_tiles']} needs labyrinth=True")
    if p["figure_choice"] != PARAMETERS["figure_choice"] and not p["messages"]:
        raise ValueError(f"figure_choice={p['figure_choice']} needs messages=True")
    config = GameConfig(
        players=common.check_players(p["players"]),
        seed=0,  # every draw is a chance node: the seed decides nothing
        expansions=expansions,
        labyrinth_tiles=p["labyrinth_tiles"],
        figure_choice=p["figure_choice"],
    )
    encoder = TileEncoder.for_config(config, p["window"])
    return config, common.check_reward_mode(p["reward_mode"]), encoder


class CarcassonneGame(pyspiel.Game):
    """``pyspiel.load_game("python_carcassonne(players=3,messages=True)")``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**PARAMETERS, **(params or {})}
        config, mode, encoder = settings(params)
        low, high = common.utility_range(mode)
        pile = sum(draw_pile_counts(config).values())
        per_tile = MAX_DECISIONS_PER_TILE if config.messages else 2
        info = pyspiel.GameInfo(
            num_distinct_actions=encoder.num_actions,
            max_chance_outcomes=NUM_TILE_TYPES + (8 if config.messages else 0),
            num_players=config.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if config.players == 2 else None,
            max_game_length=pile * per_tile,
        )
        kind = common.game_type(
            SHORT_NAME,
            _TYPE.long_name,
            _TYPE.information,
            config.players,
            mode,
            PARAMETERS,
            info_state_tensor=False,
        )
        super().__init__(kind, info, params)
        self.config, self.reward_mode, self.encoder = config, mode, encoder
        self._shared = common.Shared((config, mode, encoder), (settings, (dict(params),)))

    def new_initial_state(self) -> CarcassonneState:
        """Before the first draw: a chance node lays out the first tile."""
        return CarcassonneState(self)

    def state_from_engine(self, engine: State) -> CarcassonneState:
        """An OpenSpiel state at the position of an engine state of this configuration (its
        undrawn tiles and message cards are re-sorted on a copy: nothing of their order
        passes). For our arena: an OpenSpiel bot deciding in an engine game."""
        if engine.config.to_dict() | {"seed": 0} != self.config.to_dict():
            raise ValueError(f"engine state plays {engine.config}, this game {self.config}")
        copy = engine.clone()
        copy.stack_next()
        state = CarcassonneState(self)
        state._frozen = common.Frozen(copy, load_json)
        state._pending = None
        state._returns = tuple(state._compute_returns())
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return HistoryObserver(self.encoder)
        return BoardObserver(self.encoder)


class CarcassonneState(common.EngineState):
    """A position of the tile game, or a player action waiting for the draws it makes."""

    def __init__(self, game: CarcassonneGame) -> None:
        super().__init__(game)
        self._shared = game._shared
        self._frozen: common.Frozen | None = None  # None only before the first tile
        # (action code, tiles drawn for it, message cards drawn for it, draw kind) or None
        self._pending: tuple[int, str, str, str] | None = (START, "", "", "tile")
        self._returns = self._rewards = (0.0,) * game.config.players

    # ------------------------------------------------------------------ OpenSpiel API
    def _legal_actions(self, player: int) -> list[int]:
        frozen = self._frozen
        if frozen.legal is None:
            mask = self._shared.value[2].action_mask(frozen.engine)
            frozen.legal = [int(i) for i in np.flatnonzero(mask)]
        return list(frozen.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        _, tiles, cards, kind = self._pending
        if kind == "message":
            seen = set(self.engine.messages_seen) | {int(c) for c in cards}
            left = [c for c in range(1, 9) if c not in seen]
            return [(MESSAGE_OUTCOME + c - 1, 1.0 / len(left)) for c in left]
        counts = self._tiles_left()
        for letter in tiles:
            counts[letter] -= 1
        total = sum(counts.values())
        return [(i, counts[c] / total) for i, c in enumerate(LETTERS) if counts[c] > 0]

    def _tiles_left(self) -> dict[str, int]:
        if self._frozen is None:
            return draw_pile_counts(self._shared.value[0])
        return self.engine.remaining_tiles()

    def _apply_action(self, action: int) -> None:
        before = self._returns
        if self._pending is None:
            code = self._shared.value[2].code_of(self.engine, action)
            self._resolve(code, "", "")
        else:
            code, tiles, cards, kind = self._pending
            if kind == "message":
                cards += str(action - MESSAGE_OUTCOME + 1)
            else:
                tiles += LETTERS[action]
            self._resolve(code, tiles, cards)
        self._returns = tuple(self._compute_returns())
        self._rewards = tuple(a - b for a, b in zip(self._returns, before, strict=True))

    def _resolve(self, code: int, tiles: str, cards: str) -> None:
        """Apply ``code`` with the draws chosen so far on a copy; keep the copy if it drew
        no more than those, else wait for the next chance outcome."""
        config = self._shared.value[0]
        if code == START:
            counts = draw_pile_counts(config)
            for letter in tiles:
                counts[letter] -= 1
            order = tiles + "".join(c * n for c, n in counts.items())
            messages = cards + "".join(c for c in "12345678" if c not in cards)
            trial = new_game(config, order, messages if config.messages else None)
            tiles_before, cards_before = 0, 0
        else:
            base = self.engine
            trial = base.clone()
            if tiles or cards:  # the rest lies sorted already
                trial.stack_next(tiles, cards)
            trial.apply_code(code)
            tiles_before, cards_before = base.tiles_drawn, min(base.messages_drawn, 8)
        if min(trial.messages_drawn, 8) - cards_before > len(cards):
            self._pending = (code, tiles, cards, "message")
        elif trial.tiles_drawn - tiles_before > len(tiles):
            self._pending = (code, tiles, cards, "tile")
        else:
            self._pending = None
            self._frozen = common.Frozen(trial, load_json)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if action >= MESSAGE_OUTCOME:
                return f"message {action - MESSAGE_OUTCOME + 1}"
            return f"draw {LETTERS[action]}"
        engine = self.engine
        return engine.action_to_string(self._shared.value[2].code_of(engine, action))

    def __str__(self) -> str:
        engine = self.engine
        if engine is None:
            return "before the first tile"
        lines = [board_text(engine), f"phase {engine.phase}, seat {engine.current_player}"]
        if engine.current_tile:
            lines.append(f"tile to place {engine.current_tile}")
        if self._pending is not None:
            code, tiles, cards, kind = self._pending
            what = engine.action_to_string(code)
            lines.append(f"{what!r} waits for a {kind} draw (drawn: {tiles!r} {cards!r})")
        return "\n".join(lines)


class BoardObserver:
    """Observation: our encoder's planes (``TileEncoder.encode``) as float32, shape
    ``(C, W, W)``; the text board. At a chance node: the last completed position (zeros and
    ``before the first tile`` before the first draw)."""

    def __init__(self, encoder: TileEncoder) -> None:
        self.encoder = encoder
        self.tensor = np.zeros(int(np.prod(encoder.observation_space.shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(encoder.observation_space.shape)}

    def set_from(self, state: CarcassonneState, player: int) -> None:
        engine = state.engine
        if engine is None:
            self.tensor.fill(0.0)
        else:
            self.dict["observation"][:] = self.encoder.encode(engine, player)

    def string_from(self, state: CarcassonneState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return "before the first tile"
        tile = f", tile to place {engine.current_tile}" if engine.current_tile else ""
        left = " ".join(f"{c}{n}" for c, n in engine.remaining_tiles().items() if n)
        return (
            f"seat {player}; {engine.phase}, seat {engine.current_player} decides{tile}\n"
            f"{board_text(engine)}\ntiles left: {left}"
        )


class HistoryObserver:
    """Information state (perfect recall) of a perfect-information game: every action and
    chance outcome so far, the same for every seat. No tensor."""

    def __init__(self, encoder: TileEncoder) -> None:
        self.tensor = None
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: CarcassonneState, player: int) -> None:
        pass

    def string_from(self, state: CarcassonneState, player: int) -> str:
        return state.history_str()


pyspiel.register_game(_TYPE, CarcassonneGame)
