"""Errors raised by the Cardcassonne engine (all are ``ValueError``)."""


class IllegalActionError(ValueError):
    """An action that is well formed but not legal in the current state."""


class NotationError(ValueError):
    """Text (action or card notation) that cannot be parsed."""


class SavedGameError(ValueError):
    """A saved game / record that cannot be loaded."""
