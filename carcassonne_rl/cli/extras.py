"""The optional extras (``pyproject.toml``): a command that needs a missing one says which
``pip install`` brings it, in one line."""

from __future__ import annotations

import importlib

from .args import UserError

#: the top-level module each extra brings -> the extra
EXTRAS = {
    "flask": "play",
    "werkzeug": "play",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "ray": "ray",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "torchrl": "openspiel",
}


def install_line(extra: str) -> str:
    """``pip install 'carcassonne-rl[EXTRA]'`` (and the form for a clone)."""
    return f"pip install 'carcassonne-rl[{extra}]' (in a clone: pip install -e \".[{extra}]\")"


def missing_extra(err: ModuleNotFoundError) -> str | None:
    """The message for a module of an extra that is not installed; ``None`` if the missing
    module is no extra's."""
    module = (err.name or "").split(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return None
    return f"{module} is not installed; this command needs the {extra} extra: {install_line(extra)}"


def require(module: str, what: str, hint: str = "") -> None:
    """``UserError`` naming the extra that brings ``module`` if it cannot be imported;
    ``what`` says what needs it (``"the play page"``), ``hint`` a way round it."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        line = f"{what} needs {module}, which is not installed: {install_line(EXTRAS[module])}"
        raise UserError(line + hint) from None
