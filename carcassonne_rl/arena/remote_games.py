"""Play games as Ray tasks: the distributed twin of the arena's process pool.

:func:`run_remote` is generic: it runs ``play(job)`` for every job of a list on the cluster
and hands the results back in list order. The arena passes its
:class:`~carcassonne_rl.arena.match.Job` (deal, seat rotation, agent spec per seat) and
:func:`~carcassonne_rl.arena.match.play_game`; a self-play data generator can pass its own
job type and a function that returns positions. Jobs are
grouped ``chunk`` at a time into one task (a game of fast agents lasts milliseconds, a task
costs about a millisecond of scheduling), and at most ``max_in_flight`` tasks wait at
once, so a million jobs do not flood the object store. Ray reuses its worker processes,
so agents' per-process caches (compiled kernels, loaded models) survive between tasks.

Agent specs name models by path (``policy:runs/x/final_model.zip``): :func:`absolute_paths`
makes them independent of the workers' directory; on a multi-machine cluster the path must
be readable on every node (a shared file system).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from carcassonne_rl.runtime.ray_session import import_ray

JobT = TypeVar("JobT")
ResultT = TypeVar("ResultT")


def absolute_paths(job: Any) -> Any:
    """An arena job whose ``policy:PATH`` specs name absolute paths."""
    specs = tuple(
        f"policy:{Path(s.strip()[7:]).resolve()}" if s.strip().startswith("policy:") else s
        for s in job.specs
    )
    return dataclasses.replace(job, specs=specs)


def _play_chunk(play: Callable[[Any], Any], jobs: Sequence[Any]) -> list[Any]:
    return [play(job) for job in jobs]


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    ray = import_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def iter_remote(
    play: Callable[[JobT], ResultT],
    jobs: Sequence[JobT],
    chunk: int = 1,
    max_in_flight: int | None = None,
) -> Iterator[ResultT]:
    """``play(job)`` for each job, in order, computed by Ray tasks of ``chunk`` jobs each (Ray
    must be connected, see :func:`.cluster.connect`). An exception raised by ``play`` is
    raised here as itself (not wrapped by Ray); the tasks still waiting are cancelled."""
    ray = import_ray()
    if chunk <= 0:
        raise ValueError(f"chunk must be > 0, got {chunk}")
    task = ray.remote(num_cpus=1, max_retries=0)(_play_chunk)
    play_ref = ray.put(play)
    limit = max_in_flight or 2 * cluster_cpus()
    chunks = [list(jobs[i : i + chunk]) for i in range(0, len(jobs), chunk)]
    pending: deque = deque()
    next_chunk = 0
    try:
        while next_chunk < len(chunks) or pending:
            while next_chunk < len(chunks) and len(pending) < limit:
                pending.append(task.remote(play_ref, chunks[next_chunk]))
                next_chunk += 1
            try:
                done = ray.get(pending.popleft())
            except ray.exceptions.RayTaskError as err:
                raise err.as_instanceof_cause() from None
            yield from done
    finally:
        for ref in pending:
            ray.cancel(ref)


def run_remote(
    play: Callable[[JobT], ResultT],
    jobs: Sequence[JobT],
    on_result: Callable[[ResultT], None] | None = None,
    chunk: int = 1,
    max_in_flight: int | None = None,
) -> list[ResultT]:
    """:func:`iter_remote` as a list; ``on_result`` sees each result as it arrives, in order."""
    results = []
    for res in iter_remote(play, jobs, chunk, max_in_flight):
        results.append(res)
        if on_result is not None:
            on_result(res)
    return results
