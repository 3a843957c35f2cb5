"""What a workload wants, judged whole (gate.run.check over manifests and a snapshot built
here): a workload that wants no pods does not fail, an autoscaler's minimum of 0 is one pod
when it wakes, a suspended Job is judged as its queue or its owner means it, and a DaemonSet
wants one pod per node it targets."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from gate.model import (
    Document,
    Location,
    ReplicaFit,
    Report,
    Verdict,
    WarningKind,
    WorkloadResult,
    WorkloadWarning,
)
from gate.reports.jsonreport import render_json
from gate.reports.views import Views
from gate.reports.wording import detail, headline
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container
from tests.engine_support import NOT_HELPFUL, preempting

ADDON = {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}
THREE = [api_node(f"n{i}", cpu="1") for i in range(3)]
FIT_ERROR_CPU = "0/3 nodes are available: 3 Insufficient cpu."


def _template(cpu: str, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "w"}},
        "spec": {"containers": [container(requests={"cpu": cpu, "memory": "16Mi"})], **spec},
    }


def _workload(kind: str, cpu: str = "100m", api: str = "apps/v1", **spec: Any) -> dict[str, Any]:
    pod = spec.pop("pod", {})
    labels = spec.pop("labels", None)
    metadata: dict[str, Any] = {"name": "w", "namespace": "app"}
    if labels:
        metadata["labels"] = labels
    template = _template(cpu, **pod)
    if kind == "Job":  # a Job's pods must not restart Always, its pod template's default
        template["spec"].setdefault("restartPolicy", "Never")
    else:
        spec.setdefault("selector", {"matchLabels": {"app": "w"}})
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": metadata,
        "spec": {"template": template, **spec},
    }


def _job(cpu: str = "100m", **spec: Any) -> dict[str, Any]:
    return _workload("Job", cpu, api="batch/v1", **spec)


def _hpa(**spec: Any) -> dict[str, Any]:
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "w"}
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "w-hpa", "namespace": "app"},
        "spec": {"scaleTargetRef": target, **spec},
    }


@dataclass(frozen=True)
class Case:
    manifests: list[dict[str, Any]]
    nodes: list[dict[str, Any]] = field(default_factory=lambda: THREE)


def _report(case: Case) -> Report:
    snapshot = build_snapshot(cluster_snapshot(case.nodes), "s.json")
    documents = [Document(Location("m.yaml", 1 + 40 * i), b) for i, b in enumerate(case.manifests)]
    return check(documents, snapshot, RunOptions())


def _first(case: Case) -> WorkloadResult:
    return _report(case).results[0]


def _kinds(result: WorkloadResult) -> list[tuple[WarningKind, str]]:
    return [(w.kind, w.text) for w in result.warnings]


QUEUE = {"kueue.x-k8s.io/queue-name": "team-a"}
QUEUED = (
    WarningKind.SCHEDULING,
    "suspended, for Kueue queue team-a to resume on admission: judged as resumed "
    "(the queue's ResourceFlavor may add node labels and tolerations)",
)

# (id, the case, verdict, replicas (wanted, fit), the headline, warnings)
WANTS: list[
    tuple[str, Case, Verdict, tuple[int, int] | None, str, list[tuple[WarningKind, str]]]
] = [
    (
        "replicas: 0 with room wants no pods and passes, with no warning",
        Case([_workload("Deployment", replicas=0)]),
        Verdict.YES,
        (0, 0),
        "wants no pods",
        [],
    ),
    (
        "replicas: 0 where one pod would not fit passes, warning what scaling up would meet",
        Case([_workload("Deployment", cpu="2", replicas=0)]),
        Verdict.YES,
        (0, 0),
        "wants no pods",
        [(WarningKind.IF_SCALED_UP, f"if scaled up: {FIT_ERROR_CPU}")],
    ),
    (
        "replicas: 0 where only add-on nodes would take a pod passes, warning so",
        Case(
            [_workload("Deployment", replicas=0, pod={"tolerations": [{"operator": "Exists"}]})],
            [api_node("sys", cpu="1", taints=[ADDON])],
        ),
        Verdict.YES,
        (0, 0),
        "wants no pods",
        [
            (
                WarningKind.IF_SCALED_UP,
                "if scaled up: only CriticalAddonsOnly (system) nodes would take its pods",
            )
        ],
    ),
    (
        "replicas: 0 on a cluster without nodes passes, warning the scheduler's words",
        Case([_workload("Deployment", replicas=0)], []),
        Verdict.YES,
        (0, 0),
        "wants no pods",
        [(WarningKind.IF_SCALED_UP, "if scaled up: no nodes available to schedule pods")],
    ),
    (
        "parallelism: 0 wants no pods and passes",
        Case([_job(cpu="2", parallelism=0)]),
        Verdict.YES,
        (0, 0),
        "wants no pods",
        [(WarningKind.IF_SCALED_UP, f"if scaled up: {FIT_ERROR_CPU}")],
    ),
    (
        "a Job suspended by hand wants no pods and passes",
        Case([_job(cpu="2", parallelism=3, suspend=True)]),
        Verdict.YES,
        (0, 0),
        "wants no pods",
        [(WarningKind.IF_SCALED_UP, f"if scaled up: {FIT_ERROR_CPU}")],
    ),
    (
        "a suspended Job a Kueue queue manages is judged as resumed, with a note",
        Case([_job(cpu="600m", parallelism=4, suspend=True, labels=QUEUE)]),
        Verdict.PARTIAL,
        (4, 3),
        "3 of 4 pods fit; the 4th: 0/3 nodes are available: 3 Insufficient cpu."
        " no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption "
        "victims found for incoming pod.",
        [QUEUED],
    ),
    (
        "replicas: 1 where none fits still fails",
        Case([_workload("Deployment", cpu="2", replicas=1)]),
        Verdict.NO,
        (1, 0),
        FIT_ERROR_CPU + preempting(3, (3, NOT_HELPFUL)),
        [],
    ),
    (
        "replicas: 0 with an HPA of minReplicas 0 is judged as the one pod it wakes to",
        Case([_workload("Deployment", cpu="2", replicas=0), _hpa(minReplicas=0, maxReplicas=3)]),
        Verdict.NO,
        (1, 0),
        FIT_ERROR_CPU + preempting(3, (3, NOT_HELPFUL)),
        [],
    ),
    (
        "replicas: 0 with a KEDA ScaledObject (minimum 0 by default) is judged as one pod",
        Case(
            [
                _workload("Deployment", cpu="600m", replicas=0),
                {
                    "apiVersion": "keda.sh/v1alpha1",
                    "kind": "ScaledObject",
                    "metadata": {"name": "w-so", "namespace": "app"},
                    "spec": {"scaleTargetRef": {"name": "w"}, "maxReplicaCount": 5},
                },
            ]
        ),
        Verdict.YES,
        (1, 1),
        "fits 3 of 3 nodes; the ScaledObject's minimum of 1 replica fits; room for 3 of its 5",
        [],
    ),
]


@pytest.mark.parametrize(
    ("case", "verdict", "replicas", "said", "warnings"),
    [w[1:] for w in WANTS],
    ids=[w[0] for w in WANTS],
)
def test_what_a_workload_wants(
    case: Case,
    verdict: Verdict,
    replicas: tuple[int, int] | None,
    said: str,
    warnings: list[tuple[WarningKind, str]],
) -> None:
    result = _first(case)
    placed = result.placement
    assert result.verdict is verdict
    assert ((placed.wanted, placed.fit) if placed else None) == replicas
    assert result.replicas == (replicas[0] if replicas else None)
    assert headline(result) == said
    assert _kinds(result) == warnings


def test_a_workload_that_wants_no_pods_passes_the_gate() -> None:
    report = _report(Case([_workload("Deployment", cpu="2", replicas=0)]))
    assert report.summary.passed
    (result,) = report.results
    assert result.message is None and result.cause is None
    assert detail(result, Views()) == ["wants no pods"]


def test_its_json_replicas_say_it_wants_and_fits_none() -> None:
    report = _report(Case([_workload("Deployment", cpu="2", replicas=0)]))
    (entry,) = json.loads(render_json(report))["workloads"]
    assert entry["replicas"] == {
        "wanted": 0,
        "fit": 0,
        "alone": 0,
        "together": None,
        "beside": [],
        "released": 0,
        "autoscaler": None,
    }
    assert entry["verdict"] == "YES" and entry["message"] is None


def test_an_autoscaler_whose_count_is_none_makes_its_workload_an_error() -> None:
    case = Case([_workload("Deployment", replicas=2), _hpa(minReplicas="2", maxReplicas=5)])
    result = _first(case)
    assert (result.verdict, result.reason) == (
        Verdict.ERROR,
        "HorizontalPodAutoscaler app/w-hpa: spec.minReplicas: expected an integer from 0 to "
        '2147483647, not "2" (a string)',
    )


def test_two_hpas_on_one_deployment_make_it_an_error_naming_both() -> None:
    """min 1 / max 1 and min 30 / max 40: neither is dropped for the other."""
    second = {**_hpa(minReplicas=30, maxReplicas=40), "metadata": {"name": "b", "namespace": "app"}}
    case = Case([_workload("Deployment", replicas=20), _hpa(minReplicas=1, maxReplicas=1), second])
    result = _first(case)
    assert (result.verdict, result.reason) == (
        Verdict.ERROR,
        "controlled by multiple autoscalers: HorizontalPodAutoscaler app/w-hpa, "
        "HorizontalPodAutoscaler app/b (AmbiguousSelector: the HPA controller scales it by "
        "none of them)",
    )


def _daemonset(cpu: str = "100m", **pod: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "app"},
        "spec": {"selector": {"matchLabels": {"app": "w"}}, "template": _template(cpu, **pod)},
    }


def _busy(name: str, cpu: str) -> dict[str, Any]:
    return api_node(name, cpu=cpu, labels={"pool": "a"})


NO_TARGET = WorkloadWarning(
    WarningKind.NO_TARGET,
    "the DaemonSet targets no node of the snapshot (0/3 nodes are available: 3 node(s) didn't "
    "match Pod's node affinity/selector), so it creates no pod",
)

# (id, nodes, the DaemonSet, verdict, (wanted: nodes targeted, fit: those with room), headline)
DAEMONSETS: list[
    tuple[str, list[dict[str, Any]], dict[str, Any], Verdict, tuple[int, int], str]
] = [
    (
        "one pod per node: it wants and fits every node it targets",
        THREE,
        _daemonset(),
        Verdict.YES,
        (3, 3),
        "fits 3 of 3 nodes",
    ),
    (
        "a node short of room is targeted but does not fit",
        [_busy("a0", "1"), _busy("a1", "1"), _busy("a2", "100m")],
        _daemonset(cpu="500m"),
        Verdict.PARTIAL,
        (3, 2),
        "no room on 1 of 3 targeted nodes: 1 Insufficient cpu",
    ),
    (
        "a node its selector does not take is not targeted",
        [_busy("a0", "1"), _busy("a1", "1"), api_node("b0", cpu="1")],
        _daemonset(nodeSelector={"pool": "a"}),
        Verdict.YES,
        (2, 2),
        "fits 2 of 3 nodes",
    ),
    (
        "a DaemonSet that targets no node is YES and says so, never fits 0 of N nodes",
        THREE,
        _daemonset(nodeSelector={"pool": "gpu"}),
        Verdict.YES,
        (0, 0),
        "targets no node",
    ),
    (
        "a DaemonSet no targeted node has room for is NO",
        [_busy("a0", "100m"), _busy("a1", "100m")],
        _daemonset(cpu="500m"),
        Verdict.NO,
        (2, 0),
        "0/2 nodes are available: 2 Insufficient cpu.",
    ),
]


@pytest.mark.parametrize(
    ("nodes", "daemonset", "verdict", "replicas", "said"),
    [d[1:] for d in DAEMONSETS],
    ids=[d[0] for d in DAEMONSETS],
)
def test_a_daemonset_wants_one_pod_per_node_it_targets(
    nodes: list[dict[str, Any]],
    daemonset: dict[str, Any],
    verdict: Verdict,
    replicas: tuple[int, int],
    said: str,
) -> None:
    result = _first(Case([daemonset], nodes))
    assert result.verdict is verdict
    assert result.placement == ReplicaFit(replicas[0], alone=replicas[1], together=replicas[1])
    assert result.replicas == replicas[0]
    assert headline(result) == said


def test_a_daemonset_that_targets_no_node_warns_why() -> None:
    result = _first(Case([_daemonset(nodeSelector={"pool": "gpu"})]))
    assert result.warnings == (NO_TARGET,)


def test_a_daemonsets_json_replicas_are_the_nodes_it_targets_and_those_with_room() -> None:
    nodes = [_busy("a0", "1"), _busy("a1", "1"), _busy("a2", "100m")]
    report = _report(Case([_daemonset(cpu="500m")], nodes))
    (entry,) = json.loads(render_json(report))["workloads"]
    assert (entry["replicas"]["wanted"], entry["replicas"]["fit"]) == (3, 2)


def test_a_daemonset_on_a_cluster_without_nodes_targets_none() -> None:
    result = _first(Case([_daemonset()], []))
    assert (result.verdict, headline(result)) == (Verdict.YES, "targets no node")
    assert _kinds(result) == [
        (
            WarningKind.NO_TARGET,
            "the DaemonSet targets no node of the snapshot, so it creates no pod",
        )
    ]
