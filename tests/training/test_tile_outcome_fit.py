"""The game's outcome in the tile step's targets: ``finetune.with_outcome`` moves only the
played options, ``benchmarks/tile_outcome_fit.py`` finds each row's mover (the teacher's seat
as it searched, recorded by a spy) and a bad weight gets one line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers.benchmarks import benchmark

from carcassonne_rl.runtime.seeds import teacher_deal
from carcassonne_rl.training.expert_iteration import positions
from carcassonne_rl.training.expert_iteration.finetune import fit_targets, with_outcome
from carcassonne_rl.training.expert_iteration.positions import load_games, play_teacher_game

TEACHER = "pretrained:search=1:0"


def test_the_outcome_moves_the_played_options_margin_only() -> None:
    data = {"target": np.array([0.2, -0.1, np.nan, 0.5]), "chosen": np.array([1, 0, 0, 1], bool),
            "outcome": np.array([0.9, 0.9, 0.9, -0.4])}  # fmt: skip
    got = with_outcome(data, 0.25, 30.0)
    assert got[1] == data["target"][1]
    assert np.isnan(got[2])
    for i in (0, 3):
        search, final = (30 * math.atanh(data[k][i]) for k in ("target", "outcome"))
        margin = 0.75 * search + 0.25 * final
        assert got[i] == pytest.approx(math.tanh(margin / 30), abs=1e-12)
    np.testing.assert_array_equal(with_outcome(data, 0.0, 30.0), data["target"])
    one = with_outcome(data, 1.0, 30.0)
    assert one[0] == pytest.approx(0.9) and one[3] == pytest.approx(-0.4)
    plain = {k: v for k, v in data.items() if k != "outcome"}
    with pytest.raises(ValueError, match="needs each row's game outcome"):
        fit_targets(plain, "search", 0.75, 30.0, outcome_weight=0.5)
    with pytest.raises(ValueError, match=r"must be in \[0, 1\], got 1.5"):
        fit_targets(data, "search", 0.75, 30.0, outcome_weight=1.5)


def _spied_folder(tmp_path, monkeypatch, players: int, opponents: str | None, games: int):
    """Teacher games written as ``collect`` writes them, with the seat of every searched
    placement of two options or more, in order, per game."""
    seen: list[int] = []
    make_teacher = positions.make_teacher

    def spied_teacher(spec, seed, players=2):
        teacher = make_teacher(spec, seed, players)
        search = teacher.search

        def spy(state, player):
            out = search(state, player)
            if len(out[0]) > 1:
                seen.append(player)
            return out

        teacher.search = spy
        return teacher

    monkeypatch.setattr(positions, "make_teacher", spied_teacher)
    folder, seed, seats = tmp_path / f"teacher{players}", 5, []
    folder.mkdir()
    settings = {"teacher": TEACHER, "seed": seed, "keep": 3}
    if opponents:
        settings.update(tables=[players], opponents=opponents)
    (folder / "positions.json").write_text(json.dumps(settings))
    for g in range(games):
        seen.clear()
        more = {"opponents": opponents, "seat": g % players} if opponents else {}
        rows = play_teacher_game(TEACHER, teacher_deal(seed, g), g, keep=3, placements=12,
                                 players=players, **more)  # fmt: skip
        np.savez(folder / f"game_{teacher_deal(seed, g)}.npz", **rows)
        seats.append(np.array(seen)[rows["decision"]])
    return folder, seats


@pytest.mark.parametrize(("players", "opponents", "games"), [(2, None, 2), (3, "greedy", 3)])
def test_each_row_gets_its_movers_outcome(tmp_path, monkeypatch, players, opponents, games):
    module = benchmark("tile_outcome_fit")
    folder, seats = _spied_folder(tmp_path, monkeypatch, players, opponents, games)
    files, meta = module.read_folder(folder)
    data = load_games(files)
    got = module.game_outcomes(files, [meta] * len(files), data, 30.0)
    for number, (path, seat) in enumerate(zip(files, seats, strict=True)):
        scores = np.load(path)["scores"].astype(float)
        want = [math.tanh((scores[s] - max(np.delete(scores, s))) / 30.0) for s in seat]
        np.testing.assert_allclose(got[data["game"] == number], want, atol=1e-12)
    assert len(set(np.concatenate(seats).tolist())) == (players if opponents is None else
                                                        min(players, games))  # fmt: skip


def test_a_bad_weight_or_folder_gets_one_line(tmp_path, capsys) -> None:
    module = benchmark("tile_outcome_fit")
    for argv, message in (
        ([str(tmp_path), "--init", "x.npz", "--out", "y.npz", "--outcome-weight", "2"],
         "--outcome-weight must be in [0, 1], got 2.0"),
        ([str(tmp_path), "--init", "x.npz", "--out", "y.npz"],
         "no positions.json (not a folder of teacher games)"),
    ):  # fmt: skip
        with pytest.raises(SystemExit):
            module.main(argv)
        assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)
