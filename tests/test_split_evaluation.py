"""``check --processes 2`` judges a run's workloads in two parts at once and writes what one
process writes: every report, the exit code and standard output, on every row where
shards are held to the whole run (the room new workloads take, DaemonSets before
Deployments, quotas, autoscaler headroom, preemption...). A second process that fails
leaves its part to the first, with the same answers and nothing on standard error."""

from __future__ import annotations

import doctest
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.ci import split
from gate.ci.split import cut_position
from gate.run import _Judge
from gate.snapshot.forked import Forked, can_fork
from tests.test_merge_equals_whole import CASES, Case, inputs, report_files, run, written

needs_two_cores = pytest.mark.skipif(
    not can_fork(), reason="a second process is forked only on Linux with two cores"
)


@pytest.fixture(autouse=True)
def split_any_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run of two workloads or more is cut (a real run: from a hundred)."""
    monkeypatch.setattr(split, "SPLIT_FROM", 2)


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The second processes the runs started (so a row cannot pass by never cutting)."""
    started: list[object] = []
    start = Forked.start.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Forked[object]], work: Callable[[], object]) -> object:
        forked = start(cls, work)
        started.append(forked)
        return forked

    monkeypatch.setattr(Forked, "start", classmethod(counted))
    return started


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(split).failed == 0


def test_a_forked_process_does_the_work_and_hands_its_value_over() -> None:
    if not can_fork():
        assert Forked.start(os.getpid) is None
        return
    forked = Forked.start(os.getpid)
    assert forked is not None
    value = forked.value()
    assert isinstance(value, int) and value != os.getpid()


@needs_two_cores
def test_a_forked_process_that_fails_hands_over_nothing() -> None:
    def fails() -> int:
        raise ValueError("no")

    forked = Forked.start(fails)
    assert forked is not None
    assert forked.value() is None


@pytest.mark.parametrize(
    ("reported", "cut"),
    [
        pytest.param([0, 1], 1, id="two workloads: the second is the other process's"),
        pytest.param([3, 5, 8, 9, 12], 9, id="five: this process judges the first three"),
        pytest.param([7], None, id="one workload is judged whole"),
    ],
)
def test_the_run_is_cut_before_a_reported_workload(reported: list[int], cut: int | None) -> None:
    assert cut_position(reported) == cut


def test_a_run_below_the_threshold_is_judged_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "SPLIT_FROM", 100)
    assert cut_position(list(range(99))) is None
    assert cut_position(list(range(100))) == 58


def _several(case: Case) -> bool:
    return len(case.documents) > 1


@needs_two_cores
@pytest.mark.parametrize(
    "case",
    [c for c in CASES.values() if _several(c)],
    ids=[k for k, c in CASES.items() if _several(c)],
)
def test_two_processes_write_what_one_writes(
    tmp_path: Path, case: Case, forks: list[object]
) -> None:
    argv = inputs(tmp_path, case)
    whole = run("check", *argv, *report_files(tmp_path, "whole"))
    assert not forks
    two = run("check", *argv, "--processes", "2", *report_files(tmp_path, "two"))
    assert len(forks) == 1 and forks[0] is not None
    assert two == whole
    assert written(tmp_path, "two") == written(tmp_path, "whole")


@needs_two_cores
def test_a_second_process_that_fails_leaves_its_part_to_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[object]
) -> None:
    parent = os.getpid()
    judge = _Judge.__call__

    def fails_when_forked(self: _Judge, *args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("the second process fails")
        return judge(self, *args, **kwargs)  # type: ignore[arg-type]

    case = CASES[
        "together: a new DaemonSet takes its room first, before a Deployment listed earlier"
    ]
    argv = inputs(tmp_path, case)
    whole = run("check", *argv, *report_files(tmp_path, "whole"))
    monkeypatch.setattr(_Judge, "__call__", fails_when_forked)
    two = run("check", *argv, "--processes", "2", *report_files(tmp_path, "two"))
    assert len(forks) == 1 and forks[0] is not None
    assert two == whole
    assert "Traceback" not in two[2]
    assert written(tmp_path, "two") == written(tmp_path, "whole")
