"""``fitgate merge REPORT...``: the JSON reports of ``check --shard K/N`` -> the one report
``check`` would have written without sharding, from which every other report is rendered.

The shards must be whole and belong together: one snapshot, one ``--fail-on``, one input
(the digest every shard takes of everything it read), one fitgate version, every K of N
exactly once. Anything else is refused with the files named (exit 2): a merge that quietly
dropped or doubled a shard would pass a gate that should fail.

Only schemaVersion 2 is read (another version is refused in one line saying so). A shard's
report carries the snapshot's node names in its order (``$.shard.nodes``) and outcome groups
that name every node (whatever ``--json-nodes`` said), so each workload's per-node outcomes
are put back in node order and every report renders as the unsharded run's.

A report file is an input like any other (an artifact a pull request's job uploaded): every
field is checked before it is used -- types and ranges while decoding, then what ties the
fields together (a workload's groups name each of the shard's nodes exactly once, with
distinct reasons; a taint's node bitset is lower-case hex naming only listed nodes;
positions are this shard's and within the input) -- and the first problem is refused in one
line that names the file and the field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated

import msgspec
from msgspec import Meta, Struct

from gate.ci.shard import MAX_SHARDS
from gate.deadline import read_capped
from gate.errors import UsageError
from gate.k8s.warnings import ZERO_REQUEST
from gate.model import (
    Cause,
    Family,
    FieldLocation,
    HostPort,
    Location,
    NodeOutcome,
    NodeOutcomes,
    Policy,
    ReadSummary,
    ReplicaFit,
    Report,
    SnapshotInfo,
    Taint,
    Term,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
    bitset,
)
from gate.reports.jsonreport import SCHEMA_VERSION
from gate.scheduler.engine import DAEMONSET_TARGETS_NOTHING
from gate.scheduler.filters import plugin_of

_Count = Annotated[int, Meta(ge=0, le=2**63 - 1)]
_GroupSize = Annotated[int, Meta(ge=1, le=2**63 - 1)]
_Line = Annotated[int, Meta(ge=1, le=2**63 - 1)]
_ShardNumber = Annotated[int, Meta(ge=1, le=MAX_SHARDS)]
_Bitset = Annotated[str, Meta(pattern="^[0-9a-f]+$")]
_Digest = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]  # SHA-256, as shard.py writes it
_VERDICTS = frozenset(v.value for v in Verdict)
_UNEVALUATED = frozenset({Verdict.ERROR.value, Verdict.SKIPPED.value})
_MISSING_SHOWN = 10


class _Snapshot(Struct, frozen=True):
    source: str
    capturedAt: str | None
    nodes: _Count
    pods: _Count
    context: str | None = None
    server: str | None = None
    serverVersion: str | None = None


class _Summary(Struct):
    failOn: list[str]


class _Autoscaler(Struct):
    name: str
    maximum: _Count
    fit: _Count | None


class _Replicas(Struct):
    wanted: _Count
    fit: _Count | None
    alone: _Count | None = None
    together: _Count | None = None
    beside: list[str] = []
    released: _Count = 0
    autoscaler: _Autoscaler | None = None

    def placement(self) -> ReplicaFit | None:
        if self.fit is None or self.alone is None:
            return None
        scaler = self.autoscaler
        return ReplicaFit(
            wanted=self.wanted,
            alone=self.alone,
            together=self.together,
            beside=tuple(self.beside),
            autoscaler=scaler.name if scaler else None,
            maximum=scaler.maximum if scaler else None,
            headroom=scaler.fit if scaler else None,
            released=self.released,
        )


class _Group(Struct):
    reasons: list[str]
    count: _GroupSize
    nodes: list[str]


class _Port(Struct):
    ip: str
    protocol: str
    port: Annotated[int, Meta(ge=0, le=65535)]


class _Cause(Struct):
    family: Family
    plugin: str
    term: Term
    reason: str
    nodes: _Count
    index: _Count | None
    port: _Port | None
    resource: str
    requested: str
    free: str | None
    freeOnAddonNodes: bool

    def cause(self) -> Cause:
        port = self.port
        return Cause(
            family=self.family,
            plugin=self.plugin,
            term=self.term,
            reason=self.reason,
            nodes=self.nodes,
            index=self.index,
            port=None if port is None else HostPort(port.ip, port.protocol, port.port),
            resource=self.resource,
            requested=self.requested,
            free=self.free,
            free_on_addon=self.freeOnAddonNodes,
        )


class _Field(Struct):
    path: str
    line: _Line
    value: str
    partial: bool
    originLine: _Line | None = None


class _Workload(Struct):
    kind: str
    namespace: str
    name: str
    file: str
    line: _Line
    replicas: _Replicas | None
    verdict: str
    message: str | None
    outcomes: list[_Group]
    requests: dict[str, str]
    warnings: list[str]
    origin: str | None = None
    document: _Line | None = None
    originFile: str | None = None
    reason: str | None = None
    cause: _Cause | None = None
    field: _Field | None = None


class _Untolerated(Struct):
    key: str
    value: str
    effect: str
    nodes: _Bitset


class _Shard(Struct):
    index: _ShardNumber
    count: _ShardNumber
    items: _Count
    inputs: _Digest
    cluster: str
    version: str
    positions: list[_Count]
    nodes: list[str]
    untolerated: list[list[_Untolerated]]


class _Excluded(Struct):
    file: str
    pattern: str


class _Unchecked(Struct):
    at: str
    reason: str


class _Read(Struct):
    """What the shard's check read: every shard reads the same files (``inputs`` says so)."""

    files: _Count
    documents: _Count
    excluded: list[_Excluded]
    skipped: list[_Unchecked]

    def summary(self) -> ReadSummary:
        excluded = tuple((e.file, e.pattern) for e in self.excluded)
        skipped = tuple((u.at, u.reason) for u in self.skipped)
        return ReadSummary(self.files, self.documents, excluded, skipped)


class _Allowed(Struct):
    workloads: str
    reason: str


class _Skip(Struct):
    workloads: str
    reason: str
    expires: str | None


class _Policy(Struct):
    """The gate's policy the shards were run with (the same for every shard)."""

    failOnBy: str | None
    allowAddonOnly: list[_Allowed]
    skip: list[_Skip]

    def policy(self) -> Policy:
        allowed = tuple((a.workloads, a.reason) for a in self.allowAddonOnly)
        skips = tuple((s.workloads, s.reason, s.expires) for s in self.skip)
        return Policy(self.failOnBy, allowed, skips)


class _ShardReport(Struct):
    schemaVersion: int
    snapshot: _Snapshot
    summary: _Summary
    workloads: list[_Workload]
    otherDocuments: dict[str, _Count] = {}
    warnings: list[str] = []
    shard: _Shard | None = None
    read: _Read | None = None
    policy: _Policy | None = None


class _Version(Struct):
    schemaVersion: int


@dataclass(frozen=True, slots=True)
class _Part:
    path: str
    report: _ShardReport
    shard: _Shard
    index: dict[str, int]
    """Each of ``shard.nodes`` by name: its place in node order."""


_DECODER = msgspec.json.Decoder(_ShardReport)
_VERSION_DECODER = msgspec.json.Decoder(_Version)


MAX_REPORT_BYTES = 1024 * 1024 * 1024
"""A shard's JSON report longer than this is refused (``/dev/zero`` never ends)."""


def _read_bytes(path: str) -> bytes:
    limit = MAX_REPORT_BYTES // (1024 * 1024)
    with open(path, "rb") as handle:
        return read_capped(
            handle.read,
            MAX_REPORT_BYTES,
            lambda: UsageError(f"{path}: not a fitgate shard report: longer than {limit} MiB"),
        )


def _decoded(path: str, data: bytes) -> _ShardReport:
    """The report in ``data``; one of another schemaVersion is refused as such, whatever
    else it holds."""
    try:
        report = _DECODER.decode(data)
    except msgspec.DecodeError as exc:  # ValidationError included: it names the field
        version = _version(data)
        if version is not None and version != SCHEMA_VERSION:
            raise UsageError(_other_version(path, version)) from None
        raise UsageError(f"{path}: not a fitgate JSON report: {exc}") from None
    if report.schemaVersion != SCHEMA_VERSION:
        raise UsageError(_other_version(path, report.schemaVersion))
    return report


def _version(data: bytes) -> int | None:
    try:
        return _VERSION_DECODER.decode(data).schemaVersion
    except msgspec.DecodeError:
        return None


def _other_version(path: str, version: int) -> str:
    return (
        f"{path}: report schemaVersion {version}: fitgate merge reads schemaVersion "
        f"{SCHEMA_VERSION}; re-run check --shard with this version"
    )


def _read(path: str) -> _Part:
    try:
        data = _read_bytes(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read report: {exc.strerror}") from None
    report = _decoded(path, data)
    shard = report.shard
    if shard is None:
        raise UsageError(f"{path}: not a shard report: write it with check --shard K/N --json")
    index = dict(zip(shard.nodes, range(len(shard.nodes)), strict=True))
    problem = _shard_problem(report, shard) or _outcomes_problem(report, shard, index)
    if problem is not None:
        raise UsageError(f"{path}: not a fitgate shard report: {problem}")
    return _Part(path, report, shard, index)


def _shard_problem(report: _ShardReport, shard: _Shard) -> str | None:
    """The first field whose value does not fit the others, named by its JSON path."""
    if shard.index > shard.count:
        return f"$.shard.index {shard.index} is past $.shard.count {shard.count}"
    if not len(report.workloads) == len(shard.positions) == len(shard.untolerated):
        return "$.shard.positions and $.shard.untolerated do not match $.workloads"
    for number, verdict in enumerate(report.summary.failOn):
        if verdict not in _VERDICTS:
            return f"$.summary.failOn[{number}]: unknown verdict {verdict[:20]!r}"
    seen: set[int] = set()
    for number, position in enumerate(shard.positions):
        if position >= shard.items or position % shard.count != shard.index - 1:
            return f"$.shard.positions[{number}]: workload position {position} is not this shard's"
        if position in seen:
            return f"$.shard.positions[{number}]: workload position {position} is given twice"
        seen.add(position)
    for number, workload in enumerate(report.workloads):
        if workload.verdict not in _VERDICTS:
            verdict = workload.verdict[:20]
            return f"$.workloads[{number}].verdict: unknown verdict {verdict!r}"
    return _nodes_problem(report, shard)


def _nodes_problem(report: _ShardReport, shard: _Shard) -> str | None:
    """Whether ``$.shard.nodes`` names each of the snapshot's nodes once."""
    named: set[str] = set()
    for number, name in enumerate(shard.nodes):
        if name in named:
            return f"$.shard.nodes[{number}]: node {name[:60]!r} is named twice"
        named.add(name)
    if len(shard.nodes) != report.snapshot.nodes:
        return (
            f"$.shard.nodes: {len(shard.nodes)} node names for the snapshot's "
            f"{report.snapshot.nodes} nodes ($.snapshot.nodes)"
        )
    return None


def _outcomes_problem(report: _ShardReport, shard: _Shard, index: dict[str, int]) -> str | None:
    """Whether each workload's groups name each of the shard's nodes once, and its taints'
    bitsets only those nodes."""
    for number, (workload, taints) in enumerate(
        zip(report.workloads, shard.untolerated, strict=True)
    ):
        problem = _groups_problem(workload, index)
        if problem is not None:
            return f"$.workloads[{number}].{problem}"
        covered = len(index) if workload.outcomes else 0
        for entry, taint in enumerate(taints):
            if not _names_listed_nodes(taint.nodes, covered):
                where = f"$.shard.untolerated[{number}][{entry}].nodes"
                return f"{where}: a bitset over more than the workload's {covered} nodes"
    return None


def _groups_problem(workload: _Workload, index: dict[str, int]) -> str | None:
    """The first group of ``workload`` that does not fit the shard's nodes, by its path
    below the workload."""
    if not workload.outcomes and workload.verdict in _UNEVALUATED:
        return None
    placed: set[str] = set()
    reasons_seen: dict[tuple[str, ...], int] = {}
    for number, group in enumerate(workload.outcomes):
        where = f"outcomes[{number}]"
        if len(group.nodes) != group.count:
            return (
                f"{where}.nodes: {len(group.nodes)} names for a count of {group.count}: a "
                "shard's report names every node (check --shard writes them all)"
            )
        reasons = tuple(group.reasons)
        if reasons in reasons_seen:
            return f"{where}.reasons: the same reasons as outcomes[{reasons_seen[reasons]}]"
        reasons_seen[reasons] = number
        if not reasons and workload.verdict == Verdict.NO.value:
            return f"{where}.reasons: nodes that fit, for a workload whose verdict is NO"
        for entry, name in enumerate(group.nodes):
            if name not in index:
                return f"{where}.nodes[{entry}]: node {name[:60]!r} is not in $.shard.nodes"
            if name in placed:
                return f"{where}.nodes[{entry}]: node {name[:60]!r} is named twice"
            placed.add(name)
    if len(placed) != len(index):
        return (
            f"outcomes: the groups name {len(placed)} of the snapshot's {len(index)} nodes: "
            "every node must be in one group"
        )
    return None


def _names_listed_nodes(bitset: str, nodes: int) -> bool:
    """Whether the hex ``bitset`` (already checked to be lower-case hex digits) has no bit
    at or past ``nodes``; its length is checked first, so a huge one is never converted."""
    if len(bitset) > max(1, -(-nodes // 4)):
        return False
    return int(bitset, 16).bit_length() <= nodes


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
    _same(parts, "list different nodes", lambda p: p.shard.nodes)
    count = parts[0].shard.count
    seen: dict[int, str] = {}
    for part in parts:
        index = part.shard.index
        if index in seen:
            raise UsageError(f"shard {index}/{count} is given twice: {seen[index]}, {part.path}")
        seen[index] = part.path
    if len(seen) < count:
        missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
        shown = ", ".join(missing[:_MISSING_SHOWN])
        more = len(missing) - _MISSING_SHOWN
        shown += f" and {more} more" if more > 0 else ""
        raise UsageError(f"shard(s) {shown} missing: every shard must be merged")


def _outcomes(
    workload: _Workload, untolerated: list[_Untolerated], index: dict[str, int]
) -> Sequence[NodeOutcome]:
    """The workload's per-node outcomes in node order, as the sets of nodes that share one:
    each group's nodes, parted by the taint named on them (the groups are checked to name
    each node once; where taints overlap, the last one named is the node's)."""
    if not workload.outcomes:
        return ()
    taints = [(Taint(e.key, e.value, e.effect), int(e.nodes, 16)) for e in untolerated]
    sets: list[tuple[NodeOutcome, int]] = []
    for group in workload.outcomes:
        reasons = tuple(group.reasons)
        plugin = plugin_of(reasons)
        nodes = bitset(map(index.__getitem__, group.nodes), len(index))
        for taint, tainted in reversed(taints):
            if nodes & tainted:
                sets.append((NodeOutcome("", reasons, taint, plugin), nodes & tainted))
                nodes &= ~tainted
        if nodes and reasons:  # the nodes that fit, untainted, are in no set
            sets.append((NodeOutcome("", reasons, None, plugin), nodes))
    return NodeOutcomes(tuple(index), tuple(sets))


def _result(
    workload: _Workload, untolerated: list[_Untolerated], index: dict[str, int]
) -> WorkloadResult:
    verdict = Verdict(workload.verdict)  # checked while reading
    nodes = _outcomes(workload, untolerated, index)
    return WorkloadResult(
        kind=workload.kind,
        namespace=workload.namespace,
        name=workload.name,
        location=Location(
            workload.file,
            workload.line,
            workload.origin,
            document=workload.document,
            origin_file=workload.originFile,
        ),
        replicas=None if workload.replicas is None else workload.replicas.wanted,
        verdict=verdict,
        message=workload.message,
        reason=workload.reason,
        nodes=nodes,
        requests=tuple(workload.requests.items()),
        warnings=tuple(map(recorded_warning, workload.warnings)),
        placement=None if workload.replicas is None else workload.replicas.placement(),
        cause=None if workload.cause is None else workload.cause.cause(),
        field_at=None
        if workload.field is None
        else FieldLocation(
            workload.field.path,
            workload.field.line,
            workload.field.value,
            workload.field.partial,
            workload.field.originLine,
        ),
    )


_SCHEDULING_STARTS = ("scheduling gates: ", 'schedulerName "', "spec.nodeName is set: ")
_ADMISSION_STARTS = ('RuntimeClass "', "spec.resources (pod-level resources) ")


def recorded_warning(text: str) -> WorkloadWarning:
    """A warning as a JSON report recorded it: the report keeps the sentence, so the kind
    is told from the fixed words that begin and end each kind's sentences (what a manifest
    puts inside a sentence, a container's name say, is never where the kind is read)."""
    if text.startswith('container "') and text.endswith(ZERO_REQUEST):
        return WorkloadWarning(WarningKind.ZERO_REQUEST, text)
    if text.startswith(_SCHEDULING_STARTS):
        return WorkloadWarning(WarningKind.SCHEDULING, text)
    if text.startswith(_ADMISSION_STARTS):
        return WorkloadWarning(WarningKind.ADMISSION, text)
    if text == DAEMONSET_TARGETS_NOTHING:
        return WorkloadWarning(WarningKind.NO_TARGET, text)
    return WorkloadWarning(WarningKind.NOT_MODELLED, text)


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
            positioned[position] = _result(workload, untolerated, part.index)
    first = parts[0]
    snapshot = first.report.snapshot
    fail_on = frozenset(Verdict(v) for v in first.report.summary.failOn)  # checked
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
        # Shards run minutes apart may disagree on the snapshot's age: each warning once.
        warnings=tuple(dict.fromkeys(w for part in parts for w in part.report.warnings)),
        read=None if first.report.read is None else first.report.read.summary(),
        policy=None if first.report.policy is None else first.report.policy.policy(),
    )
    return report, first.shard.cluster
