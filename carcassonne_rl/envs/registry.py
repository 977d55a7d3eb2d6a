"""The environments by name: ``make("carcassonne_v1", players=3)``.

Each name is a module of :mod:`carcassonne_rl.envs` with ``env(**kwargs)`` (wrapped like
PettingZoo's classic environments) and ``raw_env(**kwargs)``; a game name of
:mod:`carcassonne_rl.games.registry` (``carcassonne``, ``cardcassonne``) stands for its
``_v0`` environment where :func:`env_name` is asked.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

ENVS = ("carcassonne_v0", "carcassonne_v1", "cardcassonne_v0")

#: the envs ``make_vec`` batches: all of them
VECTOR_ENVS = ENVS

__all__ = ["ENVS", "VECTOR_ENVS", "env_name", "make", "make_raw", "make_vec"]


def _module(name: Any) -> ModuleType:
    if not isinstance(name, str) or name not in ENVS:
        raise ValueError(f"unknown env {name!r}; expected one of {', '.join(ENVS)}")
    return importlib.import_module(f"carcassonne_rl.envs.{name}")


def make(name: str, **kwargs: Any) -> Any:
    """The wrapped AEC env ``name`` (one of :data:`ENVS`): ``<module>.env(**kwargs)``."""
    return _module(name).env(**kwargs)


def make_raw(name: str, **kwargs: Any) -> Any:
    """The raw (unwrapped) AEC env ``name``: ``<module>.raw_env(**kwargs)``."""
    return _module(name).raw_env(**kwargs)


def make_vec(name: str, num_envs: int = 1, **kwargs: Any) -> Any:
    """``num_envs`` games of env ``name`` stepped together, a ``gymnasium.vector.VectorEnv``
    (:class:`~carcassonne_rl.envs.vector.TileVectorEnv` for the tile game,
    :class:`~carcassonne_rl.envs.card_vector.CardVectorEnv` for the card game;
    docs/vector_envs.md). ``kwargs``: the AEC env's arguments, plus ``observations`` (False:
    masks only), ``copy`` and ``num_threads`` (default 1: the calling thread)."""
    _module(name)
    if name == "cardcassonne_v0":
        from carcassonne_rl.envs.card_vector import CardVectorEnv

        return CardVectorEnv(name, num_envs, **kwargs)
    from carcassonne_rl.envs.vector import TileVectorEnv

    return TileVectorEnv(name, num_envs, **kwargs)


def env_name(name: str) -> str:
    """An env name, or a game name -> its ``_v0`` env (``ValueError`` if neither)."""
    from carcassonne_rl.games.registry import GAMES

    if isinstance(name, str) and name in GAMES:
        return f"{name}_v0"
    if isinstance(name, str) and name in ENVS:
        return name
    raise ValueError(f"unknown game or env {name!r}; expected one of {', '.join(GAMES + ENVS)}")
