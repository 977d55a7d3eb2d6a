"""Progress reports that suit where the output goes.

On a terminal: a live bar (tqdm; SB3's rich bar during training). Redirected to a file or a
pipe: a few plain lines (at 25%, 50%, 75% and the end, each with the time left at the rate
so far) instead of hundreds of carriage-return updates. ``phase`` prints the one line that
opens each longer phase.
"""

from __future__ import annotations

import sys
import time
from typing import Any

QUARTERS = (0.25, 0.5, 0.75, 1.0)


def on_terminal() -> bool:
    """Whether progress output (stderr) goes to a terminal."""
    return sys.stderr.isatty()


def count(n: int, noun: str) -> str:
    """``count(1, "game")`` -> ``"1 game"``, ``count(3, "game")`` -> ``"3 games"``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def phase(text: str) -> None:
    """One line announcing a phase (flushed at once, so logs show it while it runs)."""
    print(text, flush=True)


class PlainLines:
    """``update(n)`` / ``close()`` like a tqdm bar, writing a line to stderr at each quarter."""

    def __init__(self, total: int, desc: str, unit: str) -> None:
        self.total = max(1, int(total))
        self.desc = desc
        self.unit = unit
        self.done = 0
        self._next = 0
        self._t0 = time.perf_counter()

    def update(self, n: int = 1) -> None:
        self.done += n
        crossed = False
        while self._next < len(QUARTERS) and self.done >= QUARTERS[self._next] * self.total:
            self._next += 1
            crossed = True
        if crossed:  # one line, however many quarters this update passed
            seconds = time.perf_counter() - self._t0
            left = seconds / self.done * max(0, self.total - self.done) if self.done else 0.0
            eta = f", about {left:.0f} s left" if self.done < self.total else ""
            print(
                f"{self.desc}: {self.done}/{self.total} {self.unit}s ({seconds:.0f} s{eta})",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        pass


def progress_bar(total: int, desc: str, unit: str) -> Any:
    """A tqdm bar on a terminal, else :class:`PlainLines`."""
    if on_terminal():
        from tqdm import tqdm

        return tqdm(total=total, unit=unit, desc=desc)
    return PlainLines(total, desc, unit)


def plain_training_progress(steps: int, desc: str = "training") -> Any:
    """An SB3 callback printing :class:`PlainLines` for the next ``steps`` timesteps (used
    instead of SB3's bar when the output is not a terminal)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class PlainTrainingProgress(BaseCallback):
        def _on_training_start(self) -> None:
            self.lines = PlainLines(steps, desc, "step")
            self.start = self.num_timesteps

        def _on_step(self) -> bool:
            self.lines.update(self.num_timesteps - self.start - self.lines.done)
            return True

    return PlainTrainingProgress()
