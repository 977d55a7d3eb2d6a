"""A Ray head started by ``ray start --head`` on this machine (stopped afterwards), joined
with ``--address 127.0.0.1:PORT`` as a user would: token authentication, which Ray enables
by default, must work without extra set-up."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')

from carcassonne_rl.cli.main import main  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ray_head(tmp_path):
    port = free_port()
    ray_cli = Path(sys.executable).parent / "ray"
    args = [str(ray_cli), "start", "--head", "--block", "--port", str(port)]
    args += ["--node-ip-address", "127.0.0.1", "--num-cpus", "2", "--include-dashboard", "false"]
    log = (tmp_path / "ray_start.log").open("w")
    head = subprocess.Popen(args + ["--disable-usage-stats"], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None, (tmp_path / "ray_start.log").read_text()
                assert time.monotonic() < deadline, "ray start --head did not come up"
                time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()  # `ray start --block` stops the processes it started
        head.wait(timeout=60)
        log.close()


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
