"""``--baseline REPORT``: the workloads of a JSON report fitgate wrote earlier (on the base
branch, say), which the run's results are compared with.

A report of this version (schemaVersion 3) is decoded into the types of
:mod:`gate.model.contract`, every field checked, one workload at a time: the report's other fields
first, with each workload left as a view of the file's bytes
(:func:`gate.model.contract.encoded_workloads`), then each workload in turn, of which only what a
comparison reads is kept. A report naming every node of a large cluster for each workload
(``--json-nodes all``) is mostly outcome groups; decoded whole, it took four times its size
in memory, and now takes the file's bytes and the entries (``benchmarks/hostile.py`` holds
a check to twice the file's size). A report may also come from an older
fitgate than the one reading it (the base branch's cached artifact): schemaVersion 1 (per-node
``fits``/``nodes``) and 2 (outcome groups without plugin and code) are read at this edge, by
the one struct below, of the fields the three versions share with one meaning: per
workload, ``kind``, ``namespace``, ``name`` and ``verdict``, with ``file``, ``line`` and
``message`` to show what the base said. A comparison reads nothing else, so nothing is
derived from an older report's wording; every other field of those versions is skipped
unread.

The file is untrusted (an artifact of another job, or a file of the pull request): its size
is bounded, it is decoded into typed structs that check every field read, and the first
problem is refused in one line naming the file and the JSON path (exit 2).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from typing import Annotated, TypeVar

import msgspec
from msgspec import Meta, Struct

from gate.deadline import read_capped
from gate.errors import NESTED_TOO_DEEP, UsageError
from gate.model import Baseline, BaselineEntry, Policy, Verdict, contract
from gate.model.contract import SCHEMA_VERSION, VERSION_DECODER, WORKLOAD_DECODER, Line, given

OLDER_VERSIONS = (1, 2)
"""The earlier report versions a baseline may have, read at this edge."""

MAX_BASELINE_BYTES = 1024 * 1024 * 1024
"""A larger file is refused (``/dev/zero`` never ends; a version 1 report of a 5,000-node
cluster and 2,000 workloads is under 900 MB)."""

MAX_BASELINE_WORKLOADS = 250_000
"""A report of more workloads is refused. What is kept of a workload is a few hundred bytes
whatever it held, more than the smallest workload takes in the file (a 72-byte
``{"kind": ..., "verdict": "NO"}``): past this many, the memory a baseline costs would follow
its count, not its size."""

_W = TypeVar("_W")
_VERDICTS = {v.value: v for v in Verdict}
_Verdict = Annotated[
    str, Meta(pattern="^(YES|SCALES|PREEMPTS|NO|ADDON_ONLY|PARTIAL|ERROR|SKIPPED)$")
]


class _OlderWorkload(Struct, frozen=True):
    """A workload of a schemaVersion 1 or 2 report: only what a comparison reads, which
    those versions wrote as this one does."""

    kind: str
    namespace: str
    name: str
    verdict: _Verdict
    file: str | None = None
    line: Line | None = None
    message: str | None = None


class _OlderReport(Struct, frozen=True):
    workloads: list[msgspec.Raw]
    """Each left encoded and decoded in turn, as this version's are: decoded whole, 2,000,000
    small workloads of 144 MB held 1 GB."""


_OLDER = msgspec.json.Decoder(_OlderReport)
_OLDER_WORKLOAD = msgspec.json.Decoder(_OlderWorkload)


def _read_bytes(path: str) -> bytes:
    """The file's bytes: a regular file in one read into one buffer of its size (read in
    chunks and joined, a large baseline was held twice), anything else (a pipe,
    ``/dev/zero``) chunk by chunk up to the cap."""
    limit = MAX_BASELINE_BYTES // (1024 * 1024)

    def too_long() -> UsageError:
        return UsageError(f"{path}: baseline report: longer than {limit} MiB")

    try:
        with open(path, "rb", buffering=0) as handle:
            found = os.fstat(handle.fileno())
            if not stat.S_ISREG(found.st_mode):
                return read_capped(handle.read, MAX_BASELINE_BYTES, too_long)
            if found.st_size > MAX_BASELINE_BYTES:
                raise too_long()
            data = handle.readall()  # sized by the file, read to its end
            if len(data) > MAX_BASELINE_BYTES:  # grew while read
                raise too_long()
            return data
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the baseline report: {exc.strerror}") from None


def read_baseline(path: str) -> Baseline:
    """The workloads of the report at ``path``, in its order."""
    data = _read_bytes(path)
    try:
        version = VERSION_DECODER.decode(data).schemaVersion
        if version == SCHEMA_VERSION:
            head = contract.report_head(data)
            raws = _counted(path, head.workloads)
            workloads = _workloads(raws, WORKLOAD_DECODER)
            entries = tuple(_entries(path, workloads))
            policy = _policy(given(head.policy, None))
            fail_on = frozenset(Verdict(v) for v in head.summary.failOn if v in _VERDICTS)
            return Baseline(path, entries, policy, fail_on)
        if version not in OLDER_VERSIONS:
            known = f"{', '.join(map(str, OLDER_VERSIONS))} or {SCHEMA_VERSION}"
            raise UsageError(
                f"{path}: baseline report schemaVersion {version}: fitgate reads "
                f"schemaVersion {known}"
            )
        raws = _counted(path, _OLDER.decode(data).workloads)
        del data  # the workloads' views keep what they read of it
        older = _workloads(raws, _OLDER_WORKLOAD)
        return Baseline(path, tuple(_entries(path, older)))
    except msgspec.DecodeError as exc:  # ValidationError included: it names the JSON path
        raise UsageError(f"{path}: not a fitgate JSON report: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: not a fitgate JSON report: {NESTED_TOO_DEEP}") from None


DEFAULT_POLICY = Policy(fail_on_by=None, allowed=(), skips=())


def _policy(policy: Policy | None) -> Policy:
    """The policy a report of this version records (none: the default)."""
    return DEFAULT_POLICY if policy is None else policy


def _counted(path: str, raws: list[msgspec.Raw]) -> list[msgspec.Raw]:
    """``raws``, refused in one line when there are more than a baseline may hold."""
    if len(raws) > MAX_BASELINE_WORKLOADS:
        raise UsageError(
            f"{path}: baseline report: {len(raws):,} workloads, more than the "
            f"{MAX_BASELINE_WORKLOADS:,} a baseline may hold"
        )
    return raws


def _workloads(raws: list[msgspec.Raw], decoder: msgspec.json.Decoder[_W]) -> Iterator[_W]:
    """The workloads of a report, decoded one at a time, each dropped once its entry is
    taken; the report's other fields are checked first. An error names its path from the
    report's root, as a whole report's decoding would."""
    for number, raw in enumerate(raws):
        try:
            yield decoder.decode(raw)
        except msgspec.ValidationError as exc:
            where = f"$.workloads[{number}]"
            said = str(exc)
            if " - at `$" in said:
                raise msgspec.ValidationError(
                    said.replace(" - at `$", f" - at `{where}", 1)
                ) from None
            raise msgspec.ValidationError(f"{said} - at `{where}`") from None


def _entries(
    path: str, workloads: Iterable[_OlderWorkload | contract.Workload]
) -> Iterable[BaselineEntry]:
    """Each workload's entry; a kind, namespace, file or message that many workloads share
    is held once (a report of 200,000 workloads repeats a few dozen of each)."""
    shared: dict[str, str] = {}
    once = shared.setdefault
    for number, w in enumerate(workloads):
        verdict = _VERDICTS.get(w.verdict)  # a pattern for the older, text for this version
        if verdict is None:
            shown = w.verdict[:20]
            raise UsageError(f"{path}: $.workloads[{number}].verdict: unknown verdict {shown!r}")
        yield BaselineEntry(
            kind=once(w.kind, w.kind),
            namespace=once(w.namespace, w.namespace),
            name=w.name,
            verdict=verdict,
            file=None if w.file is None else once(w.file, w.file),
            line=w.line,
            message=None if w.message is None else once(w.message, w.message),
        )
