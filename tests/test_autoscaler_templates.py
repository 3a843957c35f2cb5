"""A node group's template node as cluster-autoscaler-1.34.5 builds it
(gate.scheduler.autoscaling.clusterautoscaler.templates): from a member
(simulator/node_info_utils.go ``SanitizedTemplateNodeInfoFromNodeInfo``) or from a
configured template (``SanitizedTemplateNodeInfoFromNodeGroup``), its taints sanitised
(utils/taints/taints.go ``SanitizeTaints``), its cores and memory counted as
core/utils/utils.go ``GetNodeCoresAndMemory`` counts them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.k8s.version import Dialect
from gate.model import ExistingPod, HostPort, NodeView, Taint
from gate.model.autoscaling import DaemonSet, Flags, NodeTemplate
from gate.scheduler.autoscaling.clusterautoscaler.templates import (
    Template,
    from_configured,
    from_member,
    is_ready,
    is_usable,
    node_capacity,
    sanitized_taints,
)
from tests.builders import cluster, container, node, taint

GI = 2**30
MI = 2**20
HOSTNAME = "kubernetes.io/hostname"
TEMPLATE = "cluster-autoscaler.kubernetes.io/template-node"
DIALECT = Dialect()
DEDICATED = taint("dedicated", "db")

SANITIZED: list[tuple[str, list[Taint], Flags, list[Taint]]] = [
    (
        "the autoscaler's own deletion taints are dropped",
        [taint("ToBeDeletedByClusterAutoscaler"), taint("DeletionCandidateOfClusterAutoscaler")],
        Flags(),
        [],
    ),
    (
        "node condition taints are dropped",
        [
            taint("node.kubernetes.io/not-ready", effect="NoExecute"),
            taint("node.kubernetes.io/unschedulable"),
            taint("node.cloudprovider.kubernetes.io/uninitialized"),
        ],
        Flags(),
        [],
    ),
    (
        "ignore, startup and status taints are dropped by prefix",
        [
            taint("ignore-taint.cluster-autoscaler.kubernetes.io/a"),
            taint("startup-taint.cluster-autoscaler.kubernetes.io/b"),
            taint("status-taint.cluster-autoscaler.kubernetes.io/c"),
        ],
        Flags(),
        [],
    ),
    (
        "taints named by --startup-taint and --status-taint are dropped",
        [taint("cilium.io/agent-not-ready"), taint("example.com/booting"), DEDICATED],
        Flags(
            startup_taints=("cilium.io/agent-not-ready",), status_taints=("example.com/booting",)
        ),
        [DEDICATED],
    ),
    (
        "the group's own taints are kept in order",
        [DEDICATED, taint("gpu", "true", "PreferNoSchedule")],
        Flags(),
        [DEDICATED, taint("gpu", "true", "PreferNoSchedule")],
    ),
]


@pytest.mark.parametrize(
    ("taints", "flags", "expected"), [c[1:] for c in SANITIZED], ids=[c[0] for c in SANITIZED]
)
def test_sanitized_taints(taints: list[Taint], flags: Flags, expected: list[Taint]) -> None:
    assert sanitized_taints(taints, flags) == tuple(expected)


USABLE: list[tuple[str, NodeView, Flags, bool, bool]] = [
    ("a Ready schedulable node is a good template", node(), Flags(), True, True),
    (
        "a node tainted not-ready is not Ready",
        node(taints=(taint("node.kubernetes.io/not-ready", effect="NoExecute"),)),
        Flags(),
        False,
        False,
    ),
    (
        "a node tainted unreachable is not Ready",
        node(taints=(taint("node.kubernetes.io/unreachable", effect="NoExecute"),)),
        Flags(),
        False,
        False,
    ),
    # utils/kubernetes/ready.go GetNodeReadiness: notReadyTaints
    (
        "a node tainted disk-pressure is not Ready",
        node(taints=(taint("node.kubernetes.io/disk-pressure"),)),
        Flags(),
        False,
        False,
    ),
    (
        "a node tainted network-unavailable is not Ready",
        node(taints=(taint("node.kubernetes.io/network-unavailable"),)),
        Flags(),
        False,
        False,
    ),
    (
        "a node tainted memory-pressure stays Ready",
        node(taints=(taint("node.kubernetes.io/memory-pressure"),)),
        Flags(),
        True,
        True,
    ),
    (
        "a cordoned node is Ready but no good template",
        node(unschedulable=True),
        Flags(),
        True,
        False,
    ),
    (
        "a node being deleted by the autoscaler is no good template",
        node(taints=(taint("ToBeDeletedByClusterAutoscaler"),)),
        Flags(),
        True,
        False,
    ),
    # core/static_autoscaler.go obtainNodeLists: utils/taints FilterOutNodesWithStartupTaints
    # drops a node holding a startup taint (IsStartupTaint: a --startup-taint or
    # --ignore-taint key, or the startup-taint or ignore-taint prefix) from the Ready nodes
    (
        "a node with a startup-taint prefixed taint is not Ready",
        node(taints=(taint("startup-taint.cluster-autoscaler.kubernetes.io/cni"),)),
        Flags(),
        False,
        False,
    ),
    (
        "a node with an ignore-taint prefixed taint is not Ready",
        node(taints=(taint("ignore-taint.cluster-autoscaler.kubernetes.io/gpu"),)),
        Flags(),
        False,
        False,
    ),
    (
        "a node with a --startup-taint key is not Ready",
        node(taints=(taint("example.com/booting"),)),
        Flags(startup_taints=("example.com/booting",)),
        False,
        False,
    ),
    (
        "a node with a status taint stays Ready",
        node(taints=(taint("status-taint.cluster-autoscaler.kubernetes.io/x"),)),
        Flags(status_taints=("example.com/x",)),
        True,
        True,
    ),
]


@pytest.mark.parametrize(
    ("view", "flags", "ready", "usable"), [c[1:] for c in USABLE], ids=[c[0] for c in USABLE]
)
def test_ready_and_usable(view: NodeView, flags: Flags, ready: bool, usable: bool) -> None:
    assert (is_ready(view, flags), is_usable(view, flags)) == (ready, usable)


def _pod(
    owner: str, requests: dict[str, int], terminating: bool = False, **more: Any
) -> ExistingPod:
    return ExistingPod(
        "kube-system",
        f"{owner.lower()}-pod",
        "n1",
        {},
        owners=((owner, "x"),),
        terminating=terminating,
        requests=requests,
        **more,
    )


def _daemon_set(name: str, cpu: str = "100m", critical: bool = False, **spec: Any) -> DaemonSet:
    pod_spec = {"containers": [container(requests={"cpu": cpu, "memory": "64Mi"})], **spec}
    millis = int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000
    return DaemonSet("kube-system", name, pod_spec, {"cpu": millis, "memory": 64 * MI}, critical)


MEMBER = node(
    "n1",
    cpu=4000,
    memory=16 * GI,
    labels={HOSTNAME: "n1", "pool": "a"},
    taints=(DEDICATED, taint("node.kubernetes.io/unschedulable")),
)
PORT = HostPort("0.0.0.0", "TCP", 9100)
ON_MEMBER = [
    _pod("DaemonSet", {"cpu": 100, "memory": 50 * MI}, ports=(PORT,), nonzero=(100, 50 * MI)),
    _pod("Node", {"cpu": 250}),
    _pod("ReplicaSet", {"cpu": 1000}),
    _pod("DaemonSet", {"cpu": 500}, terminating=True),
]


def _template_node(group: str, labels: dict[str, str], **view: Any) -> NodeView:
    name = f"template-node-for-{group}"
    fields: dict[str, Any] = {
        "taints": (),
        "unschedulable": False,
        "allocatable": {},
        "requested": {},
        "pod_count": 0,
        "used_ports": frozenset(),
        "nonzero": (0, 0),
    } | view
    return NodeView(name, {**labels, HOSTNAME: name, TEMPLATE: "true"}, **fields)


def test_a_members_template_keeps_its_daemonset_and_mirror_pods_only() -> None:
    template = from_member("g", MEMBER, ON_MEMBER, (), Flags(), cluster(MEMBER), DIALECT)
    assert template == Template(
        _template_node(
            "g",
            {"pool": "a"},
            taints=(DEDICATED,),
            allocatable=MEMBER.allocatable,
            requested={"cpu": 350, "memory": 50 * MI},
            pod_count=2,
            used_ports=frozenset({PORT}),
            nonzero=(350, 50 * MI),
        ),
        cores=4,
        memory=16 * GI,
        source="member n1",
    )


MISSING: list[tuple[str, Flags, list[DaemonSet], dict[str, int], int, tuple[str, ...]]] = [
    (
        "a DaemonSet missing from the member is not added without --force-ds",
        Flags(),
        [_daemon_set("agent", tolerations=[{"operator": "Exists"}])],
        {},
        0,
        (),
    ),
    (
        "a missing DaemonSet is added with --force-ds",
        Flags(force_ds=True),
        [_daemon_set("agent", tolerations=[{"operator": "Exists"}])],
        {"cpu": 100, "memory": 64 * MI},
        1,
        (),
    ),
    (
        "a missing system-node-critical DaemonSet is added without --force-ds",
        Flags(),
        [_daemon_set("agent", critical=True, tolerations=[{"operator": "Exists"}])],
        {"cpu": 100, "memory": 64 * MI},
        1,
        (),
    ),
    (
        "a DaemonSet already running on the member is not added twice",
        Flags(force_ds=True),
        [_daemon_set("x", tolerations=[{"operator": "Exists"}])],
        {},
        0,
        (),
    ),
    (
        # node_info_utils.go podsExpectedOnFreshNode marks a DaemonSet running by its UID:
        # one of the same name in another namespace is not the running one
        "a DaemonSet named as the running one but in another namespace is added with --force-ds",
        Flags(force_ds=True),
        [replace(_daemon_set("x", tolerations=[{"operator": "Exists"}]), namespace="monitoring")],
        {"cpu": 100, "memory": 64 * MI},
        1,
        (),
    ),
    (
        "a DaemonSet not tolerating the group's taint does not run there",
        Flags(force_ds=True),
        [_daemon_set("agent")],
        {},
        0,
        (),
    ),
    (
        "a DaemonSet whose nodeSelector the node does not match does not run there",
        Flags(force_ds=True),
        [_daemon_set("agent", nodeSelector={"pool": "b"}, tolerations=[{"operator": "Exists"}])],
        {},
        0,
        (),
    ),
    (
        # utils/daemonset/daemonset.go GetDaemonSetPodsForNode asks NodeShouldRunDaemonPod,
        # which weighs the node's name, affinity and taints, never its room:
        # simulator/node_info_utils.go podsExpectedOnFreshNode adds the pod all the same
        "a DaemonSet too big for the fresh node is named, and added all the same",
        Flags(force_ds=True),
        [
            _daemon_set("huge", cpu="5", tolerations=[{"operator": "Exists"}]),
            _daemon_set("agent", tolerations=[{"operator": "Exists"}]),
        ],
        {"cpu": 5100, "memory": 128 * MI},
        2,
        ("kube-system/huge",),
    ),
]


@pytest.mark.parametrize(
    ("flags", "daemon_sets", "added", "pods", "too_big"),
    [c[1:] for c in MISSING],
    ids=[c[0] for c in MISSING],
)
def test_missing_daemon_sets_on_a_members_template(
    flags: Flags,
    daemon_sets: list[DaemonSet],
    added: dict[str, int],
    pods: int,
    too_big: tuple[str, ...],
) -> None:
    running = [_pod("DaemonSet", {})]  # owned by the DaemonSet "x"
    template = from_member("g", MEMBER, running, daemon_sets, flags, cluster(MEMBER), DIALECT)
    assert (template.node.requested, template.node.pod_count - 1, template.too_big) == (
        added,
        pods,
        too_big,
    )


def test_a_configured_template_takes_every_daemonset_that_runs_there() -> None:
    configured = NodeTemplate(
        labels={"pool": "b"},
        taints=(taint("node.kubernetes.io/not-ready", effect="NoExecute"), DEDICATED),
        allocatable={"cpu": 3500, "memory": 8 * GI, "pods": 110},
        capacity={"cpu": 3500, "memory": 9 * GI},
    )
    daemon_sets = [
        _daemon_set("agent", tolerations=[{"operator": "Exists"}]),
        _daemon_set("picky", nodeSelector={"pool": "a"}, tolerations=[{"operator": "Exists"}]),
        _daemon_set("untolerating", cpu="200m"),
    ]
    template = from_configured(
        "g", configured, daemon_sets, Flags(), cluster(), DIALECT, "configured"
    )
    assert template == Template(
        _template_node(
            "g",
            {"pool": "b"},
            taints=(DEDICATED,),
            allocatable={"cpu": 3500, "memory": 8 * GI, "pods": 110},
            requested={"cpu": 100, "memory": 64 * MI},
            pod_count=1,
            nonzero=(100, 64 * MI),
        ),
        cores=4,
        memory=9 * GI,
        source="configured",
        millicores=3500,
    )


def test_a_daemonset_naming_no_requests_is_counted_at_the_nonzero_defaults() -> None:
    # NonZeroRequested: a container naming no cpu or memory counts 100m and 200Mi.
    bare = DaemonSet(
        "kube-system",
        "bare",
        {"containers": [container()], "tolerations": [{"operator": "Exists"}]},
        {},
    )
    configured = NodeTemplate(allocatable={"cpu": 2000, "memory": 4 * GI, "pods": 110})
    template = from_configured("g", configured, [bare], Flags(), cluster(), DIALECT, "configured")
    assert (template.node.requested, template.node.pod_count, template.node.nonzero) == (
        {},
        1,
        (100, 200 * MI),
    )


CAPACITY: list[tuple[str, NodeView, tuple[int, int]]] = [
    (
        "a node's recorded capacity is counted as recorded",
        NodeView("n", {}, (), False, {"cpu": 3500}, {}, 0, capacity=(4, 16 * GI)),
        (4, 16 * GI),
    ),
    (
        "without capacity the allocatable cpu is counted in whole cores, rounded up",
        node(cpu=3500, memory=8 * GI),
        (4, 8 * GI),
    ),
    ("whole cores stay whole", node(cpu=4000, memory=GI), (4, GI)),
]


@pytest.mark.parametrize(
    ("view", "expected"), [c[1:] for c in CAPACITY], ids=[c[0] for c in CAPACITY]
)
def test_node_capacity(view: NodeView, expected: tuple[int, int]) -> None:
    assert node_capacity(view) == expected


def test_a_configured_template_holds_its_daemonsets_host_ports() -> None:
    """simulator/node_info_utils.go ``SanitizedTemplateNodeInfoFromNodeGroup`` adds the
    DaemonSets' pods to the template's NodeInfo: NodePorts then finds their host ports
    taken (``node(s) didn't have free ports for the requested pod ports``), so a pod wanting
    one can never use a new node of the group."""
    exporter = _daemon_set(
        "node-exporter",
        tolerations=[{"operator": "Exists"}],
        containers=[
            container(
                requests={"cpu": "100m", "memory": "64Mi"},
                ports=[{"containerPort": 9100, "hostPort": 9100}],
            )
        ],
    )
    configured = NodeTemplate(
        labels={"pool": "b"}, allocatable={"cpu": 3500, "memory": 8 * GI, "pods": 110}
    )
    template = from_configured("g", configured, [exporter], Flags(), cluster(), DIALECT, "c")
    assert template.node.used_ports == frozenset({PORT})


STABLE = {
    "topology.kubernetes.io/zone": "eu-1a",
    "topology.kubernetes.io/region": "eu-1",
    "node.kubernetes.io/instance-type": "m5.large",
}
BETA = {
    "failure-domain.beta.kubernetes.io/zone": "eu-1a",
    "failure-domain.beta.kubernetes.io/region": "eu-1",
    "beta.kubernetes.io/instance-type": "m5.large",
}


# simulator/node_info_utils.go SanitizedTemplateNodeInfoFromNodeGroup calls
# utils/labels/labels.go UpdateDeprecatedLabels on the sanitized template, after
# podsExpectedOnFreshNode chose its DaemonSets; a member's template gets no such labels.
@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param(
            STABLE,
            {**STABLE, **BETA},
            id="a configured template gains the beta twins of its stable labels",
        ),
        pytest.param(
            {**STABLE, "failure-domain.beta.kubernetes.io/zone": "old"},
            {**STABLE, **BETA},
            id="a beta label already there takes the stable label's value",
        ),
        pytest.param(
            {"kubernetes.io/arch": "arm64", "failure-domain.beta.kubernetes.io/zone": "z"},
            {"kubernetes.io/arch": "arm64", "failure-domain.beta.kubernetes.io/zone": "z"},
            id="no stable label, no beta one added and none changed",
        ),
    ],
)
def test_a_configured_template_gains_the_deprecated_labels(
    labels: dict[str, str], expected: dict[str, str]
) -> None:
    beta_only = _daemon_set(
        "beta-only",
        nodeSelector={"failure-domain.beta.kubernetes.io/zone": "eu-1a"},
        tolerations=[{"operator": "Exists"}],
    )
    configured = NodeTemplate(labels=labels, allocatable={"cpu": 2000, "memory": 4 * GI})
    template = from_configured("g", configured, [beta_only], Flags(), cluster(), DIALECT, "c")
    assert template.node.labels == {
        **expected,
        HOSTNAME: "template-node-for-g",
        TEMPLATE: "true",
    }
    assert template.node.pod_count == 0  # its DaemonSets were chosen before: none selects beta


def test_a_members_template_gains_no_deprecated_label() -> None:
    member = node("m1", labels=STABLE)
    template = from_member("g", member, [], [], Flags(), cluster(member), DIALECT)
    assert not set(BETA) & set(template.node.labels)
