"""The tile game's board network (policies.TileBoardNet) and the rotated warm start."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from carcassonne_rl.agents import make_agent
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.encoders import TileEncoder
from carcassonne_rl.encoders.tile import kernels as TK
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.training.ppo import warm_start
from carcassonne_rl.training.ppo.policies import TileBoardNet, TilePlanes
from carcassonne_rl.training.ppo.selfplay import make_vec_env, new_model, train
from carcassonne_rl.training.ppo.warm_start import collect, pretrain
from carcassonne_rl.training.train_config import TrainConfig

TINY = dict(
    n_envs=1, n_steps=64, batch_size=64, n_epochs=1, snapshot_every=64, eval_every=128,
    checkpoint_every=128, eval_deals=1, channels=8, conv_layers=2, hidden=32,
    warm_start_games=1, warm_start_epochs=1,
)  # fmt: skip


def _features(net_class, obs: np.ndarray) -> np.ndarray:
    torch.manual_seed(0)
    shape = obs.shape[1:]
    space = gym.spaces.Box(0, 255, (int(np.prod(shape)),), np.uint8)
    net = net_class(space, shape, channels=8, layers=2, hidden=16)
    with torch.no_grad():
        return net(torch.as_tensor(obs.reshape(len(obs), -1))).numpy()


def test_board_net_reads_globals_once_and_pools_the_whole_board():
    w = 9
    enc = TileEncoder(window=w)
    state = new_game(GameConfig(players=2, seed=0))
    obs = enc.encode(state, 0)[None]
    cells = w * w * 4
    far = slice(cells - 4, cells)  # the 4 rotation logits of the far corner cell (8, 8)

    other_cell = obs.copy()  # a global plane changed away from cell (0, 0): not read
    other_cell[0, TK.NUM_BOARD_PLANES + TK.G_SCORE, 4, 4] = 200
    corner = obs.copy()  # a tile edge at cell (0, 0), out of reach of the 3x3 convolutions
    corner[0, TK.B_PRESENT, 0, 0] = 1
    corner[0, TK.B_EDGE + 2, 0, 0] = 1
    for net_class in (TilePlanes, TileBoardNet):
        base = _features(net_class, obs)
        assert base.shape == (1, cells + 16)
        assert np.array_equal(_features(net_class, other_cell), base)
        changed = _features(net_class, corner)
        reaches_far = not np.allclose(changed[0, far], base[0, far])
        # only the global-pooling bias carries the corner to the far corner
        assert reaches_far == (net_class is TileBoardNet)


def test_tiny_board_run_with_rotated_warm_start_plays(tmp_path):
    config = TrainConfig(game="carcassonne", timesteps=64, tile_net="board",
                         warm_start_augment=True, **TINY)  # fmt: skip
    model = train(config, tmp_path / "run", progress=False)
    assert isinstance(model.policy.features_extractor, TileBoardNet)
    spec = f"policy:{tmp_path / 'run' / 'final_model.zip'}"
    agent = make_agent(spec, "carcassonne")
    assert isinstance(agent.model.policy.features_extractor, TileBoardNet)
    result = play_game(Job(Setup("carcassonne", 2), (spec, "random"), (spec, "random"), 1, 0, 0, 1))
    assert result.decisions[0] > 10
    with pytest.raises(ValueError, match="tile_net"):
        TrainConfig(tile_net="resnet")


def test_warm_start_augment_from_the_command_line():
    from carcassonne_rl.cli.train import parse_overrides

    assert TrainConfig(**parse_overrides(["warm_start_augment=true"])).warm_start_augment is True
    assert TrainConfig(**parse_overrides(["warm_start_augment=False"])).warm_start_augment is False
    with pytest.raises(ValueError, match="warm_start_augment"):
        TrainConfig(warm_start_augment="sometimes")


def test_rotated_warm_start_shows_every_sample_in_all_four_rotations(monkeypatch):
    config = TrainConfig(game="carcassonne", tile_net="board", **TINY)
    data = collect(config, games=1, seed=3)
    enc = TileEncoder()
    seen: dict[bytes, set[int]] = {}
    fed: list[np.ndarray] = []

    turn_batch = warm_start._turned

    def spy(encoder, obs, masks, actions, turns):
        for row, k in zip(obs, turns, strict=True):
            seen.setdefault(row.tobytes(), set()).add(int(k))
        out = turn_batch(encoder, obs, masks, actions, turns)
        fed.append(out[0])
        return out

    monkeypatch.setattr(warm_start, "_turned", spy)
    env = make_vec_env(config)
    model = new_model(config, env, None)
    env.close()
    pretrain(model, data, epochs=4, batch_size=64, seed=0, augment=enc)
    assert len(seen) == len({row.tobytes() for row in data["obs"]})
    assert all(turns == {0, 1, 2, 3} for turns in seen.values())
    # what the policy was fed: the samples turned, not the originals
    fed_rows = {row.tobytes() for batch in fed for row in batch}
    assert len(fed_rows) > 3 * len(seen)


def test_both_tile_networks_read_v1_dicts_as_v0_planes():
    """Same weights, the same position: v1's dict gives the features v0's flat planes give."""
    from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

    w = 9
    state = new_game(GameConfig(players=3, seed=2))
    for _ in range(12):
        state.apply_code(int(state.legal_action_codes()[0]))
    planes = TileEncoder(window=w).encode(state, 1)[None]
    v1 = TileEncoderV1(window=w)
    split = v1.encode(state, 1)
    dict_batch = {k: torch.as_tensor(v)[None] for k, v in split.items()}
    for net_class in (TilePlanes, TileBoardNet):
        torch.manual_seed(0)
        net = net_class(v1.observation_space, channels=8, layers=2, hidden=16)
        with torch.no_grad():
            from_dict = net(dict_batch).numpy()
        flat_space = gym.spaces.Box(0, 255, (int(np.prod(planes.shape[1:])),), np.uint8)
        torch.manual_seed(0)
        flat_net = net_class(flat_space, planes.shape[1:], channels=8, layers=2, hidden=16)
        assert flat_net.num_globals == net.num_globals == TK.NUM_GLOBALS
        expected = _features(net_class, planes)
        np.testing.assert_allclose(from_dict, expected, rtol=1e-5, atol=1e-6)


def test_tiny_v1_run_with_rotated_warm_start_plays(tmp_path):
    from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

    config = TrainConfig(game="carcassonne", timesteps=64, tile_net="board", observation="v1",
                         warm_start_augment=True, **TINY)  # fmt: skip
    model = train(config, tmp_path / "run", progress=False)
    assert set(model.observation_space.spaces) == {"board", "globals"}
    spec = f"policy:{tmp_path / 'run' / 'final_model.zip'}"
    agent = make_agent(spec, "carcassonne")
    assert isinstance(agent.encoder, TileEncoderV1)
    result = play_game(Job(Setup("carcassonne", 2), (spec, "random"), (spec, "random"), 1, 0, 0, 1))
    assert result.decisions[0] > 10
    with pytest.raises(ValueError, match="observation"):
        TrainConfig(game="cardcassonne", observation="v1")


def test_v1_samples_turn_as_v0_planes_do():
    from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

    config = TrainConfig(game="carcassonne", observation="v1", **TINY)
    data = collect(config, games=1, seed=3)
    board, glob = data["obs"]["board"][:40], data["obs"]["globals"][:40]
    masks, actions = data["masks"][:40], data["actions"][:40]
    turns = np.arange(40) % 4
    enc = TileEncoderV1()
    turned, t_masks, t_actions = warm_start._turned(
        enc, {"board": board, "globals": glob}, masks, actions, turns
    )
    pairs = zip(board, glob, strict=True)
    planes = np.stack([enc.to_planes({"board": b, "globals": g}) for b, g in pairs])
    flat, f_masks, f_actions = warm_start._turned(
        TileEncoder(), planes.reshape(40, -1), masks, actions, turns
    )
    flat = flat.reshape(planes.shape)
    assert np.array_equal(turned["board"], flat[:, : TK.NUM_BOARD_PLANES])
    assert np.array_equal(turned["globals"], glob)
    assert np.array_equal(t_masks, f_masks) and np.array_equal(t_actions, f_actions)
    assert not np.array_equal(turned["board"][1], board[1])  # sample 1: a quarter turn


@pytest.mark.parametrize("observation", ["v0", "v1"])
def test_warm_start_demonstrations_resume_game_by_game(tmp_path, observation):
    config = TrainConfig(game="carcassonne", observation=observation, **TINY)
    fresh = collect(config, games=2, seed=5)
    first = collect(config, games=1, seed=5, cache=tmp_path)  # a collection cut short
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game_5.npz"]
    resumed = collect(config, games=2, seed=5, cache=tmp_path)  # game 5 read, game 6 played
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game_5.npz", "game_6.npz"]
    assert len(first["actions"]) < len(resumed["actions"]) == len(fresh["actions"])
    for key in ("masks", "actions", "returns"):
        assert np.array_equal(resumed[key], fresh[key])
    if observation == "v1":
        assert all(np.array_equal(resumed["obs"][k], fresh["obs"][k]) for k in fresh["obs"])
    else:
        assert np.array_equal(resumed["obs"], fresh["obs"])


def test_warm_start_rate_batch_and_epoch_log():
    from carcassonne_rl.cli.train import parse_overrides

    sets = ["warm_start_learning_rate=1e-3", "warm_start_batch_size=32"]
    config = TrainConfig(game="carcassonne", **{**TINY, **parse_overrides(sets)})
    assert (config.warm_start_learning_rate, config.warm_start_batch_size) == (1e-3, 32)
    assert (
        TrainConfig(**parse_overrides(["warm_start_learning_rate=None"])).warm_start_learning_rate
        is None
    )
    with pytest.raises(ValueError, match="warm_start_batch_size"):
        TrainConfig(warm_start_batch_size=0)
    data = collect(config, games=1, seed=3)
    env = make_vec_env(config)
    model = new_model(config, env, None)
    env.close()
    logged = []
    stats = pretrain(model, data, epochs=2, batch_size=32, learning_rate=1e-3,
                     on_epoch=lambda epoch, s: logged.append((epoch, s)))  # fmt: skip
    assert [e for e, _ in logged] == [0, 1] and logged[-1][1] == stats
    assert all(g["lr"] == 1e-3 for g in model.policy.optimizer.param_groups)
