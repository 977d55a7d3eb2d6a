"""Errors raised by the tile-game engine (each a ``ValueError`` with a precise message)."""


class IllegalActionError(ValueError):
    """The action is well formed but not legal in the current state."""


class NotationError(ValueError):
    """The text of an action could not be read."""


class SavedGameError(ValueError):
    """A saved game (JSON record) is malformed or does not replay."""
