"""The warm start's distillation: the teacher's values of every option as soft targets."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile.greedy import after
from carcassonne_rl.encoders.tile.encoder_v1 import TileEncoderV1
from carcassonne_rl.encoders.tile.symmetry import rotate_index
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.training.ppo import warm_start
from carcassonne_rl.training.ppo.selfplay import make_vec_env, new_model
from carcassonne_rl.training.ppo.warm_start import collect, pretrain, soft_targets
from carcassonne_rl.training.train_config import TrainConfig

TINY = dict(
    n_envs=1, n_steps=64, batch_size=64, n_epochs=1, channels=8, conv_layers=2, hidden=32,
    warm_start_games=1, warm_start_epochs=1, observation="v1", tile_net="board",
    warm_start_agent="pretrained", warm_start_temperature=0.01,
)  # fmt: skip


def _positions(plies: int) -> list:
    """Positions of one greedy game, every few decisions (placements and followers)."""
    state = new_game(GameConfig(players=2, seed=11))
    greedy = make_agent("greedy", "carcassonne", seed=0)
    out = []
    for ply in range(plies):
        if ply % 5 in (0, 1):
            out.append(state.clone())
        state.apply_code(greedy.act(state, state.current_player))
    return out


def test_decision_values_value_every_legal_code_and_rank_the_move_played():
    """(At 2 players ``pretrained``'s values are the network-heuristic blend, checked
    against both estimators in tests/agents/test_blend.py.)"""
    agent = make_agent("pretrained", "carcassonne", seed=0)
    for state in _positions(30):
        p = state.current_player
        codes, vals = agent.decision_values(state, p)
        assert sorted(codes) == sorted(state.legal_action_codes().tolist())
        # computed again, option by option: a placement is worth its best follower option
        for code, v in zip(codes, vals, strict=True):
            child = after(state, code)
            if state.phase == "place_tile" and child.phase == "place_follower":
                kids = [after(child, f) for f in child.legal_action_codes().tolist()]
                expected = agent.two.values(kids, p).max()
            else:
                expected = agent.two.values([child], p)[0]
            assert v == pytest.approx(expected, abs=1e-6)
        if (vals >= vals.max() - 1e-7).sum() == 1:
            assert agent.act(state, p) == codes[int(np.argmax(vals))]


def test_soft_targets_are_a_softmax_over_the_legal_actions():
    values = torch.tensor([[0.5, 0.2, 0.9, 0.0], [0.1, 0.1, 0.0, 0.0]])
    mask = torch.tensor([[True, True, False, True], [True, True, False, False]])
    q = soft_targets(values, mask, temperature=0.1)
    e = np.exp(np.array([0.5, 0.2, 0.0]) / 0.1)
    assert q[0].tolist() == pytest.approx([e[0] / e.sum(), e[1] / e.sum(), 0.0, e[2] / e.sum()])
    assert q[1].tolist() == pytest.approx([0.5, 0.5, 0.0, 0.0])


def test_soft_warm_start_records_turns_and_fits_the_teachers_values(tmp_path):
    config = TrainConfig(game="carcassonne", **TINY)
    data = collect(config, games=1, seed=3, cache=tmp_path)
    again = collect(config, games=1, seed=3, cache=tmp_path)  # read back from the cache
    values, masks, actions = data["values"], data["masks"], data["actions"]
    assert np.array_equal(again["values"], values) and values.dtype == np.float16
    assert not values[~masks].any()  # nothing outside the legal actions
    choosing = masks.sum(axis=1) > 1
    best = np.where(masks, values.astype(np.float32), -np.inf).argmax(axis=1)
    assert (best == actions)[choosing].mean() > 0.7  # the teacher plays its best (ties aside)
    # a quarter turn moves each value with its action, as the masks move
    enc = TileEncoderV1()
    turns = np.ones(len(values), np.int64)
    turned = warm_start._turned_values(enc, values, turns)
    row = int(np.flatnonzero(choosing)[0])
    for i in np.flatnonzero(values[row]):
        j = rotate_index(int(i), 1, enc.window, enc.messages)
        assert turned[row, j] == values[row, i]
    env = make_vec_env(config)
    model = new_model(config, env, None)
    env.close()
    first = pretrain(model, data, epochs=1, batch_size=32, learning_rate=1e-3, temperature=0.01)
    last = pretrain(model, data, epochs=12, batch_size=32, learning_rate=1e-3, temperature=0.01)
    assert last["bc_loss"] < first["bc_loss"]
    with pytest.raises(ValueError, match="values"):
        pretrain(model, {k: v for k, v in data.items() if k != "values"}, 1, temperature=0.01)


def test_a_temperature_needs_a_teacher_that_values_its_options():
    with pytest.raises(ValueError, match="warm_start_temperature"):
        TrainConfig(game="carcassonne", warm_start_temperature=0.0)
    config = TrainConfig(game="carcassonne", **{**TINY, "warm_start_agent": "greedy"})
    with pytest.raises(ValueError, match="warm_start_temperature.*greedy"):
        collect(config, games=1, seed=3)


def test_dagger_games_play_the_students_moves_with_the_teachers_labels():
    plain = dict(TINY, warm_start_temperature=None, warm_start_agent="random")
    random_games = collect(TrainConfig(game="carcassonne", **plain), games=1, seed=4)
    dagger = TrainConfig(game="carcassonne", **{**TINY, "warm_start_student": "random",
                                                 "warm_start_student_games": 1})  # fmt: skip
    labelled = collect(dagger, games=1, seed=4)
    # the same positions as random playing every seat (same seeds) ...
    for key in ("board", "globals"):
        assert np.array_equal(labelled["obs"][key], random_games["obs"][key])
    # ... labelled with the teacher's moves and values, not the moves played
    best = np.where(labelled["masks"], labelled["values"].astype(np.float32), -np.inf).argmax(1)
    choosing = labelled["masks"].sum(axis=1) > 1
    assert (best == labelled["actions"])[choosing].mean() > 0.7
    assert (labelled["actions"] != random_games["actions"])[choosing].mean() > 0.5
    # only the last warm_start_student_games are the student's
    mixed = collect(TrainConfig(game="carcassonne", **{**TINY, "warm_start_games": 2,
                                "warm_start_student": "random", "warm_start_student_games": 1}),
                    games=2, seed=3)  # fmt: skip
    teacher_only = collect(TrainConfig(game="carcassonne", **TINY), games=1, seed=3)
    n = len(teacher_only["actions"])
    assert np.array_equal(mixed["obs"]["board"][:n], teacher_only["obs"]["board"])


def test_warm_start_init_copies_a_saved_policy(tmp_path):
    from carcassonne_rl.cli.train import parse_overrides
    from carcassonne_rl.training.ppo.selfplay import init_policy

    config = TrainConfig(game="carcassonne", **TINY)
    env = make_vec_env(config)
    saved, fresh = new_model(config, env, None), new_model(config, env, None)
    for p in saved.policy.parameters():
        torch.nn.init.normal_(p)
    saved.save(tmp_path / "saved.zip")
    init_policy(fresh, tmp_path / "saved.zip")
    for a, b in zip(saved.policy.parameters(), fresh.policy.parameters(), strict=True):
        assert torch.equal(a, b)
    wider = new_model(TrainConfig(game="carcassonne", **{**TINY, "channels": 16}), env, None)
    env.close()
    with pytest.raises(ValueError, match="another network shape"):
        init_policy(wider, tmp_path / "saved.zip")
    with pytest.raises(FileNotFoundError, match="warm_start_init"):
        init_policy(fresh, tmp_path / "missing.zip")
    assert parse_overrides(["warm_start_student=None"]) == {"warm_start_student": None}
    assert parse_overrides(["warm_start_init=a.zip"]) == {"warm_start_init": "a.zip"}
    with pytest.raises(ValueError, match="warm_start_student"):
        TrainConfig(game="carcassonne", warm_start_student_games=1)
    with pytest.raises(ValueError, match="<= warm_start_games"):
        TrainConfig(game="carcassonne", warm_start_games=1, warm_start_student="random",
                    warm_start_student_games=2)  # fmt: skip
