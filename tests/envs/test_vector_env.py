"""The tile vector env is the AEC env's game, action for action: masks, observations
(bytes), rewards, terminations, final scores and deals, over random games of every
configuration (2-5 players, no expansion / The Messages / the Labyrinth / both)."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.envs import make, make_vec

CONFIGS = [
    ("carcassonne_v1", 2, (), "win_loss"),
    ("carcassonne_v1", 3, ("messages",), "score_diff"),
    ("carcassonne_v1", 4, ("labyrinth",), "win_loss"),
    ("carcassonne_v1", 5, ("messages", "labyrinth"), "score_diff"),
    ("carcassonne_v0", 2, ("messages", "labyrinth"), "score_diff"),
    ("carcassonne_v0", 3, (), "win_loss"),
    ("carcassonne_v1", 2, ("messages",), "win_loss"),
    ("carcassonne_v1", 3, ("labyrinth",), "score_diff"),
]


def _aec_obs(env) -> dict[str, np.ndarray]:
    raw = env.unwrapped
    return raw.observe(raw.agent_selection)


def _same_obs(vec_obs: dict, i: int, obs: dict, where: str) -> None:
    assert vec_obs.keys() == obs.keys(), where
    for key, part in obs.items():
        got = vec_obs[key][i]
        assert got.dtype == part.dtype and got.shape == part.shape, (where, key)
        assert got.tobytes() == part.tobytes(), (where, key)


def lockstep(name, players, expansions, reward_mode, num_envs, steps, seed, illegal_every=0):
    """Step a vector env and ``num_envs`` AEC envs with the same random legal actions;
    returns the number of games finished. ``illegal_every``: now and then a masked-out
    action (both must end that game the same way)."""
    kwargs = {"players": players, "expansions": expansions, "reward_mode": reward_mode}
    vec = make_vec(name, num_envs=num_envs, **kwargs)
    aecs = [make(name, **kwargs) for _ in range(num_envs)]
    obs, infos = vec.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
        _same_obs(obs, i, _aec_obs(env), f"reset {i}")
        assert infos["seat"][i] == env.unwrapped.game_state.current_player
    rng = np.random.default_rng(seed)
    finished = 0
    for t in range(steps):
        actions = np.zeros(num_envs, np.int64)
        for i in range(num_envs):
            legal = np.flatnonzero(obs["action_mask"][i])
            if illegal_every and rng.random() < 1 / illegal_every:
                actions[i] = int(np.flatnonzero(obs["action_mask"][i] == 0)[0])
            else:
                actions[i] = int(rng.choice(legal))
        obs, rewards, term, trunc, infos = vec.step(actions)
        for i, env in enumerate(aecs):
            raw = env.unwrapped
            env.step(int(actions[i]))
            where = f"step {t} game {i}"
            expect = [raw.rewards[a] for a in raw.possible_agents]
            assert rewards[i].tolist() == expect, where
            assert term[i] == raw.terminations[raw.agent_selection], where
            assert trunc[i] == raw.truncations[raw.agent_selection], where
            if term[i]:
                finished += 1
                final = infos["final_obs"][i]
                for key, part in _aec_obs(env).items():
                    assert final[key].tobytes() == part.tobytes(), (where, key)
                if "illegal_action" not in raw.infos[raw.agent_selection] and not any(
                    "illegal_action" in raw.infos[a] for a in raw.possible_agents
                ):
                    scores = raw.game_state.scores.tolist()
                    assert infos["final_info"]["scores"][i].tolist() == scores, where
                else:
                    assert infos["illegal_action"][i] == actions[i], where
                env.reset()
            _same_obs(obs, i, _aec_obs(env), where)
            assert infos["seat"][i] == raw.game_state.current_player, where
    vec.close()
    return finished


@pytest.mark.parametrize(("name", "players", "expansions", "reward_mode"), CONFIGS)
def test_vector_env_plays_the_aec_game(name, players, expansions, reward_mode) -> None:
    finished = lockstep(name, players, expansions, reward_mode, 6, 420, seed=11 * players)
    assert finished >= 6  # every game ended and was dealt again at least once
