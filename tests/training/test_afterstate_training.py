"""The afterstate-TD trainer on tiny budgets: targets, run folder, kill and resume, CLI."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from carcassonne_rl.agents.tile.afterstate import load_value_net
from carcassonne_rl.encoders.features.afterstate import NUM_FEATURES
from carcassonne_rl.training.afterstate.trainer import (
    AfterstateConfig,
    Learner,
    export,
    play_games,
)
from carcassonne_rl.training.run_files import TEMPORARY_PATTERN

TINY = [
    "--set", "warm_games=4", "--set", "games_per_iteration=4", "--set", "games_in_flight=2",
    "--set", "checkpoint_every=1", "--set", "hidden=16,8", "--eval-every", "0",
    "--eval-deals", "1", "--envs", "1", "--no-progress",
]  # fmt: skip


def _cli(*args: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cmd = [sys.executable, "-m", "carcassonne_rl.cli.main", *args]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)  # fmt: skip


def _replayed_targets(agent, deal: int) -> tuple[np.ndarray, int]:
    """Monte-Carlo targets of a 2-player game of ``deal`` that ``agent`` plays in both seats,
    replayed here: seat 0's turn-end positions, then seat 1's, each ``tanh(final margin /
    30)`` of its seat; and seat 0's final margin."""
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    s = new_game(GameConfig(players=2, seed=deal))
    turns = [0, 0]
    while not s.is_over:
        turn, mover = s.turn, s.active_player
        s.apply_code(agent.act(s, s.current_player))
        if s.turn != turn and not s.is_over:
            turns[mover] += 1
    margins = [s.scores[0] - s.scores[1], s.scores[1] - s.scores[0]]
    blocks = [np.full(n, math.tanh(m / 30.0)) for n, m in zip(turns, margins, strict=True)]
    return np.concatenate(blocks), int(margins[0])


def test_targets_of_greedy_games_are_the_final_margins() -> None:
    """Warm-up games (greedy vs greedy) learn Monte-Carlo targets: every position of a seat
    gets tanh(final margin / scale) of that seat, from a fresh game replayed independently."""
    from carcassonne_rl.agents.tile.greedy import TileGreedyAgent

    config = AfterstateConfig(workers=1, value_scale=30.0, epsilon=0.0)
    out = play_games(config, None, {}, [5], [-1], seed=3)
    expected, _ = _replayed_targets(TileGreedyAgent(seed=3), 5)
    assert out["x"].shape == (len(expected), NUM_FEATURES)
    assert np.allclose(out["y"], expected, atol=1e-6)


def test_lambda_returns_bootstrap_on_the_networks_values() -> None:
    config = AfterstateConfig(workers=1, td_lambda=0.5, hidden=(8,))
    net = export(Learner(config).model, config)
    out = play_games(config, net.layers, net.meta, [2], [-1], seed=1)
    x, y = out["x"], out["y"]
    assert len(x) > 60 and np.all(np.abs(y) <= 1.0)
    # the seat-0 block comes first; its last target is the final outcome and each earlier
    # one mixes the next position's value with the next target (lambda = 0.5)
    v = net.forward(x)[:, 0]
    ok = [math.isclose(y[t], 0.5 * v[t + 1] + 0.5 * y[t + 1], abs_tol=1e-5) for t in range(10)]
    assert all(ok)


def test_games_in_flight_play_as_they_would_alone() -> None:
    """Valuing many games' options in one batch changes nothing: each game is played
    exactly as when it runs alone."""
    config = AfterstateConfig(workers=1, epsilon=0.3, hidden=(8,))
    net = export(Learner(config).model, config)
    together = play_games(config, net.layers, net.meta, [1, 2, 3], [-1, -1, -1], seed=4)
    alone = [play_games(config, net.layers, net.meta, [d], [-1], seed=4) for d in (1, 2, 3)]
    assert together["decisions"] == sum(a["decisions"] for a in alone)
    assert np.array_equal(np.sort(together["y"]), np.sort(np.concatenate([a["y"] for a in alone])))
    x_alone = np.concatenate([a["x"] for a in alone])
    assert np.array_equal(np.unique(together["x"], axis=0), np.unique(x_alone, axis=0))


def test_train_kill_and_resume_then_evaluate(tmp_path) -> None:
    out = tmp_path / "run"
    args = ["train", "--algo", "afterstate", "--positions", "2500", "--out", str(out), *TINY]
    proc = _cli(*args)
    state_file = out / "trainer_state.json"
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if state_file.exists() and json.loads(state_file.read_text())["iteration"] >= 2:
            break
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    saved = json.loads(state_file.read_text())
    assert not (out / "final_model.npz").exists()
    done = _cli(*args, "--resume")
    stdout, stderr = done.communicate(timeout=600)
    assert done.returncode == 0, stderr
    final = json.loads(state_file.read_text())
    assert final["timesteps"] >= 2500 and final["iteration"] > saved["iteration"]
    assert final["games"] > saved["games"]
    assert not [p for p in out.rglob("*") if TEMPORARY_PATTERN.match(p.name)]
    net = load_value_net(out / "final_model.npz")
    assert net.inputs == NUM_FEATURES
    history = json.loads((out / "eval_history.json").read_text())
    assert history[-1]["timesteps"] == final["timesteps"]
    assert {"random", "greedy"} <= set(history[-1])
    assert (out / "plots" / "training.png").stat().st_size > 10_000
    ev = _cli("evaluate", str(out), "--deals", "1", "--opponents", "random")
    stdout, stderr = ev.communicate(timeout=300)
    assert ev.returncode == 0, stderr
    assert "| random | 1 | 2 |" in stdout  # 1 deal, 2 games


def test_afterstate_cli_errors_are_one_line(tmp_path) -> None:
    bad = _cli("train", "--algo", "afterstate", "--game", "cardcassonne", "--out",
               str(tmp_path / "x"), "--positions", "10", "--set", "feature_set=table")  # fmt: skip
    _, stderr = bad.communicate(timeout=120)
    assert bad.returncode != 0 and "the card game reads feature_set 'card'" in stderr
    assert "Traceback" not in stderr
    bad = _cli("train", "--algo", "afterstate", "--out", str(tmp_path / "y"), "--positions",
               "10", "--set", "td_lambda=2")  # fmt: skip
    _, stderr = bad.communicate(timeout=120)
    assert bad.returncode != 0 and "td_lambda" in stderr and "Traceback" not in stderr


def test_config_round_trip_and_validation(tmp_path) -> None:
    config = AfterstateConfig(hidden=(32, 16), expansions=("messages",))
    config.save(tmp_path / "config.json")
    assert AfterstateConfig.load(tmp_path / "config.json") == config
    with pytest.raises(ValueError, match="no expansions"):
        AfterstateConfig(game="cardcassonne", expansions=("messages",))
    with pytest.raises(ValueError, match="hidden"):
        AfterstateConfig(hidden=(0,))
    # a run saved when the 2-player feature set was named v1 loads as that set (and resumes:
    # its config equals today's default)
    old = config.to_dict() | {"feature_set": "v1"}
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert AfterstateConfig.load(tmp_path / "old.json") == config
    assert config.feature_set == "two_player"


def test_mixed_tables_record_table_features_with_greedy_and_snapshot_seats() -> None:
    """Self-play at several tables: every seat's positions are recorded with the table
    features; the network seats' margins against greedy are kept per player count."""
    from carcassonne_rl.encoders.features.table import NUM_TABLE_FEATURES
    from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, SNAPSHOT

    config = AfterstateConfig(workers=1, hidden=(8,), feature_set="table",
                              tables=("3", "4+messages"))  # fmt: skip
    assert config.table_list() == [(3, ()), (4, ("messages",))]
    net = export(Learner(config).model, config)
    assert net.meta["feature_set"] == "table" and net.inputs == NUM_TABLE_FEATURES
    old = export(Learner(AfterstateConfig(workers=1, hidden=(8,), feature_set="table", seed=5))
                 .model, config)  # fmt: skip
    tables = [(3, ()), (4, ("messages",))]
    lineups = [[NET, GREEDY, GREEDY], [NET, SNAPSHOT, GREEDY, NET]]
    out = play_games(config, net.layers, net.meta, [1, 2], None, 0, tables, lineups, old.layers)
    assert out["x"].shape[1] == NUM_TABLE_FEATURES and len(out["x"]) == len(out["y"])
    assert len(out["x"]) > 100 and np.all(np.abs(out["y"]) <= 1.0)
    by_players = out["margins_vs_greedy_by_players"]
    assert sorted(by_players) == [3, 4] and len(by_players[3]) == 1 and len(by_players[4]) == 2
    from carcassonne_rl.encoders.features.table import PLAYER_FEATURES, SLOT_FEATURES

    present = out["x"][:, PLAYER_FEATURES + 2 * SLOT_FEATURES + PLAYER_FEATURES]  # 3rd slot
    assert set(np.unique(present)) <= {0.0, 1.0} and present.any() and not present.all()


def test_table_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="players must be 2-5"):
        AfterstateConfig(tables=("6",))
    with pytest.raises(ValueError, match="expansions must be distinct"):
        AfterstateConfig(tables=("4+dragons",))
    with pytest.raises(ValueError, match="expected PLAYERS"):
        AfterstateConfig(tables=("four",))
    with pytest.raises(ValueError, match="feature_set"):
        AfterstateConfig(feature_set="v7")


def test_heuristic_baseline_plays_the_heuristic_agents_moves() -> None:
    """With ``baseline_agent=heuristic`` the baseline seats play ``heuristic``'s moves: a
    baseline-only game ends with the margins of the same game replayed by the agent."""
    from carcassonne_rl.agents.tile.heuristic import TileHeuristicAgent

    config = AfterstateConfig(workers=1, epsilon=0.0, baseline_agent="heuristic")
    out = play_games(config, None, {}, [7], [-1], seed=2)
    expected, margin = _replayed_targets(TileHeuristicAgent(seed=2), 7)
    assert margin != 0 and np.allclose(out["y"], expected, atol=1e-6)
    greedy = play_games(AfterstateConfig(workers=1, epsilon=0.0), None, {}, [7], [-1], seed=2)
    assert not np.array_equal(greedy["y"], out["y"])  # greedy plays another game
    with pytest.raises(ValueError, match="baseline_agent must be one of"):
        AfterstateConfig(baseline_agent="mcts")


def test_init_model_starts_from_the_file_without_warm_up(tmp_path, monkeypatch) -> None:
    """``init_model``: the learner starts with the file's weights (the exported network
    values inputs as the file does) and the run plays no greedy warm-up game; a file that
    does not fit the config is refused, naming what differs."""
    from carcassonne_rl.agents.common.value_net import MLP
    from carcassonne_rl.training.afterstate import trainer

    source = export(Learner(AfterstateConfig(workers=1, hidden=(16, 8), seed=11)).model,
                    AfterstateConfig(workers=1, hidden=(16, 8)))  # fmt: skip
    path = tmp_path / "start.npz"
    source.save(path)
    config = AfterstateConfig(workers=1, hidden=(16, 8), init_model=str(path), warm_games=1000,
                              timesteps=50, games_per_iteration=2, games_in_flight=2,
                              eval_every=0, checkpoint_every=1)  # fmt: skip
    started = export(Learner(config).model, config)
    x = np.random.default_rng(0).normal(size=(20, NUM_FEATURES)).astype(np.float32)
    assert np.allclose(started.forward(x), MLP.load(path).forward(x), atol=1e-6)
    assert not np.allclose(export(Learner(AfterstateConfig(workers=1, hidden=(16, 8)))
                                  .model, config).forward(x), started.forward(x))  # fmt: skip
    nets_played = []
    real = trainer._self_play
    monkeypatch.setattr(
        trainer, "_self_play", lambda c, net, *a: nets_played.append(net) or real(c, net, *a)
    )
    trainer.train_afterstate(config, tmp_path / "run", progress=False)
    assert nets_played and all(net is not None for net in nets_played)  # no warm-up game
    refusals = (
        (dict(hidden=(16,)), "hidden layers"),
        (dict(value_scale=10.0), "value_scale"),
        (dict(feature_set="table"), "feature set"),
    )
    for bad, what in refusals:
        with pytest.raises(ValueError, match=what):
            Learner(AfterstateConfig(**{"workers": 1, "hidden": (16, 8), "init_model": str(path),
                                        **bad}))  # fmt: skip
    with pytest.raises(ValueError, match="no such model file"):
        Learner(AfterstateConfig(workers=1, init_model=str(tmp_path / "none.npz")))


def test_the_iteration_lines_and_the_evaluation_report_progress(tmp_path, capsys) -> None:
    """With ``progress`` the ``[afterstate]`` lines are progress lines (``progress.phase``:
    stdout, counted for the watchdog) and the evaluation's games report progress too (plain
    lines on stderr off a terminal, one run per baseline)."""
    from carcassonne_rl.runtime import progress
    from carcassonne_rl.training.afterstate import trainer

    config = AfterstateConfig(workers=1, hidden=(16, 8), warm_games=0, timesteps=50,
                              games_per_iteration=2, games_in_flight=2, eval_every=0,
                              eval_deals=1, baselines=("random",),
                              checkpoint_every=1000)  # fmt: skip
    before = progress._lines[0]
    trainer.train_afterstate(config, tmp_path / "run", progress=True)
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    iterations = [line for line in lines if re.match(r"\[afterstate\] \d+/50 positions", line)]
    assert iterations and any(line.startswith("[afterstate] evaluating at") for line in lines)
    assert progress._lines[0] - before >= len(iterations) + 1
    assert any(line.startswith("vs random: 2/2 games") for line in captured.err.splitlines())
