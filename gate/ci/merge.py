"""``fitgate merge REPORT...``: the JSON reports of ``check --shard K/N`` -> the one report
``check`` would have written without sharding, from which every other report is rendered.

The shards must be whole and belong together: one snapshot, one ``--fail-on``, one input
(the digest every shard takes of everything it read), one fitgate version, every K of N
exactly once. Anything else is refused with the files named (exit 2): a merge that quietly
dropped or doubled a shard would pass a gate that should fail.

Only schemaVersion 3 is read, decoded into the types of :mod:`gate.model.contract` (a workload's
cause, field, warnings and autoscale, and the run's read and policy, decode into the
model's own values and are kept as they are)
(another version is refused in one line saying to re-run ``check --shard``: the shards of one
pipeline are written by one fitgate, and an older report lacks the plugin and code of each
outcome, which its wording cannot soundly give back). A shard's report carries the
snapshot's node names in its order (``$.shard.nodes``) and outcome groups that name every
node (whatever ``--json-nodes`` said) with the plugin and code that gave them, so each
workload's per-node outcomes are put back in node order and every report renders as the
unsharded run's.

A report file is an input like any other (an artifact a pull request's job uploaded): every
field is checked before it is used -- types and ranges while decoding, then what ties the
fields together (a workload's groups name each of the shard's nodes exactly once, with
distinct outcomes; a taint's node bitset is lower-case hex naming only listed nodes;
positions are this shard's and within the input) -- and the first problem is refused in one
line that names the file and the field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from gate.deadline import read_capped
from gate.errors import NESTED_TOO_DEEP, UsageError
from gate.model import (
    Code,
    Location,
    NodeOutcome,
    NodeOutcomes,
    Report,
    Taint,
    Verdict,
    WorkloadResult,
    bitset,
    contract,
)
from gate.model.contract import REPORT_DECODER, SCHEMA_VERSION, VERSION_DECODER, given

_VERDICTS = frozenset(v.value for v in Verdict)
_UNEVALUATED = frozenset({Verdict.ERROR.value, Verdict.SKIPPED.value})
_MISSING_SHOWN = 10


@dataclass(frozen=True, slots=True)
class _Part:
    path: str
    report: contract.Report
    shard: contract.Shard
    index: dict[str, int]
    """Each of ``shard.nodes`` by name: its place in node order."""


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


def _decoded(path: str, data: bytes) -> contract.Report:
    """The report in ``data``; one of another schemaVersion is refused as such, whatever
    else it holds."""
    try:
        report = REPORT_DECODER.decode(data)
    except msgspec.DecodeError as exc:  # ValidationError included: it names the field
        version = _version(data)
        if version is not None and version != SCHEMA_VERSION:
            raise UsageError(_other_version(path, version)) from None
        raise UsageError(f"{path}: not a fitgate JSON report: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: not a fitgate JSON report: {NESTED_TOO_DEEP}") from None
    return report  # of this version: the types hold it to SCHEMA_VERSION


def _version(data: bytes) -> int | None:
    try:
        return VERSION_DECODER.decode(data).schemaVersion
    except (msgspec.DecodeError, RecursionError):
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
    if isinstance(shard, msgspec.UnsetType):
        raise UsageError(f"{path}: not a shard report: write it with check --shard K/N --json")
    index = dict(zip(shard.nodes, range(len(shard.nodes)), strict=True))
    problem = (
        _shard_problem(report, shard)
        or _outcomes_problem(report, shard, index)
        or _verdicts_problem(report)
    )
    if problem is not None:
        raise UsageError(f"{path}: not a fitgate shard report: {problem}")
    return _Part(path, report, shard, index)


def _shard_problem(report: contract.Report, shard: contract.Shard) -> str | None:
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


def _nodes_problem(report: contract.Report, shard: contract.Shard) -> str | None:
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


def _verdicts_problem(report: contract.Report) -> str | None:
    """Whether the shard's summary counts its workloads' verdicts, and each workload's
    verdict agrees with its own counts and outcomes: a ``YES`` fits every pod it wants, on
    some node that fits it, a ``NO`` fits none. A verdict changed by hand (a ``NO`` made
    ``YES``) is refused here, naming the field."""
    counted = Counter(w.verdict for w in report.workloads)
    summary = report.summary
    if summary.workloads != len(report.workloads):
        return f"$.summary.workloads: {summary.workloads} for the {len(report.workloads)} workloads"
    for verdict in Verdict:
        said = getattr(summary, verdict.value)
        if said != counted[verdict.value]:
            return (
                f"$.summary.{verdict.value}: {said}, but {counted[verdict.value]} of $.workloads "
                f"have the verdict {verdict.value}"
            )
    for number, workload in enumerate(report.workloads):
        replicas = workload.replicas
        if replicas is None or replicas.fit is None:
            continue
        where = f"$.workloads[{number}].verdict"
        if workload.verdict == Verdict.YES.value:
            if replicas.fit != replicas.wanted:
                return f"{where}: YES, but {replicas.fit} of {replicas.wanted} pods fit"
            if replicas.wanted and not any(not group.reasons for group in workload.outcomes):
                return f"{where}: YES, but no node fits it ($.workloads[{number}].outcomes)"
        if workload.verdict == Verdict.NO.value and replicas.fit:
            return f"{where}: NO, but {replicas.fit} of {replicas.wanted} pods fit"
    return None


def _outcomes_problem(
    report: contract.Report, shard: contract.Shard, index: dict[str, int]
) -> str | None:
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


_Shown = tuple[tuple[str, ...], str | None, Code | None]
"""What a group stands for: its reasons, plugin and code (no two groups of a workload alike)."""


def _groups_problem(workload: contract.Workload, index: dict[str, int]) -> str | None:
    """The first group of ``workload`` that does not fit the shard's nodes, by its path
    below the workload."""
    if not workload.outcomes and (
        workload.verdict in _UNEVALUATED or (workload.quota and workload.quota.created == 0)
    ):
        # No pod was filtered: not evaluated, or its namespace's quota admitted none.
        return None
    placed: set[str] = set()
    seen: dict[_Shown, int] = {}
    for number, group in enumerate(workload.outcomes):
        where = f"outcomes[{number}]"
        if len(group.nodes) != group.count:
            return (
                f"{where}.nodes: {len(group.nodes)} names for a count of {group.count}: a "
                "shard's report names every node (check --shard writes them all)"
            )
        shown = (tuple(group.reasons), group.plugin, group.code)
        if shown in seen:
            return f"{where}: the same reasons, plugin and code as outcomes[{seen[shown]}]"
        seen[shown] = number
        problem = _shown_problem(group, workload.verdict)
        if problem is not None:
            return f"{where}.{problem}"
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


def _shown_problem(group: contract.OutcomeGroup, verdict: str) -> str | None:
    """Whether a group's reasons, plugin and code go together: nodes that fit have neither
    plugin nor code, a rejection names the plugin that gave it (its code may be unknown)."""
    if group.reasons:
        return None if group.plugin else "plugin: reasons without the plugin that gave them"
    if verdict == Verdict.NO.value:
        return "reasons: nodes that fit, for a workload whose verdict is NO"
    if group.plugin is not None or group.code is not None:
        return "plugin: a plugin or code for nodes that fit"
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
    workload: contract.Workload, untolerated: list[contract.Untolerated], index: dict[str, int]
) -> Sequence[NodeOutcome]:
    """The workload's per-node outcomes in node order, as the sets of nodes that share one:
    each group's nodes, parted by the taint named on them (the groups are checked to name
    each node once; where taints overlap, the last one named is the node's)."""
    if not workload.outcomes:
        return ()
    taints = [(Taint(e.key, e.value, e.effect), int(e.nodes, 16)) for e in untolerated]
    sets: list[tuple[NodeOutcome, int]] = []
    for group in workload.outcomes:
        reasons, plugin, code = tuple(group.reasons), group.plugin or "", group.code
        nodes = bitset(map(index.__getitem__, group.nodes), len(index))
        for taint, tainted in reversed(taints):
            if nodes & tainted:
                sets.append((NodeOutcome("", reasons, taint, plugin, code), nodes & tainted))
                nodes &= ~tainted
        if nodes and reasons:  # the nodes that fit, untainted, are in no set
            sets.append((NodeOutcome("", reasons, None, plugin, code), nodes))
    return NodeOutcomes(tuple(index), tuple(sets))


def _result(
    workload: contract.Workload, untolerated: list[contract.Untolerated], index: dict[str, int]
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
            document=given(workload.document, None),
            origin_file=given(workload.originFile, None),
        ),
        replicas=None if workload.replicas is None else workload.replicas.wanted,
        verdict=verdict,
        allowed=workload.allowed,
        message=workload.message,
        reason=workload.reason,
        nodes=nodes,
        requests=tuple(workload.requests.items()),
        warnings=workload.warnings,
        placement=None if workload.replicas is None else workload.replicas.placement(),
        cause=given(workload.cause, None),
        field_at=given(workload.field, None),
        autoscale=given(workload.autoscale, None),
        gates=tuple(given(workload.schedulingGates, [])),
        quota=workload.quota,
        preemption=given(workload.preemption, None),
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
            positioned[position] = _result(workload, untolerated, part.index)
    first = parts[0]
    fail_on = frozenset(Verdict(v) for v in first.report.summary.failOn)  # checked
    report = Report(
        snapshot=first.report.snapshot.info(),
        results=tuple(positioned[p] for p in sorted(positioned)),
        fail_on=fail_on,
        other_documents=tuple(sorted(others.items())),
        version=first.shard.version,
        # Shards run minutes apart may disagree on the snapshot's age: each warning once.
        warnings=tuple(dict.fromkeys(w for p in parts for w in given(p.report.warnings, []))),
        read=given(first.report.read, None),  # every shard reads the same files
        policy=given(first.report.policy, None),  # and runs with the same policy
        max_new_nodes=given(first.report.summary.maxNewNodes, None),
    )
    return report, first.shard.cluster
