"""The engine's preemption, copy by copy (gate/scheduler/engine/preemption.py): free room
first, a copy no node takes preempts where DefaultPreemption nominates, the next copy sees
the evictions (the room they left, the budgets they used), and the count stops at the first
copy for which nothing is nominated, with its FitError and the PostFilter's part; a
DaemonSet's pods preempt on their own node."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.k8s.version import dialect_for
from gate.model import Location, Verdict, WarningKind, Workload, WorkloadResult
from gate.reports.views import Views
from gate.reports.wording import detail
from gate.scheduler.engine.evaluate import Evaluator
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.engine_support import NO_VICTIMS, preempting

CLASSES = [
    {"metadata": {"name": "high"}, "value": 1000},
    {"metadata": {"name": "low"}, "value": 10},
]


def _running(name: str, node: str, priority: int, cpu: str, app: str = "") -> dict[str, Any]:
    found = api_pod(name, node, namespace="batch", containers=[container(requests={"cpu": cpu})])
    found["spec"]["priority"] = priority
    found["metadata"]["labels"] = {"app": app or name}
    return found


def _budget(app: str, allowed: int) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": app, "namespace": "batch"},
        "spec": {"selector": {"matchLabels": {"app": app}}},
        "status": {"disruptionsAllowed": allowed},
    }


def _evaluate(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    replicas: int,
    cpu: str,
    kind: str = "Deployment",
    budgets: list[dict[str, Any]] | None = None,
) -> WorkloadResult:
    recorded: dict[str, Any] = {"priorityClasses": CLASSES}
    if budgets:
        recorded["podDisruptionBudgets"] = budgets
    snapshot = build_snapshot(cluster_snapshot(nodes, pods, **recorded), "snapshot.json")
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for("v1.34.1"))
    spec = {"priorityClassName": "high", "containers": [container(requests={"cpu": cpu})]}
    workload = Workload(
        kind=kind,
        namespace="pay",
        name="w",
        location=Location("w.yaml", 1),
        replicas=None if kind == "DaemonSet" else replicas,
        pod_spec=spec,
        labels={"app": "w"},
    )
    return evaluator.evaluate(workload)


def _evicts(result: WorkloadResult) -> list[tuple[str, int]]:
    found = result.preemption
    return [] if found is None else [(e.name, e.pods) for e in found.evicts]


TWO = [api_node("a", cpu="4"), api_node("b", cpu="4")]
CASES = [
    pytest.param(
        TWO,
        [_running("big", "a", 10, "4"), _running("full", "b", 5000, "4")],
        (2, "2"),
        None,
        (Verdict.PREEMPTS, 2, [("big", 1)], None),
        id="one eviction leaves room for the copy after the first",
    ),
    pytest.param(
        TWO,
        [_running("x1", "a", 10, "3", "x"), _running("x2", "b", 10, "3", "x")],
        (2, "3"),
        [_budget("x", 1)],
        (Verdict.PREEMPTS, 2, [("x1", 1), ("x2", 1)], None),
        id="a budget that allows one disruption still lets the second copy evict, as a violation",
    ),
    pytest.param(
        TWO,
        [_running("x1", "a", 10, "3"), _running("full", "b", 5000, "4")],
        (3, "2"),
        None,
        (
            Verdict.PARTIAL,
            2,
            [("x1", 1)],
            "0/2 nodes are available: 2 Insufficient cpu." + preempting(2, (2, NO_VICTIMS)),
        ),
        id="the count stops at the first copy nothing is nominated for, with its FitError",
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "copies", "budgets", "expected"), CASES)
def test_copy_by_copy(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    copies: tuple[int, str],
    budgets: list[dict[str, Any]] | None,
    expected: tuple[Verdict, int, list[tuple[str, int]], str | None],
) -> None:
    replicas, cpu = copies
    result = _evaluate(nodes, pods, replicas, cpu, budgets=budgets)
    placed = result.placement
    assert placed is not None
    assert (result.verdict, placed.fit, _evicts(result), result.message) == expected


def test_a_daemonset_preempts_on_each_node_it_targets() -> None:
    pods = [_running("x1", "a", 10, "3"), _running("x2", "b", 10, "3")]
    result = _evaluate(TWO, pods, 0, "2", kind="DaemonSet")
    assert (result.verdict, _evicts(result)) == (Verdict.PREEMPTS, [("x1", 1), ("x2", 1)])


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        pytest.param(
            [_running("x1", "a", 10, "3"), _running("full", "b", 5000, "3")],
            (Verdict.PARTIAL, 1, [("x1", 1)]),
            id="a node no eviction frees leaves the pod that preempts on the other counted",
        ),
        pytest.param(
            [_running("x1", "a", 10, "1"), _running("x2", "b", 10, "3")],
            (Verdict.PREEMPTS, 2, [("x2", 1)]),
            id="a pod that fits and one that preempts are every pod it targets",
        ),
        pytest.param(
            [_running("h1", "a", 5000, "3"), _running("h2", "b", 5000, "3")],
            (Verdict.NO, 0, []),
            id="no node frees room: none lands",
        ),
    ],
)
def test_a_daemonset_s_pods_preempt_each_on_its_own_node(
    pods: list[dict[str, Any]], expected: tuple[Verdict, int, list[tuple[str, int]]]
) -> None:
    """Each of a DaemonSet's pods is scheduled alone, pinned to its node, and runs the
    PostFilters itself (schedule_one.go, preemption.go Preempt): one that preempts lands
    whatever the pods of the other nodes find."""
    result = _evaluate(TWO, pods, 0, "2", kind="DaemonSet")
    placed = result.placement
    assert placed is not None
    assert (result.verdict, placed.fit, _evicts(result)) == expected


def test_a_daemonset_pod_evicts_a_terminating_pod_its_spread_counts_once_removed() -> None:
    """A DaemonSet's pod pinned to node a, spread over zones with nodeAffinityPolicy Ignore:
    zone1 counts x alone (calPreFilterState passes over the terminating t), so the pod's
    skew there is 1 + 1 - 0 until SelectVictimsOnNode removes t, and PodTopologySpread's
    RemovePod (filtering.go updateWithPod) takes t off zone1 all the same; on node b the
    pod evicts what fills it."""
    zoned = [
        api_node("a", cpu="4", labels={"zone": "zone1"}),
        api_node("b", cpu="4", labels={"zone": "zone2"}),
    ]
    gone = _running("t", "a", 10, "2", "w")
    gone["metadata"]["deletionTimestamp"] = "2026-08-16T09:00:00Z"
    pods = [gone, _running("x", "a", 5000, "2", "w"), _running("full", "b", 10, "4")]
    for found in pods:
        found["metadata"]["namespace"] = "pay"
    snapshot = build_snapshot(
        cluster_snapshot(zoned, pods, priorityClasses=CLASSES), "snapshot.json"
    )
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for("v1.34.1"))
    constraint = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "w"}},
        "nodeAffinityPolicy": "Ignore",
    }
    spec = {
        "priorityClassName": "high",
        "containers": [container(requests={"cpu": "2"})],
        "topologySpreadConstraints": [constraint],
    }
    workload = Workload(
        kind="DaemonSet",
        namespace="pay",
        name="w",
        location=Location("w.yaml", 1),
        replicas=None,
        pod_spec=spec,
        labels={"app": "w"},
    )
    result = evaluator.evaluate(workload)
    assert (result.verdict, _evicts(result)) == (Verdict.PREEMPTS, [("full", 1), ("t", 1)])


ZONED = [
    api_node(name, cpu="4", labels={"zone": zone, "kubernetes.io/hostname": name})
    for name, zone in (("a", "zone1"), ("b", "zone2"), ("c", "zone3"))
]
ONE_PER_ZONE = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "w"}}, "topologyKey": "zone"}
        ]
    }
}


def _apart(pods: list[dict[str, Any]], replicas: int) -> WorkloadResult:
    """A high-priority Deployment of ``replicas`` copies of 2 cpu, one per zone."""
    snapshot = build_snapshot(
        cluster_snapshot(ZONED, pods, priorityClasses=CLASSES), "snapshot.json"
    )
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for("v1.34.1"))
    spec = {
        "priorityClassName": "high",
        "containers": [container(requests={"cpu": "2"})],
        "affinity": ONE_PER_ZONE,
    }
    workload = Workload(
        kind="Deployment",
        namespace="pay",
        name="w",
        location=Location("w.yaml", 1),
        replicas=replicas,
        pod_spec=spec,
        labels={"app": "w"},
    )
    return evaluator.evaluate(workload)


FULL = [_running(f"x{n}", n, 10, "4") for n in "abc"]


@pytest.mark.parametrize(
    ("pods", "replicas", "expected"),
    [
        pytest.param(
            FULL,
            3,
            (Verdict.PREEMPTS, 3, [("xa", 1), ("xb", 1), ("xc", 1)], None),
            id="each copy kept out of the zones before it preempts in the next zone",
        ),
        pytest.param(
            FULL,
            4,
            (
                Verdict.PARTIAL,
                3,
                [("xa", 1), ("xb", 1), ("xc", 1)],
                "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."
                + preempting(3, (3, NO_VICTIMS)),
            ),
            id="the copy past the zones ends with the FitError its preemption finds",
        ),
        pytest.param(
            [
                _running("old", "a", 10, "1", "w"),
                _running("fb", "b", 5000, "4"),
                _running("fc", "c", 5000, "4"),
            ],
            2,
            (
                Verdict.PARTIAL,
                1,
                [("old", 1)],
                "0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, "
                "2 Insufficient cpu." + preempting(3, (3, NO_VICTIMS)),
            ),
            id="a copy after one that evicted its own kind ends with its FitError",
        ),
    ],
)
def test_copies_kept_apart_by_their_anti_affinity_preempt_one_after_another(
    pods: list[dict[str, Any]],
    replicas: int,
    expected: tuple[Verdict, int, list[tuple[str, int]], str | None],
) -> None:
    """preemption.go Preempt for each copy in turn (schedule_one.go runs the PostFilters for
    every pod that fits no node): a copy's zone is closed to the next, which preempts again
    where no copy stands."""
    result = _apart(
        [{**p, "metadata": {**p["metadata"], "namespace": "pay"}} for p in pods], replicas
    )
    placed = result.placement
    assert placed is not None
    assert (result.verdict, placed.fit, _evicts(result), result.message) == expected
    assert not any(w.kind is WarningKind.PREEMPTION for w in result.warnings)


def test_a_daemonset_s_text_detail_says_whom_its_preempting_pods_evict() -> None:
    pods = [_running("x1", "a", 10, "3"), _running("full", "b", 5000, "3")]
    result = _evaluate(TWO, pods, 0, "2", kind="DaemonSet")
    lines = detail(result, Views())
    assert lines[0] == "no room on 2 of 2 targeted nodes: 2 Insufficient cpu"
    assert "1 of them by evicting 1 pod of lower priority: batch/x1 (priority 10)" in lines


NAMED = [api_node("a", cpu="4"), api_node("b", cpu="4")]
NAMED_PODS = [_running("low", "a", 10, "3"), _running("other", "b", 10, "3")]


@pytest.mark.parametrize(
    ("class_name", "verdict", "evicts"),
    [
        pytest.param("high", Verdict.NO, [], id="rejected-by-its-kubelet"),
        pytest.param(
            "system-cluster-critical",
            Verdict.PREEMPTS,
            [("low", 1)],
            id="critical-its-kubelet-evicts",
        ),
    ],
)
def test_a_pod_created_on_its_node_is_never_preempted_for_unless_critical(
    class_name: str, verdict: Verdict, evicts: list[tuple[str, int]]
) -> None:
    """A pod created with ``nodeName`` never reaches kube-scheduler: its node's kubelet
    rejects it for want of room (OutOfcpu), or, for a critical pod, evicts others to make
    room (pkg/kubelet/preemption, CriticalPodAdmissionHandler). The same pod without the
    name preempts."""
    snapshot = build_snapshot(
        cluster_snapshot(NAMED, NAMED_PODS, priorityClasses=CLASSES), "snapshot.json"
    )
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for("v1.34.1"))
    spec = {
        "nodeName": "a",
        "priorityClassName": class_name,
        "containers": [container(requests={"cpu": "2"})],
    }
    workload = Workload(
        kind="Pod",
        namespace="pay",
        name="w",
        location=Location("w.yaml", 1),
        replicas=1,
        pod_spec=spec,
    )
    result = evaluator.evaluate(workload)
    assert (result.verdict, _evicts(result)) == (verdict, evicts)
    if verdict is Verdict.NO:
        assert result.message == (
            "0/2 nodes are available: 1 Insufficient cpu, "
            "1 node(s) didn't match the requested node name."
        )
    scheduled = evaluator.evaluate(replace(workload, pod_spec={**spec, "nodeName": None}))
    assert scheduled.verdict is Verdict.PREEMPTS
