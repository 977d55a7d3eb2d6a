"""PettingZoo AEC environments of both games, and a single-agent Gymnasium view.

``carcassonne_v0`` (tile game), ``carcassonne_v1`` (tile game, compact observation: board
planes + a globals vector) and ``cardcassonne_v0`` (card game): ``env(**kwargs)`` (wrapped
like PettingZoo's classic environments) and ``raw_env``. They are registered in PettingZoo's
registry as ``carcassonne_rl/carcassonne-v0``, ``carcassonne_rl/carcassonne-v1`` and
``carcassonne_rl/cardcassonne-v0`` when the installed PettingZoo has one.
``make(name, **kwargs)`` builds the wrapped env by name (:mod:`.registry`);
``make_vec(name, num_envs=N, **kwargs)`` ``N`` tile games stepped together, a
``gymnasium.vector.VectorEnv`` (:mod:`.vector`, docs/vector_envs.md).
"""

from __future__ import annotations

from .registry import ENVS, VECTOR_ENVS, make, make_vec

__all__ = ["ENVS", "VECTOR_ENVS", "make", "make_vec"]


def _register() -> None:
    try:
        from pettingzoo import register
    except ImportError:  # older PettingZoo: no registry
        return
    for name in ENVS:
        try:
            register(
                "aec",
                f"carcassonne_rl/{name.replace('_v', '-v')}",
                entry_point=f"carcassonne_rl.envs.{name}:env",
            )
        except Exception:  # pragma: no cover - registry API differs
            return


_register()
