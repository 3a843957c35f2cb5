"""A run's workloads against their namespaces' ResourceQuotas: the pods the API server
creates, one after another, and then places; the run's workloads sharing a namespace's
quota in input order; a new object over an object-count quota; rollouts; a run's own
quota; and what every report says of it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gate.k8s.podnames import pod_name
from gate.k8s.version import dialect_for
from gate.model import (
    Document,
    Location,
    Quota,
    ReplicaFit,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
)
from gate.reports.wording import headline
from gate.run import RunOptions, check
from gate.scheduler.engine.evaluate import Evaluator
from gate.snapshot.load import build_snapshot, load_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.conftest import ROOT

NODES = [api_node(f"n{i}", cpu="8", memory="32Gi") for i in range(3)]


def _quota(
    hard: dict[str, str], used: dict[str, str], name: str = "compute", **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {"hard": hard, **spec},
        "status": {"hard": hard, "used": used},
    }


def _deployment(
    name: str, replicas: int, cpu: str = "1", *, kind: str = "Deployment", **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container(name, requests={"cpu": cpu})]},
            },
            **spec,
        },
    }


def _running(name: str, index: int, cpu: str = "1") -> dict[str, Any]:
    """A pod of Deployment ``name``'s ReplicaSet, running on n0."""
    pod = api_pod(
        f"{name}-5d8f7c-{index}",
        "n0",
        namespace="web",
        containers=[container(requests={"cpu": cpu})],
    )
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": f"{name}-5d8f7c"}]
    pod["metadata"]["labels"] = {"app": name, "pod-template-hash": "5d8f7c"}
    return pod


def _run(
    manifests: list[dict[str, Any]],
    quotas: list[dict[str, Any]] | None = None,
    pods: list[dict[str, Any]] | None = None,
) -> list[WorkloadResult]:
    document = cluster_snapshot(NODES, pods or [])
    if quotas is not None:
        document["resourceQuotas"] = quotas
    snapshot = build_snapshot(document, "s.json")
    documents = [Document(Location("m.yaml", 1 + 40 * i), b) for i, b in enumerate(manifests)]
    return [r for r in check(documents, snapshot, RunOptions()).results]


def _template(manifest: dict[str, Any]) -> str:
    """The text the run derives a Deployment's stand-in template hash from."""
    spec = manifest["spec"]["template"]["spec"]
    return json.dumps(spec, sort_keys=True, default=str)


def _refused(name: str, position: int, error: str, manifest: dict[str, Any]) -> str:
    pod = pod_name(manifest["kind"], name, position, _template(manifest))
    return f'pods "{pod}" is forbidden: {error}'


CPU_QUOTA = _quota({"requests.cpu": "10"}, {"requests.cpu": "8"})
WEB = _deployment("web", 3)


def test_the_pods_the_quota_admits_are_counted_and_the_next_one_s_refusal_said() -> None:
    [result] = _run([WEB], [CPU_QUOTA])
    error = (
        "exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=10, "
        "limited: requests.cpu=10"
    )
    message = _refused("web", 2, error, WEB)
    assert (result.verdict, result.message) == (Verdict.PARTIAL, message)
    assert result.placement == ReplicaFit(3, alone=2, together=2)
    assert result.quota == Quota(created=2, quota="compute", message=message)
    assert headline(result) == f"2 of 3 replicas fit; the 3rd: {message}"


def test_a_full_quota_creates_no_pod() -> None:
    [result] = _run([WEB], [_quota({"pods": "4"}, {"pods": "4"})])
    error = "exceeded quota: compute, requested: pods=1, used: pods=4, limited: pods=4"
    assert (result.verdict, result.message) == (Verdict.NO, _refused("web", 0, error, WEB))
    assert result.placement == ReplicaFit(3, alone=0)
    assert result.quota is not None and result.quota.created == 0


def test_a_quota_with_room_for_every_pod_names_itself_and_refuses_nothing() -> None:
    [result] = _run(
        [WEB], [_quota({"requests.cpu": "10", "pods": "10"}, {"requests.cpu": "1", "pods": "1"})]
    )
    assert result.verdict is Verdict.YES
    assert result.quota == Quota(created=3, quota="compute", message=None)


def test_a_namespace_without_a_quota_says_nothing_of_one() -> None:
    [result] = _run([WEB], [{**CPU_QUOTA, "metadata": {"name": "compute", "namespace": "other"}}])
    assert (result.verdict, result.quota) == (Verdict.YES, None)


def test_the_run_s_workloads_share_a_namespace_s_quota_in_input_order() -> None:
    quota = _quota({"requests.cpu": "4"}, {"requests.cpu": "0"})
    first, second = _run([_deployment("api", 3), _deployment("worker", 2)], [quota])
    assert (first.verdict, second.verdict) == (Verdict.YES, Verdict.PARTIAL)
    assert second.quota is not None and second.quota.created == 1
    assert second.message is not None and "used: requests.cpu=4," in second.message


def test_a_container_without_the_tracked_resource_is_refused_by_the_constraint() -> None:
    quota = _quota(
        {"limits.memory": "1Gi", "requests.cpu": "10"}, {"limits.memory": "0", "requests.cpu": "0"}
    )
    [result] = _run([WEB], [quota])
    error = "failed quota: compute: must specify limits.memory for: web"
    assert (result.verdict, result.message) == (Verdict.NO, _refused("web", 0, error, WEB))


def test_a_new_object_over_an_object_count_quota_is_refused_itself() -> None:
    quota = _quota({"count/deployments.apps": "2"}, {"count/deployments.apps": "2"}, name="objects")
    [result] = _run([WEB], [quota])
    assert (result.verdict, result.message) == (
        Verdict.NO,
        'deployments.apps "web" is forbidden: exceeded quota: objects, requested: '
        "count/deployments.apps=1, used: count/deployments.apps=2, "
        "limited: count/deployments.apps=2",
    )


def test_an_object_already_running_is_not_counted_again() -> None:
    quota = _quota({"count/deployments.apps": "2"}, {"count/deployments.apps": "2"}, name="objects")
    [result] = _run([WEB], [quota], [_running("web", i) for i in range(3)])
    assert result.verdict is Verdict.YES


SURGE = {"strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}
ONE_DOWN = {"strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}}
FULL = _quota({"requests.cpu": "3"}, {"requests.cpu": "3"})

ROLLOUTS: list[tuple[str, dict[str, Any], dict[str, Any], Verdict, int]] = [
    (
        "maxUnavailable 0 needs headroom for its surge pod while the old pods count",
        SURGE,
        FULL,
        Verdict.NO,
        0,
    ),
    (
        "maxUnavailable 0 with room for one surge pod replaces them one by one",
        SURGE,
        _quota({"requests.cpu": "4"}, {"requests.cpu": "3"}),
        Verdict.YES,
        3,
    ),
    ("otherwise the old pods go first and free the quota", ONE_DOWN, FULL, Verdict.YES, 3),
]


@pytest.mark.parametrize(
    ("strategy", "quota", "verdict", "created"),
    [c[1:] for c in ROLLOUTS],
    ids=[c[0] for c in ROLLOUTS],
)
def test_a_rollout_releases_its_pods_as_the_deployment_controller_does(
    strategy: dict[str, Any], quota: dict[str, Any], verdict: Verdict, created: int
) -> None:
    manifest = _deployment("web", 3, **strategy)
    [result] = _run([manifest], [quota], [_running("web", i) for i in range(3)])
    assert result.verdict is verdict
    assert result.quota is not None and result.quota.created == created


def test_a_stateful_set_s_refused_pod_is_named_by_its_ordinal() -> None:
    manifest = _deployment("db", 3, kind="StatefulSet", serviceName="db")
    [result] = _run([manifest], [CPU_QUOTA])
    assert result.message is not None and result.message.startswith('pods "db-2" is forbidden: ')


def test_a_run_s_new_quota_counts_the_namespace_s_running_pods() -> None:
    new = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "compute", "namespace": "web"},
        "spec": {"hard": {"requests.cpu": "4", "pods": "10"}},
    }
    running = [_running("other", i) for i in range(2)]
    [result] = _run([new, WEB], None, running)
    assert result.verdict is Verdict.PARTIAL
    assert result.message is not None and result.message.endswith(
        "exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=4, "
        "limited: requests.cpu=4"
    )


def _best_effort(index: int) -> dict[str, Any]:
    """A running pod of the namespace that requests nothing (BestEffort)."""
    return api_pod(f"idle-{index}", "n0", namespace="web", containers=[container("idle")])


# (id, the new quota's scopes, the verdict of WEB's 3 pods beside 2 BestEffort pods)
NEW_SCOPED: list[tuple[str, list[str], Verdict]] = [
    # resource_quota_controller.go syncResourceQuota -> generic.CalculateUsageStats: the
    # first count takes only the pods that match every scope of the quota
    (
        "a NotBestEffort quota's first count leaves BestEffort pods out",
        ["NotBestEffort"],
        Verdict.YES,
    ),
    ("a BestEffort quota does not count the pods it leaves out", ["BestEffort"], Verdict.YES),
    ("a quota without scopes counts every pod", [], Verdict.PARTIAL),
]


@pytest.mark.parametrize(
    ("scopes", "verdict"), [c[1:] for c in NEW_SCOPED], ids=[c[0] for c in NEW_SCOPED]
)
def test_a_run_s_new_quota_counts_the_running_pods_its_scopes_match(
    scopes: list[str], verdict: Verdict
) -> None:
    new = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "compute", "namespace": "web"},
        "spec": {"hard": {"pods": "3"}, "scopes": scopes},
    }
    [result] = _run([new, WEB], None, [_best_effort(i) for i in range(2)])
    assert result.verdict is verdict


def test_a_quota_selected_by_priority_class_counts_only_its_pods() -> None:
    quota = _quota(
        {"pods": "0"},
        {"pods": "0"},
        scopeSelector={
            "matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
            ]
        },
    )
    [result] = _run([WEB], [quota])
    assert (result.verdict, result.quota) == (Verdict.YES, None)


def test_quotas_are_read_from_either_format_and_by_either_reader_alike() -> None:
    quota = _quota({"pods": "4"}, {"pods": "1"})
    recorded = cluster_snapshot(NODES)
    recorded["resourceQuotas"] = [quota]
    listed = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", **NODES[0]}, quota]}
    assert build_snapshot(recorded, "s.json").admission.resource_quotas == (quota,)
    assert build_snapshot(listed, "s.json").admission.resource_quotas == (quota,)
    unrecorded = build_snapshot(cluster_snapshot(NODES), "s.json").admission
    assert (unrecorded.resource_quotas, unrecorded.has_resource_quotas) == ((), False)


def test_the_reference_reader_reads_the_quota_fixture_as_the_typed_reader_does() -> None:
    path = ROOT / "fixtures" / "snapshots" / "aks-quota.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert load_snapshot(str(path)) == build_snapshot(document, str(path))
    assert len(load_snapshot(str(path)).admission.resource_quotas) == 1


def test_a_daemon_set_creates_as_many_pods_as_the_quota_admits() -> None:
    daemonset = _deployment("agent", 0, "100m", kind="DaemonSet")
    del daemonset["spec"]["replicas"]
    [result] = _run([daemonset], [_quota({"pods": "2"}, {"pods": "0"})])
    assert (result.verdict, result.placement) == (
        Verdict.PARTIAL,
        ReplicaFit(3, alone=2, together=2),
    )
    assert result.message is not None and result.message.startswith('pods "agent-')
    assert headline(result) == (f"2 of 3 pods created; the 3rd: {result.message}")
    assert result.message.endswith(
        "exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2"
    )


def test_a_workload_judged_alone_takes_nothing_from_the_quota() -> None:
    document = cluster_snapshot(NODES)
    document["resourceQuotas"] = [_quota({"pods": "2"}, {"pods": "0"})]
    snapshot = build_snapshot(document, "s.json")
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for(snapshot.info.server_version))
    workload = Workload(
        kind="Pod",
        namespace="web",
        name="one",
        location=Location("w.yaml", 1),
        replicas=1,
        pod_spec={"containers": [container(requests={"cpu": "1"})]},
    )
    first, again = evaluator.evaluate(workload), evaluator.evaluate(workload)
    assert first.quota == again.quota == Quota(created=1, quota="compute", message=None)


def test_a_new_deployment_s_replica_set_meets_the_object_count_quota_too() -> None:
    quota = _quota({"count/replicasets.apps": "1"}, {"count/replicasets.apps": "1"}, name="objects")
    [result] = _run([WEB], [quota])
    replica_set = pod_name("Deployment", "web", 0, _template(WEB)).rsplit("-", 1)[0]
    assert (result.verdict, result.message) == (
        Verdict.NO,
        f'replicasets.apps "{replica_set}" is forbidden: exceeded quota: objects, requested: '
        "count/replicasets.apps=1, used: count/replicasets.apps=1, "
        "limited: count/replicasets.apps=1",
    )


def test_a_refused_pod_of_a_new_deployment_is_named_after_its_replica_set() -> None:
    [result] = _run(
        [WEB],
        [
            _quota(
                {"pods": "0", "count/replicasets.apps": "5"},
                {"pods": "0", "count/replicasets.apps": "0"},
            )
        ],
    )
    replica_set = pod_name("Deployment", "web", 0, _template(WEB)).rsplit("-", 1)[0]
    assert result.message is not None and result.message.startswith(f'pods "{replica_set}-')
    assert result.quota is not None and result.quota.quota == "compute"


def test_a_priority_class_scope_reads_the_class_the_priority_admission_gives() -> None:
    """A pod naming no class takes the globalDefault class first: the scope sees that name."""
    quota = _quota(
        {"pods": "0"},
        {"pods": "0"},
        scopeSelector={
            "matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["team"]}
            ]
        },
    )
    default = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "team"},
        "value": 100,
        "globalDefault": True,
    }
    document = cluster_snapshot(NODES)
    document["resourceQuotas"] = [quota]
    document["priorityClasses"] = [default]
    snapshot = build_snapshot(document, "s.json")
    [result] = check([Document(Location("m.yaml", 1), WEB)], snapshot, RunOptions()).results
    assert result.verdict is Verdict.NO
    assert result.quota is not None and result.quota.created == 0


def test_an_autoscaler_s_room_to_grow_is_no_more_than_the_quota_creates() -> None:
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
        },
    }
    small = _deployment("web", 2, "100m")
    [alone] = _run([small, hpa])
    [capped] = _run([small, hpa], [_quota({"pods": "5"}, {"pods": "0"})])
    assert alone.placement is not None and alone.placement.headroom == 10
    assert capped.placement is not None and capped.placement.headroom == 5
    assert capped.verdict is Verdict.YES
    assert headline(capped).endswith("room for 5 of its 10")


def test_an_object_count_quota_with_room_creates_every_pod() -> None:
    quota = _quota({"count/deployments.apps": "5"}, {"count/deployments.apps": "1"}, name="objects")
    [result] = _run([WEB], [quota])
    assert (result.verdict, result.quota) == (
        Verdict.YES,
        Quota(created=3, quota="objects", message=None),
    )


def _preempting_run(quota: dict[str, Any]) -> WorkloadResult:
    """Two nodes full of a low-priority pod each; a high-priority Deployment of two copies,
    each of which fits only by evicting one."""
    classes = [
        {"metadata": {"name": "high"}, "value": 1000},
        {"metadata": {"name": "low"}, "value": 10},
    ]
    pods = []
    for node in ("n0", "n1"):
        found = api_pod(f"batch-{node}", node, containers=[container(requests={"cpu": "8"})])
        found["spec"]["priority"] = 10
        pods.append(found)
    document = cluster_snapshot(NODES[:2], pods, priorityClasses=classes)
    document["resourceQuotas"] = [quota]
    manifest = _deployment("web", 2, "6")
    manifest["spec"]["template"]["spec"]["priorityClassName"] = "high"
    snapshot = build_snapshot(document, "s.json")
    [result] = check([Document(Location("m.yaml", 1), manifest)], snapshot, RunOptions()).results
    return result


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        pytest.param("2", (Verdict.PREEMPTS, 2, 2, None), id="every copy created preempts"),
        pytest.param(
            "1",
            (Verdict.PARTIAL, 1, 1, "exceeded quota: compute, requested: pods=1, used: pods=1, "),
            id="a copy the quota refuses is never created, so the rest preempting is PARTIAL",
        ),
    ],
)
def test_copies_that_preempt_are_counted_against_those_the_quota_created(
    pods: str, expected: tuple[Verdict, int, int, str | None]
) -> None:
    """quotas.limited: PREEMPTS says every wanted copy lands; the API server refusing the
    2nd pod (controller.go CheckRequest) leaves it uncreated, as it does YES."""
    result = _preempting_run(_quota({"pods": pods}, {"pods": "0"}))
    verdict, fit, copies, error = expected
    assert result.placement is not None and result.preemption is not None
    found = (result.verdict, result.placement.fit, result.preemption.copies)
    assert found == (verdict, fit, copies)
    if error is None:
        assert result.message is None
    else:
        assert result.message is not None and error in result.message


@pytest.mark.parametrize(
    ("hard", "refused"),
    [
        pytest.param(
            {"count/deployments.apps": "1"},
            'deployments.apps "web" is forbidden: exceeded quota: objects, requested: '
            "count/deployments.apps=1, used: count/deployments.apps=1, limited: "
            "count/deployments.apps=1",
            id="the running pods' Deployment fills a quota of one Deployment",
        ),
        pytest.param(
            {"count/replicasets.apps": "1"},
            'replicasets.apps "web-',
            id="their ReplicaSet leaves no room for the new Deployment's",
        ),
        pytest.param({"count/deployments.apps": "2"}, None, id="a second Deployment fits"),
    ],
)
def test_a_run_s_new_quota_counts_the_objects_the_running_pods_belong_to(
    hard: dict[str, str], refused: str | None
) -> None:
    """resource_quota_controller.go syncResourceQuota: the first count of a quota without
    scopes takes every object of the namespace the object count evaluator counts (the
    snapshot knows those its pods' owners name)."""
    new = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "objects", "namespace": "web"},
        "spec": {"hard": hard},
    }
    [result] = _run([new, WEB], None, [_running("other", 0)])
    if refused is None:
        assert (result.verdict, result.message) == (Verdict.YES, None)
    else:
        assert result.verdict is Verdict.NO
        assert result.message is not None and result.message.startswith(refused)


def _preempting_daemonset(pods_allowed: str, full: tuple[str, ...]) -> WorkloadResult:
    """Three nodes, those named ``full`` each holding a low-priority pod of its own
    Deployment that leaves no room; a high-priority DaemonSet whose pod fits a full node
    only by evicting that pod, under a quota of ``pods_allowed`` pods."""
    classes = [{"metadata": {"name": "high"}, "value": 1000}]
    pods = []
    for node in full:
        found = api_pod(f"batch-{node}", node, containers=[container(requests={"cpu": "8"})])
        found["spec"]["priority"] = 10
        pods.append(found)
    document = cluster_snapshot(NODES, pods, priorityClasses=classes)
    document["resourceQuotas"] = [_quota({"pods": pods_allowed}, {"pods": "0"})]
    daemonset = _deployment("agent", 0, "1", kind="DaemonSet")
    del daemonset["spec"]["replicas"]
    daemonset["spec"]["template"]["spec"]["priorityClassName"] = "high"
    snapshot = build_snapshot(document, "s.json")
    [result] = check([Document(Location("m.yaml", 1), daemonset)], snapshot, RunOptions()).results
    return result


# (id, pods the quota allows, the full nodes, (verdict, copies evicting, pods evicted),
#  the warning's count of pods that evict; None: no warning)
PINNED: list[tuple[str, str, tuple[str, ...], tuple[Verdict, int | None, int], str | None]] = [
    (
        "every pod created evicts on its own node",
        "3",
        ("n0", "n1", "n2"),
        (Verdict.PREEMPTS, 3, 3),
        None,
    ),
    (
        "two of three created evict on no more than two nodes",
        "2",
        ("n0", "n1", "n2"),
        (Verdict.PARTIAL, 2, 2),
        "2 of them land by evicting",
    ),
    (
        "the created pod may take the free node, or evict on a full one",
        "1",
        ("n1", "n2"),
        (Verdict.PARTIAL, 1, 1),
        "0 to 1 of them land by evicting",
    ),
    (
        "no pod created evicts nothing",
        "0",
        ("n0", "n1", "n2"),
        (Verdict.NO, None, 0),
        None,
    ),
]


@pytest.mark.parametrize(
    ("allowed", "full", "expected", "warned"),
    [c[1:] for c in PINNED],
    ids=[c[0] for c in PINNED],
)
def test_a_daemon_set_s_evictions_are_of_no_more_pods_than_the_quota_created(
    allowed: str,
    full: tuple[str, ...],
    expected: tuple[Verdict, int | None, int],
    warned: str | None,
) -> None:
    """daemon_controller.go syncNodes creates a DaemonSet's pods in slow-start batches over
    its nodes in no set order, and admission (controller.go CheckRequest) refuses those past
    the quota: only the created pods evict, on nodes that are not known."""
    result = _preempting_daemonset(allowed, full)
    preemption = result.preemption
    copies = None if preemption is None else preemption.copies
    evicts = 0 if preemption is None else preemption.pods
    assert (result.verdict, copies, evicts) == expected
    texts = [w.text for w in result.warnings if w.kind is WarningKind.PREEMPTION]
    if warned is None:
        assert texts == []
    else:
        [text] = texts
        assert warned in text and "which nodes' pods are created is not known" in text


# SetObjectDefaults_ResourceQuota (pkg/apis/core/v1/zz_generated.defaults.go) runs
# SetDefaults_ResourceList (pkg/apis/core/v1/defaults.go) on spec.hard: each quantity is
# stored rounded up to thousandths (RoundUp(-3)) before the quota controller copies it to
# status.hard, which admission reads.
# (id, the new quota's requests.cpu, the pods' cpu, the pods created of 3, the limit shown)
NEW_HARD_ROUNDED: list[tuple[str, str, str, int, str | None]] = [
    ("a hard limit finer than a millicore is stored rounded up to one", "1500u", "2m", 1,
     "2m"),
    ("a hard limit of a fraction of a millicore admits the pod rounded up as well", "4.0001",
     "2", 2, "4001m"),
    ("a hard limit of whole millicores is stored as written", "3m", "1m", 3, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("hard", "cpu", "created", "limited"),
    [c[1:] for c in NEW_HARD_ROUNDED],
    ids=[c[0] for c in NEW_HARD_ROUNDED],
)
def test_a_run_s_new_quota_s_hard_limits_are_stored_rounded_up_to_thousandths(
    hard: str, cpu: str, created: int, limited: str | None
) -> None:
    new = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "compute", "namespace": "web"},
        "spec": {"hard": {"requests.cpu": hard}},
    }
    web = _deployment("web", 3, cpu)
    [result] = _run([new, web], None, [])
    assert result.quota is not None and result.quota.created == created
    if limited is not None:
        assert result.message is not None
        assert result.message.endswith(f"limited: requests.cpu={limited}")
