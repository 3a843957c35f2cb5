"""DefaultPreemption (gate/scheduler/plugins/defaultpreemption), row by row from upstream's
tables (v1.34.1 ``pkg/scheduler/framework/plugins/defaultpreemption/
default_preemption_test.go``: TestPostFilter, TestDryRunPreemption, TestSelectBestCandidate,
TestPodEligibleToPreemptOthers), each run through the real filters of a snapshot read as
any other. Upstream injects the filters' statuses; here they come from the filters, so a
row whose node upstream calls Unschedulable for a request above its allocatable (which
v1.34's NodeResourcesFit calls UnschedulableAndUnresolvable) has a higher-priority pod take
the room instead, and says so."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.version import dialect_for
from gate.model import DisruptionBudget, ExistingPod
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import filter_groups
from gate.scheduler.plugins import prepare
from gate.scheduler.plugins.defaultpreemption import (
    Ask,
    Budgets,
    Candidate,
    PodsByNode,
    Victim,
    pick_one,
    preempt,
)
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container

LOW, MID, HIGH, VERY_HIGH, NEG = 0, 100, 1000, 10000, -100
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}


def _time(n: int) -> str:
    """Upstream's epochTime<n>: n nanoseconds after the epoch, as seconds here."""
    return f"1970-01-01T00:00:{n:02d}Z"


@dataclass(frozen=True)
class P:
    """A pod of a row: name, node, priority, requests, start time, labels."""

    name: str
    node: str | None = None
    priority: int = LOW
    requests: dict[str, str] | None = None
    start: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    volumes: tuple[dict[str, Any], ...] = ()
    spec: dict[str, Any] = field(default_factory=dict)
    """More of its spec (affinity, topologySpreadConstraints)."""
    terminating: bool = False


def _api(pod: P) -> dict[str, Any]:
    body = api_pod(
        pod.name,
        pod.node,
        containers=[container(requests=pod.requests or {})],
        priority=pod.priority,
        **pod.spec,
    )
    body["metadata"]["labels"] = pod.labels
    if pod.volumes:
        body["spec"]["volumes"] = list(pod.volumes)
    if pod.start is not None:
        body["status"]["startTime"] = pod.start
    if pod.terminating:
        body["metadata"]["deletionTimestamp"] = _time(1)
    return body


def _budget(name: str, labels: dict[str, str] | None, allowed: int) -> dict[str, Any]:
    selector = None if labels is None else {"matchLabels": labels}
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": selector},
        "status": {"disruptionsAllowed": allowed},
    }


def _node(name: str, cpu: str = "4", memory: str = "8Gi", pods: str = "110") -> dict[str, Any]:
    return api_node(name, cpu=cpu, memory=memory, pods=pods)


def _one_pod(name: str) -> dict[str, Any]:
    """upstream's Capacity(onePodRes): room for one pod."""
    return _node(name, pods="1")


def _res(name: str, res: dict[str, str]) -> dict[str, Any]:
    return _node(name, cpu=res["cpu"], memory=res["memory"])


def run(
    nodes: list[dict[str, Any]],
    pods: list[P],
    pod: P,
    budgets: list[dict[str, Any]] | None = None,
    policy: str | None = None,
    **arrays: Any,
) -> tuple[str | None, list[str], str]:
    """The nominated node, its victims (most important first) and the PostFilter message;
    ``arrays``: more of the snapshot (its storage objects)."""
    document = cluster_snapshot(nodes, [_api(p) for p in pods], **arrays)
    if budgets:
        document["podDisruptionBudgets"] = budgets
    snapshot = build_snapshot(document, "snapshot.json")
    cluster = Cluster.of(snapshot)
    spec = {
        "containers": [container(requests=pod.requests or {})],
        "priority": pod.priority,
        **pod.spec,
    }
    if pod.volumes:
        spec["volumes"] = list(pod.volumes)
    if policy is not None:
        spec["preemptionPolicy"] = policy
    profile = pod_profile(spec, "default", pod.labels)
    dialect = dialect_for("v1.34.1")
    cycle = prepare(profile, cluster)
    groups = filter_groups(cluster.index, cycle, dialect)
    ask = Ask(profile, cluster, cycle, cluster.index.nodes, groups, dialect)
    found = preempt(ask, PodsByNode(cluster.others.pods), Budgets(snapshot.disruption_budgets))
    if found.nominated is None:
        return None, [], found.message
    node = cluster.index.nodes[found.nominated.node].name
    return node, [v.pod.name for v in found.nominated.victims], found.message


NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def _suffix(text: str) -> str:
    return f"no new claims to deallocate, preemption: {text}"


# TestPostFilter
POST_FILTER = [
    pytest.param(
        [_one_pod("node1")],
        [P("p1", "node1")],
        P("p", priority=HIGH),
        None,
        ("node1", ["p1"], ""),
        id="a pod of higher priority is made schedulable",
    ),
    pytest.param(
        [_one_pod("node1")],
        [P("p1", "node1")],
        P("p"),
        None,
        (None, [], _suffix(f"0/1 nodes are available: 1 {NO_VICTIMS}.")),
        id="a pod of tied priority is still unschedulable",
    ),
    pytest.param(
        [_one_pod("node1"), _one_pod("node2")],
        [P("p1", "node1", HIGH), P("p2", "node2", LOW)],
        P("p", priority=MID),
        None,
        ("node2", ["p2"], ""),
        id="a pod is made schedulable on the one node holding a lower-priority pod",
    ),
    pytest.param(
        [_one_pod("node1"), _one_pod("node2")],
        [
            P("p1", "node1", HIGH, labels={"pdb": "non-violating"}),
            P("p2", "node1", LOW, labels={"pdb": "violating"}),
            P("p3", "node2", MID, labels={"pdb": "violating"}),
        ],
        P("p", priority=VERY_HIGH),
        [
            _budget("violating", {"pdb": "violating"}, 0),
            _budget("fine", {"pdb": "non-violating"}, 2**31 - 1),
        ],
        ("node2", ["p3"], ""),
        id="of two nodes violating a budget once, the one whose highest victim is lowest",
    ),
    pytest.param(
        [_res("node1", MEDIUM), _res("node2", MEDIUM)],
        [P("p1", "node1", HIGH, SMALL), P("p2", "node2", HIGH, SMALL)],
        P("p", priority=HIGH, requests=MEDIUM),
        None,
        (None, [], _suffix(f"0/2 nodes are available: 2 {NO_VICTIMS}.")),
        id="no candidate when the pods taking the room are of equal priority",
    ),
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE)],
        [
            P("p1", "node1", LOW, SMALL),
            P("h1", "node1", VERY_HIGH, MEDIUM),
            P("p2", "node2", LOW, SMALL),
            P("h2", "node2", VERY_HIGH, MEDIUM),
        ],
        P("p", priority=HIGH, requests=LARGE),
        None,
        (None, [], _suffix("0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.")),
        id="no candidate when the room is still short with every lower-priority pod gone",
    ),
    pytest.param(
        [_one_pod("node1"), _res("node2", LARGE), _one_pod("node3")],
        [
            P("p1", "node1", HIGH),
            P("p2", "node2", LOW, SMALL),
            P("h2", "node2", VERY_HIGH, MEDIUM),
            P("p3", "node3", HIGH),
        ],
        P("p", priority=HIGH, requests=LARGE),
        None,
        (
            None,
            [],
            _suffix(
                f"0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
                f"2 {NO_VICTIMS}."
            ),
        ),
        id="mixed reasons: no lower-priority pod on two nodes, room still short on the third",
    ),
    pytest.param(
        [_res("node1", MEDIUM), _res("node2", MEDIUM), _res("node3", MEDIUM)],
        [P("p1", "node1"), P("p2", "node2")],
        P("p", priority=HIGH, requests=LARGE),
        None,
        (None, [], _suffix(f"0/3 nodes are available: 3 {NOT_HELPFUL}.")),
        id="a request above every node's allocatable is one preemption cannot help",
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "pod", "budgets", "expected"), POST_FILTER)
def test_post_filter(
    nodes: list[dict[str, Any]],
    pods: list[P],
    pod: P,
    budgets: list[dict[str, Any]] | None,
    expected: tuple[str | None, list[str], str],
) -> None:
    assert run(nodes, pods, pod, budgets) == expected


def test_a_pod_whose_policy_is_never_preempts_nothing() -> None:
    """TestPodEligibleToPreemptOthers: "Pod with PreemptNever preemption policy"."""
    found = run([_one_pod("node1")], [P("p1", "node1")], P("p", priority=HIGH), policy="Never")
    assert found == (None, [], _suffix("not eligible due to preemptionPolicy=Never."))


def test_taints_leave_nothing_to_preempt_for() -> None:
    """An untolerated taint is UnschedulableAndUnresolvable: preemption is not helpful there."""
    tainted = _one_pod("node1")
    tainted["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    found = run(
        [tainted, _one_pod("node2")],
        [P("p1", "node1"), P("p2", "node2", HIGH)],
        P("p", priority=HIGH),
    )
    assert found == (
        None,
        [],
        _suffix(f"0/2 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}."),
    )


# TestDryRunPreemption / TestSelectBestCandidate
CANDIDATES = [
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE)],
        [P("p1", "node1", MID, LARGE), P("p2", "node2", MID, LARGE)],
        P("p", priority=HIGH, requests=LARGE),
        ("node1", ["p1"]),
        id="a pod fits on both nodes once lower-priority pods go: the first node",
    ),
    pytest.param(
        [_res("node1", VERY_LARGE), _res("node2", VERY_LARGE)],
        [
            P("p1.1", "node1", MID, MEDIUM),
            P("p1.2", "node1", LOW, MEDIUM),
            P("p2.1", "node2", MID, LARGE),
            P("p2.2", "node2", LOW, SMALL),
        ],
        P("p", priority=HIGH, requests=LARGE),
        ("node1", ["p1.2"]),
        id="lower-priority pods are reprieved most important first",
    ),
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE), _res("node3", LARGE)],
        [
            P("p1", "node1", MID, LARGE),
            P("p2", "node2", LOW, LARGE),
            P("p3", "node3", MID, LARGE),
        ],
        P("p", priority=HIGH, requests=LARGE),
        ("node2", ["p2"]),
        id="the node whose victims have the lowest priority",
    ),
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE), _res("node3", LARGE)],
        [
            P("p1.1", "node1", MID, SMALL),
            P("p1.2", "node1", MID, MEDIUM),
            P("p2.1", "node2", MID, SMALL),
            P("p2.2", "node2", LOW, MEDIUM),
            P("p3.1", "node3", MID, MEDIUM),
            P("p3.2", "node3", LOW, SMALL),
        ],
        P("p", priority=HIGH, requests=LARGE),
        ("node2", ["p2.1", "p2.2"]),
        id="the node whose victims' priorities sum the smallest",
    ),
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE), _res("node3", LARGE)],
        [
            P("p1.1", "node1", MID, SMALL),
            P("p1.2", "node1", MID, SMALL),
            P("p1.3", "node1", MID, SMALL),
            P("p2.1", "node2", MID, MEDIUM),
            P("p2.2", "node2", MID, SMALL),
            P("p3.1", "node3", MID, SMALL),
            P("p3.2", "node3", MID, SMALL),
            P("p3.3", "node3", MID, SMALL),
        ],
        P("p", priority=HIGH, requests=LARGE),
        # neither pod started: sort.Slice leaves them last first (test_unstarted_ties)
        ("node2", ["p2.2", "p2.1"]),
        id="the node with the fewest victims",
    ),
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE), _res("node3", LARGE)],
        [
            P("p1.1", "node1", MID, MEDIUM, _time(2)),
            P("p1.2", "node1", MID, SMALL, _time(3)),
            P("p2.1", "node2", MID, MEDIUM, _time(4)),
            P("p2.2", "node2", MID, SMALL, _time(5)),
            P("p3.1", "node3", MID, MEDIUM, _time(1)),
            P("p3.2", "node3", MID, SMALL, _time(6)),
        ],
        P("p", priority=HIGH, requests=LARGE),
        ("node2", ["p2.1", "p2.2"]),
        id="the node whose highest-priority victims started latest",
    ),
    pytest.param(
        [_res("node1", LARGE), _res("node2", LARGE)],
        [
            P("p1.1", "node1", MID, MEDIUM, _time(2)),
            P("p1.2", "node1", LOW, SMALL, _time(3)),
            P("p2.1", "node2", MID, MEDIUM, None),
            P("p2.2", "node2", LOW, SMALL, _time(1)),
        ],
        P("p", priority=HIGH, requests=LARGE),
        ("node2", ["p2.1", "p2.2"]),
        id="a victim without a start time counts as starting now, latest of all",
    ),
]


_THREE = [_res(f"node{i}", VERY_LARGE) for i in (1, 2, 3)]
CANDIDATES += [
    pytest.param(
        _THREE,
        [
            P("p1.1", "node1", MID, SMALL, _time(0)),
            P("p1.2", "node1", NEG, SMALL, _time(0)),
            P("p1.3", "node1", NEG, SMALL, _time(0)),
            P("p2.1", "node2", MID, LARGE, _time(0)),
            P("p2.2", "node2", NEG, MEDIUM, _time(0)),
            P("p3.1", "node3", MID, MEDIUM, _time(0)),
            P("p3.2", "node3", NEG, SMALL, _time(0)),
            P("p3.3", "node3", LOW, SMALL, _time(0)),
        ],
        P("p", priority=HIGH, requests=VERY_LARGE),
        ("node2", ["p2.1", "p2.2"]),
        # TestSelectBestCandidate "sum of adjusted priorities is considered"
        id="more victims of negative priority never sum below fewer",
    ),
    pytest.param(
        [*_THREE, _res("node4", VERY_LARGE)],
        [
            P("p1.1", "node1", MID, SMALL, _time(0)),
            P("p1.2", "node1", LOW, SMALL, _time(0)),
            P("p1.3", "node1", LOW, SMALL, _time(0)),
            P("p2.1", "node2", HIGH, LARGE, _time(0)),
            P("p3.1", "node3", MID, MEDIUM, _time(0)),
            P("p3.2", "node3", LOW, SMALL, _time(0)),
            P("p3.3", "node3", LOW, SMALL, _time(0)),
            P("p3.4", "node3", LOW, MEDIUM, _time(0)),
            P("p4.1", "node4", MID, MEDIUM, _time(0)),
            P("p4.2", "node4", MID, SMALL, _time(0)),
            P("p4.3", "node4", MID, SMALL, _time(0)),
            P("p4.4", "node4", NEG, SMALL, _time(0)),
        ],
        P("p", priority=VERY_HIGH, requests=VERY_LARGE),
        ("node1", ["p1.1", "p1.2", "p1.3"]),
        # TestSelectBestCandidate "non-overlapping lowest high priority, sum priorities, and
        # number of pods"
        id="each rule in turn narrows the nodes the one before left tied",
    ),
    pytest.param(
        _THREE,
        [
            P("p1.1", "node1", LOW, MEDIUM, _time(4)),
            P("p1.2", "node1", MID, MEDIUM, _time(2)),
            P("p2.1", "node2", MID, MEDIUM, _time(6)),
            P("p2.2", "node2", LOW, MEDIUM, _time(1)),
            P("p3.1", "node3", LOW, MEDIUM, _time(3)),
            P("p3.2", "node3", MID, MEDIUM, _time(5)),
        ],
        P("p", priority=HIGH, requests=VERY_LARGE),
        ("node2", ["p2.1", "p2.2"]),
        # TestSelectBestCandidate "different priority, same number of victims, different
        # start time for all pods"
        id="the start times weighed are those of the highest-priority victims only",
    ),
]

_FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}


def _spread(key: str) -> dict[str, Any]:
    return {
        "maxSkew": 1,
        "topologyKey": key,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": _FOO,
    }


def _host(name: str, zone: str | None = None) -> dict[str, Any]:
    """TestDryRunPreemption's node: veryLargeRes, labelled with its hostname and zone."""
    labels = {"hostname": name} | ({"zone": zone} if zone else {})
    return api_node(name, cpu=VERY_LARGE["cpu"], memory=VERY_LARGE["memory"], labels=labels)


_REFUSES_FOO = {
    "affinity": {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": _FOO, "topologyKey": "hostname"}
            ]
        }
    }
}
CANDIDATES += [
    pytest.param(
        [_host("node1"), _host("node2")],
        [
            P("p1.1", "node1", LOW, SMALL, labels={"foo": ""}, spec=_REFUSES_FOO),
            P("p1.2", "node1", MID, SMALL),
            P("p1.3", "node1", HIGH, SMALL),
            P("p2", "node2", HIGH, VERY_LARGE),
        ],
        P("p", priority=HIGH, requests=SMALL, labels={"foo": ""}),
        ("node1", ["p1.1"]),
        # TestDryRunPreemption "pod with anti-affinity is preempted"
        id="a lower-priority pod whose anti-affinity refuses the pod is its only victim",
    ),
    pytest.param(
        [_host("node-a", "zone1"), _host("node-b", "zone1"), _host("node-x", "zone2")],
        [
            P("pod-a1", "node-a", MID, labels={"foo": ""}),
            P("pod-a2", "node-a", LOW, labels={"foo": ""}),
            P("pod-b1", "node-b", LOW, labels={"foo": ""}),
            P("pod-x1", "node-x", HIGH, labels={"foo": ""}),
            P("pod-x2", "node-x", HIGH, labels={"foo": ""}),
        ],
        P(
            "p",
            priority=HIGH,
            labels={"foo": ""},
            spec={"topologySpreadConstraints": [_spread("zone"), _spread("hostname")]},
        ),
        ("node-a", ["pod-a2"]),
        # TestDryRunPreemption "preemption to resolve pod topology spread filter failure":
        # node-a and node-b are candidates alike, node-a the first
        id="a spread constraint is met by evicting the lowest-priority pod it counts",
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "pod", "expected"), CANDIDATES)
def test_candidate_choice(
    nodes: list[dict[str, Any]], pods: list[P], pod: P, expected: tuple[str, list[str]]
) -> None:
    node, victims, message = run(nodes, pods, pod)
    assert ((node, victims), message) == (expected, "")


BUDGETED = [
    pytest.param(
        [_budget("pdb", {"app": "foo"}, 1)],
        ("node1", ["p1.1"]),
        id="a budget that allows the disruption is no violation",
    ),
    pytest.param(
        [_budget("pdb", {"app": "foo"}, 0)],
        ("node2", ["p2.1"]),
        id="a budget that allows none sends preemption to the node it does not cover",
    ),
    pytest.param(
        [_budget("pdb", None, 0)],
        ("node1", ["p1.1"]),
        id="a budget without a selector covers nothing",
    ),
    pytest.param(
        [{**_budget("pdb", {"app": "foo"}, 0), "metadata": {"name": "pdb", "namespace": "other"}}],
        ("node1", ["p1.1"]),
        id="a budget of another namespace covers nothing",
    ),
]


@pytest.mark.parametrize(("budgets", "expected"), BUDGETED)
def test_budgets(budgets: list[dict[str, Any]], expected: tuple[str, list[str]]) -> None:
    """TestDryRunPreemption's "pods with PDB" rows, on one victim a node."""
    nodes = [_res("node1", LARGE), _res("node2", LARGE)]
    pods = [
        P("p1.1", "node1", LOW, LARGE, labels={"app": "foo"}),
        P("p2.1", "node2", MID, LARGE, labels={"app": "bar"}),
    ]
    node, victims, _ = run(nodes, pods, P("p", priority=HIGH, requests=LARGE), budgets)
    assert (node, victims) == expected


DISK = ({"name": "v", "gcePersistentDisk": {"pdName": "foo"}},)

# volume_restrictions.go Filter reads the disks of the node's pods (nodeInfo.GetPods()), and
# its PreFilter extensions count a removed pod's ReadWriteOncePod claims out: a victim's
# volumes leave with it (default_preemption.go SelectVictimsOnNode removes it from the node)
MOUNTED: list[tuple[str, list[P], tuple[str | None, list[str]]]] = [
    (
        "a lower-priority pod mounting the pod's disk is evicted for it",
        [P("holder", "node1", LOW, SMALL, volumes=DISK)],
        ("node1", ["holder"]),
    ),
    (
        "of two lower-priority pods only the one mounting the pod's disk is evicted",
        [
            P("holder", "node1", LOW, SMALL, volumes=DISK),
            P("bystander", "node1", LOW, SMALL, start=_time(1)),
        ],
        ("node1", ["holder"]),
    ),
    (
        "a pod of tied priority mounting the disk leaves nothing to evict",
        [P("holder", "node1", HIGH, SMALL, volumes=DISK)],
        (None, []),
    ),
]


@pytest.mark.parametrize(
    ("pods", "expected"), [c[1:] for c in MOUNTED], ids=[c[0] for c in MOUNTED]
)
def test_a_victim_s_volumes_leave_with_it(
    pods: list[P], expected: tuple[str | None, list[str]]
) -> None:
    incoming = P("p", priority=HIGH, requests=SMALL, volumes=DISK)
    node, victims, _ = run([_node("node1")], pods, incoming)
    assert (node, victims) == expected


CLAIMED = ({"name": "v", "persistentVolumeClaim": {"claimName": "data"}},)
_RWOP = ["ReadWriteOncePod"]
_STORAGE: dict[str, Any] = {
    "persistentVolumeClaims": [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "data",
                "namespace": "default",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {
                "accessModes": _RWOP,
                "volumeName": "pv1",
                "resources": {"requests": {"storage": "1Gi"}},
            },
            "status": {"phase": "Bound"},
        }
    ],
    "persistentVolumes": [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1"},
            "spec": {
                "accessModes": _RWOP,
                "capacity": {"storage": "1Gi"},
                "claimRef": {"name": "data", "namespace": "default"},
                "csi": {"driver": "d", "volumeHandle": "h"},
            },
            "status": {"phase": "Bound"},
        }
    ],
    "storageClasses": [],
    "csiNodes": [],
    "csiDrivers": [],
    "csiStorageCapacities": [],
}


def test_the_pod_holding_a_read_write_once_pod_claim_is_evicted_for_it() -> None:
    """volume_restrictions.go RemovePod counts a victim's ReadWriteOncePod claims out: every
    node refuses the pod while the claim is in use, and the holder's node takes it once the
    holder goes."""
    pods = [
        P("holder", "node2", LOW, SMALL, volumes=CLAIMED),
        P("other", "node1", LOW, SMALL),
    ]
    incoming = P("p", priority=HIGH, requests=SMALL, volumes=CLAIMED)
    node, victims, _ = run([_node("node1"), _node("node2")], pods, incoming, **_STORAGE)
    assert (node, victims) == ("node2", ["holder"])


def test_victims_a_budget_covers_are_reprieved_first() -> None:
    """SelectVictimsOnNode tries the PDB-violating pods first: of two alike pods that
    each leave room enough, the covered one stays."""
    nodes = [_res("node1", VERY_LARGE)]
    pods = [
        P("covered", "node1", LOW, MEDIUM, _time(2), {"app": "foo"}),
        P("free", "node1", LOW, MEDIUM, _time(1)),
    ]
    budgets = [_budget("pdb", {"app": "foo"}, 0)]
    node, victims, _ = run(nodes, pods, P("p", priority=HIGH, requests=LARGE), budgets)
    assert (node, victims) == ("node1", ["free"])


UNSTARTED_TIES = [
    pytest.param(
        [P("a", "node1", LOW, SMALL), P("b", "node1", LOW, SMALL), P("c", "node1", LOW, SMALL)],
        ["b", "a"],
        id="of pods of one priority that never started the last on the node is reprieved first",
    ),
    pytest.param(
        [
            P("a", "node1", LOW, SMALL),
            P("b", "node1", LOW, SMALL, _time(5)),
            P("c", "node1", LOW, SMALL),
        ],
        ["c", "a"],
        id="a started pod of the same priority is reprieved before those that never started",
    ),
    pytest.param(
        [
            P("a", "node1", LOW, SMALL, _time(1)),
            P("b", "node1", LOW, SMALL, _time(1)),
            P("c", "node1", LOW, SMALL, _time(1)),
        ],
        ["b", "c"],
        id="pods that started at one time keep their order on the node",
    ),
    pytest.param(
        [P("a", "node1", LOW, SMALL), P("b", "node1", MID, SMALL), P("c", "node1", LOW, SMALL)],
        ["c", "a"],
        id="the higher priority is reprieved first whatever the start times",
    ),
]


@pytest.mark.parametrize(("pods", "expected"), UNSTARTED_TIES)
def test_unstarted_ties(pods: list[P], expected: list[str]) -> None:
    """SelectVictimsOnNode sorts the victims with sort.Slice and MoreImportantPod, whose
    GetPodStartTime gives a pod that never started the time it is asked, asked of the first
    pod before the second: of two such pods of one priority either is "more important", and
    the insertion sort Go runs on up to twelve pods moves each before all of them. Room for
    one of three pods beside the incoming one: the first reprieved stays."""
    node, victims, _ = run([_res("node1", LARGE)], pods, P("p", priority=HIGH, requests=MEDIUM))
    assert (node, victims) == ("node1", expected)


def _candidate(node: int, victims: list[tuple[int, str | None]], violations: int = 0) -> Candidate:
    pods = [
        Victim(i, ExistingPod("default", f"v{node}.{i}", "n", {}, priority=p, started=s))
        for i, (p, s) in enumerate(victims)
    ]
    return Candidate(node, tuple(pods), violations)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 2),
            st.lists(
                st.tuples(st.integers(-3, 3), st.sampled_from([None, _time(1), _time(2)])),
                min_size=1,
                max_size=3,
            ),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_choice_is_the_first_best_by_each_rule_in_turn(
    rows: list[tuple[int, list[tuple[int, str | None]]]],
) -> None:
    """pickOneNodeForPreemption keeps, rule by rule, the candidates of the best score, and
    takes the first left: restated here as a filter, held equal to the sort key."""
    candidates = [
        _candidate(i, victims, violations) for i, (violations, victims) in enumerate(rows)
    ]
    left = list(candidates)
    rules: list[Callable[[Candidate], float]] = [
        lambda c: -c.violations,
        lambda c: -max(v.pod.priority for v in c.victims),
        lambda c: -sum(v.pod.priority + 2**31 for v in c.victims),
        lambda c: -len(c.victims),
        _earliest_top,
    ]
    for rule in rules:
        best = max(rule(c) for c in left)
        left = [c for c in left if rule(c) == best]
    assert pick_one(candidates) is left[0]


def _earliest_top(candidate: Candidate) -> float:
    top = max(v.pod.priority for v in candidate.victims)
    times = [v.pod.started for v in candidate.victims if v.pod.priority == top]
    return min(float("inf") if t is None else float(t[-3:-1]) for t in times)


def test_budgets_lose_one_disruption_a_victim() -> None:
    budget = DisruptionBudget("default", "pdb", {"matchLabels": {"app": "foo"}}, 1)
    budgets = Budgets((budget,))
    victim = Victim(0, ExistingPod("default", "a", "n", {"app": "foo"}))
    assert budgets.violating([victim]) == ([], [victim])
    budgets.evict([victim])
    assert (budgets.allowed, budgets.violating([victim])) == ([0], ([victim], []))


@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 2)), max_size=12),
    st.integers(-3, 3),
)
def test_the_nodes_with_a_lower_pod_are_those_a_scan_finds(
    placed: list[tuple[int, int]], priority: int
) -> None:
    """PodsByNode.below, the index that spares a look at nodes without victims, equals
    asking every pod of every node."""
    nodes = [_node(f"n{i}") for i in range(4)]
    pods = [P(f"p{k}", f"n{node}", rank) for k, (node, rank) in enumerate(placed)]
    snapshot = build_snapshot(cluster_snapshot(nodes, [_api(p) for p in pods]), "s.json")
    index = PodsByNode(Cluster.of(snapshot).others.pods)
    scanned = {int(p.node[1:]) for p in snapshot.pods if p.priority < priority}
    assert index.below(priority) == sum(1 << n for n in scanned)
    assert {n for n in range(4) if index.lower(n, priority, frozenset())} == scanned


_FULL_ZONE = [_host("node-a", "zone1"), _host("node-b", "zone2")]
_ZONE_SPREAD = {"topologySpreadConstraints": [_spread("zone")]}
TERMINATING = [
    pytest.param(
        [
            P("t", "node-a", LOW, LARGE, labels={"foo": ""}, terminating=True),
            P("a1", "node-a", HIGH, MEDIUM, labels={"foo": ""}),
            P("b1", "node-b", HIGH, VERY_LARGE),
        ],
        ("node-a", ["t"], ""),
        id="a terminating victim the spread constraint matches is taken off its zone's count",
    ),
    pytest.param(
        [
            P("t", "node-a", LOW, LARGE, terminating=True),
            P("a1", "node-a", HIGH, MEDIUM, labels={"foo": ""}),
            P("b1", "node-b", HIGH, VERY_LARGE),
        ],
        (
            None,
            [],
            _suffix(
                f"0/2 nodes are available: 1 {NO_VICTIMS}, "
                "1 node(s) didn't match pod topology spread constraints."
            ),
        ),
        id="a terminating victim the spread constraint does not match leaves the count as it is",
    ),
]


@pytest.mark.parametrize(("pods", "expected"), TERMINATING)
def test_terminating_victims_of_a_spread_constraint(
    pods: list[P], expected: tuple[str | None, list[str], str]
) -> None:
    """SelectVictimsOnNode removes each victim through the PreFilter extensions, and
    PodTopologySpread's RemovePod (podtopologyspread/filtering.go updateWithPod) takes off
    every victim its selector matches, a terminating one too, which calPreFilterState never
    counted (countPodsMatchSelector): zone1 counts a1 alone, 1 + selfMatch - 0 exceeds
    maxSkew 1 until t's removal leaves it at 0."""
    pod = P("p", priority=HIGH, requests=SMALL, labels={"foo": ""}, spec=_ZONE_SPREAD)
    assert run(_FULL_ZONE, pods, pod) == expected
