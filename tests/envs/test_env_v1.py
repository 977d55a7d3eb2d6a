"""carcassonne_v1: v0's game with the compact observation (board planes + globals vector)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.encoders.tile.encoder import TileEncoder
from carcassonne_rl.encoders.tile.encoder_v1 import GLOBAL_NAMES, TileEncoderV1
from carcassonne_rl.envs import carcassonne_v0, carcassonne_v1
from carcassonne_rl.envs.single_agent import SingleAgentEnv
from carcassonne_rl.games.carcassonne import layout as L


@pytest.mark.parametrize("players,expansions", [(2, ()), (3, ("messages", "labyrinth"))])
def test_every_observation_is_v0s_planes_split(players, expansions):
    """Over a whole random game, every seat's v1 observation holds v0's 46 board planes and
    the 113 values v0 broadcasts, and both envs give the same masks and rewards."""
    v0 = carcassonne_v0.env(players=players, expansions=expansions)
    v1 = carcassonne_v1.env(players=players, expansions=expansions)
    v0.reset(seed=4)
    v1.reset(seed=4)
    rng = np.random.default_rng(0)
    space = v1.observation_space("player_0")
    steps = 0
    while v0.agents:
        for agent in v0.agents:
            planes, split = v0.observe(agent), v1.observe(agent)
            assert set(split) == {"board", "globals", "action_mask"}
            assert space.contains(split)
            assert np.array_equal(split["board"], planes["observation"][: TK.NUM_BOARD_PLANES])
            constant = planes["observation"][TK.NUM_BOARD_PLANES :]
            assert (constant == constant[:, :1, :1]).all()
            assert np.array_equal(split["globals"], constant[:, 0, 0].astype(np.float32))
            assert np.array_equal(split["action_mask"], planes["action_mask"])
        obs, _, term, trunc, _ = v0.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        v0.step(action)
        v1.step(action)
        assert v1.unwrapped.rewards == v0.unwrapped.rewards
        steps += 1
    assert not v1.agents and steps > 100


def test_globals_hold_true_values_beyond_255():
    """A score of 300 is 300 in v1's globals; v0's uint8 planes clip it at 255."""
    env = carcassonne_v1.raw_env(players=3, expansions=("messages",))
    env.reset(seed=0)
    state = env.game_state
    state._ints[L.R_SCORES + 2] = 300  # seat 2, seen from seat 1: one seat on (seat+1)
    state._ints[L.R_FIG_B + 2] = 280
    glob = TileEncoderV1(messages=True).encode(state, 1)["globals"]
    assert glob[GLOBAL_NAMES.index("score_seat+1")] == 300.0
    assert glob[GLOBAL_NAMES.index("figure_b_points_seat+1")] == 280.0
    planes = TileEncoder(messages=True).encode(state, 1)
    assert planes[TK.NUM_BOARD_PLANES + TK.G_SCORE + 1, 5, 5] == 255


def test_globals_names_follow_v0s_plane_order():
    assert len(GLOBAL_NAMES) == TK.NUM_GLOBALS == 113
    assert GLOBAL_NAMES[TK.G_TILE] == "tile_to_place_A"
    assert GLOBAL_NAMES[TK.G_REMAIN + 3] == "tiles_left_D"
    assert GLOBAL_NAMES[TK.G_SCORE] == "score_seat+0"
    assert GLOBAL_NAMES[TK.G_PHASE] == "phase_place_tile"
    assert GLOBAL_NAMES[TK.G_AWARD] == "awaiting_points"


@pytest.mark.parametrize("expansions", [(), ("messages", "labyrinth")])
def test_observation_is_at_most_45_kb(expansions):
    env = carcassonne_v1.env(players=5, expansions=expansions)
    env.reset(seed=0)
    obs = env.observe("player_0")
    total = sum(part.nbytes for part in obs.values())
    board = 46 * 29 * 29
    assert obs["board"].nbytes == board and obs["globals"].nbytes == 113 * 4
    assert total == board + 113 * 4 + obs["action_mask"].size <= 45_000
    v0 = carcassonne_v0.env(players=5, expansions=expansions)
    v0.reset(seed=0)
    assert v0.observe("player_0")["observation"].nbytes == 159 * 29 * 29 > 3 * total


def test_handed_out_observations_are_the_callers():
    """Changing an observation one got changes nothing the env hands out later."""
    env = carcassonne_v1.env(players=2)
    env.reset(seed=1)
    first = env.observe("player_0")
    expected = {k: v.copy() for k, v in first.items()}
    for part in first.values():
        part[...] = 1
    for _ in range(2):
        again = env.observe("player_0")
        assert all(np.array_equal(again[k], expected[k]) for k in expected)
        for part in again.values():
            part[...] = 0


def test_reset_options_and_renders_are_v0s():
    kwargs = {"players": 2, "render_mode": "ansi"}
    v0, v1 = carcassonne_v0.env(**kwargs), carcassonne_v1.env(**kwargs)
    for env in (v0, v1):
        env.reset(options={"draw_order": "UVWKL", "fill_pile": True}, seed=3)
    assert v1.render() == v0.render()
    assert v1.unwrapped.game_state.history == v0.unwrapped.game_state.history
    record = v0.unwrapped.game_state.to_json()
    v1.reset(options={"record": record})
    assert v1.unwrapped.game_state.to_json() == record
    with pytest.raises(ValueError, match="TileEncoderV1"):
        carcassonne_v1.raw_env(encoder=TileEncoder())


def test_single_agent_view_is_a_dict_env():
    env = SingleAgentEnv("carcassonne_v1", learner_seat=0, players=2)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"board", "globals"}
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("extractor", [None, "board"])
def test_maskable_ppo_multi_input_policy_takes_v1_as_it_is(extractor):
    """SB3's MultiInputPolicy (stock extractor, or our board network) on the single-agent
    view of carcassonne_v1: no wrapper, no flattening."""
    MaskablePPO = pytest.importorskip("sb3_contrib").MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from carcassonne_rl.training.ppo.policies import TileBoardNet

    venv = DummyVecEnv([lambda: SingleAgentEnv("carcassonne_v1", window=9) for _ in range(2)])
    policy_kwargs = {"net_arch": [16]}
    if extractor:
        policy_kwargs["features_extractor_class"] = TileBoardNet
        policy_kwargs["features_extractor_kwargs"] = {"channels": 8, "layers": 2, "hidden": 16}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small test window: overflow warnings are expected
        model = MaskablePPO(
            "MultiInputPolicy", venv, n_steps=32, batch_size=32, n_epochs=1,
            policy_kwargs=policy_kwargs, seed=0,
        )  # fmt: skip
        model.learn(64)
    assert model.num_timesteps >= 64
    obs, _ = SingleAgentEnv("carcassonne_v1", window=9).reset(seed=2)
    assert model.policy.observation_space.contains(obs)


def test_bench_env_times_v1_against_v0_and_connect_four_in_one_run(capsys):
    import json

    from carcassonne_rl.cli.main import main

    assert main(["bench", "env", "--env", "carcassonne_v1", "--seconds", "0.3"]) == 0
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert row["env"] == "carcassonne_v1" and row["games"] >= 0
    assert row["observation_bytes"] == 46 * 29 * 29 + 113 * 4 + 4 * 29 * 29 + 10
    assert row["carcassonne_v0_observation_bytes"] == 159 * 29 * 29 + 4 * 29 * 29 + 10
    ratio = row["steps_per_s"] / row["carcassonne_v0_steps_per_s"]
    assert row["ratio_vs_carcassonne_v0"] == pytest.approx(ratio, rel=1e-2)
    assert row["ratio"] == pytest.approx(row["steps_per_s"] / row["connect_four_v3_steps_per_s"],
                                         rel=1e-2)  # fmt: skip
