"""``bench vec`` prints one JSON line per (env, N, observations) and per AEC env, with the
ratios to connect_four_v3 and to the AEC env of the same run."""

from __future__ import annotations

import json

import pytest

from carcassonne_rl.cli.main import main as cli_main


def test_bench_vec_prints_a_line_per_result(capsys) -> None:
    code = cli_main(
        ["bench", "vec", "--env", "carcassonne_v1", "--sizes", "2,3", "--seconds", "0.1",
         "--players", "3", "--expansions", "messages", "--threads", "1"]
    )  # fmt: skip
    assert code == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    vec = [r for r in rows if r["num_envs"] != "aec"]
    assert [(r["num_envs"], r["observations"]) for r in vec] == [
        (2, True), (2, False), (3, True), (3, False)
    ]  # fmt: skip
    for r in vec:
        assert r["env"] == "carcassonne_v1" and r["num_threads"] == 1
        assert r["config"] == {"players": 3, "expansions": ["messages"]}
        assert r["steps_per_s"] > 0
        assert abs(r["ratio"] - r["steps_per_s"] / r["connect_four_v3_steps_per_s"]) < 0.01
    assert vec[0]["observation_bytes_per_step"] > vec[1]["observation_bytes_per_step"]
    (aec,) = [r for r in rows if r["num_envs"] == "aec"]
    assert aec["env"] == "carcassonne_v1" and aec["steps_per_s"] > 0


def test_bench_vec_refuses_bad_sizes(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        cli_main(["bench", "vec", "--sizes", "16,x"])
    assert stop.value.code == 2
    assert "positive ints" in capsys.readouterr().err


def test_bench_vec_times_the_card_game_with_each_thread_count(capsys) -> None:
    import numba

    from carcassonne_rl.testing.bench_vec import VEC_ENVS, main

    assert "cardcassonne_v0" in VEC_ENVS
    counts = tuple(sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}))
    rows = main(("cardcassonne_v0",), (2,), 0.1, players=3, threads=counts,
                expansions=("messages",))  # fmt: skip
    vec = [r for r in rows if r["num_envs"] != "aec"]
    assert [(r["observations"], r["num_threads"]) for r in vec] == [
        (obs, k) for obs in (True, False) for k in counts
    ]
    for r in rows:  # the tile game's expansions are not the card game's
        assert r["env"] == "cardcassonne_v0" and r["config"] == {"players": 3}
    assert not any(r["parallel"] for r in vec)  # 2 games: fewer than PARALLEL_MIN
    assert vec[0]["observation_bytes_per_step"] == 1620 * 4 + 206
    assert len(capsys.readouterr().out.splitlines()) == len(rows) == len(vec) + 1
