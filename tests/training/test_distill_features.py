"""``carcassonne-rl distill``: the features policy fitted to the teacher's option values
(``training/distill``), its numpy export, and the command's resumable demonstrations."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from helpers.benchmarks import benchmark

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile.obs_policy.board_net import TileObsPolicyAgent
from carcassonne_rl.agents.tile.obs_policy.feature_net import TileFeatureNet
from carcassonne_rl.agents.tile.obs_policy.features import NUM_FOLLOW, NUM_PLACE
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.cli.main import main
from carcassonne_rl.training.distill.demos import HeadRows
from carcassonne_rl.training.distill.fit import _group_log_softmax, group_targets
from carcassonne_rl.training.obs_policy.heads import FeatureHeads, heads_to_numpy


def test_group_softmax_and_targets_are_per_decision():
    x = torch.tensor([1.0, 2.0, 0.5, -1.0, 3.0])
    group = torch.tensor([0, 0, 1, 1, 1])
    got = _group_log_softmax(x, group, 2)
    expected = torch.cat([torch.log_softmax(x[:2], 0), torch.log_softmax(x[2:], 0)])
    torch.testing.assert_close(got, expected)
    values = np.array([0.30, 0.31, 0.5, 0.5, 0.1], np.float32)
    data = HeadRows(np.zeros((5, 1), np.float32), values, np.array([0, 2]), np.array([2, 3]),
                    np.array([0, 0]))  # fmt: skip
    targets = group_targets(data, 0.01)
    first = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()  # values 0.30, 0.31 at T=0.01
    np.testing.assert_allclose(targets[:2], first, rtol=1e-5)
    np.testing.assert_allclose(targets[2:], [0.5, 0.5, np.exp(-40) / 2], rtol=1e-4, atol=1e-12)


def test_numpy_scores_equal_the_torch_heads():
    torch.manual_seed(0)
    model = FeatureHeads(hidden=16, layers=2)
    net = heads_to_numpy(model, window=29)
    rng = np.random.default_rng(0)
    for head, width in (("place", NUM_PLACE), ("follow", NUM_FOLLOW)):
        rows = rng.random((7, width), dtype=np.float32)
        with torch.no_grad():
            expected = model.head(head)(torch.from_numpy(rows)).squeeze(1).numpy()
        np.testing.assert_allclose(net.scores(head, rows), expected, rtol=1e-5, atol=1e-6)


def test_a_file_for_other_features_is_refused(tmp_path):
    net = heads_to_numpy(FeatureHeads(hidden=4, layers=1), window=29)
    net.meta["place_features"] = net.meta["place_features"][:-1]
    path = tmp_path / "old.npz"
    net.save(path)
    with pytest.raises(ValueError, match="other option features"):
        make_agent(f"policy:{path}", "carcassonne")


def test_distill_plays_fits_exports_and_resumes(tmp_path, capsys):
    demos, out = tmp_path / "demos", tmp_path / "features.npz"
    argv = ["distill", str(demos), "--games", "2", "--epochs", "2", "--hidden", "8",
            "--validation", "0.5", "--seed", "3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()
             if line.startswith("{")]  # fmt: skip
    assert [r["epoch"] for r in lines] == [1, 2]
    assert 0.0 <= lines[-1]["place_held_accuracy"] <= 1.0 and lines[-1]["place_loss"] > 0
    files = sorted(demos.glob("game_*.npz"))
    assert [f.name for f in files] == ["game_33757.npz", "game_33758.npz"]  # 3 * 7919 + 10000
    stamps = [f.stat().st_mtime_ns for f in files]
    agent = make_agent(f"policy:{out}", "carcassonne", seed=0)
    assert isinstance(agent, TileObsPolicyAgent) and isinstance(agent.net, TileFeatureNet)
    result = play_game(Job(Setup("carcassonne", 2), (f"policy:{out}", "random"),
                           (f"policy:{out}", "random"), 3, 0, 0, 1))  # fmt: skip
    assert sum(result.decisions) > 40
    assert main(argv[:3] + ["3"] + argv[4:]) == 0  # one more game: the first two are kept
    assert len(list(demos.glob("game_*.npz"))) == 3
    assert [f.stat().st_mtime_ns for f in files] == stamps
    capsys.readouterr()
    assert main(argv[:3] + ["4", "--players", "3"] + argv[4:]) == 2  # other games: refused
    err = capsys.readouterr().err
    assert "holds games of" in err and "'players': 2" in err and "Traceback" not in err
    assert len(list(demos.glob("game_*.npz"))) == 3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--out", "policy.txt"], "--out must name a .npz file"),
        (["--games", "0", "--out", "p.npz"], "no demonstration games"),
        (["--teacher", "greedy", "--out", "p.npz"], "does not value its options"),
        (["--teacher", "nobody", "--out", "p.npz"], "--teacher"),
    ],
)
def test_bad_distill_arguments_are_one_line(tmp_path, capsys, extra, message):
    demos = tmp_path / "demos"
    demos.mkdir()
    argv = ["distill", str(demos)] + [a if not a.endswith(("npz", "txt")) else str(tmp_path / a)
                                      for a in extra]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(demos.iterdir()) and not list(tmp_path.glob("p*.npz"))


def test_a_validation_share_outside_0_1_is_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["distill", "d", "--out", "p.npz", "--validation", "1.5"])
    assert exc.value.code == 2
    assert "must be in [0, 1)" in capsys.readouterr().err


def _features_file(tmp_path, seed: int = 0):
    """A small random features policy saved as a policy file."""
    torch.manual_seed(seed)
    path = tmp_path / f"features_{seed}.npz"
    heads_to_numpy(FeatureHeads(hidden=16), window=29).save(path)
    return path


def test_ppo_starts_from_a_distilled_policy_and_exports_back(tmp_path, capsys):
    start = _features_file(tmp_path)
    run = tmp_path / "run"
    argv = ["train", "--game", "carcassonne", "--timesteps", "256", "--out", str(run),
            "--envs", "1", "--eval-every", "0", "--eval-deals", "1", "--no-progress",
            "--set", "observation=v1", "--set", "tile_net=features", "--set",
            "warm_start_games=0", "--set", f"warm_start_init={start}", "--set", "n_steps=128",
            "--set", "batch_size=64", "--set", "baselines=random"]  # fmt: skip
    assert main(argv) == 0
    first = tmp_path / "first.npz"
    assert main(["export", str(run / "snapshots" / "step_0.zip"), str(first)]) == 0
    with np.load(start) as a, np.load(first) as b:
        assert all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")
    final = tmp_path / "final.npz"
    assert main(["export", str(run), str(final)]) == 0
    with np.load(start) as a, np.load(final) as b:
        assert any(not np.array_equal(a[k], b[k]) for k in a.files if k != "meta")
    agent = make_agent(f"policy:{final}", "carcassonne", seed=0)
    assert isinstance(agent.net, TileFeatureNet)
    capsys.readouterr()
    curve = benchmark("obs_policy_curve")
    png = tmp_path / "curve.png"
    assert curve.main([str(run), "--deals", "1", "--workers", "1", "--plot", str(png)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["steps"] for r in rows] == sorted(r["steps"] for r in rows) and rows[0]["steps"] == 0
    assert all(r["games"] == 2 and 0 <= r["win_rate"] <= 1 for r in rows)
    assert png.stat().st_size > 10_000


def test_the_ppo_policy_is_the_exported_policy(tmp_path):
    """MaskablePPO's distribution over the legal actions is the numpy agent's."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from carcassonne_rl.envs import carcassonne_v1
    from carcassonne_rl.envs.single_agent import SingleAgentEnv
    from carcassonne_rl.training.obs_policy.ppo_policy import TileFeaturePolicy
    from carcassonne_rl.training.ppo.selfplay import init_policy

    path = _features_file(tmp_path, seed=1)
    venv = DummyVecEnv([lambda: SingleAgentEnv("carcassonne_v1")])
    kwargs = {"features_extractor_kwargs": {"hidden": 16}}
    model = MaskablePPO(TileFeaturePolicy, venv, policy_kwargs=kwargs, n_steps=64, seed=0)
    init_policy(model, path)
    agent = make_agent(f"policy:{path}", "carcassonne", seed=0)
    env = carcassonne_v1.env(players=2)
    env.reset(seed=4)
    for _ in range(12):
        obs, _, _, _, _ = env.last()
        batch = {k: torch.as_tensor(obs[k])[None] for k in ("board", "globals")}
        with torch.no_grad():
            dist = model.policy.get_distribution(batch, action_masks=obs["action_mask"][None])
        got = dist.distribution.probs[0].numpy()
        np.testing.assert_allclose(got, agent.probabilities(obs), atol=1e-5)
        env.step(agent.decide(obs))
    with pytest.raises(ValueError, match="pass action_masks"):
        model.policy.get_distribution(batch)


def test_features_training_configs_are_checked(tmp_path):
    from carcassonne_rl.training.ppo.selfplay import init_policy, make_vec_env, new_model
    from carcassonne_rl.training.train_config import TrainConfig

    with pytest.raises(ValueError, match="observation=v1"):
        TrainConfig(game="carcassonne", tile_net="features")
    with pytest.raises(ValueError, match="no The Messages"):
        TrainConfig(game="carcassonne", tile_net="features", observation="v1",
                    expansions=("messages",))  # fmt: skip
    config = TrainConfig(game="carcassonne", observation="v1", tile_net="board", n_envs=1,
                         channels=4, conv_layers=2)  # fmt: skip
    env = make_vec_env(config)
    board_model = new_model(config, env, None)
    env.close()
    with pytest.raises(ValueError, match="for tile_net=features"):
        init_policy(board_model, _features_file(tmp_path))
    wide = tmp_path / "wide.npz"
    heads_to_numpy(FeatureHeads(hidden=32), window=29).save(wide)
    config = TrainConfig(game="carcassonne", observation="v1", tile_net="features", n_envs=1)
    env = make_vec_env(config)
    model = new_model(config, env, None)
    env.close()
    with pytest.raises(ValueError, match="another shape"):
        init_policy(model, wide)


def test_table_demonstrations_are_the_value_networks_moves(tmp_path):
    """At 5 players (where ``tile-net-v7`` played an observation network) the
    demonstrations of ``pretrained`` are its value agent's moves and values: ``tile-net-v8``'s
    own table network there, averaged with the heuristic as its file says (a student never
    teaches itself)."""
    from carcassonne_rl.agents.pretrained import PRETRAINED_TABLE_FILES, shipped_file
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.agents.tile.blend import BlendedAgent
    from carcassonne_rl.agents.tile.table_agent import OBS_TABLES
    from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1
    from carcassonne_rl.training.distill.demos import demo_deal, play_demos
    from carcassonne_rl.training.ppo.warm_start import load_demo_game

    players = OBS_TABLES[0]
    assert play_demos(tmp_path, 1, seed=5, players=players) == 1
    game = load_demo_game(tmp_path / f"game_{demo_deal(5, 0)}.npz")
    encoder = TileEncoderV1()
    deal = demo_deal(5, 0)
    net = load_value_net(shipped_file(PRETRAINED_TABLE_FILES[players]))
    teachers = [
        BlendedAgent(net, net.meta["heuristic_blend"], seed=deal + p) for p in range(players)
    ]
    state = Setup("carcassonne", players).new_state(deal)
    for i, action in enumerate(game["actions"][:30]):
        p = state.current_player
        teacher = teachers[p]
        codes, values = teacher.decision_values(state, p)
        code = teacher.act(state, p)
        assert action == encoder.index_of(state, code)
        if len(codes) > 1:
            index = encoder.index_of(state, codes[int(np.argmax(values))])
            assert game["values"][i][index] == np.float16(values.max())
        state.apply_code(int(code))
