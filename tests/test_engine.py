"""Verdicts and the FitError message over whole snapshots (scheduler-rules.md section 14)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import dialect_for
from gate.model import (
    Location,
    NodeOutcome,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
    WorkloadWarning,
)
from gate.scheduler.engine import Evaluator, fit_error
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container


def evaluate(
    snapshot: dict[str, Any], spec: dict[str, Any], kind: str = "Pod", namespace: str = "default"
) -> WorkloadResult:
    snap = build_snapshot(snapshot, "snapshot.json")
    evaluator = Evaluator.for_snapshot(snap, dialect_for(snap.info.server_version))
    workload = Workload(
        kind=kind,
        namespace=namespace,
        name="w",
        location=Location("w.yaml", 1),
        replicas=1,
        pod_spec=spec,
    )
    return evaluator.evaluate(workload)


def pod_spec(cpu: str | None = None, memory: str | None = None, **spec: Any) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return {"containers": [container(requests=requests)], **spec}


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
    """scheduler-rules.md 14.1, on a v1.35 server (generic taint reason)."""
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
    )


def test_one_node_two_reasons() -> None:
    """scheduler-rules.md 14.3: six nodes, each failing a different plugin."""
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
    )


def test_match_fields_narrowing_reports_absent_nodes() -> None:
    """scheduler-rules.md 14.3: a pod pinned by matchFields to a tainted node."""
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
    assert result.message == "0/2 nodes are available: pod affinity terms conflict."


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
    )


def test_existing_pods_are_rounded_one_by_one() -> None:
    """NodeInfo sums each pod's rounded request: two pods of 0.5m take 2m, not 1m."""
    half = container(requests={"cpu": "0.0005"})
    snapshot = cluster_snapshot(
        [api_node("n", cpu="3m")],
        [api_pod("a", "n", containers=[half]), api_pod("b", "n", containers=[half])],
    )
    assert evaluate(snapshot, pod_spec("2m")).verdict is Verdict.NO
    assert evaluate(snapshot, pod_spec("1m")).verdict is Verdict.YES


def test_requests_default_to_limits() -> None:
    snapshot = cluster_snapshot([api_node("n", cpu="1")])
    spec = {"containers": [container(limits={"cpu": "2"})]}
    result = evaluate(snapshot, spec)
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert dict(result.requests) == {"cpu": "2"}


def test_limit_range_defaults_apply_in_their_namespace() -> None:
    limit_range = {
        "kind": "LimitRange",
        "metadata": {"name": "d", "namespace": "team"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "3"}}]},
    }
    snapshot = cluster_snapshot([api_node("n", cpu="2")], limitRanges=[limit_range])
    spec = {"containers": [container()]}
    assert evaluate(snapshot, spec, namespace="team").verdict is Verdict.NO
    assert evaluate(snapshot, spec, namespace="other").verdict is Verdict.YES


def test_runtime_class_overhead_is_added() -> None:
    runtime = {
        "kind": "RuntimeClass",
        "metadata": {"name": "kata"},
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m"}},
    }
    snapshot = cluster_snapshot([api_node("n", cpu="1")], runtimeClasses=[runtime])
    assert evaluate(snapshot, pod_spec("800m", runtimeClassName="kata")).verdict is Verdict.NO
    assert evaluate(snapshot, pod_spec("750m", runtimeClassName="kata")).verdict is Verdict.YES


def test_default_toleration_seconds_tolerate_not_ready_no_execute() -> None:
    snapshot = cluster_snapshot(
        [api_node("n", taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}])]
    )
    assert evaluate(snapshot, pod_spec("1")).verdict is Verdict.YES


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
        topologySpreadConstraints=[{"maxSkew": 1}],
        affinity={"podAntiAffinity": {"x": 1}},
        volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}],
        schedulingGates=[{"name": "g"}],
        schedulerName="custom",
    )
    warnings = " | ".join(w.text for w in evaluate(snapshot, spec).warnings)
    for needle in (
        "PodTopologySpread",
        "InterPodAffinity",
        "VolumeBinding",
        "SchedulingGates",
        'schedulerName "custom"',
    ):
        assert needle in warnings


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
    assert grouped.fits == tuple(f"n{i}" for i in range(30) if i % 3)
    assert pinned.message == (
        "0/30 nodes are available: 1 Insufficient cpu, "
        "29 node(s) didn't match the requested node name."
    )


@pytest.mark.parametrize(
    ("pod_limits", "containers", "want_cpu", "verdict"),
    [
        # defaultPodRequests: the unset pod-level request takes the containers' aggregate.
        pytest.param(
            {"cpu": "2"},
            [{"cpu": "1.5"}, {"cpu": "1m"}],
            "1501m",
            Verdict.NO,
            id="aggregate-of-containers",
        ),
        # With no container request for it, the pod-level request takes the pod-level limit.
        pytest.param({"cpu": "1500m"}, [{}], "1500m", Verdict.YES, id="from-pod-limit"),
        pytest.param({"cpu": "1501m"}, [{}], "1501m", Verdict.NO, id="from-pod-limit-too-big"),
    ],
)
def test_pod_level_requests_default_as_the_api_server_defaults_them(
    pod_limits: dict[str, str], containers: list[dict[str, str]], want_cpu: str, verdict: Verdict
) -> None:
    snapshot = cluster_snapshot([api_node("n", cpu="1500m")], [], server_version="v1.34.1")
    spec = {
        "resources": {"limits": pod_limits},
        "containers": [container(requests=r) for r in containers],
    }
    result = evaluate(snapshot, spec)
    assert dict(result.requests).get("cpu") == want_cpu
    assert result.verdict is verdict


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


def test_a_null_node_selector_value_is_the_empty_string() -> None:
    """map[string]string: Go decodes ``disk:`` (null) as "", which the label must equal."""
    nodes = [api_node("empty", labels={"disk": ""}), api_node("text", labels={"disk": "None"})]
    result = evaluate(cluster_snapshot(nodes), pod_spec("1", nodeSelector={"disk": None}))
    assert result.fits == ("empty",)


def test_a_runtime_class_selector_that_conflicts_is_refused_by_admission() -> None:
    """plugin/pkg/admission/runtimeclass: setScheduling forbids a conflicting nodeSelector."""
    runtime = {
        "kind": "RuntimeClass",
        "metadata": {"name": "rc"},
        "handler": "rc",
        "scheduling": {"nodeSelector": {"pool": "gpu"}},
    }
    nodes = [api_node("cpu-0", labels={"pool": "cpu"}), api_node("gpu-0", labels={"pool": "gpu"})]
    snapshot = cluster_snapshot(nodes, runtimeClasses=[runtime])
    conflict = evaluate(
        snapshot, pod_spec("1", runtimeClassName="rc", nodeSelector={"pool": "cpu"})
    )
    assert conflict.verdict is Verdict.ERROR
    assert conflict.reason == (
        'RuntimeClass "rc" admission refuses the pod: conflict: '
        "runtimeClass.scheduling.nodeSelector[pool] = gpu; pod.spec.nodeSelector[pool] = cpu"
    )
    agreeing = evaluate(
        snapshot, pod_spec("1", runtimeClassName="rc", nodeSelector={"pool": "gpu"})
    )
    assert agreeing.fits == ("gpu-0",)
    merged = evaluate(snapshot, pod_spec("1", runtimeClassName="rc"))
    assert merged.fits == ("gpu-0",)


@pytest.mark.parametrize(
    "values", [{"values": []}, {"values": None}, {}], ids=["empty", "null", "absent"]
)
def test_a_name_pin_without_values_conflicts_in_prefilter(values: dict[str, Any]) -> None:
    """nodeaffinity PreFilter: sets.New(r.Values...) is empty for [], null and a missing key."""
    pin = {"key": "metadata.name", "operator": "In", **values}
    terms = [{"matchFields": [pin]}]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": terms}}}  # fmt: skip
    result = evaluate(
        cluster_snapshot([api_node("a"), api_node("b")]), pod_spec("1", affinity=affinity)
    )
    assert result.message == "0/2 nodes are available: pod affinity terms conflict."


def test_the_api_server_rounds_each_quantity_to_thousandths_before_any_sum() -> None:
    """SetDefaults_ResourceList rounds every stored request, limit and overhead up to milli
    scale: two containers of 0.5m cpu are 1m each, 2m together."""
    snapshot = cluster_snapshot([api_node("n", cpu="1m")])
    half = container(requests={"cpu": "0.5m", "memory": "1Mi"})
    assert evaluate(snapshot, {"containers": [half]}).verdict is Verdict.YES
    two = evaluate(snapshot, {"containers": [half, {**half, "name": "b"}]})
    assert two.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert dict(two.requests)["cpu"] == "2m"


LIMIT_RANGE = {
    "kind": "LimitRange",
    "metadata": {"name": "defaults", "namespace": "default"},
    "spec": {"limits": [{"type": "Container", "default": {"cpu": "200m"},
                         "defaultRequest": {"cpu": "100m"}}]},
}  # fmt: skip


def test_pod_level_requests_default_before_limit_range_defaults() -> None:
    """defaultPodRequests runs while the pod is decoded; LimitRanger fills the containers
    afterwards and never touches spec.resources: the pod-level request is the pod limit."""
    snapshot = cluster_snapshot(
        [api_node("n", cpu="1")], server_version="v1.34.1", limitRanges=[LIMIT_RANGE]
    )
    spec = {"containers": [{"name": "a", "image": "x"}], "resources": {"limits": {"cpu": "2"}}}
    result = evaluate(snapshot, spec)
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert dict(result.requests)["cpu"] == "2"


def test_pod_level_hugepages_requests_default_to_the_pod_limit() -> None:
    """Hugepages cannot be overcommitted (IsOvercommitAllowed): never from the containers."""
    node = api_node("n", cpu="4")
    node["status"]["allocatable"]["hugepages-2Mi"] = "128Mi"
    snapshot = cluster_snapshot([node], server_version="v1.34.1")
    inner = container(requests={"cpu": "100m", "memory": "512Mi"})
    inner["resources"]["limits"] = {"hugepages-2Mi": "64Mi"}
    pod_limits = {"hugepages-2Mi": "256Mi", "memory": "1Gi"}
    result = evaluate(snapshot, {"containers": [inner], "resources": {"limits": pod_limits}})
    assert result.message == "0/1 nodes are available: 1 Insufficient hugepages-2Mi."


@pytest.mark.parametrize(
    ("version", "verdict"),
    [("v1.33.4", Verdict.YES), ("v1.34.0", Verdict.NO), (None, Verdict.NO)],
    ids=["1.33-gate-off", "1.34-gate-on", "unknown-version"],
)
def test_pod_level_resources_count_from_v1_34(version: str | None, verdict: Verdict) -> None:
    """PodLevelResources is off by default before v1.34: the API server drops
    spec.resources (dropDisabledPodLevelResources) and says nothing; fitgate warns."""
    snapshot = cluster_snapshot([api_node("n", cpu="2")], server_version=version)
    spec = {**pod_spec("500m"), "resources": {"requests": {"cpu": "3"}}}
    result = evaluate(snapshot, spec)
    assert result.verdict is verdict
    dropped = any("PodLevelResources off" in w.text for w in result.warnings)
    assert dropped is (verdict is Verdict.YES)


def test_a_limit_range_default_is_a_request_no_warning_says_is_missing() -> None:
    """The zero-request warning is about what the pod will request: a LimitRange
    defaultRequest is a request (LimitRanger fills it before the scheduler sees the pod)."""
    snapshot = cluster_snapshot([api_node("n", cpu="4")], limitRanges=[LIMIT_RANGE])
    bare = {"containers": [{"name": "c", "image": "x"}]}
    defaulted = evaluate(snapshot, bare)
    assert not any("has no cpu" in w.text for w in defaulted.warnings)
    elsewhere = evaluate(snapshot, bare, namespace="other")
    assert any('container "c" has no cpu or memory request' in w.text for w in elsewhere.warnings)
