"""The machine report of SPEC section 5, validated by ``gate/schemas/report.schema.json``."""

from __future__ import annotations

import json
from typing import Any

from gate.model import VERDICT_ORDER, Report, WorkloadResult

SCHEMA_VERSION = 1


def _workload(result: WorkloadResult) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "kind": result.kind,
        "namespace": result.namespace,
        "name": result.name,
        "file": result.location.file,
        "line": result.location.line,
        "origin": result.location.origin,
        "replicas": result.replicas,
        "verdict": result.verdict.value,
        "message": result.message,
        "reason": result.reason,
        "fits": list(result.fits),
        "nodes": {o.node: list(o.reasons) for o in result.nodes},
        "requests": dict(result.requests),
        "warnings": list(result.warnings),
    }
    return entry


def report_document(report: Report) -> dict[str, Any]:
    summary = report.summary
    info = report.snapshot
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
        },
        "summary": {
            "workloads": summary.workloads,
            **{v.value: summary.counts[v] for v in VERDICT_ORDER},
            "warnings": summary.warnings,
            "passed": summary.passed,
            "failOn": [v.value for v in VERDICT_ORDER if v in report.fail_on],
        },
        "otherDocuments": dict(report.other_documents),
        "workloads": [_workload(r) for r in report.results],
    }


def render_json(report: Report) -> str:
    """Same report, same bytes: insertion-ordered keys, fixed indentation."""
    return json.dumps(report_document(report), indent=2, ensure_ascii=False) + "\n"
