"""A workload is all of its pods (docs/reference.md): replicas, the pods it replaces, the rest
of the change, one lost node. Each case runs the whole pipeline (gate.run.check) over
manifests and a snapshot built here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gate.model import (
    AutoscalerRef,
    Document,
    Location,
    ReplicaFit,
    Verdict,
    WarningKind,
    WorkloadResult,
)
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def _node(name: str, cpu: str = "2", zone: str = "z1", **more: Any) -> dict[str, Any]:
    return api_node(name, cpu=cpu, labels={HOSTNAME: name, ZONE: zone}, **more)


def _template(app: str, cpu: str, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": app}},
        "spec": {"containers": [container(requests={"cpu": cpu, "memory": "64Mi"})], **spec},
    }


def _deployment(name: str, replicas: int | None, cpu: str, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "app"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": _template(name, cpu)},
    }
    if replicas is not None:
        body["spec"]["replicas"] = replicas
    body["spec"]["template"]["spec"].update(spec.pop("pod", {}))
    body["spec"].update(spec)
    return body


def _running(
    owner_kind: str,
    owner: str,
    node: str,
    cpu: str,
    *,
    name: str,
    labels: dict[str, str] | None = None,
    ports: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A pod of the cluster that ``owner_kind owner`` made."""
    more: dict[str, Any] = {"ports": ports} if ports else {}
    pod = api_pod(
        name, node, namespace="app", containers=[container(requests={"cpu": cpu}, **more)]
    )
    pod["metadata"]["ownerReferences"] = [{"kind": owner_kind, "name": owner}]
    pod["metadata"]["labels"] = labels or {}
    return pod


def _of_deployment(name: str, node: str, cpu: str, index: int) -> dict[str, Any]:
    labels = {"app": name, "pod-template-hash": "5d8f7c"}
    return _running(
        "ReplicaSet", f"{name}-5d8f7c", node, cpu, name=f"{name}-5d8f7c-{index}", labels=labels
    )


@dataclass(frozen=True)
class Case:
    nodes: list[dict[str, Any]]
    manifests: list[dict[str, Any]]
    pods: list[dict[str, Any]] = field(default_factory=list)


def _run(case: Case) -> list[WorkloadResult]:
    snapshot = build_snapshot(cluster_snapshot(case.nodes, case.pods), "s.json")
    documents = [
        Document(Location("m.yaml", 1 + 20 * i), body) for i, body in enumerate(case.manifests)
    ]
    return list(check(documents, snapshot, RunOptions()).results)


THREE = [_node("n0"), _node("n1"), _node("n2")]
ONE_DOWN = {"rollingUpdate": {"maxUnavailable": 1}}

CASES: list[tuple[str, Case, list[tuple[Verdict, ReplicaFit | None]]]] = [
    (
        "ten replicas where three fit are PARTIAL, not YES",
        Case(THREE, [_deployment("api", 10, "1400m")]),
        [(Verdict.PARTIAL, ReplicaFit(10, alone=3, together=3, first_fits=3))],
    ),
    (
        "copies share a node's room: 700m copies on 2 cpu fit twice per node",
        Case(THREE, [_deployment("api", 6, "700m")]),
        [(Verdict.YES, ReplicaFit(6, alone=6, together=6))],
    ),
    (
        "a host port holds one copy per node",
        Case(
            THREE,
            [
                _deployment(
                    "api",
                    4,
                    "10m",
                    pod={
                        "containers": [
                            container(
                                requests={"cpu": "10m"},
                                ports=[{"containerPort": 80, "hostPort": 80}],
                            )
                        ]
                    },
                )
            ],
        ),
        [(Verdict.PARTIAL, ReplicaFit(4, alone=3, together=3, first_fits=3))],
    ),
    (
        "hostname anti-affinity against itself: four replicas on three nodes fit three",
        Case(
            THREE,
            [
                _deployment(
                    "ha",
                    4,
                    "10m",
                    pod={
                        "affinity": {
                            "podAntiAffinity": {
                                "requiredDuringSchedulingIgnoredDuringExecution": [
                                    {
                                        "labelSelector": {"matchLabels": {"app": "ha"}},
                                        "topologyKey": HOSTNAME,
                                    }
                                ]
                            }
                        }
                    },
                )
            ],
        ),
        [(Verdict.PARTIAL, ReplicaFit(4, alone=3, together=3, first_fits=3))],
    ),
    (
        "a zone spread with maxSkew 1 stops where the smaller zone is full",
        Case(
            [_node("a0", zone="a"), _node("a1", zone="a"), _node("b0", cpu="500m", zone="b")],
            [
                _deployment(
                    "web",
                    6,
                    "400m",
                    pod={
                        "topologySpreadConstraints": [
                            {
                                "maxSkew": 1,
                                "topologyKey": ZONE,
                                "whenUnsatisfiable": "DoNotSchedule",
                                "labelSelector": {"matchLabels": {"app": "web"}},
                            }
                        ]
                    },
                )
            ],
        ),
        [(Verdict.PARTIAL, ReplicaFit(6, alone=3, together=3, first_fits=3))],
    ),
    (
        "an image bump on full nodes that may take an old pod down first fits: its new pods "
        "take the room its old pods leave",
        Case(
            THREE,
            [_deployment("shop", 3, "1500m", strategy=ONE_DOWN)],
            [_of_deployment("shop", f"n{i}", "1500m", i) for i in range(3)],
        ),
        [(Verdict.YES, ReplicaFit(3, alone=3, released=3))],
    ),
    (
        "the same bump wanting more replicas than room is PARTIAL",
        Case(
            THREE,
            [_deployment("shop", 5, "1500m")],
            [_of_deployment("shop", f"n{i}", "1500m", i) for i in range(3)],
        ),
        [(Verdict.PARTIAL, ReplicaFit(5, alone=3, released=3, first_fits=3))],
    ),
    (
        "another workload's pods are not released",
        Case(
            THREE,
            [_deployment("shop", 3, "1500m")],
            [_of_deployment("other", f"n{i}", "1500m", i) for i in range(3)],
        ),
        [(Verdict.NO, ReplicaFit(3, alone=0))],
    ),
    (
        "two new workloads that fit alone, not together: the second is PARTIAL",
        Case(THREE, [_deployment("search", 3, "1500m"), _deployment("indexer", 2, "600m")]),
        [
            (Verdict.YES, ReplicaFit(3, alone=3, together=3)),
            (
                Verdict.PARTIAL,
                ReplicaFit(2, alone=2, together=0, beside=("app/search",), first_fits=3),
            ),
        ],
    ),
    (
        "a running workload's update does not compete with new workloads",
        Case(
            THREE,
            [_deployment("search", 3, "1500m"), _deployment("shop", 3, "1500m", strategy=ONE_DOWN)],
            [_of_deployment("shop", f"n{i}", "1500m", i) for i in range(3)],
        ),
        [
            (Verdict.NO, ReplicaFit(3, alone=0)),
            (Verdict.YES, ReplicaFit(3, alone=3, released=3)),
        ],
    ),
    (
        "a Job runs its parallelism capped by its completions",
        Case(
            THREE,
            [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": {"name": "crunch", "namespace": "app"},
                    "spec": {
                        "parallelism": 8,
                        "completions": 4,
                        "template": _template("crunch", "1500m", restartPolicy="Never"),
                    },
                }
            ],
        ),
        [(Verdict.PARTIAL, ReplicaFit(4, alone=3, together=3, first_fits=3))],
    ),
]


@pytest.mark.parametrize(("case", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_replicas(case: Case, expected: list[tuple[Verdict, ReplicaFit | None]]) -> None:
    results = _run(case)
    assert [(r.verdict, r.placement) for r in results] == expected


CRONJOB_CASES = [
    ("a CronJob's next Job starts beside the running one by default", None, Verdict.NO, 0),
    ("concurrencyPolicy Allow keeps the running Job's pods", "Allow", Verdict.NO, 0),
    (
        "concurrencyPolicy Forbid starts the next Job once the running one ends",
        "Forbid",
        Verdict.YES,
        1,
    ),
    ("concurrencyPolicy Replace deletes the running Job first", "Replace", Verdict.YES, 1),
]


@pytest.mark.parametrize(
    ("policy", "verdict", "released"),
    [c[1:] for c in CRONJOB_CASES],
    ids=[c[0] for c in CRONJOB_CASES],
)
def test_a_cronjob_update_releases_the_pods_of_its_jobs_as_its_concurrency_policy_says(
    policy: str | None, verdict: Verdict, released: int
) -> None:
    spec: dict[str, Any] = {
        "schedule": "0 1 * * *",
        "jobTemplate": {
            "spec": {"template": _template("nightly", "1500m", restartPolicy="OnFailure")}
        },
    }
    if policy is not None:
        spec["concurrencyPolicy"] = policy
    cronjob = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly", "namespace": "app"},
        "spec": spec,
    }
    job_pod = _running("Job", "nightly-29012345", "n0", "1500m", name="nightly-29012345-x")
    [result] = _run(Case([_node("n0")], [cronjob], [job_pod]))
    assert (result.verdict, result.placement.released if result.placement else None) == (
        verdict,
        released,
    )
    kept = [w.text for w in result.warnings if w.kind is WarningKind.ROLLOUT]
    assert bool(kept) == (released == 0)
    if kept:
        assert kept[0].startswith("concurrencyPolicy Allow: the next Job starts beside")


def test_a_daemonset_update_on_full_nodes_replaces_its_own_pod_on_each() -> None:
    port = [{"containerPort": 8443, "hostPort": 8443}]
    daemonset = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "edge", "namespace": "app"},
        "spec": {
            "selector": {"matchLabels": {"app": "edge"}},
            "template": {
                "metadata": {"labels": {"app": "edge"}},
                "spec": {"containers": [container(requests={"cpu": "1500m"}, ports=port)]},
            },
        },
    }
    pods = [
        _running("DaemonSet", "edge", f"n{i}", "1500m", name=f"edge-{i}", ports=port)
        for i in range(3)
    ]
    [updated] = _run(Case(THREE, [daemonset], pods))
    [fresh] = _run(
        Case(
            THREE,
            [daemonset],
            [
                _running("DaemonSet", "other", f"n{i}", "1500m", name=f"o-{i}", ports=port)
                for i in range(3)
            ],
        )
    )
    assert (updated.verdict, fresh.verdict) == (Verdict.YES, Verdict.NO)
    assert fresh.message == (
        "0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports."
    )


def _with_scaler(deployment: dict[str, Any], **spec: Any) -> list[dict[str, Any]]:
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "api", "namespace": "app"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
            **spec,
        },
    }
    return [deployment, hpa]


def test_an_hpa_sets_the_minimum_and_its_maximum_is_headroom() -> None:
    manifests = _with_scaler(_deployment("api", 1, "700m"), minReplicas=4, maxReplicas=20)
    [result] = _run(Case(THREE, manifests))
    assert result.replicas == 4 and result.verdict is Verdict.YES
    assert result.placement == ReplicaFit(
        4,
        alone=4,
        together=4,
        autoscaler=AutoscalerRef("HorizontalPodAutoscaler", "api"),
        maximum=20,
        headroom=6,
    )


def test_an_hpa_minimum_beyond_the_room_is_partial() -> None:
    manifests = _with_scaler(_deployment("api", None, "1500m"), minReplicas=5, maxReplicas=9)
    [result] = _run(Case(THREE, manifests))
    assert result.verdict is Verdict.PARTIAL and result.placement is not None
    assert (result.placement.fit, result.placement.headroom) == (3, 3)


def _warnings(result: WorkloadResult, kind: WarningKind) -> list[str]:
    return [w.text for w in result.warnings if w.kind is kind]


def test_one_lost_node_warns_when_the_others_cannot_take_its_replicas_back() -> None:
    pinned = _deployment("cache", 2, "500m", pod={"nodeSelector": {HOSTNAME: "n0"}})
    spread = _deployment("web", 2, "500m")
    cache, web = _run(Case(THREE, [pinned, spread]))
    assert _warnings(cache, WarningKind.LOST_NODE) == [
        "if the node holding 2 of its replicas failed, the other nodes could take 0 of 2"
    ]
    assert _warnings(web, WarningKind.LOST_NODE) == []


def test_one_lost_node_names_the_disruption_budget_it_would_break() -> None:
    tight = [_node("n0", cpu="1"), _node("n1", cpu="1")]
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "api-pdb", "namespace": "app"},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "api"}}},
    }
    [result] = _run(Case(tight, [_deployment("api", 2, "600m"), budget]))
    assert _warnings(result, WarningKind.LOST_NODE) == [
        "if the node holding 1 of its replicas failed, the other nodes could take 1 of 2, "
        "fewer than PodDisruptionBudget api-pdb keeps (2)"
    ]


SURGE_CASES = [
    (
        "maxUnavailable 0 (25% of 3, rounded down) and no room for the surge: the rollout "
        "cannot start",
        {},
        Verdict.NO,
        [],
    ),
    (
        "maxUnavailable 1: the rollout proceeds by taking a running pod down first, a warning",
        {"strategy": {"rollingUpdate": {"maxUnavailable": 1}}},
        Verdict.YES,
        [
            "no new pod fits while the old ones run: the rollout (maxSurge 1) proceeds only "
            "by taking running pods down first"
        ],
    ),
    (
        "Recreate takes every old pod down first",
        {"strategy": {"type": "Recreate"}},
        Verdict.YES,
        [],
    ),
]


@pytest.mark.parametrize(
    ("spec", "verdict", "warned"), [c[1:] for c in SURGE_CASES], ids=[c[0] for c in SURGE_CASES]
)
def test_a_rollout_with_no_room_for_its_surge(
    spec: dict[str, Any], verdict: Verdict, warned: list[str]
) -> None:
    pods = [_of_deployment("shop", f"n{i}", "1500m", i) for i in range(3)]
    [result] = _run(Case(THREE, [_deployment("shop", 3, "1500m", **spec)], pods))
    assert (result.verdict, _warnings(result, WarningKind.ROLLOUT)) == (verdict, warned)
    if verdict is Verdict.NO:
        assert result.placement == ReplicaFit(3, alone=0, released=0)
        assert result.message == (
            "the rollout cannot start: maxUnavailable 0 keeps its 3 running pod(s) until a new "
            "one is ready, and no new pod fits beside them (maxSurge 1): 0/3 nodes are "
            "available: 3 Insufficient cpu."
            " no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption "
            "victims found for incoming pod."
        )


def _edge(cpu: str, **update: Any) -> dict[str, Any]:
    daemonset: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "edge", "namespace": "app"},
        "spec": {
            "selector": {"matchLabels": {"app": "edge"}},
            "template": {
                "metadata": {"labels": {"app": "edge"}},
                "spec": {"containers": [container(requests={"cpu": cpu})]},
            },
        },
    }
    if update:
        daemonset["spec"]["updateStrategy"] = {"rollingUpdate": update}
    return daemonset


# pkg/controller/daemon/update.go rollingUpdate: with maxSurge (util.SurgeCount, a percent
# of updatedDesiredNodeCounts' desiredNumberScheduled rounded up) the new pod is created on
# a node while the old one runs, and the old one goes only once the new one is available.
DAEMON_SURGE_CASES = [
    (
        "without maxSurge the old pod goes first and the new one takes its room",
        _edge("1500m"),
        [_node("n0"), _node("n1"), _node("n2")],
        Verdict.YES,
        None,
        ReplicaFit(3, alone=3, released=3),
    ),
    (
        "maxSurge 0% is no surge: the old pod goes first",
        _edge("1500m", maxSurge="0%"),
        [_node("n0"), _node("n1"), _node("n2")],
        Verdict.YES,
        None,
        ReplicaFit(3, alone=3, released=3),
    ),
    (
        "maxSurge 1 keeps the old pod while the new one starts: no node holds both",
        _edge("1500m", maxSurge=1, maxUnavailable=0),
        [_node("n0"), _node("n1"), _node("n2")],
        Verdict.NO,
        "0/3 nodes are available: 3 Insufficient cpu.",
        ReplicaFit(3, alone=0, released=0),
    ),
    (
        "maxSurge 10% of the three nodes it targets is 1, rounded up: it surges",
        _edge("1500m", maxSurge="10%", maxUnavailable=0),
        [_node("n0"), _node("n1"), _node("n2")],
        Verdict.NO,
        "0/3 nodes are available: 3 Insufficient cpu.",
        ReplicaFit(3, alone=0, released=0),
    ),
    (
        "a surge that fits beside the old pod on every node is YES",
        _edge("400m", maxSurge=1, maxUnavailable=0),
        [_node("n0"), _node("n1"), _node("n2")],
        Verdict.YES,
        None,
        ReplicaFit(3, alone=3, released=0),
    ),
    (
        "only the node with room for both takes its new pod",
        _edge("1500m", maxSurge="100%", maxUnavailable=0),
        [_node("n0", cpu="4"), _node("n1"), _node("n2")],
        Verdict.PARTIAL,
        None,
        ReplicaFit(3, alone=1, released=0),
    ),
]


@pytest.mark.parametrize(
    ("daemonset", "nodes", "verdict", "message", "placement"),
    [c[1:] for c in DAEMON_SURGE_CASES],
    ids=[c[0] for c in DAEMON_SURGE_CASES],
)
def test_a_daemonset_update_with_max_surge_needs_room_beside_its_old_pod(
    daemonset: dict[str, Any],
    nodes: list[dict[str, Any]],
    verdict: Verdict,
    message: str | None,
    placement: ReplicaFit,
) -> None:
    pods = [_running("DaemonSet", "edge", f"n{i}", "1500m", name=f"edge-{i}") for i in range(3)]
    [result] = _run(Case(nodes, [daemonset], pods))
    assert (result.verdict, result.message, result.placement) == (verdict, message, placement)


def test_a_surging_daemonset_update_cannot_take_the_host_port_its_old_pod_holds() -> None:
    port = [{"containerPort": 8443, "hostPort": 8443}]
    daemonset = _edge("10m", maxSurge=1, maxUnavailable=0)
    daemonset["spec"]["template"]["spec"]["containers"] = [
        container(requests={"cpu": "10m"}, ports=port)
    ]
    pods = [
        _running("DaemonSet", "edge", f"n{i}", "10m", name=f"edge-{i}", ports=port)
        for i in range(3)
    ]
    [result] = _run(Case(THREE, [daemonset], pods))
    assert (result.verdict, result.message) == (
        Verdict.NO,
        "0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports.",
    )
