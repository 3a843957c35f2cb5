"""Karpenter's objects read into typed values (gate.snapshot.karpenter) under the rules of
their CRDs (sigs.k8s.io/karpenter v1.8.3 pkg/apis/v1/nodepool.go and
pkg/apis/crds/karpenter.sh_nodepools.yaml; aws/karpenter-provider-aws
pkg/apis/v1/ec2nodeclass.go; Azure/karpenter-provider-azure
pkg/apis/v1beta1/aksnodeclass.go): what the API server would refuse is one line naming
the object and the field."""

from __future__ import annotations

from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.model.karpenter import KarpenterState, NodeClaim, NodeClass, NodePool, Requirement
from gate.model.taints import Taint
from gate.snapshot.karpenter import (
    is_karpenter,
    karpenter_state,
    node_claim,
    node_class,
    node_pool,
    restricted,
    shown_key,
)

GI = 2**30
READY = [{"type": t, "status": "True"} for t in ("Ready", "ValidationSucceeded", "NodeClassReady")]

RESTRICTED: list[tuple[str, str, str | None]] = [
    ("a key of the user's own domain is allowed", "team", None),
    ("a well-known kubernetes.io label is allowed", "topology.kubernetes.io/zone", None),
    (
        "the hostname is restricted by name",
        "kubernetes.io/hostname",
        'label "kubernetes.io/hostname" is restricted',
    ),
    (
        "the pool's own label is restricted by name",
        "karpenter.sh/nodepool",
        'label "karpenter.sh/nodepool" is restricted',
    ),
    (
        "another kubernetes.io label is restricted by domain",
        "kubernetes.io/role",
        'label domain "kubernetes.io" is restricted',
    ),
    ("node.kubernetes.io labels are allowed", "node.kubernetes.io/pool", None),
    ("node-restriction.kubernetes.io labels are allowed", "node-restriction.kubernetes.io/x", None),
    ("a k8s.io domain is restricted", "x.k8s.io/a", 'label domain "k8s.io" is restricted'),
    ("kops.k8s.io is allowed", "kops.k8s.io/instancegroup", None),
    ("the capacity type is allowed", "karpenter.sh/capacity-type", None),
    (
        "another karpenter.sh label is restricted",
        "karpenter.sh/x",
        'label domain "karpenter.sh" is restricted',
    ),
]


@pytest.mark.parametrize(
    ("key", "expected"), [c[1:] for c in RESTRICTED], ids=[c[0] for c in RESTRICTED]
)
def test_restricted(key: str, expected: str | None) -> None:
    assert restricted(key) == expected


def test_a_plain_key_is_shown_as_written_any_other_quoted() -> None:
    assert [shown_key("memory.available"), shown_key("a b"), shown_key("a\nb")] == [
        "memory.available",
        '"a b"',
        '"a\\nb"',
    ]


KARPENTERS: list[tuple[str, str, dict[str, Any], bool]] = [
    ("a NodePool of karpenter.sh", "NodePool", {"apiVersion": "karpenter.sh/v1"}, True),
    ("a NodePool of another group", "NodePool", {"apiVersion": "example.com/v1"}, False),
    ("an object without apiVersion is taken as Karpenter's", "NodePool", {}, True),
    ("an apiVersion without a group is not", "NodeClaim", {"apiVersion": "v1"}, False),
    (
        "an AKSNodeClass of karpenter.azure.com",
        "AKSNodeClass",
        {"apiVersion": "karpenter.azure.com/v1beta1"},
        True,
    ),
    (
        "an EC2NodeClass of karpenter.k8s.aws",
        "EC2NodeClass",
        {"apiVersion": "karpenter.k8s.aws/v1"},
        True,
    ),
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), [c[1:] for c in KARPENTERS], ids=[c[0] for c in KARPENTERS]
)
def test_is_karpenter(kind: str, obj: dict[str, Any], expected: bool) -> None:
    assert is_karpenter(kind, obj) is expected


def _pool(spec: dict[str, Any], conditions: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": "default"},
        "spec": spec,
        "status": {"conditions": READY if conditions is None else conditions},
    }


def _template(**pod: Any) -> dict[str, Any]:
    return {"template": {"spec": pod}}


POOLS: list[tuple[str, dict[str, Any], NodePool]] = [
    ("an empty Ready pool", _pool({}), NodePool("default")),
    (
        "weight, labels, requirements, taints, limits and its NodeClass",
        _pool(
            {
                "weight": 10,
                "limits": {"cpu": "100", "memory": "400Gi", "nodes": "20"},
                "template": {
                    "metadata": {"labels": {"team": "a"}},
                    "spec": {
                        "requirements": [
                            {
                                "key": "karpenter.sh/capacity-type",
                                "operator": "In",
                                "values": ["spot"],
                            },
                            {
                                "key": "karpenter.k8s.aws/instance-cpu",
                                "operator": "Gt",
                                "values": ["3"],
                            },
                        ],
                        "taints": [{"key": "gpu", "effect": "NoSchedule"}],
                        "startupTaints": [{"key": "init", "value": "1", "effect": "NoExecute"}],
                        "nodeClassRef": {
                            "group": "karpenter.k8s.aws",
                            "kind": "EC2NodeClass",
                            "name": "d",
                        },
                    },
                },
            }
        ),
        NodePool(
            "default",
            weight=10,
            labels={"team": "a"},
            requirements=(
                Requirement("karpenter.sh/capacity-type", "In", ("spot",)),
                Requirement("karpenter.k8s.aws/instance-cpu", "Gt", ("3",)),
            ),
            taints=(Taint("gpu", "", "NoSchedule"),),
            startup_taints=(Taint("init", "1", "NoExecute"),),
            limits={"cpu": 100_000, "memory": 400 * GI, "nodes": 20},
            node_class=("karpenter.k8s.aws", "EC2NodeClass", "d"),
        ),
    ),
    (
        "a pool missing a condition is not Ready, and says which",
        _pool({}, READY[:1]),
        NodePool("default", ready=False, not_ready="ValidationSucceeded is missing"),
    ),
    (
        "a pool with a condition False says so",
        _pool({}, [READY[0], {"type": "ValidationSucceeded", "status": "False"}, READY[2]]),
        NodePool("default", ready=False, not_ready="ValidationSucceeded is False"),
    ),
    (
        "a pool with a deletionTimestamp is being deleted",
        {**_pool({}), "metadata": {"name": "default", "deletionTimestamp": "2026-08-16T10:00:00Z"}},
        NodePool("default", deleting=True),
    ),
    (
        "a static pool keeps its replicas",
        _pool({"replicas": 3, "limits": {"nodes": "5"}}),
        NodePool("default", replicas=3, limits={"nodes": 5}),
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in POOLS], ids=[c[0] for c in POOLS])
def test_node_pool(obj: dict[str, Any], expected: NodePool) -> None:
    assert node_pool(obj) == expected


REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("a pool without a name", {"metadata": {}}, 'NodePool "?": metadata.name: missing'),
    (
        "a weight past 100",
        _pool({"weight": 101}),
        'NodePool "default": spec.weight: 101 is not between 1 and 100',
    ),
    (
        "a weight that is a string",
        _pool({"weight": "5"}),
        "NodePool \"default\": spec.weight: not an integer: '5'",
    ),
    (
        "a restricted template label",
        _pool({"template": {"metadata": {"labels": {"kubernetes.io/hostname": "x"}}}}),
        'NodePool "default": spec.template.metadata.labels[kubernetes.io/hostname]: '
        'label "kubernetes.io/hostname" is restricted',
    ),
    (
        "an In requirement without values",
        _pool(_template(requirements=[{"key": "team", "operator": "In"}])),
        'NodePool "default": spec.template.spec.requirements[0].values: '
        "requirements with operator 'In' must have a value defined",
    ),
    (
        "a Gt requirement that is not one positive integer",
        _pool(_template(requirements=[{"key": "cpu", "operator": "Gt", "values": ["-1"]}])),
        'NodePool "default": spec.template.spec.requirements[0].values: '
        "requirements operator 'Gt' or 'Lt' must have a single positive integer value",
    ),
    (
        "an unknown operator",
        _pool(_template(requirements=[{"key": "team", "operator": "Like"}])),
        'NodePool "default": spec.template.spec.requirements[0].operator: '
        "'Like' is not one of DoesNotExist, Exists, Gt, In, Lt, NotIn",
    ),
    (
        "minValues above the values given",
        _pool(
            _template(
                requirements=[{"key": "team", "operator": "In", "values": ["a"], "minValues": 2}]
            )
        ),
        'NodePool "default": spec.template.spec.requirements[0].minValues: '
        "requirements with 'minValues' must have at least that many values specified in the "
        "'values' field",
    ),
    (
        "a taint of an unknown effect",
        _pool(_template(taints=[{"key": "a", "effect": "Never"}])),
        'NodePool "default": spec.template.spec.taints[0].effect: '
        "not one of NoExecute, NoSchedule, PreferNoSchedule",
    ),
    (
        "a weight on a static pool",
        _pool({"replicas": 1, "weight": 5}),
        "NodePool \"default\": spec.weight: 'weight' is not supported on static NodePools",
    ),
    (
        "limits other than nodes on a static pool",
        _pool({"replicas": 1, "limits": {"cpu": "4"}}),
        "NodePool \"default\": spec.limits: only 'limits.nodes' is supported on static NodePools",
    ),
]


@pytest.mark.parametrize(("obj", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_what_the_crd_refuses_is_one_line(obj: dict[str, Any], message: str) -> None:
    with pytest.raises(SnapshotError) as raised:
        node_pool(obj)
    assert str(raised.value) == message


def test_a_node_claim_reads_its_pool_from_its_label() -> None:
    claim = {
        "metadata": {"name": "c1", "labels": {"karpenter.sh/nodepool": "default", "zone": "a"}},
        "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        "status": {
            "capacity": {"cpu": "4", "memory": "16Gi"},
            "allocatable": {"cpu": "3900m"},
            "nodeName": "n1",
        },
    }
    assert node_claim(claim) == NodeClaim(
        name="c1",
        pool="default",
        labels={"karpenter.sh/nodepool": "default", "zone": "a"},
        taints=(Taint("gpu", "", "NoSchedule"),),
        capacity={"cpu": 4000, "memory": 16 * GI},
        allocatable={"cpu": 3900},
        node_name="n1",
    )


@pytest.mark.parametrize(
    ("meta", "conditions", "deleting"),
    [
        pytest.param({}, [], False, id="a NodeClaim neither deleted nor terminating stays"),
        pytest.param(
            {"deletionTimestamp": "2026-08-16T10:00:00Z"}, [], True, id="a deleted one is leaving"
        ),
        pytest.param(
            {},
            [{"type": "InstanceTerminating", "status": "True"}],
            True,
            id="one whose instance is terminating is leaving",
        ),
        pytest.param(
            {},
            [{"type": "InstanceTerminating", "status": "False"}],
            False,
            id="InstanceTerminating False leaves it",
        ),
    ],
)
def test_a_node_claim_being_deleted(
    meta: dict[str, Any], conditions: list[dict[str, str]], deleting: bool
) -> None:
    """statenode.go ``Deleted``: a deletionTimestamp or the InstanceTerminating condition."""
    claim = {"metadata": {"name": "c1", **meta}, "status": {"conditions": conditions}}
    assert node_claim(claim).deleting is deleting


CLASSES: list[tuple[str, str, dict[str, Any], NodeClass]] = [
    (
        "an EC2NodeClass's kubelet settings, a percentage threshold kept as written",
        "EC2NodeClass",
        {
            "kubelet": {
                "maxPods": 58,
                "podsPerCore": 4,
                "kubeReserved": {"cpu": "100m", "memory": "1Gi"},
                "systemReserved": {"memory": "512Mi"},
                "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%"},
            }
        },
        NodeClass(
            "EC2NodeClass",
            "d",
            max_pods=58,
            pods_per_core=4,
            kube_reserved={"cpu": 100, "memory": GI},
            system_reserved={"memory": 512 * 2**20},
            eviction_hard={"memory.available": 100 * 2**20},
            eviction_percent={"nodefs.available": "10%"},
            ready=False,
        ),
    ),
    (
        "an AKSNodeClass's maxPods",
        "AKSNodeClass",
        {"maxPods": 30},
        NodeClass("AKSNodeClass", "d", max_pods=30, ready=False),
    ),
]


@pytest.mark.parametrize(
    ("kind", "spec", "expected"), [c[1:] for c in CLASSES], ids=[c[0] for c in CLASSES]
)
def test_node_class(kind: str, spec: dict[str, Any], expected: NodeClass) -> None:
    assert node_class(kind, {"metadata": {"name": "d"}, "spec": spec}) == expected


CLASS_REFUSED: list[tuple[str, str, dict[str, Any], str]] = [
    (
        "an AKS maxPods below 10",
        "AKSNodeClass",
        {"maxPods": 5},
        'AKSNodeClass "d": spec.maxPods: 5 is not between 10 and 250',
    ),
    (
        "a reserved key EC2 does not know",
        "EC2NodeClass",
        {"kubelet": {"kubeReserved": {"gpu": "1"}}},
        'EC2NodeClass "d": spec.kubelet.kubeReserved: '
        "valid keys are cpu, ephemeral-storage, memory, pid: not 'gpu'",
    ),
    (
        "a negative reserved amount",
        "EC2NodeClass",
        {"kubelet": {"systemReserved": {"cpu": "-1"}}},
        'EC2NodeClass "d": spec.kubelet.systemReserved[cpu]: '
        "cannot be a negative resource quantity",
    ),
    (
        "an eviction signal EC2 does not know",
        "EC2NodeClass",
        {"kubelet": {"evictionHard": {"cpu.available": "1"}}},
        'EC2NodeClass "d": spec.kubelet.evictionHard: '
        "valid keys are imagefs.available, imagefs.inodesFree, "
        "memory.available, nodefs.available, nodefs.inodesFree, pid.available: not 'cpu.available'",
    ),
]


@pytest.mark.parametrize(
    ("kind", "spec", "message"), [c[1:] for c in CLASS_REFUSED], ids=[c[0] for c in CLASS_REFUSED]
)
def test_what_a_node_class_crd_refuses_is_one_line(
    kind: str, spec: dict[str, Any], message: str
) -> None:
    with pytest.raises(SnapshotError) as raised:
        node_class(kind, {"metadata": {"name": "d"}, "spec": spec})
    assert str(raised.value) == message


def test_a_snapshot_without_karpenters_objects_has_no_state() -> None:
    other = {"NodePool": [{"apiVersion": "example.com/v1", "metadata": {"name": "x"}}]}
    assert karpenter_state(other) is None
    assert karpenter_state({}) is None


def test_the_state_holds_karpenters_objects_only_node_classes_ec2_first() -> None:
    objects: dict[str, list[Any]] = {
        "NodePool": [
            _pool({}),
            {"apiVersion": "example.com/v1", "metadata": {"name": "x"}},
            "junk",
        ],
        "AKSNodeClass": [{"metadata": {"name": "a"}}],
        "EC2NodeClass": [{"metadata": {"name": "e"}}],
    }
    assert karpenter_state(objects) == KarpenterState(
        pools=(NodePool("default"),),
        claims=(),
        node_classes=(
            NodeClass("EC2NodeClass", "e", ready=False),
            NodeClass("AKSNodeClass", "a", ready=False),
        ),
    )
