"""The sentences about what a run read: every report's line of files and documents read,
left out and not checked, and why a run that judged nothing does not pass (exit 5)."""

from __future__ import annotations

from gate.model import SNAPSHOT_FILE, ReadSummary, Report, Verdict

ALLOW_EMPTY = "--allow-empty (allowEmpty: true) accepts a run that judges nothing"
"""How a run that judges nothing on purpose says so."""


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def read_line(read: ReadSummary) -> str:
    """What the run read, in one sentence.

    >>> from gate.model import Excluded, Unchecked
    >>> left = (Excluded("a.yaml", "tests"), Excluded("b.json", "tests"))
    >>> read_line(ReadSummary(2, 5, left, (Unchecked("s:1", "x"),)))
    'Read 2 files, 5 documents; left out 2 walked files (2 by "tests"); 1 document not checked.'
    """
    text = f"Read {_plural(read.files, 'file')}, {_plural(read.documents, 'document')}"
    if read.excluded:
        patterns = ", ".join(f"{n} by {_pattern(p)}" for p, n in read.excluded_by())
        text += f"; left out {_plural(len(read.excluded), 'walked file')} ({patterns})"
    if read.skipped:
        text += f"; {_plural(len(read.skipped), 'document')} not checked"
    return text + "."


def _pattern(pattern: str) -> str:
    return pattern if pattern == SNAPSHOT_FILE else f'"{pattern}"'


DETAILS_SHOWN = 10
"""How many left-out files and unchecked documents the text summary and the comment list
(a monorepo may leave out thousands); the JSON report lists every one."""

PROPERTIES_SHOWN = 100
"""How many of each JUnit numbers as properties."""


def excluded_lines(read: ReadSummary, shown: int = DETAILS_SHOWN) -> list[str]:
    """The details: each left-out file with its pattern, each unchecked document with why,
    the first ``shown`` of each, then how many more there are."""
    lines = [f"left out {e.file}: {_pattern(e.pattern)}" for e in read.excluded[:shown]]
    if len(read.excluded) > shown:
        lines.append(f"... and {len(read.excluded) - shown} more left out (see the JSON report)")
    lines.extend(f"not checked {u.at}: {u.reason}" for u in read.skipped[:shown])
    if len(read.skipped) > shown:
        lines.append(f"... and {len(read.skipped) - shown} more not checked (see the JSON report)")
    return lines


def nothing_judged(report: Report) -> str:
    """Why ``report`` judged no workload, in one line naming the way to accept it."""
    return f"nothing judged: {_why_nothing(report)}; {ALLOW_EMPTY}"


def _why_nothing(report: Report) -> str:
    read = report.read
    if read is not None and read.files == 0 and read.excluded:
        patterns = ", ".join(_pattern(p) for p, _ in read.excluded_by())
        return f"every file found is excluded ({_plural(len(read.excluded), 'file')} by {patterns})"
    if read is not None and read.files == 0:
        return "no manifests found (no .yaml, .yml or .json file under the paths given)"
    if read is not None and read.documents == 0:
        return f"the {_plural(read.files, 'file')} read hold no documents"
    if read is not None and len(read.skipped) == read.documents:
        first = read.skipped[0]
        return f"only cluster snapshots or unread files found ({first.at}: {first.reason})"
    counts = report.summary.counts
    others = sum(n for _, n in report.other_documents)
    return (
        "no workload evaluated ("
        f"{_plural(others, 'document')} without a pod template, "
        f"{counts[Verdict.SKIPPED]} skipped, {_plural(counts[Verdict.ERROR], 'error')})"
    )


def read_properties(read: ReadSummary) -> dict[str, object]:
    """JUnit's properties of what was read: the counts, then each left-out file and each
    unchecked document, numbered (the first :data:`PROPERTIES_SHOWN` of each)."""
    values: dict[str, object] = {
        "read.files": read.files,
        "read.documents": read.documents,
        "read.excluded": len(read.excluded),
        "read.skipped": len(read.skipped),
    }
    for number, left in enumerate(read.excluded[:PROPERTIES_SHOWN], 1):
        values[f"read.excluded.{number}"] = f"{left.file}: {_pattern(left.pattern)}"
    for number, unchecked in enumerate(read.skipped[:PROPERTIES_SHOWN], 1):
        values[f"read.skipped.{number}"] = f"{unchecked.at}: {unchecked.reason}"
    return values
