"""``--baseline REPORT``: the workloads of a JSON report fitgate wrote earlier (on the base
branch, say), which the run's results are compared with.

A report may come from an older fitgate than the one reading it, so both report versions
are read (schemaVersion 1, with per-node ``fits``/``nodes``, and 2, with grouped
``outcomes``); of either, only what both carry is read: ``schemaVersion`` and, per workload,
``kind``, ``namespace``, ``name`` and ``verdict``, with ``file``, ``line`` and ``message`` to
show what the base said. Every other field is skipped unread.

The file is untrusted (an artifact of another job, or a file of the pull request): its size
is bounded, it is decoded into typed structs that check every field read, and the first
problem is refused in one line naming the file and the JSON path (exit 2).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta, Struct

from gate.deadline import read_capped
from gate.errors import UsageError
from gate.model import Baseline, BaselineEntry, Verdict

READ_VERSIONS = (1, 2)
"""The report versions a baseline may have."""

MAX_BASELINE_BYTES = 1024 * 1024 * 1024
"""A larger file is refused (``/dev/zero`` never ends; a version 1 report of a 5,000-node
cluster and 2,000 workloads is under 900 MB)."""

_Line = Annotated[int, Meta(ge=1, le=2**63 - 1)]
_Verdict = Annotated[str, Meta(pattern="^(YES|NO|ADDON_ONLY|PARTIAL|ERROR|SKIPPED)$")]


class _Version(Struct):
    schemaVersion: int


class _Workload(Struct):
    kind: str
    namespace: str
    name: str
    verdict: _Verdict
    file: str | None = None
    line: _Line | None = None
    message: str | None = None


class _Report(Struct):
    schemaVersion: int
    workloads: list[_Workload]


_VERSION = msgspec.json.Decoder(_Version)
_REPORT = msgspec.json.Decoder(_Report)


def _read_bytes(path: str) -> bytes:
    limit = MAX_BASELINE_BYTES // (1024 * 1024)
    try:
        with open(path, "rb") as handle:
            return read_capped(
                handle.read,
                MAX_BASELINE_BYTES,
                lambda: UsageError(f"{path}: baseline report: longer than {limit} MiB"),
            )
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the baseline report: {exc.strerror}") from None


def read_baseline(path: str) -> Baseline:
    """The workloads of the report at ``path``, in its order."""
    data = _read_bytes(path)
    try:
        version = _VERSION.decode(data).schemaVersion
        if version not in READ_VERSIONS:
            raise UsageError(
                f"{path}: baseline report schemaVersion {version}: fitgate reads schemaVersion "
                f"{' or '.join(map(str, READ_VERSIONS))}"
            )
        report = _REPORT.decode(data)
    except msgspec.DecodeError as exc:  # ValidationError included: it names the JSON path
        raise UsageError(f"{path}: not a fitgate JSON report: {exc}") from None
    entries = tuple(
        BaselineEntry(
            kind=w.kind,
            namespace=w.namespace,
            name=w.name,
            verdict=Verdict(w.verdict),  # checked by the pattern
            file=w.file,
            line=w.line,
            message=w.message,
        )
        for w in report.workloads
    )
    return Baseline(source=path, entries=entries)
