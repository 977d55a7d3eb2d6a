"""The Ray backend on a local Ray started by this module (2 CPUs, shut down afterwards):
tiny RLlib runs of both games, the exported policy, distributed arena games."""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')
pytest.importorskip("ray.rllib", reason='RLlib is not installed (pip install -e ".[ray]")')

from carcassonne_rl.agents import make_agent  # noqa: E402
from carcassonne_rl.arena.match import Setup, play_game, run_jobs, schedule  # noqa: E402
from carcassonne_rl.cli.main import main  # noqa: E402

TINY = ["--set", "n_steps=100", "--set", "batch_size=50", "--set", "n_epochs=1"]
TINY_NETS = {
    "carcassonne": ["--set", "channels=8", "--set", "conv_layers=2"],
    "cardcassonne": ["--set", "hidden=32"],
}
V1 = ["--set", "observation=v1"]  # the tile game through carcassonne_v1 (board + globals)


@pytest.fixture(scope="module")
def local_ray():
    assert not ray.is_initialized()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.parametrize(
    ("game", "runners", "extra"),
    [("cardcassonne", 0, []), ("carcassonne", 1, []), ("carcassonne", 0, V1)],
    ids=["cardcassonne", "carcassonne", "carcassonne_v1"],
)
def test_tiny_rllib_run_is_loaded_by_evaluate(local_ray, tmp_path, capsys, game, runners, extra):
    run = tmp_path / game
    args = ["train", "--backend", "rllib", "--game", game, "--timesteps", "200"]
    args += ["--out", str(run), "--num-env-runners", str(runners), "--snapshot-every", "100"]
    args += ["--eval-every", "0", "--eval-deals", "1", "--no-progress", *TINY, *TINY_NETS[game]]
    assert main(args + extra) == 0
    if extra:  # the same RLModule class, built on carcassonne_v1's dict observation
        from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1

        assert json.loads((run / "policy_spec.json").read_text())["observation"] == "v1"
        assert isinstance(make_agent(f"policy:{run / 'final_model.pt2'}", game).encoder,
                          TileEncoderV1)  # fmt: skip
    state = json.loads((run / "trainer_state.json").read_text())
    assert state["backend"] == "rllib" and state["timesteps"] >= 200
    assert len(state["snapshots"]) >= 2 and all(f.endswith(".pt2") for f in state["snapshots"])
    assert (run / "checkpoints" / "rllib" / "rllib_checkpoint.json").exists()
    history = json.loads((run / "eval_history.json").read_text())
    assert history[-1]["random"]["games"] == 2  # the final evaluation, one deal x 2 seats
    assert (run / "plots" / "training.png").exists()

    # the exported model plays whole legal games (the engine rejects an illegal code)
    agent = make_agent(f"policy:{run / 'final_model.pt2'}", game, seed=0)
    assert agent.game == game
    assert type(make_agent(f"policy:{run}", game)) is type(agent)  # the run folder names it too
    setup = Setup(game, 2)
    for deal in range(2):
        state_ = setup.new_state(deal)
        opponent = make_agent("random", game, seed=deal)
        while not state_.is_over:
            p = state_.current_player
            code = (agent if p == 0 else opponent).act(state_, p)
            assert code in state_.legal_action_codes()
            state_.apply_code(code)

    capsys.readouterr()
    assert main(["evaluate", str(run), "--deals", "1", "--opponents", "random,greedy"]) == 0
    assert "| random | 1 | 2 |" in capsys.readouterr().out  # 1 deal, 2 games
    local_rows = json.loads((run / "evaluation.json").read_text())
    argv = ["evaluate", str(run), "--deals", "1", "--opponents", "random,greedy"]
    assert main(argv + ["--address", "local"]) == 0  # the same games, as Ray tasks
    ray_rows = json.loads((run / "evaluation.json").read_text())
    keys = ("opponent", "games", "win_rate", "mean_margin")
    assert [[r[k] for k in keys] for r in ray_rows] == [[r[k] for k in keys] for r in local_rows]


def test_exported_policy_matches_the_rllib_module(local_ray, tmp_path):
    """The exported program gives the same logits as the checkpointed RLModule."""
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    from carcassonne_rl.agents.policy_agent import ExportedPolicy, make_encoder
    from carcassonne_rl.training.rllib.trainer import export_main
    from carcassonne_rl.training.train_config import TrainConfig

    run = tmp_path / "card"
    args = ["train", "--backend", "rllib", "--game", "cardcassonne", "--timesteps", "100"]
    args += ["--out", str(run), "--num-env-runners", "0", "--eval-every", "0", "--no-progress"]
    assert main(args + ["--eval-deals", "1", *TINY, *TINY_NETS["cardcassonne"]]) == 0
    module = RLModule.from_checkpoint(
        run / "checkpoints" / "rllib" / "learner_group" / "learner" / "rl_module" / "main"
    )
    encoder = make_encoder("cardcassonne")
    state = Setup("cardcassonne", 2).new_state(3)
    obs = encoder.encode(state, state.current_player)
    mask = encoder.action_mask(state).astype(np.int8)
    batch = {
        "obs": {
            "observations": torch.as_tensor(obs)[None],
            "action_mask": torch.as_tensor(mask)[None],
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
    probs = ExportedPolicy(run / "final_model.pt2").probabilities(obs, mask.astype(bool))
    expected = np.exp(logits - logits.max()) * mask
    np.testing.assert_allclose(probs, expected / expected.sum(), rtol=1e-5, atol=1e-7)
    assert TrainConfig.load(run / "config.json").hidden == 32
    assert callable(export_main)


@pytest.mark.parametrize("game", ["cardcassonne", "carcassonne"])
def test_distributed_arena_equals_local_arena(local_ray, game):
    jobs = schedule(Setup(game, 2), ["greedy", "random"], deals=3, seed=5)
    local = run_jobs(jobs, workers=1, progress=False)
    remote = run_jobs(jobs, progress=False, address="local")
    assert len(remote) == len(local) == 6
    for a, b in zip(local, remote, strict=True):
        assert (a.deal, a.rotation, a.seats, a.scores, a.winners, a.decisions) == (
            b.deal, b.rotation, b.seats, b.scores, b.winners, b.decisions
        )  # fmt: skip


def test_remote_games_keep_order_and_raise_the_players_error(local_ray):
    from carcassonne_rl.arena.remote_games import run_remote

    seen = []
    jobs = schedule(Setup("cardcassonne", 2), ["greedy", "greedy"], deals=4, seed=1)
    results = run_remote(play_game, jobs, on_result=seen.append, chunk=3, max_in_flight=1)
    assert [(r.deal, r.rotation) for r in results] == [(j.deal, j.rotation) for j in jobs]
    assert seen == results
    bad = schedule(Setup("cardcassonne", 2), ["greedy", "mcts:-1"], deals=1)
    with pytest.raises(ValueError, match="bad mcts spec"):
        run_remote(play_game, bad)


def test_unordered_remote_games_name_their_job(local_ray):
    from carcassonne_rl.arena.remote_games import iter_remote_unordered

    jobs = schedule(Setup("cardcassonne", 2), ["greedy", "random"], deals=3, seed=2)
    got = dict(iter_remote_unordered(play_game, jobs, chunk=2, max_in_flight=2))
    assert sorted(got) == list(range(len(jobs)))
    for i, job in enumerate(jobs):
        scores = play_game(job).scores
        assert (got[i].deal, got[i].rotation, got[i].scores) == (job.deal, job.rotation, scores)


def test_arena_cli_on_ray_writes_the_same_games(local_ray, tmp_path):
    argv = ["arena", "--game", "cardcassonne", "--agents", "greedy,random"]
    argv += ["--deals", "2", "--seed", "0"]
    argv += ["--no-progress", "--bootstrap", "10"]
    assert main(argv + ["--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert main(argv + ["--address", "local", "--out", str(tmp_path / "ray")]) == 0
    keys = ("deal", "rotation", "seats", "scores", "winners", "decisions")  # not the timings
    games = {}
    for name in ("local", "ray"):
        report = json.loads((tmp_path / name / "arena.json").read_text())
        games[name] = [tuple(str(g[k]) for k in keys) for g in report["results"]]
    assert len(games["ray"]) == 4 and games["ray"] == games["local"]


@pytest.mark.parametrize("game", ["cardcassonne", "carcassonne"])
def test_multi_agent_env_is_turn_based_and_pays_the_result(game):
    from carcassonne_rl.training.rllib.multi_agent_env import TurnBasedMultiAgentEnv

    env = TurnBasedMultiAgentEnv({"game": game, "players": 2, "reward_mode": "win_loss"})
    rng = np.random.default_rng(0)
    for episode in range(2):
        obs, _ = env.reset(seed=episode)
        totals: dict[str, float] = {}
        done = False
        while not done:
            assert len(obs) == 1  # only the agent to act observes
            ((agent, o),) = obs.items()
            state = env.raw.game_state
            assert env.seat_agent[state.current_player] == agent
            legal = np.flatnonzero(o["action_mask"])
            assert (
                len(legal) > 0
                and o["observations"].shape == env.raw.encoder.observation_space.shape
            )
            obs, rewards, terminated, _, _ = env.step({agent: int(rng.choice(legal))})
            for a, r in rewards.items():
                totals[a] = totals.get(a, 0.0) + r
            done = terminated["__all__"]
        assert set(obs) == {"learner", "opponent_1"}  # everyone sees the end
        winners = env.raw.game_state.winners()
        for seat, agent in env.seat_agent.items():
            expected = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
            assert totals[agent] == expected


def test_league_maps_the_learner_to_main_and_opponents_to_the_league():
    from carcassonne_rl.training.rllib.trainer import LeagueMapping

    mapping = LeagueMapping(0.625, ("snapshot_0", "snapshot_1"))
    assert {mapping("learner") for _ in range(200)} == {"main"}
    drawn = [mapping("opponent_1") for _ in range(4000)]
    assert set(drawn) == {"main", "snapshot_0", "snapshot_1"}
    assert abs(drawn.count("main") / 4000 - 0.625) < 0.05


def test_snapshot_slots_take_mains_weights(local_ray):
    from carcassonne_rl.training.rllib.trainer import build_algorithm, copy_main_to
    from carcassonne_rl.training.train_config import TrainConfig

    config = TrainConfig(game="cardcassonne", n_steps=64, batch_size=32, n_epochs=1, hidden=16)
    algo = build_algorithm(config, num_env_runners=1)
    try:
        algo.train()
        weights = algo.learner_group.get_weights(module_ids=["main", "snapshot_1"])
        key = next(iter(weights["main"]))
        assert not np.allclose(weights["main"][key], weights["snapshot_1"][key])  # own init
        copy_main_to(algo, ["snapshot_1"])
        after = algo.learner_group.get_weights(module_ids=["snapshot_1"])["snapshot_1"]
        runners = algo.env_runner_group.foreach_env_runner(
            lambda r: {k: v.numpy() for k, v in r.module["snapshot_1"].state_dict().items()},
            local_env_runner=True,
        )
        assert len(runners) == 2  # the remote sampler and the driver's local one
        for name, value in weights["main"].items():
            np.testing.assert_array_equal(after[name], value)
            for runner in runners:
                np.testing.assert_array_equal(runner[name], value)
    finally:
        algo.stop()


def test_more_env_runners_than_cpus_is_a_clear_error(local_ray, tmp_path, capsys):
    args = ["train", "--backend", "rllib", "--game", "cardcassonne", "--num-env-runners", "5"]
    assert main(args + ["--out", str(tmp_path / "run")]) == 2
    assert "5 env runners need 5 CPUs; the Ray cluster has 2" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
