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


def lockstep(name, players, expansions, reward_mode, num_envs, steps, seed, illegal_every=0,
             **more):  # fmt: skip
    """Step a vector env and ``num_envs`` AEC envs with the same random legal actions;
    returns the number of games finished. ``illegal_every``: now and then a masked-out
    action (both must end that game the same way). ``more``: further env arguments."""
    kwargs = {"players": players, "expansions": expansions, "reward_mode": reward_mode, **more}
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
            if len(legal) == 0:  # (a small window: every move outside it)
                actions[i] = 0
            elif illegal_every and rng.random() < 1 / illegal_every:
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
    finished = lockstep(name, players, expansions, reward_mode, 8, 1000, seed=11 * players)
    assert finished >= 40  # about 50 games: every one ended and was dealt again, 5 times


@pytest.mark.filterwarnings("ignore:.*outside the.*window")
@pytest.mark.parametrize(("name", "window"), [("carcassonne_v1", 7), ("carcassonne_v0", 11)])
def test_a_small_window_that_moves_and_drops_tiles_gives_the_aec_bytes(name, window) -> None:
    # the window moves often and far, tiles leave and enter it, moves fall outside it
    finished = lockstep(name, 2, ("messages",), "win_loss", 4, 400, 3, window=window)
    assert finished >= 4


def test_a_masked_out_action_ends_the_game_as_the_classic_wrapper_does() -> None:
    finished = lockstep("carcassonne_v1", 3, ("messages",), "score_diff", 6, 300, 5, 30)
    assert finished >= 30  # most games end by an illegal action


def test_masks_only_steps_the_same_games() -> None:
    full = make_vec("carcassonne_v1", num_envs=5, players=3)
    bare = make_vec("carcassonne_v1", num_envs=5, players=3, observations=False)
    obs, _ = full.reset(seed=3)
    masks, _ = bare.reset(seed=3)
    assert list(masks) == ["action_mask"]
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = full.random_actions(rng)
        obs, rewards, term, _, infos = full.step(actions)
        masks, rewards2, term2, _, infos2 = bare.step(actions)
        assert np.array_equal(obs["action_mask"], masks["action_mask"])
        assert np.array_equal(rewards, rewards2) and np.array_equal(term, term2)
        assert np.array_equal(infos["seat"], infos2["seat"])


def test_the_vector_env_follows_gymnasiums_conventions() -> None:
    from gymnasium.vector import AutoresetMode

    env = make_vec("carcassonne_v0", num_envs=3, players=4, render_mode="ansi", copy=True)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space == make("carcassonne_v0", players=4).action_space("player_0")
    assert env.action_space.shape == (3,)
    obs, infos = env.reset(seed=[4, 9, 2])
    alone = make("carcassonne_v0", players=4)
    alone.reset(seed=9)
    assert obs["observation"][1].tobytes() == _aec_obs(alone)["observation"].tobytes()
    assert obs in env.observation_space
    assert infos["_seat"].all() and infos["seat"].tolist() == [0, 0, 0]
    again, _ = env.step(env.random_actions())[:2]
    assert again["observation"] is not obs["observation"]  # copy=True: fresh arrays
    assert "D" in env.render(2) or env.render(2)  # the text board of game 2
    assert env.game_state(1).turn == 0 and len(env.game_state(1).history) == 1


@pytest.mark.parametrize(
    ("actions", "match"),
    [([0, 0], "shape"), ([0, 0, 99999], "out of the action space"), ([0.5, 0, 0], "int array")],
)
def test_bad_actions_are_refused_before_any_game_moves(actions, match) -> None:
    env = make_vec("carcassonne_v1", num_envs=3)
    env.reset(seed=0)
    before = env.game_state(0).to_json()
    with pytest.raises(ValueError, match=match):
        env.step(np.array(actions))
    assert env.game_state(0).to_json() == before


@pytest.mark.parametrize("name", ["carcassonne_v0", "carcassonne_v1", "cardcassonne_v0"])
def test_make_vec_of_each_env_is_a_working_vector_env(name) -> None:
    from gymnasium.vector import VectorEnv

    env = make_vec(name, num_envs=3, players=3)
    assert isinstance(env, VectorEnv) and env.num_envs == 3 and env.num_threads == 1
    obs, infos = env.reset(seed=5)
    alone = make(name, players=3)
    alone.reset(seed=6)
    _same_obs(obs, 1, _aec_obs(alone), "reset")
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        obs, rewards, term, trunc, infos = env.step(env.random_actions(rng))
        assert obs in env.observation_space and rewards.shape == (3, 3)
        assert obs["action_mask"].any(axis=1).all()  # same-step reset: a move everywhere
        if term.any():
            assert np.array_equal(infos["_final_obs"], term)
        ended += int(term.sum())
    assert ended >= 1
    env.close()


def test_make_vec_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown env"):
        make_vec("chess_v6", num_envs=2)
    with pytest.raises(ValueError, match="num_envs"):
        make_vec("carcassonne_v1", num_envs=0)
    with pytest.raises(ValueError, match="num_threads"):
        make_vec("carcassonne_v1", num_envs=2, num_threads=0)
    with pytest.raises(ValueError, match="players"):
        make_vec("carcassonne_v1", num_envs=2, players=7)


def test_an_env_whose_arguments_were_refused_closes_quietly() -> None:
    from carcassonne_rl.envs.vector import TileVectorEnv

    env = TileVectorEnv.__new__(TileVectorEnv)
    with pytest.raises(ValueError, match="players"):
        env.__init__("carcassonne_v1", 2, players=7)
    env.close()  # no self.raw: nothing to close, no AttributeError
    assert env.closed


def test_threads_share_a_step_and_play_the_same_games() -> None:
    import numba

    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    one = make_vec("carcassonne_v1", num_envs=64, players=2)
    many = make_vec("carcassonne_v1", num_envs=64, players=2, num_threads=threads)
    assert not one.parallel and many.parallel == (threads > 1)
    obs, _ = one.reset(seed=1)
    obs2, _ = many.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(60):
        actions = one.random_actions(rng)
        obs, rewards, term, _, _ = one.step(actions)
        obs2, rewards2, term2, _, _ = many.step(actions)
        assert np.array_equal(rewards, rewards2) and np.array_equal(term, term2)
        assert all(np.array_equal(obs[k], obs2[k]) for k in obs)


def test_gymnasium_makes_the_single_agent_view() -> None:
    import gymnasium

    env = gymnasium.make("carcassonne_rl/carcassonne-v1", players=3, learner_seat=1)
    obs, info = env.reset(seed=2)
    assert info["seat"] == 1 and obs in env.observation_space
    mask = env.unwrapped.action_masks()
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert obs in env.observation_space and not truncated
    vec = gymnasium.make_vec("carcassonne_rl/cardcassonne-v0", num_envs=2)
    assert vec.reset(seed=0)[0].shape[0] == 2


@pytest.mark.parametrize(("expansions", "window"), [((), 29), (("messages", "labyrinth"), 9)])
def test_random_actions_are_uniform_over_the_masks_legal_entries(expansions, window) -> None:
    import warnings

    from carcassonne_rl.envs.vector import kernels as VK

    env = make_vec("carcassonne_v1", num_envs=16, players=3, expansions=expansions, window=window)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    draws = 2000
    for _ in range(40):
        counts = np.zeros((env.num_envs, env.num_actions), np.int64)
        out = np.empty(env.num_envs, np.int64)
        for j in range(draws):  # u on an even grid: each legal entry drawn as often, +-1
            u = np.full(env.num_envs, (j + 0.5) / draws)
            VK.random_legal(env.batch.ints, env._origin, env._dropped, env._mask, env.window,
                            u, out)  # fmt: skip
            counts[np.arange(env.num_envs), out] += 1
        for i in range(env.num_envs):
            legal = np.flatnonzero(env._mask[i])
            assert np.array_equal(np.flatnonzero(counts[i]), legal)
            assert counts[i, legal].max() - counts[i, legal].min() <= 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (moves outside the small window)
            env.step(env.random_actions(rng))
