"""The tile teacher against other agents (``expert-loop --opponents``): the search plays one
seat, the opponents the others, only the search's placements are recorded, and the gate
compares the candidate with the teacher's network against the same opponents (tiny
budgets)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.cli.main import main
from carcassonne_rl.training.expert_iteration import positions
from carcassonne_rl.training.expert_iteration.loop import LoopConfig
from carcassonne_rl.training.expert_iteration.positions import (
    collect,
    play_teacher_game,
    teacher_jobs,
)
from carcassonne_rl.training.expert_iteration.teachers import check_opponents, opponent_seed

TEACHER = "pretrained:search=1:0"


class Spy:
    """An agent that records the seats and phases it was asked to act in."""

    def __init__(self, agent, log: list) -> None:
        self.agent, self.log = agent, log

    def act(self, state, player: int) -> int:
        self.log.append((player, state.phase, state.current_player))
        return self.agent.act(state, player)


def test_the_search_plays_one_seat_and_records_only_it(monkeypatch) -> None:
    opponent_moves: list = []
    searched: list = []
    make_opponents, make_teacher = positions.make_opponents, positions.make_teacher

    def spied_opponents(spec, seed, players, seat):
        made = make_opponents(spec, seed, players, seat)
        return {s: Spy(a, opponent_moves) for s, a in made.items()}

    def spied_teacher(spec, seed, players=2):
        teacher = make_teacher(spec, seed, players)
        search = teacher.search

        def spy(state, player):
            searched.append((player, state.current_player))
            return search(state, player)

        teacher.search = spy
        return teacher

    monkeypatch.setattr(positions, "make_opponents", spied_opponents)
    monkeypatch.setattr(positions, "make_teacher", spied_teacher)
    rows = play_teacher_game(TEACHER, deal=11, seed=4, keep=3, placements=9, players=3,
                             opponents="greedy", seat=1)  # fmt: skip
    # 9 placements at 3 seats, seat 1 the second to move: its placements 2, 5 and 8
    assert [p for p, _ in searched] == [1, 1, 1] and all(p == c for p, c in searched)
    placing = [p for p, phase, _ in opponent_moves if phase == "place_tile"]
    assert placing == [0, 2, 0, 2, 0, 2]
    assert {p for p, _, c in opponent_moves} == {0, 2}
    assert all(p == c for p, _, c in opponent_moves)
    # only the searched placements are rows (those with two options or more)
    assert set(rows["decision"].tolist()) <= {0, 1, 2} and len(rows["scores"]) == 3
    assert rows["chosen"].sum() == len(set(rows["decision"].tolist()))


def test_the_opponents_are_seeded_copies_and_the_games_repeat() -> None:
    first = play_teacher_game(TEACHER, deal=3, seed=2, keep=2, placements=8, players=2,
                              opponents="random", seat=0)  # fmt: skip
    again = play_teacher_game(TEACHER, deal=3, seed=2, keep=2, placements=8, players=2,
                              opponents="random", seat=0)  # fmt: skip
    for key in ("x", "target", "decision", "scores"):
        np.testing.assert_array_equal(first[key], again[key])
    assert opponent_seed(2, 1) != opponent_seed(2, 2) != 2
    # the search in both seats: the same deal, other rows (its second placement differs)
    both = play_teacher_game(TEACHER, deal=3, seed=2, keep=2, placements=8, players=2)
    assert len(set(both["decision"].tolist())) > len(set(first["decision"].tolist()))


def test_the_teacher_seat_rotates_per_table() -> None:
    jobs = teacher_jobs("f", 6, TEACHER, 0, tables=(3,), opponents="greedy")
    assert [j[10] for j in jobs] == [("greedy", s) for s in (0, 1, 2, 0, 1, 2)]
    jobs = teacher_jobs("f", 4, TEACHER, 0, tables=(3, 4), opponents="greedy")
    assert [(j[1], j[10][1]) for j in jobs] == [(3, 0), (4, 0), (3, 1), (4, 1)]
    assert all(j[10] is None for j in teacher_jobs("f", 2, TEACHER, 0))


def test_a_folder_keeps_its_opponents(tmp_path) -> None:
    folder = tmp_path / "teacher"
    assert collect(folder, 1, TEACHER, placements=4, keep=2, tables=(3,),
                   opponents="greedy") == 1  # fmt: skip
    assert json.loads((folder / "positions.json").read_text())["opponents"] == "greedy"
    with pytest.raises(ValueError, match="opponents"):
        collect(folder, 1, TEACHER, placements=4, keep=2, tables=(3,), opponents="random")
    with pytest.raises(ValueError, match="opponents"):
        collect(folder, 1, TEACHER, placements=4, keep=2, tables=(3,))


def test_bad_opponents_are_one_clear_message(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["expert-loop", str(run), "--opponents", "nosuchagent"]) == 2
    err = capsys.readouterr().err.strip()
    assert "nosuchagent" in err and len(err.splitlines()) == 1 and not run.exists()
    assert main(["expert-loop", str(run), "--game", "cardcassonne", "--opponents",
                 "greedy"]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert "opponents" in err and len(err.splitlines()) == 1 and not run.exists()
    with pytest.raises(ValueError, match="opponents"):
        check_opponents("cardcassonne", "greedy", (2,))


def test_a_loop_against_greedy_gates_against_greedy(tmp_path, capsys) -> None:
    run = (tmp_path / "run").resolve()
    argv = ["expert-loop", str(run), "--tables", "3", "--opponents", "greedy", "--games", "3",
            "--candidates", "1", "--samples", "0", "--placements", "9", "--epochs", "1",
            "--batch-size", "8", "--validation", "0", "--gate-deals", "2", "--no-progress"]
    assert main(argv) == 0
    capsys.readouterr()
    summary = json.loads((run / "loop.json").read_text())
    assert summary["config"]["opponents"] == "greedy"
    result = json.loads((run / "iteration_0" / "gate.json").read_text())
    three = result["tables"]["3"]
    # both networks played the same 2 deals from each of the 3 seats against 2 greedy seats
    assert result["opponents"] == "greedy" and three["games"] == 6
    gain = (three["candidate_win_rate"] - three["teacher_win_rate"]) * 3
    assert result["fair_shares_gained"] == pytest.approx(gain)
    assert result["accepted"] == (gain >= 2 * 0.55 - 1 - 1e-12)
    # each of its 3 teacher games holds the search's placements of one seat: 3 of the 9
    for path in (run / "iteration_0" / "teacher").glob("game_*.npz"):
        with np.load(path) as z:
            assert len(set(z["decision"].tolist())) <= 3 and len(z["scores"]) == 3
    # the same command goes on (nothing to do); another opponent is refused
    assert main(argv) == 0
    capsys.readouterr()
    assert main([*argv[:5], "random", *argv[6:]]) == 2
    assert "opponents" in capsys.readouterr().err
    assert LoopConfig(opponents="greedy").opponents == "greedy"


def test_a_table_network_named_blended_is_searched_blended(tmp_path) -> None:
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.agents.pretrained import TABLE_MODEL_FILE, model_dir
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.games.registry import new_game

    net = load_value_net(model_dir() / TABLE_MODEL_FILE)
    net.meta["heuristic_blend"] = 0.75
    blended = tmp_path / "table_blend.npz"
    net.save(blended)
    state = new_game("carcassonne", 3, 7, ())
    searches = {}
    for name, path in (("alone", model_dir() / TABLE_MODEL_FILE), ("blended", blended)):
        agent = make_agent(f"pretrained:search=2:0@{path}", "carcassonne", seed=1)
        searches[name] = agent.value_agent_at(3)
    assert searches["alone"].weight is None and searches["blended"].weight == 0.75
    # the blended search starts from the average pretrained plays at 3 players
    blend_agent = make_agent(f"policy:{blended}", "carcassonne", seed=1)
    player = state.current_player
    opts, prior, _ = searches["blended"].search(state, player)
    _, alone_prior, _ = searches["alone"].search(state, player)
    assert not np.allclose(prior, alone_prior)
    np.testing.assert_allclose(prior, blend_agent.option_values(opts, player), rtol=1e-6)
    # the loop takes target blend at tables from such a file only
    assert LoopConfig(tables=(3,), target="blend", init_model=str(blended)).target == "blend"
    with pytest.raises(ValueError, match="target blend at tables"):
        LoopConfig(tables=(3,), target="blend", init_model=str(model_dir() / TABLE_MODEL_FILE))


def test_export_marks_a_table_network_blended(tmp_path, capsys) -> None:
    from carcassonne_rl.agents.pretrained import TABLE_MODEL_FILE, model_dir
    from carcassonne_rl.agents.registry import load_trained
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.agents.tile.blend import BlendedAgent

    out = tmp_path / "table_blend.npz"
    assert main(["export", TABLE_MODEL_FILE, str(out), "--blend", "0.75"]) == 0
    assert "the network's share 0.75" in capsys.readouterr().out
    marked, shipped = load_value_net(out), load_value_net(model_dir() / TABLE_MODEL_FILE)
    assert marked.meta["heuristic_blend"] == 0.75 and "heuristic_blend" not in shipped.meta
    for (w, b), (w0, b0) in zip(marked.layers, shipped.layers, strict=True):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
    agent = load_trained(str(out), "carcassonne")
    assert isinstance(agent, BlendedAgent) and agent.weight == 0.75
    for bad, message in (("1.5", "must be in (0, 1)"), ("0", "must be in (0, 1)")):
        with pytest.raises(SystemExit, match=message.replace("(", r"\(").replace(")", r"\)")):
            main(["export", TABLE_MODEL_FILE, str(tmp_path / "bad.npz"), "--blend", bad])
        assert not (tmp_path / "bad.npz").exists()
