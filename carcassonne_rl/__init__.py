"""carcassonne-rl: RL environments for the Carcassonne tile game and Cardcassonne."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def _version() -> str:
    """The installed distribution's version; in a source tree that is not installed, the one
    ``pyproject.toml`` names (``0+unknown`` if neither can be read)."""
    try:
        return version("carcassonne-rl")
    except PackageNotFoundError:
        pass
    try:
        text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    except OSError:
        return "0+unknown"
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    return found.group(1) if found else "0+unknown"


__version__ = _version()
