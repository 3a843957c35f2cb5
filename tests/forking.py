"""The second processes a test's runs start, counted (so that a row cannot pass by never
forking one), and the mark of the tests that need one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gate.snapshot.forked import Forked, Processes, can_fork
from tests.test_merge_equals_whole import Case, inputs, report_files, run, written

needs_two_cores = pytest.mark.skipif(
    not can_fork(), reason="a second process is forked only on Linux with two cores"
)


def counting_forks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every :meth:`Forked.start` of the test, in order: the process started, or None
    where none was."""
    started: list[object] = []
    start = Forked.start.__func__  # type: ignore[attr-defined]

    def counted(
        cls: type[Forked[object]], work: Callable[[], object], processes: Processes
    ) -> object:
        second = start(cls, work, processes)
        started.append(second)
        return second

    monkeypatch.setattr(Forked, "start", classmethod(counted))
    return started


def assert_one_second_process_changes_nothing(
    tmp_path: Path, case: Case, forks: list[object]
) -> None:
    """The case checked in one process, then where two may run: one second process
    started, and every report, the exit code and both streams as one process gave them."""
    argv = inputs(tmp_path, case)
    whole = run("check", *argv, "--processes", "1", *report_files(tmp_path, "whole"))
    assert not forks
    two = run("check", *argv, "--processes", "2", *report_files(tmp_path, "two"))
    assert len(forks) == 1 and forks[0] is not None
    assert two == whole
    assert written(tmp_path, "two") == written(tmp_path, "whole")
