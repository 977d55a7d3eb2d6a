"""Progress reports that suit where the output goes.

On a terminal: a live bar (tqdm; SB3's rich bar during training). Redirected to a file or a
pipe: plain lines instead of hundreds of carriage-return updates, one at 25%, 50%, 75% and
the end and one at least every minute in between, each with what is done, the rate and the
time left (:class:`PlainLines`). ``phase`` prints the one line that opens each longer phase;
``watchdog`` keeps a long job that runs phases without a bar from going quiet off a terminal.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

QUARTERS = (0.25, 0.5, 0.75, 1.0)
INTERVAL_S = 60.0  # off a terminal, the most seconds between two progress lines
_CHECK_S = 1.0  # how often the background threads look at the clock

Clock = Callable[[], float]

_lock = threading.Lock()
_lines = [0]  # progress lines printed so far (phase, PlainLines, watchdog), for watchdog


def on_terminal() -> bool:
    """Whether progress output (stderr) goes to a terminal."""
    return sys.stderr.isatty()


def count(n: int, noun: str) -> str:
    """``count(1, "game")`` -> ``"1 game"``, ``count(3, "game")`` -> ``"3 games"``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def duration(seconds: float) -> str:
    """``"45 s"``, ``"12.5 min"`` (from 2 minutes), ``"2.1 h"`` (from 2 hours)."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def rate(done: float, seconds: float, unit: str) -> str:
    """``"12.3 games/s"``, ``"4.0 games/min"`` below one a second; ``""`` before any."""
    if done <= 0 or seconds <= 0:
        return ""
    per_s = done / seconds
    if per_s >= 100:
        return f"{per_s:.0f} {unit}s/s"
    if per_s >= 1:
        return f"{per_s:.1f} {unit}s/s"
    return f"{per_s * 60:.1f} {unit}s/min"


def _emit(text: str, stream: str = "stderr") -> None:
    """Print a progress line (flushed) and count it, for :func:`watchdog`."""
    with _lock:
        print(text, file=getattr(sys, stream), flush=True)
        _lines[0] += 1


def phase(text: str) -> None:
    """One line announcing a phase (stdout, flushed at once, so logs show it while it runs)."""
    _emit(text, "stdout")


class _Ticker:
    """A daemon thread calling ``tick()`` about every ``_CHECK_S`` seconds until stopped."""

    def __init__(self, tick: Callable[[], None]) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(tick, _CHECK_S), daemon=True)
        self._thread.start()

    def _run(self, tick: Callable[[], None], check: float) -> None:
        while not self._stop.wait(check):
            tick()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()


class PlainLines:
    """``update(n)`` / ``close()`` like a tqdm bar, writing a line to stderr at each quarter
    and whenever ``interval`` seconds of ``clock`` have passed since the last line, e.g.
    ``arena: 50/100 games (40 s, 1.2 games/s, about 40 s left)``.

    ``start``: when the work began on ``clock`` (default: now). ``tick()`` writes the
    time-based line without an update; with ``heartbeat`` a thread calls it, so a line comes
    even while one update takes longer than ``interval`` (a long game, an evaluation inside
    training). The heartbeat stops at ``close()`` or when the total is reached."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str,
        clock: Clock = time.monotonic,
        interval: float = INTERVAL_S,
        heartbeat: bool = False,
        start: float | None = None,
    ) -> None:
        self.total = max(1, int(total))
        self.desc = desc
        self.unit = unit
        self.done = 0
        self.clock = clock
        self.interval = interval
        self._next = 0
        self._t0 = clock() if start is None else start  # start: when the work began
        self._last = self._t0
        self._mutex = threading.Lock()
        self._ticker = _Ticker(self.tick) if heartbeat else None

    def line(self, now: float) -> str:
        """The progress line at time ``now`` of the clock."""
        seconds = now - self._t0
        parts = [duration(seconds)]
        if self.done:
            parts.append(rate(self.done, seconds, self.unit))
            if self.done < self.total:
                left = seconds / self.done * (self.total - self.done)
                parts.append(f"about {duration(left)} left")
        else:
            parts.append(f"no {self.unit} done yet")
        told = ", ".join(p for p in parts if p)
        return f"{self.desc}: {self.done}/{self.total} {self.unit}s ({told})"

    def _write(self, now: float) -> None:
        self._last = now
        _emit(self.line(now))

    def update(self, n: int = 1) -> None:
        with self._mutex:
            self.done += n
            crossed = False
            while self._next < len(QUARTERS) and self.done >= QUARTERS[self._next] * self.total:
                self._next += 1
                crossed = True
            now = self.clock()
            if crossed or now - self._last >= self.interval:  # one line, however many quarters
                self._write(now)
        if self.done >= self.total:
            self._stop_heartbeat()

    def tick(self) -> None:
        """A line if ``interval`` seconds have passed since the last one."""
        with self._mutex:
            now = self.clock()
            if self.done < self.total and now - self._last >= self.interval:
                self._write(now)

    def _stop_heartbeat(self) -> None:
        ticker, self._ticker = self._ticker, None
        if ticker is not None:
            ticker.stop()

    def close(self) -> None:
        self._stop_heartbeat()


def progress_bar(total: int, desc: str, unit: str) -> Any:
    """A tqdm bar on a terminal, else :class:`PlainLines` (with its heartbeat)."""
    if on_terminal():
        from tqdm import tqdm

        return tqdm(total=total, unit=unit, desc=desc)
    return PlainLines(total, desc, unit, heartbeat=True)


class Counter:
    """An ``on_game(done, total)`` callback as a progress bar (a teacher's games): the bar
    opens at the first call, its clock from the counter's creation (the first game's time
    counts), follows ``done`` and closes at ``total``; the next call after that opens a new
    one, timed from there (the next iteration's games)."""

    def __init__(
        self,
        desc: str,
        unit: str,
        enabled: bool = True,
        clock: Clock = time.monotonic,
        heartbeat: bool = True,
    ) -> None:
        self.desc = desc
        self.unit = unit
        self.enabled = enabled
        self.clock = clock
        self.heartbeat = heartbeat
        self._bar: Any = None
        self._seen = 0
        self._since = clock()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if on_terminal():
                self._bar = progress_bar(total, self.desc, self.unit)
            else:
                self._bar = PlainLines(total, self.desc, self.unit, self.clock,
                                       heartbeat=self.heartbeat, start=self._since)  # fmt: skip
            self._seen = 0
        self._bar.update(done - self._seen)
        self._seen = done
        if done >= total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self._since = self.clock()


@contextmanager
def watchdog(
    desc: str, enabled: bool = True, clock: Clock = time.monotonic, interval: float = INTERVAL_S
) -> Iterator[None]:
    """While the block runs, a line ``DESC: still running (N min so far)`` whenever no
    progress line (``phase``, :class:`PlainLines`) has come for ``interval`` seconds: for
    phases of a long job that have no bar of their own (a trainer's first iteration, an
    evaluation, loading). Off a terminal only; on one (or not ``enabled``: the caller's
    ``--no-progress``) it does nothing."""
    if not enabled or on_terminal():
        yield
        return
    t0 = clock()
    seen = [_lines[0], t0]  # the line count last seen, and when it was seen to change
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(check):
            now = clock()
            if _lines[0] != seen[0]:
                seen[:] = [_lines[0], now]
            elif now - seen[1] >= interval:
                _emit(f"{desc}: still running ({duration(now - t0)} so far)")
                seen[:] = [_lines[0], now]

    check = _CHECK_S
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def plain_training_progress(steps: int, desc: str = "training") -> Any:
    """An SB3 callback printing :class:`PlainLines` (with its heartbeat) for the next
    ``steps`` timesteps (used instead of SB3's bar when the output is not a terminal)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class PlainTrainingProgress(BaseCallback):
        def _on_training_start(self) -> None:
            self.lines = PlainLines(steps, desc, "step", heartbeat=True)
            self.start = self.num_timesteps

        def _on_step(self) -> bool:
            self.lines.update(self.num_timesteps - self.start - self.lines.done)
            return True

        def _on_training_end(self) -> None:
            self.lines.close()

    return PlainTrainingProgress()
