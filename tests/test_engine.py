"""Verdicts and the FitError message over whole snapshots (docs/reference.md, "What is
checked")."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import dialect_for
from gate.model import (
    Code,
    Location,
    NodeOutcome,
    Verdict,
    WarningKind,
    Workload,
    WorkloadWarning,
)
from gate.scheduler.engine.evaluate import Evaluator, fit_error
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.engine_support import NO_STATE, NOT_HELPFUL, evaluate, pod_spec, preempting


def test_fit_error_sorts_counts_as_text() -> None:
    """types.go FitError.Error: `10 ...` sorts before `2 ...`, upper case before lower."""
    outcomes = (
        [NodeOutcome(f"c{i}", ("Insufficient cpu",)) for i in range(10)]
        + [NodeOutcome(f"m{i}", ("Insufficient memory",)) for i in range(2)]
        + [NodeOutcome("t", ("node(s) had untolerated taint(s)",))]
    )
    assert fit_error(13, outcomes) == (
        "0/13 nodes are available: 1 node(s) had untolerated taint(s), 10 Insufficient cpu, "
        "2 Insufficient memory."
    )


def test_control_plane_and_busy_workers() -> None:
    """A control plane and busy workers, on a v1.35 server (generic taint reason)."""
    snapshot = cluster_snapshot(
        [
            api_node(
                "cp",
                taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
            ),
            api_node("w1", cpu="2"),
            api_node("w2", memory="4Gi"),
        ],
        [
            api_pod("a", "w1", containers=[container(requests={"cpu": "1500m"})]),
            api_pod("b", "w2", containers=[container(requests={"memory": "3584Mi"})]),
        ],
        server_version="v1.35.0",
    )
    result = evaluate(snapshot, pod_spec("1", "1Gi"))
    assert result.verdict is Verdict.NO
    assert result.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
        "1 node(s) had untolerated taint(s)."
        " no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not "
        "helpful for scheduling, 2 No preemption victims found for incoming pod."
    )


def test_one_node_two_reasons() -> None:
    """Six nodes, each failing a different plugin."""
    web = {"tier": "web"}
    snapshot = cluster_snapshot(
        [
            api_node("cordoned", labels=web, unschedulable=True),
            api_node(
                "tainted", labels=web, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]
            ),
            api_node("other", labels={"tier": "db"}),
            api_node("ports", labels=web),
            api_node("full", labels=web, pods="1", cpu="1"),
            api_node("small", labels=web, cpu="1"),
        ],
        [
            api_pod(
                "hp",
                "ports",
                containers=[container(ports=[{"containerPort": 8443, "hostPort": 8443}])],
            ),
            api_pod("x", "full"),
        ],
        server_version="v1.35.2",
    )
    spec = {
        "nodeSelector": web,
        "containers": [
            container(requests={"cpu": "1500m"}, ports=[{"containerPort": 8443, "hostPort": 8443}])
        ],
    }
    result = evaluate(snapshot, spec, kind="ReplicaSet")
    assert result.message == (
        "0/6 nodes are available: 1 Too many pods, 1 node(s) didn't have free ports for the "
        "requested pod ports, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had "
        "untolerated taint(s), 1 node(s) were unschedulable, 2 Insufficient cpu."
        " no new claims to deallocate, preemption: 0/6 nodes are available: 1 No preemption "
        "victims found for incoming pod, 5 Preemption is not helpful for scheduling."
    )


def test_match_fields_narrowing_reports_absent_nodes() -> None:
    """A pod pinned by matchFields to a tainted node."""
    snapshot = cluster_snapshot(
        [api_node("node1", taints=[{"key": "k", "effect": "NoSchedule"}]), api_node("node2")],
        server_version="v1.35.0",
    )
    spec = pod_spec(
        "100m",
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": ["node1"]}
                            ]
                        }
                    ]
                }
            }
        },
    )
    result = evaluate(snapshot, spec)
    assert result.message == (
        "0/2 nodes are available: 1 node(s) didn't satisfy plugin(s) [NodeAffinity], "
        "1 node(s) had untolerated taint(s)."
        " no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
        "helpful for scheduling."
    )


def test_conflicting_match_fields_terms_fail_in_prefilter() -> None:
    snapshot = cluster_snapshot([api_node("a"), api_node("b")])
    field = {"key": "metadata.name", "operator": "In"}
    spec = pod_spec(
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{**field, "values": ["a"]}, {**field, "values": ["b"]}]}
                    ]
                }
            }
        }
    )
    result = evaluate(snapshot, spec)
    assert result.message == "0/2 nodes are available: pod affinity terms conflict." + NO_STATE


def test_no_nodes_at_all() -> None:
    result = evaluate(cluster_snapshot([]), pod_spec("1"))
    assert (result.verdict, result.message) == (Verdict.NO, "no nodes available to schedule pods")


def test_terminal_and_unbound_pods_do_not_count() -> None:
    snapshot = cluster_snapshot(
        [api_node("n", cpu="1")],
        [
            api_pod("done", "n", phase="Succeeded", containers=[container(requests={"cpu": "1"})]),
            api_pod("failed", "n", phase="Failed", containers=[container(requests={"cpu": "1"})]),
            api_pod(
                "pending", None, phase="Pending", containers=[container(requests={"cpu": "1"})]
            ),
            api_pod("elsewhere", "gone", containers=[container(requests={"cpu": "1"})]),
        ],
    )
    assert evaluate(snapshot, pod_spec("1")).verdict is Verdict.YES


def test_terminating_and_unknown_pods_count() -> None:
    terminating = api_pod("t", "n", containers=[container(requests={"cpu": "600m"})])
    terminating["metadata"]["deletionTimestamp"] = "2026-08-16T09:59:00Z"
    snapshot = cluster_snapshot(
        [api_node("n", cpu="1")],
        [
            terminating,
            api_pod("u", "n", phase="Unknown", containers=[container(requests={"cpu": "300m"})]),
        ],
    )
    assert evaluate(snapshot, pod_spec("200m")).message == (
        "0/1 nodes are available: 1 Insufficient cpu."
        " no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption "
        "victims found for incoming pod."
    )


ADDON = [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]


@pytest.mark.parametrize(
    ("cpu", "tolerate", "verdict"),
    [("500m", False, Verdict.YES), ("2", True, Verdict.ADDON_ONLY), ("500m", True, Verdict.YES)],
    ids=["user nodes fit", "only the system pool fits", "both pools fit"],
)
def test_addon_only(cpu: str, tolerate: bool, verdict: Verdict) -> None:
    snapshot = cluster_snapshot([api_node("sys", cpu="4", taints=ADDON), api_node("user", cpu="1")])
    tolerations = [{"key": "CriticalAddonsOnly", "operator": "Exists"}] if tolerate else []
    assert evaluate(snapshot, pod_spec(cpu, tolerations=tolerations)).verdict is verdict


def test_daemonset_partial_per_node() -> None:
    snapshot = cluster_snapshot(
        [
            api_node("big", cpu="4"),
            api_node("small", cpu="1"),
            api_node("cordoned", cpu="4", unschedulable=True),
            api_node("gpu", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
        ],
    )
    result = evaluate(snapshot, pod_spec("2"), kind="DaemonSet")
    assert result.verdict is Verdict.PARTIAL
    assert result.message is None
    assert {o.node: o.reasons for o in result.nodes} == {
        "big": (),
        "small": ("Insufficient cpu",),
        "cordoned": (),
        "gpu": ("node(s) had untolerated taint {gpu: }",),
    }
    assert result.fits == ("big", "cordoned")


def test_daemonset_with_room_everywhere_it_targets_is_yes() -> None:
    snapshot = cluster_snapshot(
        [api_node("a", labels={"os": "linux"}), api_node("b", cpu="1", labels={"os": "windows"})]
    )
    result = evaluate(snapshot, pod_spec("2", nodeSelector={"os": "linux"}), kind="DaemonSet")
    assert result.verdict is Verdict.YES


def test_unmodelled_filters_are_named_in_warnings() -> None:
    snapshot = cluster_snapshot([api_node("n")])
    spec = pod_spec(
        "1",
        "1Gi",
        volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}],
        schedulerName="custom",
    )
    warnings = " | ".join(w.text for w in evaluate(snapshot, spec).warnings)
    for needle in ("VolumeBinding", 'schedulerName "custom"'):
        assert needle in warnings


def test_a_gated_pod_is_judged_as_it_will_be_once_its_gates_are_removed() -> None:
    snapshot = cluster_snapshot([api_node("n", cpu="1")])
    gates = [{"name": "example.com/quota-check"}, {"name": "example.com/budget"}]
    fits = evaluate(snapshot, pod_spec("1", "1Gi", schedulingGates=gates))
    refused = evaluate(snapshot, pod_spec("2", "1Gi", schedulingGates=gates))
    assert (fits.verdict, fits.gates, fits.warnings) == (
        Verdict.YES,
        ("example.com/quota-check", "example.com/budget"),
        (),
    )
    assert (refused.verdict, refused.message) == (
        Verdict.NO,
        "0/1 nodes are available: 1 Insufficient cpu." + preempting(1, (1, NOT_HELPFUL)),
    )


def test_scores_of_the_inter_pod_plugins_warn_that_they_are_not_evaluated() -> None:
    term = {"labelSelector": {}, "topologyKey": "zone"}
    spec = pod_spec(
        "1",
        "1Gi",
        topologySpreadConstraints=[
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
            {"maxSkew": 1, "topologyKey": "host", "whenUnsatisfiable": "DoNotSchedule"},
        ],
        affinity={
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "podAffinityTerm": term}
                ]
            },
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]},
        },
    )
    warnings = evaluate(cluster_snapshot([api_node("n")]), spec).warnings
    assert [w.text for w in warnings] == [
        "preferred pod affinity is a score, not a filter: not evaluated",
        "topology spread over zone with ScheduleAnyway is a score, not a filter: not evaluated",
    ]


def test_missing_requests_warn() -> None:
    result = evaluate(cluster_snapshot([api_node("n")]), {"containers": [container(name="app")]})
    assert result.warnings == (
        WorkloadWarning(
            WarningKind.ZERO_REQUEST,
            'container "app" has no cpu or memory request: a zero request fits every node and is '
            "evicted later",
        ),
    )


def test_equivalent_nodes_give_the_same_answer_as_one_by_one() -> None:
    nodes = [api_node(f"n{i}", cpu=str(1 + i % 3)) for i in range(30)]
    snapshot = cluster_snapshot(nodes, server_version="v1.35.0")
    grouped = evaluate(snapshot, pod_spec("2"))
    pinned = evaluate(snapshot, pod_spec("2", nodeName="n0"))
    assert grouped.fits == tuple(sorted(f"n{i}" for i in range(30) if i % 3))
    assert pinned.message == (
        "0/30 nodes are available: 1 Insufficient cpu, "
        "29 node(s) didn't match the requested node name."
        " no new claims to deallocate, preemption: 0/30 nodes are available: 30 Preemption is "
        "not helpful for scheduling."
    )


@pytest.mark.parametrize(
    ("version", "named"),
    [
        pytest.param(None, True, id="unknown-keeps-named"),
        pytest.param("v1.33.4", True, id="1.33"),
        pytest.param("v1.34.1", True, id="1.34.1"),
        # CHANGELOG-1.34.md, v1.34.2: cherry-pick #135023 of #134740 drops the taint's key/value.
        pytest.param("v1.34.2", False, id="1.34.2-backport"),
        pytest.param("v1.35.0", False, id="1.35"),
        # CHANGELOG-1.35.md lists #134740 under v1.35.0-alpha.3: the two alphas before it name it.
        pytest.param("v1.35.0-alpha.2", True, id="1.35-alpha.2"),
        pytest.param("v1.35.0-alpha.3", False, id="1.35-alpha.3"),
        pytest.param("v1.35.0-alpha.10", False, id="1.35-alpha.10"),
        pytest.param("v1.36.3-gke.100", False, id="vendor-suffix"),
    ],
)
def test_taint_dialect_follows_the_server_version(version: str | None, named: bool) -> None:
    assert dialect_for(version).named_taint is named


def _toleration(**fields: Any) -> dict[str, Any]:
    return {"key": "dedicated", "operator": "Equal", "effect": "NoSchedule", **fields}


def _required(key: str, operator: str, *values: Any) -> dict[str, Any]:
    expression = {"key": key, "operator": operator, "values": list(values)}
    terms = [{"matchExpressions": [expression]}]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": terms}}}  # fmt: skip


# Pairs that differ only where a careless cache key would not: value types, operators,
# selectors, affinity values, requests, and a part that cannot be hashed at all.
NEAR_TWINS = [
    pod_spec("1", tolerations=[_toleration(value="1")]),
    pod_spec("1", tolerations=[_toleration(value=1)]),
    pod_spec("1", tolerations=[_toleration(value=True)]),
    pod_spec("1", tolerations=[_toleration(value="true")]),
    pod_spec("1", tolerations=[_toleration(operator="Exists")]),
    pod_spec("1", tolerations=[_toleration(value=["gpu"])]),
    pod_spec("1", nodeSelector={"pool": "gpu"}),
    pod_spec("1", nodeSelector={"pool": "web"}),
    pod_spec("1", affinity=_required("pool", "In", "gpu")),
    pod_spec("1", affinity=_required("pool", "NotIn", "gpu")),
    pod_spec("1", affinity=_required("size", "Gt", 2)),
    pod_spec("1", affinity=_required("size", "Gt", "2")),
    pod_spec("3"),
    pod_spec("3", "1Gi"),
]


def test_one_evaluator_answers_every_workload_as_a_fresh_one_would() -> None:
    def node(i: int) -> dict[str, Any]:
        taint = {"key": "dedicated", "value": ["1", "true"][i % 2], "effect": "NoSchedule"}
        labels = {"pool": ["gpu", "web"][i % 2], "size": str(i % 4)}
        return api_node(f"n{i}", cpu=str(1 + i % 4), labels=labels, taints=[taint] * (i % 3 > 0))

    nodes = [node(i) for i in range(12)]
    snapshot = build_snapshot(cluster_snapshot(nodes, server_version="v1.35.0"), "s.json")
    shared = Evaluator.for_snapshot(snapshot, dialect_for("v1.35.0"))

    def workload(spec: dict[str, Any]) -> Workload:
        return Workload("Pod", "default", "w", Location("w.yaml", 1), 1, spec)

    answers = [shared.evaluate(workload(spec)) for spec in NEAR_TWINS * 2]
    for spec, answer in zip(NEAR_TWINS * 2, answers, strict=True):
        fresh = Evaluator.for_snapshot(snapshot, dialect_for("v1.35.0"))
        assert answer == fresh.evaluate(workload(spec))
    assert len({a.nodes for a in answers}) > 6  # the twins do get different answers


@pytest.mark.parametrize(
    "pin",
    [
        pytest.param({}, id="per-class-of-nodes"),
        pytest.param({"nodeName": "full"}, id="node-by-node"),
    ],
)
def test_every_outcome_names_its_plugin_and_code(pin: dict[str, Any]) -> None:
    """framework.Status carries the plugin and code of the first rejecting filter; both
    evaluation paths give them."""
    nodes = [api_node("cordoned", unschedulable=True), api_node("full", cpu="1")]
    result = evaluate(cluster_snapshot(nodes), pod_spec("2", **pin))
    by_node = {o.node: (o.plugin, o.code) for o in result.nodes}
    assert by_node["full"] == ("NodeResourcesFit", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    # NodeUnschedulable runs before NodeName: a cordoned node is that, even for a pinned pod
    assert by_node["cordoned"] == ("NodeUnschedulable", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
