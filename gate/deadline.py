"""Work that must end by a deadline even when it blocks or loops without a way to check
the time itself (a socket dripping a byte a second, a template looping without output),
and answers read as they arrive, never past a size or a moment."""

from __future__ import annotations

import errno
import math
import os
import re
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, TypeVar

Outcome = TypeVar("Outcome")
CHUNK = 64 * 1024


def within(seconds: float, work: Callable[[], Outcome], late: Callable[[], Exception]) -> Outcome:
    """``work()``, or ``late()`` raised once ``seconds`` have passed without its end.

    The work runs in a daemon thread: an abandoned one never holds the process open, and
    whatever it returns after the deadline is dropped. An exception it raises is raised
    here, in the caller's thread.
    """
    done: list[Outcome | BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed to the waiting thread
            done.append(exc)

    worker = threading.Thread(target=run, name="fitgate-deadline", daemon=True)
    worker.start()
    worker.join(seconds)
    if not done:
        raise late()
    found = done[0]
    if isinstance(found, BaseException):
        raise found
    return found


@dataclass(frozen=True, slots=True)
class Deadline:
    """The moment a piece of work must have ended by, on a monotonic clock."""

    seconds: float
    ends_at: float
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float] = time.monotonic) -> Deadline:
        return cls(seconds, clock() + seconds, clock)

    def left(self) -> float:
        """Seconds still to go; zero or less once the deadline has passed."""
        return self.ends_at - self.clock()

    def sooner(self, seconds: float) -> Deadline:
        """This deadline, or one ``seconds`` from now if that comes first."""
        now = self.clock()
        return (
            self if now + seconds >= self.ends_at else Deadline(seconds, now + seconds, self.clock)
        )


def _any_time() -> None:
    """No deadline: a local file ends by itself, or is refused by its size."""


def read_capped(
    read: Callable[[int], bytes],
    limit: int,
    too_long: Callable[[], Exception],
    in_time: Callable[[], object] = _any_time,
) -> bytes:
    """Everything ``read`` gives until it gives nothing, chunk by chunk as it arrives:
    ``too_long()`` is raised the moment more than ``limit`` bytes have come, so an endless
    input (an answer, ``/dev/zero``) is never held whole, and ``in_time()`` is called before
    each read (it raises once time is up). For a network answer, ``read`` should return what
    has arrived (``read1``), not wait for a full chunk, so that a trickle is checked against
    the clock as it comes.

    >>> import io
    >>> read_capped(io.BytesIO(b"abc").read1, 3, lambda: ValueError())
    b'abc'
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        in_time()
        chunk = read(CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise too_long()
        chunks.append(chunk)


_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}
_DURATION = re.compile(r"([0-9]{1,6}(?:\.[0-9]{1,3})?)([smh]?)")
LONGEST = 86_400.0


def parse_seconds(text: str) -> float:
    """``90s``, ``10m``, ``1h`` or a bare number of seconds, more than 0 and at most a day.

    >>> parse_seconds("10m"), parse_seconds("0.5s"), parse_seconds("30")
    (600.0, 0.5, 30.0)
    """
    match = _DURATION.fullmatch(text.strip())
    seconds = float(match[1]) * _UNITS[match[2]] if match else 0.0
    if not 0 < seconds <= LONGEST:
        raise ValueError(f"{text[:20]!r}: expected a duration such as 90s, 10m or 1h, at most 24h")
    return seconds


def shown_seconds(seconds: float) -> str:
    """A duration as ``--timeout`` takes it.

    >>> shown_seconds(600), shown_seconds(90), shown_seconds(0.5), shown_seconds(7200)
    ('10m', '90s', '0.5s', '2h')
    """
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and math.isclose(seconds % size, 0, abs_tol=1e-9):
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"


_NOT_REGULAR = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def open_regular(path: str | os.PathLike[str], *, pipes: bool = False) -> BinaryIO:
    """``path`` opened for reading when it is a regular file (or, with ``pipes``, a pipe:
    ``--snapshot <(kubectl get ...)``); an :class:`OSError` whose ``strerror`` says what it
    is otherwise (a named pipe would block the run until a writer came, a device such as
    ``/dev/zero`` never end). Opened without blocking and checked on the opened file, so
    that swapping the entry in between cannot make the read hang."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if pipes and stat.S_ISFIFO(os.stat(path).st_mode):
        return open(path, "rb")
    descriptor = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            what = next((name for test, name in _NOT_REGULAR if test(mode)), "not a file")
            raise OSError(errno.EINVAL, f"{what}, not a regular file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return open(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
