"""A run's workloads judged in two parts at once, on a machine's two cores
(``check --processes 2``).

A workload's verdict may depend on the run's earlier workloads (the room new ones take,
the quota they spend, the autoscalers' headroom): that is what a shard already knows how to
honour (:mod:`gate.ci.shard`), by placing every earlier workload that could change its own
verdicts without reporting it. So the run is cut in two at a position: this process judges
the workloads before it, a forked one the workloads from it on, each after placing the
run's DaemonSets and the earlier workloads that its own are judged beside. Both start from
the same state (the snapshot, nothing of the run placed yet), so each verdict is the one a
single process gives; only the wall time changes. Whenever the second process fails in any
way, this one judges the whole run again.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Value = TypeVar("Value")

SPLIT_FROM = 100
"""Fewer reported workloads are judged by one process: forking and handing the results
over cost more than a second core saves on them."""
FIRST_SHARE = 0.58
"""The share of the reported workloads this process judges: the second also places the
earlier workloads its own are judged beside, which costs it about a sixth of the run on
the benchmark's large case."""


def cut_position(reported: Sequence[int], split_from: int | None = None) -> int | None:
    """Where the run is cut, given the positions of its reported workloads: the position
    of the first workload the second process judges; None when the run is judged whole
    (too few workloads).

    >>> cut_position(list(range(0, 400, 2)), split_from=100)
    232
    >>> cut_position(list(range(10)), split_from=100) is None
    True
    """
    if len(reported) < (SPLIT_FROM if split_from is None else split_from):
        return None
    return reported[min(len(reported) - 1, max(1, round(len(reported) * FIRST_SHARE)))]


class Forked(Generic[Value]):
    """``work()`` run in a forked process while this one does its own; :meth:`value`
    waits for what it returned (None when it failed in any way). Its value crosses a pipe
    pickled, so it must be picklable."""

    def __init__(self, work: Callable[[], Value]) -> None:
        # What this process buffered would be written again by the child as it exits.
        sys.stdout.flush()
        sys.stderr.flush()
        import multiprocessing  # here: a run in one process never pays for importing it

        context = multiprocessing.get_context("fork")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(target=_run, args=(work, sender), daemon=True)
        self._process.start()
        sender.close()

    @classmethod
    def start(cls, work: Callable[[], Value]) -> Forked[Value] | None:
        """The process running ``work``; None when none can be forked here (not Linux, one
        core allowed, another thread running): the caller does the work itself."""
        from gate.snapshot.halves import can_fork  # see __init__

        return cls(work) if can_fork() else None

    def value(self) -> Value | None:
        try:
            received: Value | None = self._receiver.recv()
            return received
        except Exception:  # a dead process (EOFError), a value that did not unpickle
            return None
        finally:
            self.close()

    def close(self) -> None:
        self._receiver.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join()


def _run(work: Callable[[], object], sender: Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the first process's to handle
    try:
        value = work()
    except Exception:  # any failure here: the first process does the work instead
        value = None
    try:
        sender.send(value)
    except Exception:  # as above (a closed pipe: the first process gave up)
        pass
    finally:
        sender.close()
