"""The card game's afterstate learner: features by hand, Monte-Carlo targets, a tiny run that
``policy:`` loads, kill and resume (``train --game cardcassonne --algo afterstate``)."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers.card import random_playout, scripted

from carcassonne_rl.encoders.features.card import (
    NUM_CARD_FEATURES,
    OPTION_SEAT,
    ROW_FEATURES,
    STATIC_FEATURES,
    STATIC_SEAT,
    CardFeatures,
    option_features,
)
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, parse_action_code, view
from carcassonne_rl.games.cardcassonne.cards import NUM_KINDS, parse_card
from carcassonne_rl.training.afterstate.card_selfplay import play_card_games
from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.learner import Learner, export
from carcassonne_rl.training.run_files import TEMPORARY_PATTERN

HAND = STATIC_FEATURES  # own hand per kind (/ 3)
ROWS = HAND + NUM_KINDS  # 4 rows x ROW_FEATURES
SEATS = ROWS + 4 * ROW_FEATURES  # seat slots x OPTION_SEAT
SETUP = ["Y1", "Y2", "R1", "R3", "G1", "GA", "B1", "BH", "Y3", "R2"]
HANDS = {0: ["Y1", "Y1", "R1", "G1", "GA", "BH"], 1: ["B1", "B2", "B3", "R1", "R2", "G2"]}


def _deal():
    """Round 1 of a 2-player deal: rows Y1 Y2 Y3 | R1 R3 R2 | G1 GA | B1 BH; seat 0 to move."""
    s = scripted(2, SETUP, [(1, HANDS)])
    assert s.phase == "turn" and s.current_player == 0
    return s


def test_features_of_a_scripted_deal_by_hand() -> None:
    v = view(_deal(), 0)
    f = CardFeatures(v)
    # static: 2 players, 114 cards unseen (130 - 10 setup - 6 in hand), 5 of 8 Y1, dealer 1
    s = f.static
    assert s[0] == 1.0 and s[1:4].sum() == 0.0
    assert s[7 + parse_card("Y1")] == pytest.approx(5 / 8)
    assert s[7 + NUM_KINDS] == pytest.approx(114 / 120)
    assert s[8 + NUM_KINDS + 13] == 0.0 and s[8 + NUM_KINDS + STATIC_SEAT + 13] == 1.0
    # my follower on the yellow row locks Y1 Y2 Y3: (1 + 2 + 3) x 3 = 18 points; seat 1's
    # best rows are then red 18, green 1 + one animal 3, blue 1 (one building: no set)
    x = f.after(parse_action_code("follower Y"))
    me, other = SEATS, SEATS + OPTION_SEAT
    assert x[me + 2 : me + 6].tolist() == [1, 0, 0, 0] and x[me + 6] == pytest.approx(18 / 30)
    assert x[me] == 1.0 and x[me + 12] == 1.0 and x[me + 13] == 0.0  # last follower, placed
    assert np.allclose(x[other + 7 : other + 11] * 30, [0, 18, 4, 1], atol=1e-5)
    assert x[other + 13] == 1.0 and x[other + 6] == 0.0
    assert x[ROWS + 13] == pytest.approx(1 / 3)  # one follower in the yellow row
    assert x[-1] == pytest.approx(0.0)  # greedy margin: 18 locked - 18 for seat 1
    # Y1 face down on yellow: 4 persons worth 7 x 4 = 28, one own face-down card, Y1 left 1
    x = f.after(parse_action_code("Y1 Y down"))
    y = x[ROWS : ROWS + ROW_FEATURES]
    assert np.allclose(y[:4] * [4, 8, 40, 3], [4, 7, 28, 0]) and y[10] == pytest.approx(1 / 3)
    assert y[11] == 0.0 and y[12] == pytest.approx(4 / 8)
    assert x[HAND + parse_card("Y1")] == pytest.approx(1 / 3)
    assert x[me] == pytest.approx(5 / 6) and x[me + 1] == pytest.approx(1 / 6)
    assert np.allclose(x[me + 7 : me + 11] * 30, [28, 18, 4, 1], atol=1e-5)
    # BH face down on red is misplaced: 10 points to whoever claims red (18 + 10)
    x = f.after(parse_action_code("BH R down"))
    r = x[ROWS + ROW_FEATURES : ROWS + 2 * ROW_FEATURES]
    assert r[11] == pytest.approx(0.5) and r[4] == 0.0
    assert x[me + 8] * 30 == pytest.approx(28) and x[other + 8] * 30 == pytest.approx(28)
    assert x.shape == (NUM_CARD_FEATURES,)


def test_features_cannot_tell_states_the_seat_cannot_tell_apart() -> None:
    """Twin states (hidden cards redrawn by ``resample_hidden``) give the same features for
    every option; the redraws really differ."""
    rng = random.Random(4)
    checked = 0
    for seed in range(6):
        s = new_game(GameConfig(players=2 + seed % 4, seed=seed))
        random_playout(s, rng, stop_after=rng.randrange(5, 60))
        if s.is_over or s.phase != "turn":
            continue
        p = s.current_player
        twin = s.resample_hidden(rng, p)
        others = [q for q in range(s.num_players) if q != p]
        assert any(s.hands[q] != twin.hands[q] for q in others) or not s.deck_cards()
        legal = s.legal_codes()
        a = option_features(view(s, p), legal)
        b = option_features(view(twin, p), legal)
        assert a.shape == (len(legal), NUM_CARD_FEATURES) and np.array_equal(a, b)
        checked += 1
    assert checked >= 4


def test_warm_up_targets_are_the_final_margins_of_the_heuristic_game() -> None:
    """Warm-up games (the baseline in every seat, no exploration): each seat's turn
    decisions are recorded with tanh(final margin / value_scale), as in a game replayed here
    by the heuristic agent."""
    from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent

    config = AfterstateConfig(game="cardcassonne", players=3, workers=1, epsilon=0.0,
                              value_scale=50.0, baseline_agent="heuristic")  # fmt: skip
    out = play_card_games(config, None, {}, [9], [-1], seed=3)
    s = new_game(GameConfig(players=3, seed=9))
    agent = CardHeuristicAgent(seed=3)
    turns = [0, 0, 0]
    while not s.is_over:
        turns[s.current_player] += s.phase == "turn"
        s.apply_code(agent.act(s, s.current_player))
    sc = s.scores
    margins = [sc[q] - np.delete(sc, q).max() for q in range(3)]
    expected = np.concatenate(
        [np.full(n, math.tanh(m / 50.0)) for n, m in zip(turns, margins, strict=True)]
    )
    assert out["x"].shape == (sum(turns), NUM_CARD_FEATURES)
    assert np.allclose(out["y"], expected, atol=1e-6) and out["games"] == 1


def test_network_seats_with_snapshot_and_baseline_seats_at_mixed_tables() -> None:
    from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, SNAPSHOT

    config = AfterstateConfig(game="cardcassonne", workers=1, hidden=(8,), tables=("2", "4"))
    assert config.table_list() == [(2, ()), (4, ())] and config.feature_set == "card"
    net = export(Learner(config).model, config)
    assert net.meta["kind"] == "card_afterstate_value" and net.inputs == NUM_CARD_FEATURES
    lineups = [[NET, GREEDY], [NET, SNAPSHOT, GREEDY, NET]]
    out = play_card_games(config, net.layers, net.meta, [1, 2], None, 0, [(2, ()), (4, ())],
                          lineups, net.layers)  # fmt: skip
    assert len(out["x"]) == len(out["y"]) > 200 and np.all(np.abs(out["y"]) <= 1.0)
    by_players = out["margins_vs_greedy_by_players"]
    assert sorted(by_players) == [2, 4] and [len(by_players[n]) for n in (2, 4)] == [1, 2]
    with pytest.raises(ValueError, match="no expansions"):
        AfterstateConfig(game="cardcassonne", tables=("3+messages",))


def _cli(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cmd = [sys.executable, "-m", "carcassonne_rl.cli.main", *args]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip


TINY = [
    "train", "--game", "cardcassonne", "--algo", "afterstate", "--set", "warm_games=2",
    "--set", "games_per_iteration=2", "--set", "games_in_flight=2", "--set",
    "checkpoint_every=1", "--set", "hidden=16,8", "--set", "tables=2,3", "--eval-every", "0",
    "--eval-deals", "1", "--envs", "1", "--no-progress",
]  # fmt: skip


def test_tiny_run_is_a_policy_that_plays_the_card_game(tmp_path) -> None:
    from carcassonne_rl.agents.card.value import CardValueAgent
    from carcassonne_rl.agents.registry import make_agent

    out = tmp_path / "run"
    proc = _cli(*TINY, "--timesteps", "300", "--out", str(out))
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    agent = make_agent(f"policy:{out / 'final_model.npz'}", "cardcassonne", seed=1)
    assert isinstance(agent, CardValueAgent)
    with pytest.raises(ValueError, match="plays cardcassonne, not carcassonne"):
        make_agent(f"policy:{out}", "carcassonne")
    s = new_game(GameConfig(players=3, seed=2))
    while not s.is_over:
        code = agent.act(s, s.current_player)
        assert code in s.legal_codes()
        s.apply_code(code)
    assert "(3p)" in stdout  # the final evaluation plays each table


def test_card_run_killed_resumes(tmp_path) -> None:
    out = tmp_path / "run"
    args = [*TINY, "--timesteps", "1500", "--out", str(out)]
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
    _, stderr = done.communicate(timeout=600)
    assert done.returncode == 0, stderr
    final = json.loads(state_file.read_text())
    assert final["timesteps"] >= 1500 and final["games"] > saved["games"]
    assert not [p for p in out.rglob("*") if TEMPORARY_PATTERN.match(p.name)]


def test_self_play_on_ray_learns_what_local_processes_learn(tmp_path) -> None:
    """``--address``: the same games played as Ray tasks give the same network."""
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')
    from carcassonne_rl.training.afterstate.trainer import train_afterstate

    assert not ray.is_initialized()
    config = AfterstateConfig(game="cardcassonne", workers=2, hidden=(8,), tables=("2", "3"),
                              warm_games=2, games_per_iteration=4, games_in_flight=2,
                              timesteps=800, eval_every=0, checkpoint_every=400,
                              eval_deals=1, baselines=("random",))  # fmt: skip
    local = train_afterstate(config, tmp_path / "local", progress=False)
    remote = train_afterstate(config, tmp_path / "ray", progress=False, address="local")
    assert not ray.is_initialized()  # the session it opened is closed
    for (w, b), (w2, b2) in zip(local.layers, remote.layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    states = [json.loads((tmp_path / f / "trainer_state.json").read_text()) for f in
              ("local", "ray")]  # fmt: skip
    assert states[0]["games"] == states[1]["games"] >= 8
