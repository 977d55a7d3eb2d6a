"""Tile teacher games keep what replays their rows: the codes played, and per row the
position and the option; :func:`replay_features` computes any feature set of the rows again
(the stored features come from the search's option kernel, the replay from the reference
path, a settled afterstate per row)."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.encoders.features.table import NUM_TABLE_FEATURES
from carcassonne_rl.games.registry import new_game
from carcassonne_rl.training.expert_iteration.positions import (
    REPLAY_FIELDS,
    ROW_FIELDS,
    collect,
    load_positions,
    play_teacher_game,
)
from carcassonne_rl.training.expert_iteration.replay import replay_features

TEACHER = "pretrained:search=2:1"


def test_a_whole_game_replays_to_its_scores_and_its_rows() -> None:
    game = play_teacher_game(TEACHER, deal=21, seed=3, keep=3)
    state = new_game("carcassonne", 2, 21, ())
    for code in game["codes"]:
        state.apply_code(int(code))
    assert state.is_over
    np.testing.assert_array_equal(state.scores, game["scores"])
    again = replay_features(game, "two_player")
    assert again.shape == game["x"].shape and len(again) > 40
    np.testing.assert_allclose(again, game["x"], atol=1e-5)
    # the chosen rows' options are the moves the game played at their plies
    chosen = np.flatnonzero(game["chosen"])
    assert all(game["codes"][game["ply"][r]] == game["option"][r] for r in chosen)
    # another feature set of the same rows: the table network's inputs
    assert replay_features(game, "table").shape == (len(game["x"]), NUM_TABLE_FEATURES)


def test_rows_replay_at_a_table_with_expansions_and_opponents() -> None:
    game = play_teacher_game("pretrained:search=2:1", deal=8, seed=1, keep=4, placements=24,
                             players=3, expansions=("messages", "labyrinth"),
                             opponents="greedy", seat=2)  # fmt: skip
    assert len(game["x"]) > 10 and game["x"].shape[1] == NUM_TABLE_FEATURES
    assert str(game["expansions"]) == "messages+labyrinth" and int(game["players"]) == 3
    np.testing.assert_allclose(replay_features(game, "table"), game["x"], atol=1e-5)
    assert set(game["follower"].tolist()) - {-1}, "some rows place a follower"


def test_the_rows_replay_from_the_written_files(tmp_path) -> None:
    collect(tmp_path / "pos", 2, teacher=TEACHER, seed=5, keep=2, placements=10)
    files = sorted((tmp_path / "pos").glob("game_*.npz"))
    assert len(files) == 2
    for path in files:
        with np.load(path, allow_pickle=False) as z:
            np.testing.assert_allclose(replay_features(z, "two_player"), z["x"], atol=1e-5)
    assert load_positions(tmp_path / "pos")["files"] == 2


def test_a_game_recorded_before_the_replay_fields_gets_one_clear_message() -> None:
    game = play_teacher_game(TEACHER, deal=4, seed=0, keep=2, placements=6)
    old = {k: game[k] for k in (*ROW_FIELDS, "scores")}
    with pytest.raises(ValueError, match="recorded before its rows could be replayed"):
        replay_features(old, "two_player")
    backwards = {k: game[k][::-1].copy() for k in (*ROW_FIELDS, *REPLAY_FIELDS)}
    assert len(set(game["ply"].tolist())) > 1
    with pytest.raises(ValueError, match="comes before the row before it"):
        replay_features(dict(game, **backwards), "two_player")
    moved = game["option"].copy()
    moved[0] = 10**6  # no placement code
    with pytest.raises(ValueError, match="row 0: the game does not replay to its option"):
        replay_features(dict(game, option=moved), "two_player")
    assert set(REPLAY_FIELDS) <= set(game)
