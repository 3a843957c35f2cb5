"""Work done by a forked process while this one does its own: a large snapshot file's
second half (:mod:`gate.snapshot.halves`), a run's later workloads (:mod:`gate.ci.split`).

A process is forked only where it can help and cannot hang: on Linux, with a second core
that the process's CPU affinity and its container's CPU limit both allow, and no other
thread running (a fork copies one thread only, so a lock another holds would stay held).
Unless two processes are asked for, a core must also be idle when the process would start:
beside a job that holds the other core, two processes took up to 1.4x one's time.
Whatever the forked process does wrong -- it raises, dies, or hands over what does not
unpickle -- its value is None and the caller does the work itself.

A value is handed over through a file in memory (``memfd_create``) where there is one, and
only its length through the pipe: the large case's second reader hands over 36 MB, which
crossed the pipe a 64 KiB buffer at a time, each one a switch between the two processes
(0.06 s of the first one's waiting); written into memory while the first one still reads,
it is unpickled where it lies.
"""

from __future__ import annotations

import math
import mmap
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Value = TypeVar("Value")

Processes = Literal[1, 2, "auto"]
"""The processes a run may use (``--processes``): ``auto`` forks a second one where it can,
a core is idle at that moment and memory has room for it; ``2`` wherever it can; ``1``
never."""

LOAD_FILE = "/proc/loadavg"
MEMORY_FILES = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
)
MEMINFO_FILE = "/proc/meminfo"
ROOM_FOR_SECOND = 1 << 30
"""The free memory ``auto`` asks for before it forks: a second process's own pages come to
about what the first one holds (a few hundred megabytes on a 5,000-node cluster), and a
container's memory limit counts both."""


def forks(processes: Processes) -> bool:
    """Whether a second process is to be started now, for a run that may use ``processes``."""
    if processes == 1 or not can_fork():
        return False
    return processes == 2 or (idle_core() and memory_room() >= ROOM_FOR_SECOND)


def memory_room() -> float:
    """The bytes this process's container may still take, and the machine has available
    (``MemAvailable``), whichever is less; infinity where neither can be read."""
    room = math.inf
    for limit_file, usage_file in MEMORY_FILES:
        try:
            with open(limit_file) as handle:
                limit = int(handle.read())
            with open(usage_file) as handle:
                room = min(room, limit - int(handle.read()))
            break
        except (OSError, ValueError):  # absent, or "max": no limit
            continue
    try:
        with open(MEMINFO_FILE) as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    room = min(room, int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    return room


LOAD_READS = 3
"""How many times :func:`idle_core` reads the kernel's count, a millisecond apart, before it
finds every core busy: a kernel thread, or a process exiting, that runs for an instant is
no job holding a core (on an idle 2-core machine, one read in about two hundred counts
two tasks)."""


def idle_core() -> bool:
    """Whether fewer tasks are runnable on the machine right now than it has cores, this
    process's own counted: the fourth field of ``/proc/loadavg`` (``running/total``) is the
    kernel's count at this instant, where the load averages would still count a job that
    ended a minute ago; an idle core in any of :data:`LOAD_READS` reads counts. True when it
    cannot be read: the caller has already found a second core allowed."""
    cores = os.cpu_count() or 1
    for read in range(LOAD_READS):
        if read:
            time.sleep(0.001)
        try:
            with open(LOAD_FILE) as handle:
                running = int(handle.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return True
        if running < cores:
            return True
    return False


def can_fork() -> bool:
    """Linux, a second core to use, and no other thread: a fork copies one thread only, so
    a lock another holds would stay held."""
    return (
        sys.platform.startswith("linux")
        and min(len(os.sched_getaffinity(0)), cpu_quota()) > 1
        and threading.active_count() == 1
    )


CGROUP_QUOTAS = (
    ("/sys/fs/cgroup/cpu.max", None),  # cgroup v2: "QUOTA PERIOD", or "max PERIOD"
    ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us"),  # v1
)


def cpu_quota() -> float:
    """The cores the container's CPU limit allows (a pod's ``resources.limits.cpu``: a
    check run in a cluster usually has one), or infinity when none is set or readable."""
    for quota_file, period_file in CGROUP_QUOTAS:
        try:
            with open(quota_file) as handle:
                fields = handle.read().split()
            if period_file is not None:
                with open(period_file) as handle:
                    fields += handle.read().split()
            quota, period = int(fields[0]), int(fields[1])
        except (OSError, ValueError, IndexError):  # absent, "max", or not numbers
            continue
        if quota > 0 and period > 0:
            return quota / period
    return math.inf


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
        self._memory = _memory_file()
        self._process = context.Process(target=_run, args=(work, sender, self._memory), daemon=True)
        self._process.start()
        sender.close()

    @classmethod
    def start(cls, work: Callable[[], Value], processes: Processes) -> Forked[Value] | None:
        """The process running ``work``; None when none is to be forked here (see
        :func:`forks`): the caller does the work itself."""
        return cls(work) if forks(processes) else None

    def value(self) -> Value | None:
        try:
            received = self._receiver.recv()
            if not isinstance(received, InMemory):
                return received  # type: ignore[no-any-return]
            assert self._memory is not None
            with mmap.mmap(self._memory, received.length, access=mmap.ACCESS_READ) as written:
                value: Value = pickle.loads(written)
            return value
        except Exception:  # a dead process (EOFError), a value that did not unpickle
            return None
        finally:
            self.close()

    def running(self) -> bool:
        """Whether the process has not ended yet."""
        return self._process.is_alive()

    def close(self) -> None:
        self._receiver.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        if self._memory is not None:
            os.close(self._memory)
            self._memory = None


def _memory_file() -> int | None:
    """A file in memory to hand a value over through, where the system makes one."""
    try:
        return os.memfd_create("fitgate-value", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # not Linux, or no memfd here: the pipe carries it
        return None


@dataclass(frozen=True, slots=True)
class InMemory:
    """What crosses the pipe for a value written into the file in memory: its length."""

    length: int


def _run(work: Callable[[], object], sender: Connection, memory: int | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the first process's to handle
    try:
        value = work()
    except Exception:  # any failure here: the first process does the work instead
        value = None
    try:
        sender.send(_written(value, memory))
    except Exception:  # as above (a closed pipe: the first process gave up)
        pass
    finally:
        sender.close()


def _written(value: object, memory: int | None) -> object:
    """The value pickled into the file ``memory``, as what tells the first process so; the
    value itself where there is no such file, or it could not be written (no memory left
    for it: the pipe then carries it)."""
    if memory is None or value is None:
        return value
    data = memoryview(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    written = 0
    try:
        while written < len(data):
            written += os.write(memory, data[written:])
    except OSError:
        return value
    return InMemory(written)
