"""Both games as OpenSpiel games (the optional extra ``pip install -e ".[openspiel]"``).

Importing this package registers ``python_carcassonne`` and ``python_cardcassonne`` with
``pyspiel`` (see ``docs/openspiel.md``)::

    import carcassonne_rl.openspiel  # noqa: F401
    game = pyspiel.load_game("python_carcassonne(players=3,messages=True)")

It also holds the agent family ``openspiel:mcts[:SIMS]`` / ``openspiel:ismcts[:SIMS]`` of
``make_agent`` (OpenSpiel's search bots in our arena; an entry point, so ``make_agent`` finds
it in any process without this import), and :class:`AgentBot` (our agents as OpenSpiel
bots).
"""

from __future__ import annotations

try:
    import pyspiel  # noqa: F401
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        "carcassonne_rl.openspiel needs OpenSpiel: pip install -e '.[openspiel]' "
        "(the open_spiel wheel, Python >= 3.11)"
    ) from err

from .bots import AgentBot, OpenSpielAgent, game_for, make_bot
from .card_game import CardcassonneCardState, CardcassonneGame
from .tile_game import CarcassonneGame, CarcassonneState

__all__ = [
    "AgentBot",
    "CarcassonneGame",
    "CarcassonneState",
    "CardcassonneCardState",
    "CardcassonneGame",
    "OpenSpielAgent",
    "game_for",
    "make_bot",
]
