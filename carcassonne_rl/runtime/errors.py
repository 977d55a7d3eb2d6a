"""The error every room raises for a user's mistake."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in a command line or in the files it names: the CLI prints its message as
    one line on stderr (no traceback) and exits with status 2."""
