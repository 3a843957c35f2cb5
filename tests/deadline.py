"""A bound on the wall-clock time of a block in a test: the hostile-input tests assert that
a run ends, and a regression must fail them, not hang the suite."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class TookTooLong(AssertionError):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`TookTooLong` in the block if it runs past ``seconds`` (main thread)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TookTooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
