"""Keyword builders for :class:`gate.model.Report` values, and the report of the shipped
fixtures (``fixtures/manifests`` against ``fixtures/snapshots/aks-six-nodes.json``) built
by hand, so the reporters' golden files do not move when the engine does."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from gate.model import (
    DEFAULT_FAIL_ON,
    NODE_RESOURCES_FIT,
    TAINT_TOLERATION,
    Code,
    Location,
    NodeOutcome,
    Report,
    SnapshotInfo,
    Taint,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
)

CAPTURED_AT = "2026-08-16T10:00:00Z"
NOW = datetime(2026, 8, 16, 12, 30, tzinfo=timezone.utc)
CLUSTER = "aks-prod"
VERSION = "0.0.0-test"

SYSTEM_NODES = ("aks-system-0", "aks-system-1", "aks-system-2")
USER_NODES = ("aks-user-0", "aks-user-1", "aks-user-2")
ADDON_TAINT = Taint("CriticalAddonsOnly", "true", "NoSchedule")
TAINT_REASON = "node(s) had untolerated taint {CriticalAddonsOnly: true}"
NO_CPU = "Insufficient cpu"
GIVEN_BY = {
    TAINT_REASON: (TAINT_TOLERATION, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    NO_CPU: (NODE_RESOURCES_FIT, Code.UNSCHEDULABLE),
}
"""The plugin and code that give each reason these builders use, as the engine gives them
for the fixtures (a reason not here is given by no plugin)."""
ZERO_REQUEST_WARNING = WorkloadWarning(
    WarningKind.ZERO_REQUEST,
    'container "redis" has no cpu or memory request: '
    "a zero request fits every node and is evicted later",
)
YAML_ERROR = (
    "while parsing a block collection (line 10, column 9): expected <block end>, "
    "but found '<block mapping start>' (line 12, column 10)"
)


def snapshot_info(
    *,
    source: str = "fixtures/snapshots/aks-six-nodes.json",
    captured_at: str | None = CAPTURED_AT,
    context: str | None = CLUSTER,
    server_version: str | None = "v1.33.4",
    nodes: int = 6,
    pods: int = 19,
) -> SnapshotInfo:
    return SnapshotInfo(
        source=source,
        captured_at=captured_at,
        context=context,
        server="https://aks-prod.example.test:443" if context else None,
        server_version=server_version,
        nodes=nodes,
        pods=pods,
    )


def outcomes(
    names: Sequence[str], reason: str | None = None, taint: Taint | None = None
) -> tuple[NodeOutcome, ...]:
    """The same outcome on each named node; no reason means the pod fits."""
    reasons = (reason,) if reason else ()
    plugin, code = GIVEN_BY.get(reason or "", ("", None))
    return tuple(NodeOutcome(n, reasons, taint, plugin, code) for n in names)


def result(
    name: str = "app",
    *,
    verdict: Verdict = Verdict.YES,
    kind: str = "Deployment",
    namespace: str = "default",
    file: str = "deploy/app.yaml",
    line: int = 1,
    replicas: int | None = 1,
    message: str | None = None,
    reason: str | None = None,
    nodes: tuple[NodeOutcome, ...] = (),
    requests: tuple[tuple[str, str], ...] = (),
    warnings: tuple[WorkloadWarning, ...] = (),
) -> WorkloadResult:
    return WorkloadResult(
        kind=kind,
        namespace=namespace,
        name=name,
        location=Location(file, line),
        replicas=replicas,
        verdict=verdict,
        message=message,
        reason=reason,
        nodes=nodes,
        requests=requests,
        warnings=warnings,
    )


def report(
    *results: WorkloadResult,
    fail_on: frozenset[Verdict] = DEFAULT_FAIL_ON,
    info: SnapshotInfo | None = None,
    other_documents: tuple[tuple[str, int], ...] = (),
) -> Report:
    return Report(
        snapshot=info or snapshot_info(),
        results=results,
        fail_on=fail_on,
        other_documents=other_documents,
        version=VERSION,
    )


def _tainted_system() -> tuple[NodeOutcome, ...]:
    return outcomes(SYSTEM_NODES, TAINT_REASON, ADDON_TAINT)


def fixture_results() -> tuple[WorkloadResult, ...]:
    """One result per verdict, as the engine gives them for the shipped fixtures."""
    manifests = "fixtures/manifests"
    return (
        result(
            "web-small",
            namespace="web",
            file=f"{manifests}/01-web-small.yaml",
            replicas=3,
            nodes=_tainted_system() + outcomes(USER_NODES),
            requests=(("cpu", "500m"), ("memory", "256Mi")),
        ),
        result(
            "web-big",
            verdict=Verdict.NO,
            namespace="web",
            file=f"{manifests}/02-web-big.yaml",
            replicas=2,
            message=f"0/6 nodes are available: 3 {NO_CPU}, 3 {TAINT_REASON}.",
            nodes=_tainted_system() + outcomes(USER_NODES, NO_CPU),
            requests=(("cpu", "2"), ("memory", "512Mi")),
        ),
        result(
            "nightly-report",
            verdict=Verdict.ADDON_ONLY,
            kind="CronJob",
            namespace="batch",
            file=f"{manifests}/03-batch-tolerates-system.yaml",
            nodes=outcomes(SYSTEM_NODES) + outcomes(USER_NODES, NO_CPU),
            requests=(("cpu", "2"), ("memory", "1Gi")),
        ),
        result(
            "log-agent",
            verdict=Verdict.PARTIAL,
            kind="DaemonSet",
            namespace="observability",
            file=f"{manifests}/04-log-agent.yaml",
            replicas=None,
            nodes=outcomes(SYSTEM_NODES) + outcomes(USER_NODES, NO_CPU),
            requests=(("cpu", "1600m"), ("memory", "200Mi")),
        ),
        result(
            f"{manifests}/05-broken.yaml:1",
            verdict=Verdict.ERROR,
            kind="Document",
            namespace="",
            file=f"{manifests}/05-broken.yaml",
            replicas=None,
            reason=YAML_ERROR,
        ),
        result(
            "legacy-cron-runner",
            verdict=Verdict.SKIPPED,
            namespace="ops",
            file=f"{manifests}/06-skipped-and-unrequested.yaml",
            replicas=None,
            reason="fitgate.dev/skip: runs on the on-prem pool, not in this cluster",
        ),
        result(
            "cache",
            kind="StatefulSet",
            namespace="web",
            file=f"{manifests}/06-skipped-and-unrequested.yaml",
            line=20,
            nodes=_tainted_system() + outcomes(USER_NODES),
            warnings=(ZERO_REQUEST_WARNING,),
        ),
    )


def fixture_report() -> Report:
    return report(*fixture_results(), other_documents=(("Service", 1),))
