"""``fitgate merge REPORT...``: the JSON reports of ``check --shard K/N`` -> the one report
``check`` would have written without sharding, from which every other report is rendered.

The shards must be whole and belong together: one snapshot, one ``--fail-on``, one input
(the digest every shard takes of everything it read), one fitgate version, every K of N
exactly once. Anything else is refused with the files named (exit 2): a merge that quietly
dropped or doubled a shard would pass a gate that should fail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec
from msgspec import Struct

from gate.errors import UsageError
from gate.model import Location, NodeOutcome, Report, SnapshotInfo, Taint, Verdict, WorkloadResult


class _Snapshot(Struct, frozen=True):
    source: str
    capturedAt: str | None
    nodes: int
    pods: int
    context: str | None = None
    server: str | None = None
    serverVersion: str | None = None


class _Summary(Struct):
    failOn: list[str]


class _Workload(Struct):
    kind: str
    namespace: str
    name: str
    file: str
    line: int
    replicas: int | None
    verdict: str
    message: str | None
    nodes: dict[str, list[str]]
    requests: dict[str, str]
    warnings: list[str]
    origin: str | None = None
    reason: str | None = None


class _Untolerated(Struct):
    key: str
    value: str
    effect: str
    nodes: str


class _Shard(Struct):
    index: int
    count: int
    items: int
    inputs: str
    cluster: str
    version: str
    positions: list[int]
    untolerated: list[list[_Untolerated]]


class _ShardReport(Struct):
    schemaVersion: int
    snapshot: _Snapshot
    summary: _Summary
    workloads: list[_Workload]
    otherDocuments: dict[str, int] = {}
    shard: _Shard | None = None


@dataclass(frozen=True, slots=True)
class _Part:
    path: str
    report: _ShardReport
    shard: _Shard


_DECODER = msgspec.json.Decoder(_ShardReport)


def _read(path: str) -> _Part:
    try:
        with open(path, "rb") as handle:
            report = _DECODER.decode(handle.read())
    except OSError as exc:
        raise UsageError(f"{path}: cannot read report: {exc.strerror}") from None
    except msgspec.DecodeError as exc:  # ValidationError included: it names the field
        raise UsageError(f"{path}: not a fitgate JSON report: {exc}") from None
    if report.schemaVersion != 1:
        raise UsageError(f"{path}: report schemaVersion {report.schemaVersion}, expected 1")
    shard = report.shard
    if shard is None:
        raise UsageError(f"{path}: not a shard report: write it with check --shard K/N --json")
    if not len(report.workloads) == len(shard.positions) == len(shard.untolerated):
        raise UsageError(f"{path}: shard report is inconsistent: positions do not match workloads")
    return _Part(path, report, shard)


def _same(parts: Sequence[_Part], what: str, read: Callable[[_Part], object]) -> None:
    """Every part agrees with the first on ``read(part)``."""
    first = parts[0]
    for part in parts[1:]:
        if read(part) != read(first):
            raise UsageError(f"{first.path} and {part.path} {what}: they cannot be merged")


def _check_together(parts: Sequence[_Part]) -> None:
    _same(parts, "were evaluated against different snapshots", lambda p: p.report.snapshot)
    _same(parts, "use different --fail-on", lambda p: sorted(p.report.summary.failOn))
    _same(parts, "split into different numbers of shards", lambda p: p.shard.count)
    _same(parts, "read different manifests", lambda p: (p.shard.items, p.shard.inputs))
    _same(parts, "come from different fitgate versions", lambda p: p.shard.version)
    _same(parts, "name different clusters", lambda p: p.shard.cluster)
    count = parts[0].shard.count
    seen: dict[int, str] = {}
    for part in parts:
        index = part.shard.index
        if not 1 <= index <= count:
            raise UsageError(f"{part.path}: shard {index}/{count} does not exist")
        if index in seen:
            raise UsageError(f"shard {index}/{count} is given twice: {seen[index]}, {part.path}")
        seen[index] = part.path
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise UsageError(f"shard(s) {', '.join(missing)} missing: every shard must be merged")


def _taints(entries: list[_Untolerated]) -> dict[int, Taint]:
    found: dict[int, Taint] = {}
    for entry in entries:
        taint = Taint(key=entry.key, value=entry.value, effect=entry.effect)
        bits = int(entry.nodes, 16)
        while bits:
            low = bits & -bits
            found[low.bit_length() - 1] = taint
            bits ^= low
    return found


def _result(workload: _Workload, untolerated: list[_Untolerated], path: str) -> WorkloadResult:
    taint_of = _taints(untolerated)
    try:
        verdict = Verdict(workload.verdict)
    except ValueError:
        raise UsageError(f"{path}: unknown verdict {workload.verdict!r}") from None
    nodes = tuple(
        NodeOutcome(node=name, reasons=tuple(reasons), taint=taint_of.get(number))
        for number, (name, reasons) in enumerate(workload.nodes.items())
    )
    return WorkloadResult(
        kind=workload.kind,
        namespace=workload.namespace,
        name=workload.name,
        location=Location(workload.file, workload.line, workload.origin),
        replicas=workload.replicas,
        verdict=verdict,
        message=workload.message,
        reason=workload.reason,
        nodes=nodes,
        requests=tuple(workload.requests.items()),
        warnings=tuple(workload.warnings),
    )


def merged_report(paths: Sequence[str]) -> tuple[Report, str]:
    """The one-run report the shards in ``paths`` add up to, and its cluster's name."""
    parts = [_read(path) for path in paths]
    if not parts:
        raise UsageError("merge needs the JSON report of every shard")
    _check_together(parts)
    positioned: dict[int, WorkloadResult] = {}
    others: Counter[str] = Counter()
    for part in parts:
        others.update(part.report.otherDocuments)
        shard = part.shard
        for position, workload, untolerated in zip(
            shard.positions, part.report.workloads, shard.untolerated, strict=True
        ):
            if position in positioned or not 0 <= position < shard.items:
                raise UsageError(f"{part.path}: workload position {position} is not this shard's")
            positioned[position] = _result(workload, untolerated, part.path)
    first = parts[0]
    snapshot = first.report.snapshot
    try:
        fail_on = frozenset(Verdict(v) for v in first.report.summary.failOn)
    except ValueError:
        raise UsageError(f"{first.path}: unknown verdict in failOn") from None
    report = Report(
        snapshot=SnapshotInfo(
            source=snapshot.source,
            captured_at=snapshot.capturedAt,
            context=snapshot.context,
            server=snapshot.server,
            server_version=snapshot.serverVersion,
            nodes=snapshot.nodes,
            pods=snapshot.pods,
        ),
        results=tuple(positioned[p] for p in sorted(positioned)),
        fail_on=fail_on,
        other_documents=tuple(sorted(others.items())),
        version=first.shard.version,
    )
    return report, first.shard.cluster
