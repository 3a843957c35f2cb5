"""The machine report (schemaVersion 3): the types of :mod:`gate.model.contract`, from
which ``gate/schemas/report.schema.json`` is generated. A result's cause, field, warnings
and autoscale, and the run's read and policy, are written as the model holds them.

Each workload's ``outcomes`` group the snapshot's nodes by the outcome they gave its first
pod: one group per distinct list of reasons with the plugin that gave them and its status
code (``[]`` and nulls where the pod fits), in the order they first appear in node order,
each with its full ``count`` and at most ``ReportContext.json_nodes`` of its node names, in
node order (every name for a shard's report: ``fitgate merge`` rebuilds each node's outcome
from them).

The layout is ``json.dumps(..., indent=2, ensure_ascii=False)`` except that each outcome
group is written compact on a line of its own: a group may name thousands of nodes. It is
rendered in pieces (one per workload) by msgspec's C encoder and formatter, with
:func:`reference_workload` (the stdlib ``json`` module) as the reference and the fallback
for what msgspec cannot encode (a lone surrogate).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence

import msgspec

from gate.model import (
    VERDICT_ORDER,
    Code,
    NodeOutcome,
    NodeOutcomes,
    Report,
    ShardReport,
    Taint,
    Verdict,
    WorkloadResult,
    contract,
)
from gate.model.contract import SCHEMA_VERSION
from gate.reports.reporter import JSON_NODES, ReportContext

Shown = tuple[tuple[str, ...], str, Code | None]
"""What an outcome group stands for: the reasons, the plugin that gave them and its code."""
Group = tuple[Shown, int, list[str]]
"""An outcome group: what it stands for, how many nodes gave it, and the names listed."""


Names = Callable[[NodeOutcomes, int], Sequence[str]]
"""Reads the names an outcome group lists off the set of nodes it stands for: the
outcomes, and the group's nodes as a bitset over them."""


def outcome_groups(
    outcomes: Sequence[NodeOutcome], listed: int | None, names: Names | None = None
) -> list[Group]:
    """``outcomes`` grouped by reasons, plugin and code, in order of first appearance, at
    most ``listed`` names per group (None: all), in node order, as ``names`` reads them
    (by default, off the set each time).

    Derived from the sets of nodes that share an outcome (:class:`~gate.model.NodeOutcomes`,
    a few per workload): a group's count is its set's size, its place the set's first node.
    Sets that differ only by the taint named merge into one group (a shard's report keeps
    the taints apart, in ``shard.untolerated``).

    >>> fit, cpu = (), ("Insufficient cpu",)
    >>> nodes = [NodeOutcome(n, r, plugin=p) for n, r, p in
    ...          [("a", cpu, "NodeResourcesFit"), ("b", fit, ""), ("c", cpu, "NodeResourcesFit")]]
    >>> outcome_groups(nodes, 1)
    [((('Insufficient cpu',), 'NodeResourcesFit', None), 2, ['a']), (((), '', None), 1, ['b'])]
    """
    sets = NodeOutcomes.of(outcomes)
    fitting = sets.fitting
    by_shown: dict[Shown, int] = {((), "", None): fitting} if fitting else {}
    for o, bits in sets.groups:
        if o.reasons and bits:
            shown = (o.reasons, o.plugin, o.code)
            by_shown[shown] = by_shown.get(shown, 0) | bits
    ordered = sorted(by_shown.items(), key=lambda group: group[1] & -group[1])
    if names is None:
        return [(r, bits.bit_count(), list(sets.nodes_in(bits, listed))) for r, bits in ordered]
    return [(r, bits.bit_count(), list(names(sets, bits))) for r, bits in ordered]


class _ListedNames:
    """The first ``listed`` names of each set of nodes, read once per set: outcomes that
    differ in one group share the others (a pool's taint, the nodes that fit), so a
    large run's thousands of groups are a quarter as many sets. Kept by the set's bits
    and its node names' identity, which are held; at most ``listed`` names each."""

    def __init__(self, listed: int) -> None:
        self._listed = listed
        self._held: dict[int, tuple[str, ...]] = {}
        self._names: dict[tuple[int, int], tuple[str, ...]] = {}

    def __call__(self, sets: NodeOutcomes, bits: int) -> tuple[str, ...]:
        key = (id(sets.names), bits)
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = sets.nodes_in(bits, self._listed)
            self._held[id(sets.names)] = sets.names
        return found


def _group_document(group: Group) -> contract.OutcomeGroup:
    (reasons, plugin, code), count, names = group
    return contract.OutcomeGroup(
        reasons=list(reasons), plugin=plugin or None, code=code, count=count, nodes=names
    )


def _outcomes(result: WorkloadResult, listed: int | None) -> list[contract.OutcomeGroup]:
    return [_group_document(g) for g in outcome_groups(result.nodes, listed)]


def _workload(result: WorkloadResult, outcomes: list[contract.OutcomeGroup]) -> contract.Workload:
    """The workload's entry (the writers put the text of large ``outcomes`` in place of
    an empty list themselves)."""
    location = result.location
    standard_input = location.document is not None  # its place in the stream, and origin
    return contract.Workload(
        kind=result.kind,
        namespace=result.namespace,
        name=result.name,
        file=location.file,
        line=location.line,
        origin=location.origin,
        replicas=contract.Replicas.of(result.replicas, result.placement),
        verdict=result.verdict.value,
        allowed=result.allowed,
        message=result.message,
        reason=result.reason,
        outcomes=outcomes,
        requests=dict(result.requests),
        warnings=result.warnings,
        baseline=msgspec.UNSET if result.compared is None else result.compared.change,
        document=location.document if location.document is not None else msgspec.UNSET,
        originFile=location.origin_file if standard_input else msgspec.UNSET,
        cause=msgspec.UNSET if result.cause is None else result.cause,
        field=msgspec.UNSET if result.field_at is None else result.field_at,
        autoscale=msgspec.UNSET if result.autoscale is None else result.autoscale,
        schedulingGates=list(result.gates) if result.gates else msgspec.UNSET,
        quota=result.quota,
        preemption=msgspec.UNSET if result.preemption is None else result.preemption,
    )


def _untolerated(result: WorkloadResult) -> list[contract.Untolerated]:
    """Each named taint with the nodes it rejected: a hex bitset over the shard's
    ``nodes``, the snapshot's order, which is the order of every result's outcomes."""
    by_taint: dict[Taint, int] = {}
    for shown, bits in NodeOutcomes.of(result.nodes).groups:
        if shown.taint is not None and bits:
            by_taint[shown.taint] = by_taint.get(shown.taint, 0) | bits
    first_node = sorted(by_taint.items(), key=lambda taint: taint[1] & -taint[1])
    return [
        contract.Untolerated(key=t.key, value=t.value, effect=t.effect, nodes=f"{bits:x}")
        for t, bits in first_node
    ]


def shard_document(report: ShardReport) -> contract.Shard:
    return contract.Shard(
        index=report.shard.index,
        count=report.shard.count,
        items=report.items,
        inputs=report.inputs,
        cluster=report.cluster,
        version=report.version,
        positions=list(report.positions),
        nodes=list(report.nodes),
        untolerated=[_untolerated(r) for r in report.results],
    )


def listed_names(report: Report, context_bound: int | None) -> int | None:
    """How many names each group lists: a shard's report lists every one, whatever the
    bound, since the merge rebuilds each node's outcome from them."""
    return None if isinstance(report, ShardReport) else context_bound


def report_document(
    report: Report,
    workloads: bool = True,
    listed: int | None = JSON_NODES,
    cluster: str | None = None,
) -> contract.Report:
    """The whole report as the contract's types (``workloads`` empty unless asked for),
    naming the cluster as ``cluster`` when given."""
    summary = report.summary
    bound = listed_names(report, listed)
    entries = [_workload(r, _outcomes(r, bound)) for r in report.results] if workloads else []
    return contract.Report(
        schemaVersion=SCHEMA_VERSION,
        snapshot=contract.Snapshot.of(report.snapshot, cluster),
        summary=contract.Summary(
            workloads=summary.workloads,
            YES=summary.counts[Verdict.YES],
            SCALES=summary.counts[Verdict.SCALES],
            PREEMPTS=summary.counts[Verdict.PREEMPTS],
            NO=summary.counts[Verdict.NO],
            ADDON_ONLY=summary.counts[Verdict.ADDON_ONLY],
            PARTIAL=summary.counts[Verdict.PARTIAL],
            ERROR=summary.counts[Verdict.ERROR],
            SKIPPED=summary.counts[Verdict.SKIPPED],
            warnings=summary.warnings,
            passed=summary.passed,
            failOn=[v.value for v in VERDICT_ORDER if v in report.fail_on],
            nothingJudged=msgspec.UNSET if report.nothing_judged is None else report.nothing_judged,
            newNodes=report.new_nodes
            if report.new_nodes or report.max_new_nodes is not None
            else msgspec.UNSET,
            maxNewNodes=msgspec.UNSET if report.max_new_nodes is None else report.max_new_nodes,
        ),
        read=msgspec.UNSET if report.read is None else report.read,
        policy=report.policy if report.policy else msgspec.UNSET,
        otherDocuments=dict(report.other_documents),
        warnings=list(report.warnings) if report.warnings else msgspec.UNSET,
        shard=shard_document(report) if isinstance(report, ShardReport) else msgspec.UNSET,
        workloads=entries,
    )


def render_json(report: Report, listed: int | None = JSON_NODES, cluster: str | None = None) -> str:
    """Same report, same bytes: insertion-ordered keys, fixed indentation."""
    return b"".join(json_chunks(report, listed, cluster)).decode("utf-8")


def _indented(value: msgspec.Struct) -> bytes:
    try:
        return msgspec.json.format(msgspec.json.encode(value), indent=2)
    except (TypeError, ValueError, OverflowError):  # e.g. a lone surrogate
        return _utf8(json.dumps(msgspec.to_builtins(value), indent=2, ensure_ascii=False))


def _utf8(text: str) -> bytes:
    """UTF-8; a lone surrogate (which UTF-8 cannot hold: a file name's byte that is not
    UTF-8) as U+FFFD, as fitgate's readers replace it. Its JSON escape (``\\udcff``) would
    be valid UTF-8 but not JSON that strict readers accept (``fitgate merge`` among them)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


_CACHE_BYTES = 96 << 20
_MEMBER_INDENT = "\n      "  # a workload's members, inside "workloads": [ { ... } ]
_GROUP_INDENT = _MEMBER_INDENT + "  "
_PLACE = '\n  "outcomes": [],\n'  # where they go in the workload's own text


class _OutcomeTexts:
    """A workload's ``outcomes`` as text, rendered once per outcomes value.

    The engine gives workloads with the same outcomes the same value (a large monorepo has
    a few hundred distinct ones for thousands of workloads), so texts are kept by the
    value's identity, up to a memory budget; the values are held so no identity is reused.
    """

    def __init__(self, listed: int | None) -> None:
        self._listed = listed
        # Every name of a shard's report is listed: kept per set, they would be the
        # node names over again for each set, so they are read each time.
        self._names = None if listed is None else _ListedNames(listed)
        self._held: list[object] = []
        self._texts: dict[int, bytes] = {}
        self._cached = 0

    def text(self, outcomes: Sequence[NodeOutcome]) -> bytes:
        found = self._texts.get(id(outcomes))
        if found is not None:
            return found
        groups = outcome_groups(outcomes, self._listed, self._names)
        found = _block(map(msgspec.json.encode, map(_group_document, groups)))
        if self._cached + len(found) <= _CACHE_BYTES:
            self._texts[id(outcomes)] = found
            self._held.append(outcomes)
            self._cached += len(found)
        return found


def _block(groups: Iterator[bytes]) -> bytes:
    """``[]``, or the compact groups one per line, at their place in the report."""
    indent = _GROUP_INDENT.encode()
    lines = (b"," + indent).join(groups)
    return b"[" + indent + lines + _MEMBER_INDENT.encode() + b"]" if lines else b"[]"


def _workload_text(result: WorkloadResult, texts: _OutcomeTexts) -> tuple[bytes, ...]:
    """The workload's entry, indented for its place in the report, in pieces: the large
    one (``outcomes``) is shared between workloads, never copied."""
    before, place, after = _indented(_workload(result, [])).partition(_PLACE.encode())
    if not place:
        raise ValueError("unexpected layout")
    return (
        b"    " + before.replace(b"\n", b"\n    ") + _MEMBER_INDENT.encode() + b'"outcomes": ',
        texts.text(result.nodes),
        b",\n    " + after.replace(b"\n", b"\n    "),
    )


def _compact(value: msgspec.Struct) -> str:
    return json.dumps(msgspec.to_builtins(value), separators=(",", ":"), ensure_ascii=False)


def reference_workload(result: WorkloadResult, listed: int | None = JSON_NODES) -> str:
    """The workload's entry by the stdlib ``json`` module, in the report's layout."""
    groups = _outcomes(result, listed)
    text = json.dumps(msgspec.to_builtins(_workload(result, [])), indent=2, ensure_ascii=False)
    before, place, after = text.partition(_PLACE)
    if not place:
        raise ValueError("unexpected layout")
    lines = f",{_GROUP_INDENT}".join(map(_compact, groups))
    block = f"[{_GROUP_INDENT}{lines}{_MEMBER_INDENT}]" if groups else "[]"
    return (
        "    "
        + before.replace("\n", "\n    ")
        + f'{_MEMBER_INDENT}"outcomes": {block},\n    '
        + after.replace("\n", "\n    ")
    )


def json_chunks(
    report: Report, listed: int | None = JSON_NODES, cluster: str | None = None
) -> Iterator[bytes]:
    """:func:`render_json`'s UTF-8 text, one workload at a time (``workloads`` comes
    last). Bytes throughout: the report can be large, and is never decoded here."""
    document = report_document(report, workloads=False, cluster=cluster)
    head = _indented(document)
    if not report.results:
        yield head + b"\n"
        return
    bound = listed_names(report, listed)
    yield head.removesuffix(b"[]\n}") + b"[\n"
    last = len(report.results) - 1
    texts = _OutcomeTexts(bound)
    for number, result in enumerate(report.results):
        try:
            pieces = _workload_text(result, texts)
        except (TypeError, ValueError, OverflowError):
            pieces = (_utf8(reference_workload(result, bound)),)
        yield from pieces
        yield b",\n" if number < last else b"\n"
    yield b"  ]\n}\n"


def write_json(report: Report, context: ReportContext) -> Iterator[bytes]:
    """The report as :func:`json_chunks` renders it, listing ``context.json_nodes``
    names per outcome group."""
    return json_chunks(report, context.json_nodes, context.cluster)
