"""The card vector env is the AEC env's game, action for action: masks, observations
(bytes), rewards, terminations, truncations, final scores and deals, over random games at
2-5 players in both reward modes, with now and then a masked-out action."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from carcassonne_rl.envs import cardcassonne_v0
from carcassonne_rl.envs.card_vector import PARALLEL_MIN, CardVectorEnv

# players, reward mode, a masked-out action every ~k steps (0: never), the vector env's options
# ("wait": now and then a game waits, step_some's -1)
CONFIGS = [
    (2, "win_loss", 0, {}),
    (3, "score_diff", 0, {"num_threads": 1, "wait": True}),
    (4, "win_loss", 90, {"num_threads": 1}),
    (5, "score_diff", 0, {"copy": True}),
    (2, "score_diff", 120, {"wait": True}),
    (3, "win_loss", 0, {"observations": False, "num_threads": 1}),
    (2, "score_diff", 150, {"num_envs": 64, "num_threads": 2, "wait": True}),  # shared out
]


def _aec_obs(env) -> dict[str, np.ndarray]:
    raw = env.unwrapped
    return raw.observe(raw.agent_selection)


def _same_obs(vec_obs: dict, i: int, obs: dict, where: str) -> None:
    """``vec_obs`` (all of ``obs``'s parts, or the mask alone) holds ``obs`` at game ``i``."""
    assert vec_obs.keys() in (obs.keys(), {"action_mask"}), where
    for key, part in obs.items():
        if key not in vec_obs:
            continue
        got = vec_obs[key][i]
        assert got.dtype == part.dtype and got.shape == part.shape, (where, key)
        assert got.tobytes() == part.tobytes(), (where, key)


def lockstep(players: int, reward_mode: str, num_envs: int, steps: int, seed: int,
             illegal_every: int = 0, **options) -> int:  # fmt: skip
    """Step a vector env and ``num_envs`` AEC envs with the same random legal actions (and
    every ``illegal_every`` steps or so a masked-out one); returns the games finished."""
    kwargs = {"players": players, "reward_mode": reward_mode}
    options = dict(options)
    wait = options.pop("wait", False)
    vec = CardVectorEnv(num_envs=num_envs, **options, **kwargs)
    assert vec.parallel == (num_envs >= PARALLEL_MIN and vec.num_threads > 1)
    aecs = [cardcassonne_v0.env(**kwargs) for _ in range(num_envs)]
    obs, infos = vec.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
        _same_obs(obs, i, _aec_obs(env), f"reset {i}")
        assert infos["seat"][i] == env.unwrapped.game_state.current_player
    rng = np.random.default_rng(seed)
    finished = 0
    last_obs = obs
    for t in range(steps):
        actions = np.zeros(num_envs, np.int64)
        for i in range(num_envs):
            if wait and rng.random() < 0.2:
                actions[i] = -1
            elif illegal_every and rng.random() < 1 / illegal_every:
                actions[i] = int(rng.choice(np.flatnonzero(obs["action_mask"][i] == 0)))
            else:
                actions[i] = int(rng.choice(np.flatnonzero(obs["action_mask"][i])))
        if wait:
            obs, rewards, term, trunc, infos = vec.step_some(actions)
        else:
            obs, rewards, term, trunc, infos = vec.step(actions)
        assert (obs["action_mask"] is last_obs["action_mask"]) != bool(options.get("copy"))
        last_obs = obs
        for i, env in enumerate(aecs):
            raw = env.unwrapped
            where = f"step {t} game {i}"
            if actions[i] < 0:  # this game waited: nothing changed
                assert rewards[i].tolist() == [0.0] * players and not term[i] and not trunc[i]
                _same_obs(obs, i, _aec_obs(env), where)
                continue
            env.step(int(actions[i]))
            expect = [raw.rewards[a] for a in raw.possible_agents]
            assert rewards[i].tolist() == expect, where
            assert term[i] == raw.terminations[raw.agent_selection], where
            assert trunc[i] == raw.truncations[raw.agent_selection], where
            if term[i]:
                finished += 1
                final = infos["final_obs"][i]
                for key, part in _aec_obs(env).items():
                    if key not in final:
                        continue
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


@pytest.mark.parametrize(("players", "reward_mode", "illegal_every", "options"), CONFIGS)
def test_card_vector_env_plays_the_aec_game(players, reward_mode, illegal_every, options) -> None:
    seed = 7 * players + len(options)
    options = dict(options)
    num_envs = options.pop("num_envs", 4)
    if options.get("num_threads", 1) > numba.config.NUMBA_NUM_THREADS:
        options["num_threads"] = numba.config.NUMBA_NUM_THREADS
    finished = lockstep(players, reward_mode, num_envs, 330, seed, illegal_every, **options)
    assert finished >= num_envs  # as many games ended (and were dealt again) as there are


def test_spaces_render_and_one_game() -> None:
    vec = CardVectorEnv(num_envs=3, players=3, render_mode="ansi")
    aec = cardcassonne_v0.env(players=3, render_mode="ansi")
    assert vec.single_observation_space == aec.observation_space("player_0")
    assert vec.observation_space["observation"].shape == (3, 1620)
    assert vec.action_space.shape == (3,)
    assert vec.metadata["autoreset_mode"].name == "SAME_STEP"
    obs, _ = vec.reset(seed=[4, 9, 4])
    aec.reset(seed=9)
    assert vec.render(1) == aec.render()
    assert obs["observation"][0].tobytes() == obs["observation"][2].tobytes()
    rng = np.random.default_rng(1)
    for _ in range(40):
        actions = vec.random_actions(rng)
        assert vec.action_masks()[np.arange(3), actions].all()
        vec.step(actions)
    state = vec.game_state(2)
    assert state.history == vec.batch.record(2) and len(state.history) == 40
    assert (vec.action_masks()[2].nonzero()[0] == state.legal_action_codes()).all()


def test_bad_input_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        CardVectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="players"):
        CardVectorEnv(num_envs=2, players=7)
    with pytest.raises(ValueError, match="cardcassonne_v0"):
        CardVectorEnv("carcassonne_v1", 2)
    vec = CardVectorEnv(num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(2, np.int64))
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="out of the action space"):
        vec.step(np.array([0, 206]))
    with pytest.raises(ValueError, match="out of the action space"):
        vec.step(np.array([-1, 0]))  # waiting is step_some's
    with pytest.raises(ValueError, match="num_threads"):
        CardVectorEnv(num_envs=2, num_threads=0)
    with pytest.raises(ValueError, match="game index"):
        vec.render(2)
