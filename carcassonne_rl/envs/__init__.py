"""PettingZoo AEC environments of both games, and a single-agent Gymnasium view.

``carcassonne_v0`` (tile game), ``carcassonne_v1`` (tile game, compact observation: board
planes + a globals vector) and ``cardcassonne_v0`` (card game): ``env(**kwargs)`` (wrapped
like PettingZoo's classic environments) and ``raw_env``. They are registered in PettingZoo's
registry as ``carcassonne_rl/carcassonne-v0``, ``carcassonne_rl/carcassonne-v1`` and
``carcassonne_rl/cardcassonne-v0`` when the installed PettingZoo has one.
``make(name, **kwargs)`` builds the wrapped env by name (:mod:`.registry`);
``make_vec(name, num_envs=N, **kwargs)`` ``N`` games of any of them stepped together, a
``gymnasium.vector.VectorEnv`` (:mod:`.vector`, docs/vector_envs.md). Gymnasium's registry
holds the single-agent view of each under the same ids (``gymnasium.make``).
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


def _register_gymnasium() -> None:
    """The single-agent view (:class:`.single_agent.SingleAgentEnv`) of each env in
    Gymnasium's registry under the same ids: ``gymnasium.make("carcassonne_rl/carcassonne-v1",
    players=3)`` (``learner_seat``, ``opponents`` and the env's arguments as kwargs)."""
    import gymnasium

    for name in ENVS:
        env_id = f"carcassonne_rl/{name.replace('_v', '-v')}"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="carcassonne_rl.envs.single_agent:SingleAgentEnv",
                kwargs={"env_fn": name},
            )


_register()
_register_gymnasium()
