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
:func:`iter_remote_unordered` hands each result over as soon as its task is done, and runs
again the tasks of a worker that died (expert iteration's teacher games: the driver writes
each finished game at once, so a lost worker costs only its unfinished games).

Agent specs name models by path (``policy:runs/x/final_model.zip``, ``...@PATH``):
:func:`absolute_paths` makes them independent of the workers' directory; on a multi-machine
cluster the path must be readable on every node (a shared file system).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from carcassonne_rl.runtime.ray_session import import_ray

JobT = TypeVar("JobT")
ResultT = TypeVar("ResultT")


def absolute_spec(spec: str) -> str:
    """``spec`` with the model file it names (``policy:PATH``, ``...@PATH``) made absolute."""
    text = spec.strip()
    if text.startswith("policy:"):
        return f"policy:{Path(text[7:]).resolve()}"
    body, at, path = text.partition("@")
    return f"{body}@{Path(path).resolve()}" if at and path.strip() else spec


def absolute_paths(job: Any) -> Any:
    """An arena job whose specs name their model files by absolute paths."""
    return dataclasses.replace(job, specs=tuple(absolute_spec(s) for s in job.specs))


def _play_chunk(play: Callable[[Any], Any], jobs: Sequence[Any]) -> list[Any]:
    return [play(job) for job in jobs]


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    ray = import_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _chunk_results(
    play: Callable[[Any], Any],
    jobs: Sequence[Any],
    chunk: int,
    max_in_flight: int | None,
    retries: int,
    ordered: bool,
) -> Iterator[tuple[int, list[Any]]]:
    """(index of the chunk's first job, its results) per task: in job order if ``ordered``,
    else as each task finishes."""
    ray = import_ray()
    if chunk <= 0:
        raise ValueError(f"chunk must be > 0, got {chunk}")
    task = ray.remote(num_cpus=1, max_retries=retries)(_play_chunk)
    play_ref = ray.put(play)
    limit = max_in_flight or 2 * cluster_cpus()
    starts = list(range(0, len(jobs), chunk))
    pending: dict[Any, int] = {}  # task -> its first job (insertion order: job order)
    next_chunk = 0
    try:
        while next_chunk < len(starts) or pending:
            while next_chunk < len(starts) and len(pending) < limit:
                first = starts[next_chunk]
                pending[task.remote(play_ref, list(jobs[first : first + chunk]))] = first
                next_chunk += 1
            ref = next(iter(pending)) if ordered else ray.wait(list(pending))[0][0]
            first = pending.pop(ref)
            try:
                done = ray.get(ref)
            except ray.exceptions.RayTaskError as err:
                raise err.as_instanceof_cause() from None
            yield first, done
    finally:
        for ref in pending:
            ray.cancel(ref)


def iter_remote(
    play: Callable[[JobT], ResultT],
    jobs: Sequence[JobT],
    chunk: int = 1,
    max_in_flight: int | None = None,
) -> Iterator[ResultT]:
    """``play(job)`` for each job, in order, computed by Ray tasks of ``chunk`` jobs each (Ray
    must be connected, see :func:`.cluster.connect`). An exception raised by ``play`` is
    raised here as itself (not wrapped by Ray); the tasks still waiting are cancelled."""
    for _, done in _chunk_results(play, jobs, chunk, max_in_flight, 0, ordered=True):
        yield from done


def iter_remote_unordered(
    play: Callable[[JobT], ResultT],
    jobs: Sequence[JobT],
    chunk: int = 1,
    max_in_flight: int | None = None,
    retries: int = 3,
) -> Iterator[tuple[int, ResultT]]:
    """``(index, play(jobs[index]))`` as each task finishes (see :func:`iter_remote`). A task
    whose worker dies (a killed process, a lost node) is run again elsewhere, up to
    ``retries`` times: ``play`` must give the same result for the same job."""
    for first, done in _chunk_results(play, jobs, chunk, max_in_flight, retries, ordered=False):
        yield from enumerate(done, first)


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
