"""The machine report of SPEC section 5, validated by ``gate/schemas/report.schema.json``.

The report lists every node for every workload, so on a large cluster and monorepo it is
hundreds of megabytes. The layout is ``json.dumps(..., indent=2, ensure_ascii=False)`` except
that each workload's ``fits`` and ``nodes`` are written on one line, compact: thousands of
nodes per workload would otherwise triple the size. It is rendered in pieces (one per
workload) by msgspec's C encoder and formatter, with :func:`reference_workload` (the stdlib
``json`` module) as the reference and the fallback for what msgspec cannot encode.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import compress
from operator import attrgetter, not_
from typing import Any

import msgspec

from gate.model import (
    SNAPSHOT_CAVEAT,
    VERDICT_ORDER,
    NodeOutcome,
    Report,
    ShardReport,
    Taint,
    WorkloadResult,
)
from gate.reports.reporter import ReportContext

SCHEMA_VERSION = 1


def _workload(result: WorkloadResult, with_nodes: bool = True) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "kind": result.kind,
        "namespace": result.namespace,
        "name": result.name,
        "file": result.location.file,
        "line": result.location.line,
        "origin": result.location.origin,
        "replicas": _replicas(result),
        "verdict": result.verdict.value,
        "message": result.message,
        "reason": result.reason,
        "fits": list(result.fits) if with_nodes else [],
        "nodes": {o.node: list(o.reasons) for o in result.nodes} if with_nodes else {},
        "requests": dict(result.requests),
        "warnings": [w.text for w in result.warnings],
    }
    if result.compared is not None:  # only in a run given --baseline
        entry["baseline"] = result.compared.change.value
    return entry


def _replicas(result: WorkloadResult) -> dict[str, Any] | None:
    """Wanted and fitting pods, and what explains the count (SPEC section 4)."""
    if result.replicas is None:
        return None
    placed = result.placement
    if placed is None:
        return {"wanted": result.replicas, "fit": None}
    return {
        "wanted": placed.wanted,
        "fit": placed.fit,
        "alone": placed.alone,
        "together": placed.together,
        "beside": list(placed.beside),
        "released": placed.released,
        "autoscaler": None
        if placed.autoscaler is None
        else {"name": placed.autoscaler, "maximum": placed.maximum, "fit": placed.headroom},
    }


def _untolerated(result: WorkloadResult) -> list[dict[str, Any]]:
    """Each named taint with the nodes (a hex bitset over ``nodes`` order) it rejected."""
    by_taint: dict[Taint, int] = {}
    for number, outcome in enumerate(result.nodes):
        if outcome.taint is not None:
            by_taint[outcome.taint] = by_taint.get(outcome.taint, 0) | 1 << number
    return [
        {"key": t.key, "value": t.value, "effect": t.effect, "nodes": f"{bits:x}"}
        for t, bits in by_taint.items()
    ]


def shard_document(report: ShardReport) -> dict[str, Any]:
    return {
        "index": report.shard.index,
        "count": report.shard.count,
        "items": report.items,
        "inputs": report.inputs,
        "cluster": report.cluster,
        "version": report.version,
        "positions": list(report.positions),
        "untolerated": [_untolerated(r) for r in report.results],
    }


def report_document(report: Report, workloads: bool = True) -> dict[str, Any]:
    summary = report.summary
    info = report.snapshot
    shard = {"shard": shard_document(report)} if isinstance(report, ShardReport) else {}
    return {
        "schemaVersion": SCHEMA_VERSION,
        "snapshot": {
            "source": info.source,
            "capturedAt": info.captured_at,
            "context": info.context,
            "server": info.server,
            "serverVersion": info.server_version,
            "nodes": info.nodes,
            "pods": info.pods,
            "caveat": SNAPSHOT_CAVEAT,
        },
        "summary": {
            "workloads": summary.workloads,
            **{v.value: summary.counts[v] for v in VERDICT_ORDER},
            "warnings": summary.warnings,
            "passed": summary.passed,
            "failOn": [v.value for v in VERDICT_ORDER if v in report.fail_on],
        },
        "otherDocuments": dict(report.other_documents),
        **({"warnings": list(report.warnings)} if report.warnings else {}),
        **shard,
        "workloads": [_workload(r) for r in report.results] if workloads else [],
    }


def render_json(report: Report) -> str:
    """Same report, same bytes: insertion-ordered keys, fixed indentation."""
    return b"".join(json_chunks(report)).decode("utf-8")


def _indented(value: object) -> bytes:
    try:
        return msgspec.json.format(msgspec.json.encode(value), indent=2)
    except (TypeError, ValueError, OverflowError):  # e.g. a lone surrogate
        return _utf8(json.dumps(value, indent=2, ensure_ascii=False))


def _utf8(text: str) -> bytes:
    """UTF-8; a lone surrogate (which UTF-8 cannot hold, and fitgate's readers replace)
    as its JSON escape, so the report stays valid JSON and valid UTF-8."""
    return text.encode("utf-8", "backslashreplace")


_NODE, _REASONS = attrgetter("node"), attrgetter("reasons")
_CACHE_BYTES = 96 << 20
_MEMBER_INDENT = b"\n      "  # a workload's members, inside "workloads": [ { ... } ]
_PLACE = b'\n  "fits": [],\n  "nodes": {},\n'  # where they go in the workload's own text


class _NodeTexts:
    """A workload's ``fits`` and ``nodes`` as compact text, rendered once per outcome tuple.

    The engine gives workloads with the same outcomes the same tuple (a large monorepo has
    a few hundred distinct ones for thousands of workloads), so texts are kept by the
    tuple's identity, up to a memory budget; the tuples are held so no identity is reused.
    """

    def __init__(self) -> None:
        self._held: list[object] = []
        self._texts: dict[int, tuple[bytes, bytes]] = {}
        self._cached = 0

    def texts(self, outcomes: tuple[NodeOutcome, ...]) -> tuple[bytes, bytes]:
        found = self._texts.get(id(outcomes))
        if found is not None:
            return found
        names = list(map(_NODE, outcomes))
        reasons = list(map(_REASONS, outcomes))
        found = (
            msgspec.json.encode(list(compress(names, map(not_, reasons)))),
            msgspec.json.encode(dict(zip(names, reasons, strict=True))),
        )
        size = len(found[0]) + len(found[1])
        if self._cached + size <= _CACHE_BYTES:
            self._texts[id(outcomes)] = found
            self._held.append(outcomes)
            self._cached += size
        return found


def _workload_text(result: WorkloadResult, texts: _NodeTexts) -> tuple[bytes, ...]:
    """The workload's entry, indented for its place in the report, in pieces: the two
    large ones (``fits`` and ``nodes``) are shared between workloads, never copied."""
    before, place, after = _indented(_workload(result, with_nodes=False)).partition(_PLACE)
    if not place:
        raise ValueError("unexpected layout")
    fits, nodes = texts.texts(result.nodes)
    return (
        b"    " + before.replace(b"\n", b"\n    ") + _MEMBER_INDENT + b'"fits": ',
        fits,
        b"," + _MEMBER_INDENT + b'"nodes": ',
        nodes,
        b",\n    " + after.replace(b"\n", b"\n    "),
    )


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def reference_workload(result: WorkloadResult) -> str:
    """The workload's entry by the stdlib ``json`` module, in the report's layout."""
    entry = _workload(result)
    fits, nodes = entry["fits"], entry["nodes"]
    text = json.dumps(_workload(result, with_nodes=False), indent=2, ensure_ascii=False)
    before, place, after = text.partition(_PLACE.decode())
    if not place:
        raise ValueError("unexpected layout")
    indent = _MEMBER_INDENT.decode()
    return (
        "    "
        + before.replace("\n", "\n    ")
        + f'{indent}"fits": {_compact(fits)},'
        + f'{indent}"nodes": {_compact(nodes)},\n    '
        + after.replace("\n", "\n    ")
    )


def json_chunks(report: Report) -> Iterator[bytes]:
    """:func:`render_json`'s UTF-8 text, one workload at a time (``workloads`` comes
    last). Bytes throughout: the report can be a gigabyte, and is never decoded here."""
    document = report_document(report, workloads=False)
    head = _indented(document)
    if not report.results:
        yield head + b"\n"
        return
    yield head.removesuffix(b"[]\n}") + b"[\n"
    last = len(report.results) - 1
    texts = _NodeTexts()
    for number, result in enumerate(report.results):
        try:
            pieces = _workload_text(result, texts)
        except (TypeError, ValueError, OverflowError):
            pieces = (_utf8(reference_workload(result)),)
        yield from pieces
        yield b",\n" if number < last else b"\n"
    yield b"  ]\n}\n"


def write_json(report: Report, context: ReportContext) -> Iterator[bytes]:
    """The report as :func:`json_chunks` renders it; it needs nothing from the context."""
    return json_chunks(report)
