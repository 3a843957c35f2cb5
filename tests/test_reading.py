"""The sentences about what a run read (gate.reports.reading): the line of files and
documents read, left out and not checked, their details, JUnit's properties of them, and
why a run that judged nothing does not pass."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gate.model import SNAPSHOT_FILE, Excluded, ReadSummary, Unchecked, Verdict
from gate.reports.reading import (
    ALLOW_EMPTY,
    excluded_lines,
    nothing_judged,
    read_line,
    read_properties,
)
from tests.report_builders import report, result


def _read(
    files: int,
    documents: int,
    excluded: tuple[tuple[str, str], ...] = (),
    skipped: tuple[tuple[str, str], ...] = (),
) -> ReadSummary:
    """A read summary from (file, pattern) and (at, reason) pairs."""
    return ReadSummary(
        files,
        documents,
        tuple(Excluded(*pair) for pair in excluded),
        tuple(Unchecked(*pair) for pair in skipped),
    )


READ_LINES: list[tuple[str, ReadSummary, str]] = [
    ("one file, one document, in the singular", _read(1, 1), "Read 1 file, 1 document."),
    ("nothing read, in the plural", _read(0, 0), "Read 0 files, 0 documents."),
    (
        "files left out, counted by the pattern that left them out",
        _read(3, 4, (("a.json", "*.json"), ("t/b.yaml", "tests"), ("c.json", "*.json"))),
        'Read 3 files, 4 documents; left out 3 walked files (2 by "*.json", 1 by "tests").',
    ),
    (
        "the snapshot file is named as such, not quoted as a pattern",
        _read(2, 2, (("snap.json", SNAPSHOT_FILE),)),
        "Read 2 files, 2 documents; left out 1 walked file (1 by the snapshot file).",
    ),
    (
        "documents read but not checked",
        _read(1, 3, (), (("a.yaml:1", "a snapshot"), ("a.yaml:9", "a snapshot"))),
        "Read 1 file, 3 documents; 2 documents not checked.",
    ),
]


@pytest.mark.parametrize(
    ("read", "expected"), [c[1:] for c in READ_LINES], ids=[c[0] for c in READ_LINES]
)
def test_read_line(read: ReadSummary, expected: str) -> None:
    assert read_line(read) == expected


def test_excluded_lines_show_the_first_few_of_each_then_how_many_more() -> None:
    read = _read(
        0,
        0,
        (*((f"f{i}.yaml", "tests") for i in range(3)), ("snap.json", SNAPSHOT_FILE)),
        tuple((f"s.yaml:{i}", "a snapshot") for i in range(1, 4)),
    )
    assert excluded_lines(read, shown=2) == [
        'left out f0.yaml: "tests"',
        'left out f1.yaml: "tests"',
        "... and 2 more left out (see the JSON report)",
        "not checked s.yaml:1: a snapshot",
        "not checked s.yaml:2: a snapshot",
        "... and 1 more not checked (see the JSON report)",
    ]


def test_excluded_lines_of_a_run_that_left_nothing_out_are_none() -> None:
    assert excluded_lines(_read(2, 2)) == []


NOTHING: list[tuple[str, ReadSummary | None, str]] = [
    (
        "every file found was excluded",
        _read(0, 0, (("a.yaml", "tests"), ("b.json", SNAPSHOT_FILE))),
        'every file found is excluded (2 files by "tests", the snapshot file)',
    ),
    (
        "no manifest found",
        _read(0, 0),
        "no manifests found (no .yaml, .yml or .json file under the paths given)",
    ),
    ("files holding no document", _read(2, 0), "the 2 files read hold no documents"),
    (
        "only snapshots or unread files, the first named",
        _read(1, 2, (), (("a.json:1", "a cluster snapshot"), ("b:1", "a named pipe"))),
        "only cluster snapshots or unread files found (a.json:1: a cluster snapshot)",
    ),
    (
        "documents without a pod template, skips and errors counted",
        _read(1, 4),
        "no workload evaluated (3 documents without a pod template, 1 skipped, 0 errors)",
    ),
    (
        "a merge that read nothing counts what it has",
        None,
        "no workload evaluated (3 documents without a pod template, 1 skipped, 0 errors)",
    ),
]


@pytest.mark.parametrize(("read", "why"), [c[1:] for c in NOTHING], ids=[c[0] for c in NOTHING])
def test_nothing_judged(read: ReadSummary | None, why: str) -> None:
    judged = report(
        result(verdict=Verdict.SKIPPED), other_documents=(("ConfigMap", 2), ("Service", 1))
    )
    assert nothing_judged(replace(judged, read=read)) == f"nothing judged: {why}; {ALLOW_EMPTY}"


def test_allow_empty_names_both_ways_to_accept_an_empty_run() -> None:
    assert ALLOW_EMPTY == "--allow-empty (allowEmpty: true) accepts a run that judges nothing"


def test_read_properties_count_then_number_each_detail() -> None:
    read = _read(2, 3, (("a.json", "*.json"),), (("s.yaml:1", "a snapshot"),))
    assert read_properties(read) == {
        "read.files": 2,
        "read.documents": 3,
        "read.excluded": 1,
        "read.skipped": 1,
        "read.excluded.1": 'a.json: "*.json"',
        "read.skipped.1": "s.yaml:1: a snapshot",
    }


def test_read_properties_number_the_first_hundred_of_each() -> None:
    read = _read(0, 0, tuple((f"f{i}", "x") for i in range(150)))
    numbered = [k for k in read_properties(read) if k.startswith("read.excluded.")]
    assert (len(numbered), numbered[-1]) == (100, "read.excluded.100")
    assert read_properties(read)["read.excluded"] == 150
