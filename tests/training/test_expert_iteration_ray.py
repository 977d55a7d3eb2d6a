"""Expert iteration's teacher games on a two-node Ray cluster on loopback (``ray start
--head`` and a node joined with ``ray start --address``): one worker killed mid-run, no
finished game lost, the killed one's game played again, every game the local pool's."""

from __future__ import annotations

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')
pytest.importorskip("psutil", reason="psutil finds the worker to kill")

from helpers.ray_cluster import head_node, joined_node, kill_one_worker, wait_for_nodes  # noqa: E402

from carcassonne_rl.runtime.ray_session import connect  # noqa: E402
from carcassonne_rl.training.expert_iteration.positions import collect  # noqa: E402

TEACHER = "pretrained:search=1"  # one candidate, no sampling, 16 placements a game: seconds
GAMES, SEED, PLACEMENTS = 6, 4, 16  # games long enough to be running when one is written


def _games(folder) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for path in sorted(folder.glob("game_*.npz")):
        with np.load(path) as z:
            out[path.name] = {k: z[k] for k in z.files}
    return out


def test_teacher_games_survive_a_killed_worker_on_two_nodes(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local = tmp_path / "local"
    assert collect(local, GAMES, TEACHER, SEED, placements=PLACEMENTS) == GAMES
    remote = tmp_path / "ray"
    killed: list[int] = []
    with head_node(tmp_path, cpus=1) as (address, head), joined_node(address, tmp_path) as node:
        assert not ray.is_initialized()
        assert connect(address)
        try:
            wait_for_nodes(ray, 2, nodes=[node])

            def kill_once(done: int, games: int) -> None:  # after the first game is written
                if not killed:
                    killed.append(kill_one_worker([node, head], "_play_chunk"))
                    assert len(list(remote.glob("game_*.npz"))) == done

            played = collect(remote, GAMES, TEACHER, SEED, on_game=kill_once, address=address,
                             placements=PLACEMENTS)  # fmt: skip
        finally:
            ray.shutdown()
    assert played == GAMES and len(killed) == 1
    assert sorted(p.name for p in remote.iterdir()) == sorted(p.name for p in local.iterdir())
    mine, theirs = _games(local), _games(remote)
    assert len(mine) == GAMES and mine.keys() == theirs.keys()
    for name, arrays in mine.items():
        assert arrays.keys() == theirs[name].keys()
        for key, value in arrays.items():  # the same bytes: dtype, shape, every value
            other = theirs[name][key]
            assert value.dtype == other.dtype and value.shape == other.shape
            assert value.tobytes() == other.tobytes(), (name, key)
    assert all(len(a["target"]) > 0 for a in mine.values())
