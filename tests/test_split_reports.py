"""A large report's leading file writers (JSON, JUnit) written by a forked process while
this one writes the rest: the same files, standard output and exit code as one process
writing them in order, a failing second process's writers written here, and an error
writing them raised as writing in order raises the first."""

from __future__ import annotations

import doctest
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

import gate.run
from gate.reports.reporter import Output, ReportContext, Reporter
from gate.run import FileSink, Sink, forked_writers
from tests.forking import assert_one_second_process_changes_nothing, needs_two_cores
from tests.test_merge_equals_whole import CASES, OUTPUTS, inputs, report_files, run, written

CASE = CASES["together: a new DaemonSet takes its room first, before a Deployment listed earlier"]


def _write(_: Output) -> None:
    raise AssertionError("not written")


def _render(_report: object, _context: ReportContext) -> str:
    raise AssertionError("not rendered")


FILE: Sink = FileSink(_write)
STREAM: Sink = _write


@pytest.fixture(autouse=True)
def split_any_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every report of a result or more is split (a real run's: from a hundred)."""
    monkeypatch.setattr(gate.run, "WRITERS_SPLIT_FROM", 1)


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(gate.run).failed == 0


@pytest.mark.parametrize(
    ("sinks", "forked"),
    [
        pytest.param([(FILE,), (FILE,), (FILE,), (FILE,), (STREAM,)], 2, id="half of them"),
        pytest.param([(FILE,), (FILE,), (FILE,)], 1, id="half of three is one"),
        pytest.param([(FILE,)], 0, id="a writer alone is written here"),
        pytest.param([(STREAM,), (FILE,), (FILE,), (FILE,)], 0, id="standard output first"),
        pytest.param([(FILE,), (FILE, STREAM), (FILE,), (FILE,)], 1, id="a file and a stream"),
        pytest.param([(FILE,), (), (FILE,), (FILE,)], 1, id="a writer with no sink stops it"),
    ],
)
def test_the_forked_process_takes_the_leading_file_writers(
    sinks: list[Sequence[Sink]], forked: int
) -> None:
    table: list[tuple[Reporter, Sequence[Sink]]] = [(_render, s) for s in sinks]
    assert forked_writers(table) == forked


@needs_two_cores
def test_two_processes_write_the_reports_one_writes(tmp_path: Path, forks: list[object]) -> None:
    """(The case's run is too small to be judged in two parts: only its reports are.)"""
    assert_one_second_process_changes_nothing(tmp_path, CASE, forks)


@needs_two_cores
def test_a_writer_that_fails_when_forked_is_written_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[object]
) -> None:
    argv = inputs(tmp_path, CASE)
    whole = run("check", *argv, "--processes", "1", *report_files(tmp_path, "whole"))
    parent, writes = os.getpid(), gate.run._written

    def fails_when_forked(*args: object) -> bool:
        if os.getpid() != parent:
            raise RuntimeError("the second process fails")
        return writes(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(gate.run, "_written", fails_when_forked)
    two = run("check", *argv, "--processes", "2", *report_files(tmp_path, "two"))
    assert len(forks) == 1 and forks[0] is not None
    assert two == whole
    assert written(tmp_path, "two") == written(tmp_path, "whole")


@needs_two_cores
@pytest.mark.parametrize(
    "unwritable",
    [
        pytest.param(("json",), id="the forked process's report"),
        pytest.param(("comment",), id="this process's report"),
        pytest.param(("junit", "comment"), id="one of each: the first one's error"),
    ],
)
def test_an_unwritable_report_is_said_as_one_process_says_it(
    tmp_path: Path, unwritable: tuple[str, ...], forks: list[object]
) -> None:
    argv = inputs(tmp_path, CASE)
    missing = tmp_path / "no such directory"

    def files(tag: str) -> list[str]:
        return [
            f"--{kind}={missing / kind}" if kind in unwritable else option
            for kind, option in zip(OUTPUTS, report_files(tmp_path, tag), strict=True)
        ]

    whole = run("check", *argv, "--processes", "1", *files("whole"))
    two = run("check", *argv, "--processes", "2", *files("two"))
    assert len(forks) == 1 and forks[0] is not None
    assert whole[0] == 2 and f"{missing / unwritable[0]}: cannot write report" in whole[2]
    assert two == whole
