"""Connecting to a Ray cluster: ``--address ADDR`` (or ``RAY_ADDRESS``), with clear errors.

Addresses: ``local`` starts a private Ray on this machine, ``auto`` joins the one started
here by ``ray start --head``, ``HOST:PORT`` (the head's GCS port, 6379 by default) or
``ray://HOST:PORT`` (Ray Client) join a cluster. An unreachable address fails within
seconds (a TCP probe before ``ray.init``, which would otherwise retry for a minute).

Token authentication (Ray 2.5x: ``ray start --head`` turns it on when a token is there,
e.g. from ``ray get-auth-token --generate`` or an earlier local ``ray.init()``; see
docs/cluster.md): joining such a cluster needs ``RAY_AUTH_MODE=token`` and the head's
token (``~/.ray/auth_token``, ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``); when
``RAY_AUTH_MODE`` is unset and such a token is there, :func:`connect` sets it.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PROBE_TIMEOUT_S = 3.0


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached (a user error: one clear message)."""


def resolve_address(address: str | None) -> str | None:
    """``address``, else ``RAY_ADDRESS`` from the environment, else None (run locally)."""
    chosen = address if address else os.environ.get("RAY_ADDRESS", "")
    return chosen.strip() or None


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`ClusterError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterError(
            'Ray is not installed: pip install -e ".[ray]" (or run without --address / '
            "RAY_ADDRESS to use the local backend)"
        ) from None
    return ray


def host_and_port(address: str) -> tuple[str, int]:
    """``"ray://10.0.0.5:10001"`` -> ``("10.0.0.5", 10001)``; a bad address -> ClusterError."""
    text = address.removeprefix("ray://")
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ClusterError(
            f"bad Ray address {address!r}: expected HOST:PORT, ray://HOST:PORT, auto or local"
        )
    return host.strip("[]"), int(port_text)


def probe(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Raise :class:`ClusterError` unless something listens at ``address`` (TCP)."""
    host, port = host_and_port(address)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as err:
        raise ClusterError(
            f"cannot reach a Ray cluster at {address!r} ({err.strerror or err}); start one "
            "with `ray start --head` and pass the address it prints"
        ) from None


def check_reachable(address: str) -> None:
    """What :func:`connect` checks first, without connecting: Ray installed, something
    listening at ``address`` (``local`` and ``auto`` are not probed); a
    :class:`ClusterError` otherwise. For commands that must fail before they write."""
    import_ray()
    if address not in ("local", "auto"):
        probe(address)


def token_available() -> bool:
    """Whether a Ray authentication token is configured for this user."""
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return True
    return (Path.home() / ".ray" / "auth_token").is_file()


def use_token_auth() -> None:
    """Send this user's token to the cluster (``RAY_AUTH_MODE=token``, re-read by Ray the
    way its own ``ray start`` set-up does, since Ray reads the mode when imported)."""
    os.environ["RAY_AUTH_MODE"] = "token"
    try:
        from ray._raylet import Config

        Config.initialize("")
    except (ImportError, AttributeError):  # another Ray version: the variable alone
        pass


def connect(address: str, num_cpus: int | None = None) -> bool:
    """Connect this process to the cluster at ``address``; True if this call connected
    (False: Ray was already initialised, e.g. by a test, and is reused as it is).

    ``num_cpus`` applies to ``local`` only (the CPUs of the private Ray)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address == "local":
        ray.init(address="local", num_cpus=num_cpus, **kwargs)  # never a stale cluster
        return True
    check_reachable(address)
    if "RAY_AUTH_MODE" not in os.environ and token_available():
        use_token_auth()
    try:
        ray.init(address=address, **kwargs)
    except ConnectionError as err:
        raise ClusterError(
            f"cannot connect to the Ray cluster at {address!r}: {err} (a cluster with token "
            "authentication needs RAY_AUTH_MODE=token and its token in ~/.ray/auth_token or "
            "RAY_AUTH_TOKEN)"
        ) from None
    return True


@contextlib.contextmanager
def ray_session(address: str, num_cpus: int | None = None) -> Iterator[Any]:
    """``with ray_session(addr) as ray:`` connected to ``addr``, disconnected afterwards
    (only if this block connected)."""
    connected = connect(address, num_cpus)
    ray = import_ray()
    try:
        yield ray
    finally:
        if connected:
            ray.shutdown()
