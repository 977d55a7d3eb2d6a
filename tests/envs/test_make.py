"""``envs.make(name, **kwargs)``: the wrapped AEC env of a versioned module, by name."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from carcassonne_rl import envs
from carcassonne_rl.envs.registry import env_name, make_raw

CASES = [
    ("carcassonne_v0", {"players": 3}),
    ("carcassonne_v1", {"players": 2, "expansions": ("messages",)}),
    ("cardcassonne_v0", {"players": 4}),
]


def _wrappers(env) -> list[type]:
    chain = [type(env)]
    while hasattr(env, "env"):
        env = env.env
        chain.append(type(env))
    return chain


def _first_observations(env, seed: int) -> list:
    env.reset(seed=seed)
    out = []
    for _ in range(6):
        agent = env.agent_selection
        obs = env.observe(agent)
        out.append((agent, obs))
        mask = obs["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    return out


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_make_is_the_modules_env(name, kwargs) -> None:
    module = importlib.import_module(f"carcassonne_rl.envs.{name}")
    made, own = envs.make(name, **kwargs), module.env(**kwargs)
    assert _wrappers(made) == _wrappers(own) and len(_wrappers(made)) > 1  # wrapped
    assert isinstance(made.unwrapped, module.raw_env)
    assert made.unwrapped.players == kwargs["players"]
    for (agent_a, obs_a), (agent_b, obs_b) in zip(
        _first_observations(made, 5), _first_observations(own, 5), strict=True
    ):
        assert agent_a == agent_b and _same(obs_a, obs_b)
    assert type(make_raw(name, **kwargs)) is module.raw_env


def test_the_names() -> None:
    assert envs.ENVS == ("carcassonne_v0", "carcassonne_v1", "cardcassonne_v0")
    assert env_name("carcassonne") == "carcassonne_v0"
    assert env_name("cardcassonne") == "cardcassonne_v0"
    assert env_name("carcassonne_v1") == "carcassonne_v1"
    with pytest.raises(ValueError, match="unknown game or env 'chess'"):
        env_name("chess")


@pytest.mark.parametrize("name", ["carcassonne", "carcassonne_v2", "chess", None])
def test_an_unknown_name_lists_the_envs(name) -> None:
    with pytest.raises(ValueError) as err:
        envs.make(name)
    assert str(err.value) == (
        f"unknown env {name!r}; expected one of carcassonne_v0, carcassonne_v1, cardcassonne_v0"
    )


def test_bad_kwargs_reach_the_env() -> None:
    with pytest.raises(ValueError, match="players must be 2-5, got 7"):
        envs.make("cardcassonne_v0", players=7)
