"""The card afterstate learner with ``card_network=search_value``: Monte-Carlo fine-tuning of
expert iteration's student (inputs: afterstate features and the heuristic's margin; linear
margin targets; the heuristic's best candidates), from a model file, against baseline seats."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from carcassonne_rl.agents.card.greedy import CardGreedyAgent
from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.value import NUM_SEARCH_INPUTS, CardSearchValueAgent
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.encoders.features.card import NUM_CARD_FEATURES, CardFeatures
from carcassonne_rl.games.cardcassonne import GameConfig, new_game, view
from carcassonne_rl.training.afterstate.card_selfplay import play_card_games
from carcassonne_rl.training.afterstate.config import AfterstateConfig
from carcassonne_rl.training.afterstate.learner import Learner, export
from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET

SV = {"game": "cardcassonne", "card_network": "search_value", "workers": 1}


def test_warm_up_rows_are_features_and_heuristic_margin_with_linear_margin_targets() -> None:
    """Heuristic in every seat, no exploration: each turn decision is recorded as the chosen
    option's afterstate features and the heuristic's projected margin / 30, its target the
    seat's final margin / value_scale (no tanh), as in the game replayed here."""
    config = AfterstateConfig(players=3, epsilon=0.0, value_scale=10.0,
                              baseline_agent="heuristic", **SV)  # fmt: skip
    out = play_card_games(config, None, {}, [5], [-1], seed=2)
    s = new_game(GameConfig(players=3, seed=5))
    agent = CardHeuristicAgent(seed=2)
    rows: list[list[np.ndarray]] = [[], [], []]
    while not s.is_over:
        p = s.current_player
        v = view(s, p)
        code = agent.act(s, p)
        if v.phase == "turn":
            margin = dict(CardHeuristicAgent(None).scored(v, s.legal_codes()))[code]
            rows[p].append(np.append(CardFeatures(v).after(code), margin / 30.0))
        s.apply_code(code)
    sc = s.scores
    finals = [(sc[q] - np.delete(sc, q).max()) / 10.0 for q in range(3)]
    assert out["x"].shape == (sum(map(len, rows)), NUM_SEARCH_INPUTS)
    assert np.allclose(out["x"], np.concatenate([np.stack(r) for r in rows]), atol=1e-6)
    expected = np.concatenate([np.full(len(r), m) for r, m in zip(rows, finals, strict=True)])
    assert np.allclose(out["y"], expected, atol=1e-6) and np.abs(expected).max() > 1.0


def test_network_seats_rank_only_the_heuristics_best_candidates() -> None:
    """With one candidate and no exploration a network seat plays the heuristic's best
    option whatever its weights: every recorded margin of it is the best of its decision."""
    config = AfterstateConfig(players=2, hidden=(8,), candidates=1, epsilon=0.0, **SV)
    net = export(Learner(config).model, config)
    assert net.meta["kind"] == "card_search_value" and net.inputs == NUM_SEARCH_INPUTS
    assert net.meta["output"] == "linear" and net.meta["candidates"] == 1
    out = play_card_games(config, net.layers, net.meta, [3], None, 0, None, [[NET, GREEDY]])
    best = []
    s = new_game(GameConfig(players=2, seed=3))
    greedy, helper = CardGreedyAgent(seed=0), CardHeuristicAgent(seed=0)  # as self-play's
    while not s.is_over:  # the same game: greedy seat 1, the heuristic's first best seat 0
        p = s.current_player
        v = view(s, p)
        legal = s.legal_codes()
        if p == 1:
            code = greedy.decide(v, legal)
        elif v.phase != "turn":
            code = helper.decide(v, legal)
        else:
            code, m = max(CardHeuristicAgent(None).scored(v, legal), key=lambda cm: cm[1])
            best.append(m / 30.0)
        s.apply_code(code)
    assert np.allclose(out["x"][: len(best), -1], best, atol=1e-6)


def test_calibration_moves_the_level_not_the_ranking() -> None:
    config = AfterstateConfig(players=2, hidden=(16, 8), **SV)
    learner = Learner(config)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, NUM_SEARCH_INPUTS)).astype(np.float32)
    y = rng.normal(2.0, 0.5, size=64).astype(np.float32)
    before = export(learner.model, config).forward(x)[:, 0]
    shift = learner.calibrate(x, y)
    after = export(learner.model, config).forward(x)[:, 0]
    assert after.mean() == pytest.approx(y.mean(), abs=1e-4)
    assert np.allclose(after - before, shift, atol=1e-4) and abs(shift) > 1.0


def test_settings_that_do_not_fit_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="card_network is a setting of the card game"):
        AfterstateConfig(card_network="search_value")
    with pytest.raises(ValueError, match="card_network must be one of"):
        AfterstateConfig(game="cardcassonne", card_network="policy")
    afterstate = AfterstateConfig(game="cardcassonne", hidden=(8,))
    path = tmp_path / "value.npz"
    export(Learner(afterstate).model, afterstate).save(path)
    with pytest.raises(ValueError, match="init_model: .*card_search_value"):
        Learner(AfterstateConfig(hidden=(8,), init_model=str(path), **SV))
    assert afterstate.target(30.0) == pytest.approx(np.tanh(1.0))
    assert AfterstateConfig(**SV).target(45.0) == pytest.approx(1.5)


def test_fine_tuned_file_plays_as_the_search_value_agent(tmp_path) -> None:
    """A tiny run from a search-value file (the CLI, heuristic seats) writes a file that
    ``policy:`` plays as the search-value agent with the run's candidates."""
    from carcassonne_rl.agents.registry import make_agent

    start = AfterstateConfig(hidden=(16, 8), **SV)
    init = tmp_path / "start.npz"
    export(Learner(start).model, start).save(init)
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "carcassonne_rl.cli.main", "train", "--game", "cardcassonne",
           "--algo", "afterstate", "--timesteps", "300", "--envs", "1", "--no-progress",
           "--set", "card_network=search_value", "--set", "hidden=16,8", "--set",
           "candidates=2", "--set", "baseline_agent=heuristic", "--set", "baselines=heuristic",
           "--set", f"init_model={init}", "--set", "games_per_iteration=2", "--set",
           "snapshot_every=100", "--eval-every",
           "0", "--eval-deals", "1", "--out", str(out)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    net = MLP.load(out / "final_model.npz")
    assert net.meta["kind"] == "card_search_value" and net.meta["candidates"] == 2
    assert not np.array_equal(net.layers[0][0], MLP.load(init).layers[0][0])  # it learnt
    agent = make_agent(f"policy:{out / 'final_model.npz'}", "cardcassonne", seed=1)
    assert isinstance(agent, CardSearchValueAgent) and agent.candidates == 2
    s = new_game(GameConfig(players=2, seed=4))
    while not s.is_over:
        code = agent.act(s, s.current_player)
        assert code in s.legal_codes()
        s.apply_code(code)
    assert NUM_SEARCH_INPUTS == NUM_CARD_FEATURES + 1


def test_export_copies_or_averages_an_afterstate_run(tmp_path, capsys) -> None:
    """``export RUN OUT`` copies a card run's network; ``--average`` writes the mean, weight
    by weight, of its snapshots and final network (computed here from the files)."""
    from carcassonne_rl.cli.main import main

    config = AfterstateConfig(hidden=(8, 4), **SV)
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    config.save(run / "config.json")
    files = [run / "snapshots" / f"step_{n}.npz" for n in (900, 50)] + [run / "final_model.npz"]
    for i, f in enumerate(files):
        learner = Learner(AfterstateConfig(hidden=(8, 4), seed=i, **SV))
        export(learner.model, config).save(f)
    assert main(["export", str(run), str(tmp_path / "copy.npz")]) == 0
    assert "search-value network" in capsys.readouterr().out
    copy = MLP.load(tmp_path / "copy.npz")
    assert np.array_equal(copy.layers[0][0], MLP.load(files[-1]).layers[0][0])
    assert main(["export", str(run), str(tmp_path / "mean.npz"), "--average"]) == 0
    mean = MLP.load(tmp_path / "mean.npz")
    nets = [MLP.load(f) for f in files]
    for i in range(3):
        for j in range(2):
            by_hand = sum(n.layers[i][j].astype(np.float64) for n in nets) / 3
            assert np.allclose(mean.layers[i][j], by_hand, atol=1e-6)
    assert mean.meta["averaged"] == ["step_50.npz", "step_900.npz", "final_model.npz"]
    assert mean.meta["kind"] == "card_search_value" and mean.meta["candidates"] == 3
    with pytest.raises(SystemExit, match="--average takes the folder of an afterstate run"):
        main(["export", str(files[0]), str(tmp_path / "x.npz"), "--average"])


def test_export_ensemble_packs_networks_into_one_that_outputs_their_mean(tmp_path) -> None:
    """``export A OUT --ensemble B C``: one network of widths summed whose output is the mean
    of the three networks' outputs (each computed here on its own); a tanh output or a
    network of another shape is refused with a message and writes nothing."""
    from carcassonne_rl.cli.main import main

    files = []
    for i, hidden in enumerate([(8, 4), (8, 4), (6, 5)]):
        config = AfterstateConfig(hidden=hidden, seed=i, **SV)
        files.append(tmp_path / f"n{i}.npz")
        export(Learner(config).model, config).save(files[-1])
    out = tmp_path / "ens.npz"
    args = ["export", str(files[0]), str(out), "--ensemble", str(files[1]), str(files[2])]
    assert main(args) == 0
    packed = MLP.load(out)
    assert packed.meta["hidden"] == [22, 13] and packed.meta["candidates"] == 3
    assert packed.meta["ensemble"] == [str(f) for f in files]
    x = np.random.default_rng(0).normal(size=(9, NUM_SEARCH_INPUTS)).astype(np.float32)
    by_hand = np.zeros((9, 1))
    for f in files:
        h = x.astype(np.float64)
        layers = MLP.load(f).layers
        for j, (w, b) in enumerate(layers):
            h = h @ w + b
            h = np.maximum(h, 0.0) if j < len(layers) - 1 else h
        by_hand += h / 3
    assert np.allclose(packed.forward(x), by_hand, atol=1e-4)
    tanh = MLP(MLP.load(files[1]).layers, {**MLP.load(files[1]).meta, "output": "tanh"})
    tanh.save(tmp_path / "tanh.npz")
    with pytest.raises(SystemExit, match="only networks with a linear output ensemble"):
        main(["export", str(files[0]), str(tmp_path / "x.npz"), "--ensemble",
              str(tmp_path / "tanh.npz")])  # fmt: skip
    other = MLP([(np.zeros((NUM_SEARCH_INPUTS, 4), np.float32), np.zeros(4, np.float32)),
                 (np.zeros((4, 1), np.float32), np.zeros(1, np.float32))],
                MLP.load(files[1]).meta)  # fmt: skip
    other.save(tmp_path / "shallow.npz")
    with pytest.raises(SystemExit, match="differ in kind, inputs, depth"):
        main(["export", str(files[0]), str(tmp_path / "x.npz"), "--ensemble",
              str(tmp_path / "shallow.npz")])  # fmt: skip
    assert not (tmp_path / "x.npz").exists()
