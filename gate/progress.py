"""Progress of a long run on standard error.

Most runs take a second and print nothing here. When a phase is still running after
``delay`` seconds, a terminal gets one bar redrawn in place; a CI log (not a terminal) gets
a plain line every ``interval`` seconds, since a redrawn bar there is one line per update
or a line with hundreds of carriage returns.
"""

from __future__ import annotations

import io
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

BAR_WIDTH = 24


def _amount(value: int, unit: str) -> str:
    if unit == "bytes":
        return f"{value / 1e9:.2f} GB" if value >= 1e9 else f"{value / 1e6:.0f} MB"
    return f"{value:,} {unit}"


class Phase:
    """One phase: ``advance`` as work is done, ``finish`` at the end."""

    def __init__(self, progress: Progress, label: str, total: int | None, unit: str) -> None:
        self._progress = progress
        self._label = label
        self._total = total
        self._unit = unit
        self._done = 0
        self._started = progress.clock()
        self._next = self._started + progress.delay
        self._drawn = False

    @property
    def done(self) -> int:
        return self._done

    def advance(self, amount: int = 1) -> None:
        self._done += amount
        now = self._progress.clock()
        if now >= self._next:
            self._next = now + (
                self._progress.redraw if self._progress.tty else self._progress.interval
            )
            self._show(now)

    def _describe(self, now: float) -> str:
        done = _amount(self._done, self._unit)
        elapsed = f"{now - self._started:.0f} s"
        if not self._total:
            return f"{self._label}: {done}, {elapsed}"
        share = min(1.0, self._done / self._total)
        of = f"{done} of {_amount(self._total, self._unit)}"
        if self._progress.tty:
            filled = round(share * BAR_WIDTH)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            return f"{self._label} [{bar}] {share:4.0%} {of}, {elapsed}"
        return f"{self._label}: {share:.0%} ({of}), {elapsed}"

    def _show(self, now: float) -> None:
        line = f"fitgate: {self._describe(now)}"
        if self._progress.tty:
            self._progress.stream.write("\r" + line + "\x1b[K")
        else:
            self._progress.stream.write(line + "\n")
        self._progress.stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn and self._progress.tty:
            self._progress.stream.write("\r\x1b[K")
            self._progress.stream.flush()


class Progress:
    """Where and how often to report; ``clock`` is passed in so tests need not wait."""

    def __init__(
        self,
        stream: IO[str],
        tty: bool,
        clock: Callable[[], float] = time.monotonic,
        delay: float = 2.0,
        interval: float = 10.0,
        redraw: float = 0.2,
    ) -> None:
        self.stream = stream
        self.tty = tty
        self.clock = clock
        self.delay = delay
        self.interval = interval
        self.redraw = redraw

    @classmethod
    def on(cls, stream: IO[str]) -> Progress:
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        return cls(stream, tty)

    @classmethod
    def quiet(cls) -> Progress:
        """Reports nothing, ever."""
        return cls(io.StringIO(), tty=False, delay=math.inf)

    def phase(self, label: str, total: int | None = None, unit: str = "") -> Phase:
        return Phase(self, label, total, unit)


@contextmanager
def reading_file(progress: Progress, path: str) -> Iterator[Callable[[int], None]]:
    """A phase for reading ``path``: the callable is told how many bytes were read."""
    try:
        total: int | None = os.path.getsize(path)
    except OSError:
        total = None
    phase = progress.phase("reading snapshot", total, "bytes")
    try:
        yield phase.advance
    finally:
        phase.finish()
