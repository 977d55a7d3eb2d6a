"""Ray clusters on loopback for the tests, started as a user would: ``ray start --head``
and, for more nodes, ``ray start --address`` (each with ``--block``: stopping the command
stops the processes it started)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_cli() -> str:
    return str(Path(sys.executable).parent / "ray")


def _token_env() -> dict[str, str]:
    """The environment of a node with Ray's token authentication, the token generated first
    if this machine has none (``ray get-auth-token --generate``: ~/.ray/auth_token). Without
    it the head's mode would depend on whether an earlier ``ray.init()`` left a token behind,
    and a node joined in token mode could not join a head started without one."""
    subprocess.run([_ray_cli(), "get-auth-token", "--generate"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)  # fmt: skip
    return dict(os.environ, RAY_AUTH_MODE="token")


def _start(args: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    out = log.open("w")
    try:
        return subprocess.Popen([_ray_cli(), "start", "--block", *args, "--disable-usage-stats"],
                                stdout=out, stderr=out, env=env)  # fmt: skip
    finally:
        out.close()


def _stop(node: subprocess.Popen) -> None:
    node.terminate()
    try:
        node.wait(timeout=60)
    except subprocess.TimeoutExpired:  # pragma: no cover - a stuck node
        node.kill()
        node.wait(timeout=30)


def _start_head(folder: Path, cpus: int) -> tuple[int, subprocess.Popen]:
    """(port, process) of a head that came up; started again on another free port, up to 3
    times, if it exits first (the port it was given can be taken, between ``free_port`` and
    Ray binding it, by a process of another test running beside this one)."""
    log = folder / "ray_head.log"
    for attempt in range(3):
        port = free_port()
        head = _start(["--head", "--port", str(port), "--node-ip-address", "127.0.0.1",
                       "--num-cpus", str(cpus), "--include-dashboard", "false"], log,
                      _token_env())  # fmt: skip
        deadline = time.monotonic() + 90
        while head.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return port, head
            except OSError:
                if time.monotonic() > deadline:
                    _stop(head)
                    raise AssertionError("ray start --head did not come up") from None
                time.sleep(0.5)
        if attempt == 2:
            raise AssertionError(log.read_text())
    raise AssertionError("unreachable")  # pragma: no cover


@contextlib.contextmanager
def head_node(folder: Path, cpus: int = 2) -> Iterator[tuple[str, subprocess.Popen]]:
    """(address, process) of a head on 127.0.0.1 with ``cpus`` CPUs and Ray's token
    authentication, until the block ends."""
    port, head = _start_head(folder, cpus)
    try:
        yield f"127.0.0.1:{port}", head
    finally:
        _stop(head)


@contextlib.contextmanager
def joined_node(address: str, folder: Path, cpus: int = 1) -> Iterator[subprocess.Popen]:
    """A second node joined to the head at ``address`` (``ray start --address``, with the
    head's token), until the block ends."""
    node = _start(["--address", address, "--node-ip-address", "127.0.0.1",
                   "--num-cpus", str(cpus)], folder / "ray_node.log", _token_env())  # fmt: skip
    try:
        yield node
    finally:
        _stop(node)


def wait_for_nodes(ray, count: int, timeout_s: float = 90.0,
                   nodes: list[subprocess.Popen] = ()) -> None:  # fmt: skip
    """Until the connected cluster has ``count`` live nodes; fails at once, with the
    exit code, if one of ``nodes`` (``ray start`` processes) has exited."""
    deadline = time.monotonic() + timeout_s
    while sum(n["Alive"] for n in ray.nodes()) < count:
        for node in nodes:
            assert node.poll() is None, f"ray start exited ({node.returncode}): see its log"
        assert time.monotonic() < deadline, f"the cluster did not reach {count} nodes"
        time.sleep(0.5)


def busy_workers(node: subprocess.Popen, task: str) -> list[int]:
    """Process ids of ``node``'s workers running the Ray task named ``task`` (its process
    title is ``ray::TASK`` while it runs)."""
    import psutil

    out = []
    for proc in psutil.Process(node.pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            cmd = proc.cmdline()
            if cmd and cmd[0] == f"ray::{task}":
                out.append(proc.pid)
    return out


def _kill_busy_worker(nodes: list[subprocess.Popen], task: str) -> int | None:
    """SIGKILL one worker running ``task`` (the first node's if it has one); its pid."""
    for node in nodes:
        pids = busy_workers(node, task)
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            return pids[0]
    return None


def kill_one_worker(nodes: list[subprocess.Popen], task: str, timeout_s: float = 60.0) -> int:
    """SIGKILL one worker running ``task`` (the first node's if it has one); its pid."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pid = _kill_busy_worker(nodes, task)
        if pid is not None:
            return pid
        time.sleep(0.1)
    raise AssertionError(f"no worker ran {task} within {timeout_s} s")


@contextlib.contextmanager
def kill_one_worker_meanwhile(nodes: list[subprocess.Popen], task: str) -> Iterator[list[int]]:
    """While the block runs, a thread SIGKILLs the first worker it sees running ``task``
    (once); yields the list that receives its pid (empty if none ran ``task``)."""
    killed: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            pid = _kill_busy_worker(nodes, task)
            if pid is not None:
                killed.append(pid)
                return
            stop.wait(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield killed
    finally:
        stop.set()
        thread.join(timeout=30)


def npz_arrays(folder: Path) -> dict[str, dict]:
    """Every ``game_*.npz`` of ``folder``: file name -> {array name: array}."""
    import numpy as np

    out = {}
    for path in sorted(folder.glob("game_*.npz")):
        with np.load(path) as z:
            out[path.name] = {k: z[k] for k in z.files}
    return out


def assert_same_games(folder: Path, other: Path) -> int:
    """The two folders hold the same game files, array for array (dtype, shape, bytes);
    how many."""
    mine, theirs = npz_arrays(folder), npz_arrays(other)
    assert mine.keys() == theirs.keys()
    for name, arrays in mine.items():
        assert arrays.keys() == theirs[name].keys(), name
        for key, value in arrays.items():
            that = theirs[name][key]
            assert value.dtype == that.dtype and value.shape == that.shape, (name, key)
            assert value.tobytes() == that.tobytes(), (name, key)
    return len(mine)
