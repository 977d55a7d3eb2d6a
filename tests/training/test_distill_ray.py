"""``carcassonne-rl distill --address``: the teacher's demonstration games played as Ray tasks
give the files the local path writes, array for array, on a private Ray (``local``) and on
a two-node cluster on loopback with a worker killed mid-run."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')

from helpers.ray_cluster import (  # noqa: E402
    assert_same_games,
    head_node,
    joined_node,
    kill_one_worker,
    wait_for_nodes,
)

from carcassonne_rl.runtime.ray_session import connect  # noqa: E402
from carcassonne_rl.training.distill.demos import demo_deal, play_demos  # noqa: E402

SEED = 7


def test_demos_on_local_ray_and_processes_are_the_local_files(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local, pool, remote = tmp_path / "local", tmp_path / "pool", tmp_path / "ray"
    assert play_demos(local, 2, SEED) == 2
    assert play_demos(pool, 2, SEED, workers=2) == 2
    assert not ray.is_initialized()
    seen: list[int] = []
    assert play_demos(remote, 2, SEED, on_game=seen.append, address="local") == 2
    assert not ray.is_initialized()  # the session it opened is closed
    assert seen == [1, 2]
    names = [f"game_{demo_deal(SEED, g)}.npz" for g in range(2)]
    assert sorted(p.name for p in local.glob("game_*.npz")) == sorted(names)
    assert assert_same_games(local, pool) == 2 and assert_same_games(local, remote) == 2
    assert (remote / "demos.json").read_text() == (local / "demos.json").read_text()
    assert play_demos(remote, 2, SEED, address="local") == 0  # all there: no Ray started
    assert not ray.is_initialized()


def test_demos_survive_a_killed_worker_on_two_nodes(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    games, local, remote = 4, tmp_path / "local", tmp_path / "ray"
    assert play_demos(local, games, SEED) == games
    killed: list[int] = []
    with head_node(tmp_path, cpus=1) as (address, head), joined_node(address, tmp_path) as node:
        assert connect(address)
        try:
            wait_for_nodes(ray, 2, nodes=[node])

            def kill_once(done: int) -> None:  # after the first game is written
                assert len(list(remote.glob("game_*.npz"))) == done
                if not killed:
                    killed.append(kill_one_worker([node, head], "_play_chunk"))

            played = play_demos(remote, games, SEED, on_game=kill_once, address=address)
        finally:
            ray.shutdown()
    assert played == games and len(killed) == 1
    assert sorted(p.name for p in remote.iterdir()) == sorted(p.name for p in local.iterdir())
    assert assert_same_games(local, remote) == games
