"""A Ray head started by ``ray start --head`` on this machine (stopped afterwards), joined
with ``--address 127.0.0.1:PORT`` as a user would: token authentication, which Ray enables
by default, must work without extra set-up."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')

from helpers.ray_cluster import head_node  # noqa: E402

from carcassonne_rl.cli.main import main  # noqa: E402


@pytest.fixture
def ray_head(tmp_path):
    with head_node(tmp_path, cpus=2) as (address, _):
        yield address


def test_arena_on_a_ray_start_head_cluster(ray_head, tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)  # as in a fresh shell
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert not ray.is_initialized()
    argv = ["arena", "--game", "cardcassonne", "--agents", "greedy,random"]
    argv += ["--games", "2", "--seed", "0"]
    argv += ["--no-progress", "--bootstrap", "10"]
    assert main(argv + ["--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert main(argv + ["--address", ray_head, "--out", str(tmp_path / "cluster")]) == 0
    assert not ray.is_initialized()  # disconnected afterwards
    games = {}
    for name in ("local", "cluster"):
        report = json.loads((tmp_path / name / "arena.json").read_text())
        games[name] = [(g["deal"], g["seats"], g["scores"]) for g in report["results"]]
    assert len(games["cluster"]) == 4 and games["cluster"] == games["local"]
