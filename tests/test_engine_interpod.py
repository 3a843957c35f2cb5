"""PodTopologySpread and InterPodAffinity in whole evaluations: their place after
NodeResourcesFit in the filter order, verdicts and FitError messages, DaemonSets pinned
per node, name-pinned pods, and refused selectors. Snapshots are built directly with
their existing pods (gate.model.ExistingPod)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.workloads import extract_all
from gate.k8s.version import Dialect
from gate.model import (
    Code,
    Document,
    ExistingPod,
    Location,
    NodeView,
    Snapshot,
    SnapshotInfo,
    Verdict,
    Workload,
)
from gate.scheduler.engine.evaluate import Evaluator, _counted
from gate.scheduler.framework.pods import pod_profile
from tests.builders import container, existing_pod, node, pod_term, spread, taint
from tests.engine_support import NO_VICTIMS, NOT_HELPFUL, preempting


def snapshot(
    nodes: list[NodeView],
    pods: list[ExistingPod],
    namespaces: dict[str, dict[str, str]] | None = None,
) -> Snapshot:
    info = SnapshotInfo("s.json", None, None, None, "v1.34.1", len(nodes), len(pods))
    return Snapshot(info=info, nodes=tuple(nodes), pods=tuple(pods), namespaces=namespaces)


def workload(
    spec: dict[str, Any], labels: dict[str, str], kind: str = "Deployment", name: str = "w"
) -> Workload:
    return Workload(
        kind=kind,
        namespace="default",
        name=name,
        location=Location("w.yaml", 1),
        replicas=1,
        pod_spec={"containers": [container(requests={"cpu": "1", "memory": "1Gi"})], **spec},
        labels=labels,
    )


def evaluator(snap: Snapshot) -> Evaluator:
    return Evaluator.for_snapshot(snap, Dialect(named_taint=True))


def hosts(*names: str, **more: Any) -> list[NodeView]:
    return [node(n, labels={"kubernetes.io/hostname": n, "zone": "z1"}, **more) for n in names]


GUARD = pod_term("app", "In", ["db"], "kubernetes.io/hostname")
DB_ANTI = {
    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [GUARD]}}
}


def test_an_existing_pods_anti_affinity_turns_a_pod_away_from_every_node() -> None:
    """The rejection carries its plugin and its code (filtering.go: Unschedulable)."""
    nodes = hosts("a", "b")
    pods = [existing_pod(n, {"app": "db"}, name=f"db-{n}", anti_affinity=(GUARD,)) for n in "ab"]
    result = evaluator(snapshot(nodes, pods)).evaluate(workload({}, {"app": "db"}))
    assert result.verdict is Verdict.NO
    assert result.message == (
        "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules."
        + preempting(2, (2, NO_VICTIMS))
    )
    assert {(o.plugin, o.code) for o in result.nodes} == {("InterPodAffinity", Code.UNSCHEDULABLE)}


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        (
            [node("a", cpu=500, labels={"kubernetes.io/hostname": "a"}), *hosts("b")],
            "0/2 nodes are available: 1 Insufficient cpu, "
            "1 node(s) didn't match pod anti-affinity rules."
            + preempting(2, (1, NO_VICTIMS), (1, NOT_HELPFUL)),
        ),
        (
            [
                node("a", labels={"kubernetes.io/hostname": "a"}, taints=(taint("t", "v"),)),
                *hosts("b"),
            ],
            "0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, "
            "1 node(s) had untolerated taint {t: v}."
            " no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption "
            "victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
        ),
    ],
    ids=[
        "a node short of cpu reports NodeResourcesFit, which runs first",
        "a tainted node reports its taint, not the anti-affinity",
    ],
)
def test_earlier_filters_win_on_a_node(nodes: list[NodeView], message: str) -> None:
    pods = [existing_pod(n, {"app": "db"}, name=f"db-{n}") for n in "ab"]
    result = evaluator(snapshot(nodes, pods)).evaluate(workload(DB_ANTI, {"app": "db"}))
    assert result.message == message


def test_spread_reason_wins_over_affinity_on_the_same_node() -> None:
    nodes = [node(n, labels={"kubernetes.io/hostname": n}) for n in "ab"]
    pods = [existing_pod("a", {"app": "db"}), existing_pod("a", {"app": "db"})]
    spec = {
        **DB_ANTI,
        "topologySpreadConstraints": [spread(1, "zone", {"matchLabels": {"app": "db"}})],
    }
    result = evaluator(snapshot(nodes, pods)).evaluate(workload(spec, {"app": "db"}))
    assert result.message == (
        "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints "
        "(missing required label)."
        " no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
        "helpful for scheduling."
    )


def test_labels_take_part_in_the_answer_a_workload_shares() -> None:
    nodes = hosts("a")
    pods = [existing_pod("a", {"app": "db"}, anti_affinity=(GUARD,))]
    run = evaluator(snapshot(nodes, pods))
    assert run.evaluate(workload({}, {"app": "db"}, name="db")).verdict is Verdict.NO
    assert run.evaluate(workload({}, {"app": "web"}, name="web")).verdict is Verdict.YES


def test_a_daemonset_pod_refused_by_anti_affinity_on_some_nodes_is_partial() -> None:
    nodes = hosts("a", "b")
    pods = [existing_pod("a", {"app": "db"}, anti_affinity=(GUARD,))]
    result = evaluator(snapshot(nodes, pods)).evaluate(
        workload({}, {"app": "db"}, kind="DaemonSet")
    )
    assert result.verdict is Verdict.PARTIAL
    assert [o.reasons for o in result.nodes] == [
        ("node(s) didn't satisfy existing pods anti-affinity rules",),
        (),
    ]


def test_a_daemonset_pod_is_its_nodes_only_spread_domain() -> None:
    """With nodeAffinityPolicy Honor the pinned pod's domains are its own node: a
    hostname spread never fails, however the existing pods are spread."""
    nodes = hosts("a", "b")
    pods = [existing_pod("a", {"app": "agent"}) for _ in range(3)]
    spec = {
        "topologySpreadConstraints": [
            spread(1, "kubernetes.io/hostname", {"matchLabels": {"app": "agent"}})
        ]
    }
    result = evaluator(snapshot(nodes, pods)).evaluate(
        workload(spec, {"app": "agent"}, kind="DaemonSet")
    )
    assert result.verdict is Verdict.YES


def test_a_pod_pinned_by_name_is_filtered_node_by_node() -> None:
    nodes = hosts("a", "b")
    pods = [existing_pod("a", {"app": "db"})]
    spec = {
        **DB_ANTI,
        "affinity": {
            **DB_ANTI["affinity"],
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": ["a"]}
                            ]
                        }
                    ]
                }
            },
        },
    }
    result = evaluator(snapshot(nodes, pods)).evaluate(workload(spec, {"app": "db"}))
    assert result.message == (
        "0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, "
        "1 node(s) didn't satisfy plugin(s) [NodeAffinity]."
        " no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption "
        "victims found for incoming pod, 1 Preemption is not helpful for scheduling."
    )


def test_a_selector_the_api_server_refuses_is_an_error() -> None:
    bad = pod_term("app", "In", [], "kubernetes.io/hostname")
    spec = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [bad]}}}
    result = evaluator(snapshot(hosts("a"), [])).evaluate(workload(spec, {}))
    assert result.verdict is Verdict.ERROR
    assert result.reason == (
        "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
        ".labelSelector.matchExpressions: for 'in', 'notin' operators, values set can't be empty"
    )


def test_a_snapshot_without_namespaces_warns_of_namespace_selectors() -> None:
    term = {**GUARD, "namespaceSelector": {"matchLabels": {"team": "a"}}}
    spec = {
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    }
    result = evaluator(snapshot(hosts("a"), [])).evaluate(workload(spec, {}))
    assert [w.text for w in result.warnings] == [
        "pod anti-affinity namespaceSelector: the snapshot recorded no namespaces, "
        "so it selects none"
    ]


@pytest.mark.parametrize(
    ("body", "labels"),
    [
        (
            {
                "kind": "Deployment",
                "metadata": {"name": "d", "labels": {"owner": "x"}},
                "spec": {
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web", "tier": 1}},
                        "spec": {"containers": [{"name": "c", "image": "i"}]},
                    },
                },
            },
            {"app": "web", "tier": "1"},
        ),
        (
            {
                "kind": "Pod",
                "metadata": {"name": "p", "labels": {"app": "db"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
            {"app": "db"},
        ),
        (
            {
                "kind": "CronJob",
                "metadata": {"name": "c"},
                "spec": {
                    "schedule": "@daily",
                    "jobTemplate": {
                        "spec": {
                            "template": {
                                "metadata": {"labels": {"job": "nightly"}},
                                "spec": {
                                    "containers": [{"name": "c", "image": "i"}],
                                    "restartPolicy": "OnFailure",
                                },
                            }
                        }
                    },
                },
            },
            {"job": "nightly"},
        ),
    ],
    ids=[
        "a Deployment's pods carry its template's labels, as text",
        "a Pod carries its own labels",
        "a CronJob's pods carry its job template's pod labels",
    ],
)
def test_workloads_carry_the_labels_their_pods_get(
    body: dict[str, Any], labels: dict[str, str]
) -> None:
    (found,) = extract_all(iter([Document(Location("w.yaml", 1), body=body)]))
    assert isinstance(found, Workload)
    assert found.labels == labels


@pytest.mark.parametrize(
    ("own", "counted"),
    [
        pytest.param(
            {"app": "web"}, False, id="its old pods outside every selector are not counted"
        ),
        pytest.param({"tier": "data"}, True, id="an old pod its affinity term selects is counted"),
        pytest.param(
            {"role": "spread"}, True, id="an old pod its spread selector selects is counted"
        ),
    ],
)
def test_the_old_pods_a_workload_releases_count_only_where_its_selectors_reach(
    own: dict[str, str], counted: bool
) -> None:
    spec = {
        "containers": [container()],
        "affinity": {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    pod_term("tier", "In", ["data"], "kubernetes.io/hostname")
                ]
            }
        },
        "topologySpreadConstraints": [spread(1, "zone", {"matchLabels": {"role": "spread"}})],
    }
    profile = pod_profile(spec, "default", {"app": "web"})
    assert _counted(profile, [existing_pod("a", own)]) is counted
    assert _counted(profile, [existing_pod("a", own)], carries=False) is counted


def test_an_old_pod_with_anti_affinity_is_counted_whatever_the_selectors() -> None:
    carrier = existing_pod("a", {"app": "web"}, anti_affinity=(pod_term("app", "Exists"),))
    profile = pod_profile({"containers": [container()]}, "default", {"app": "web"})
    assert _counted(profile, [carrier])
    assert _counted(profile, [], carries=True)


def test_without_selectors_only_a_carrier_among_the_old_pods_makes_them_counted() -> None:
    plain = existing_pod("a", {"app": "web"})
    profile = pod_profile({"containers": [container()]}, "default", {"app": "web"})
    assert not _counted(profile, [plain])
    assert not _counted(profile, [plain], carries=False)
