"""Work that must end by a deadline even when it blocks or loops without a way to check
the time itself (a socket dripping a byte a second, a template looping without output)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

Outcome = TypeVar("Outcome")


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
