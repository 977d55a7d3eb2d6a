"""Errors raised by both rules engines (each a ``ValueError`` with a precise message).

``games.carcassonne`` and ``games.cardcassonne`` re-export these classes, so
``carcassonne.IllegalActionError is cardcassonne.IllegalActionError``.
"""


class IllegalActionError(ValueError):
    """The action is well formed but not legal in the current state."""


class NotationError(ValueError):
    """The text of an action (or of a card) could not be read."""


class SavedGameError(ValueError):
    """A saved game (JSON record) is malformed or does not replay."""
