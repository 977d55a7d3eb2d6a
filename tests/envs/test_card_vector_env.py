"""The card vector env is the AEC env's game, action for action: masks, observations
(bytes), rewards, terminations, truncations, final scores and deals, over random games at
2-5 players in both reward modes, with now and then a masked-out action."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.envs import cardcassonne_v0
from carcassonne_rl.envs.card_vector import CardVectorEnv

CONFIGS = [(2, "win_loss", 0), (3, "score_diff", 0), (4, "win_loss", 90), (5, "score_diff", 0),
           (2, "score_diff", 120), (3, "win_loss", 0)]  # fmt: skip


def _aec_obs(env) -> dict[str, np.ndarray]:
    raw = env.unwrapped
    return raw.observe(raw.agent_selection)


def _same_obs(vec_obs: dict, i: int, obs: dict, where: str) -> None:
    assert vec_obs.keys() == obs.keys(), where
    for key, part in obs.items():
        got = vec_obs[key][i]
        assert got.dtype == part.dtype and got.shape == part.shape, (where, key)
        assert got.tobytes() == part.tobytes(), (where, key)


def lockstep(players: int, reward_mode: str, num_envs: int, steps: int, seed: int,
             illegal_every: int = 0) -> int:  # fmt: skip
    """Step a vector env and ``num_envs`` AEC envs with the same random legal actions (and
    every ``illegal_every`` steps or so a masked-out one); returns the games finished."""
    kwargs = {"players": players, "reward_mode": reward_mode}
    vec = CardVectorEnv(num_envs=num_envs, **kwargs)
    aecs = [cardcassonne_v0.env(**kwargs) for _ in range(num_envs)]
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
            if illegal_every and rng.random() < 1 / illegal_every:
                actions[i] = int(rng.choice(np.flatnonzero(obs["action_mask"][i] == 0)))
            else:
                actions[i] = int(rng.choice(np.flatnonzero(obs["action_mask"][i])))
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
                assert infos["final_info"]["seat"][i] == raw._agent_index[raw.agent_selection]
                if any("illegal_action" in raw.infos[a] for a in raw.possible_agents):
                    assert infos["illegal_action"][i] == actions[i], where
                else:
                    scores = raw.game_state.scores.tolist()
                    assert infos["final_info"]["scores"][i].tolist() == scores, where
                env.reset()
            _same_obs(obs, i, _aec_obs(env), where)
            assert infos["seat"][i] == raw.game_state.current_player, where
    vec.close()
    return finished


@pytest.mark.parametrize(("players", "reward_mode", "illegal_every"), CONFIGS)
def test_card_vector_env_plays_the_aec_game(players, reward_mode, illegal_every) -> None:
    finished = lockstep(players, reward_mode, 4, 330, seed=7 * players, illegal_every=illegal_every)
    assert finished >= 4  # every game ended and was dealt again at least once
