"""Karpenter's objects of a snapshot read into typed values (gate/snapshot/karpenter.py),
against kubernetes-sigs/karpenter v1.8.3 (pkg/apis/v1/nodepool.go, nodeclaim.go,
nodepool_status.go), aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go and
Azure/karpenter-provider-azure pkg/apis/v1beta1/aksnodeclass.go; readiness as checked
against v1.8.2's provisioner (pkg/controllers/provisioning/provisioner.go NewScheduler)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.errors import SnapshotError
from gate.model.karpenter import KarpenterState, NodeClaim, NodeClass, NodePool, Requirement
from gate.model.taints import Taint
from gate.snapshot.load import build_snapshot, snapshot_of_document
from gate.snapshot.state import AUTOSCALING_SECTIONS
from tests.builders import api_node
from tests.karpenter_objects import (
    aks_node_class,
    ec2_node_class,
    node_claim,
    node_pool,
    requirement,
)

ARCH = "kubernetes.io/arch"
CAPACITY_TYPE = "karpenter.sh/capacity-type"


def _list(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": [api_node("a"), *items]}


def _own(**arrays: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "nodes": [api_node("a")],
        "pods": [],
        **arrays,
    }


def _karpenter(document: dict[str, Any]) -> KarpenterState | None:
    """The state as the typed reader and the reference reader build it: always equal."""
    typed = snapshot_of_document(document, "s.json").autoscaling
    assert build_snapshot(document, "s.json").autoscaling == typed
    return None if typed is None else typed.karpenter


def test_a_pool_is_read_whole() -> None:
    pool = node_pool(
        "default",
        requirement(ARCH, "In", "amd64", "arm64", min_values=2),
        requirement(CAPACITY_TYPE, "NotIn", "spot"),
        requirement("karpenter.k8s.aws/instance-generation", "Gt", "5"),
        weight=10,
        labels={"team": "web"},
        taints=[{"key": "dedicated", "value": "web", "effect": "NoSchedule"}],
        startup_taints=[{"key": "node.cilium.io/agent-not-ready", "effect": "NoExecute"}],
        limits={"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": 4, "nodes": "50"},
    )
    assert _karpenter(_list(pool)) == KarpenterState(
        pools=(
            NodePool(
                name="default",
                weight=10,
                labels={"team": "web"},
                requirements=(
                    Requirement(ARCH, "In", ("amd64", "arm64"), 2),
                    Requirement(CAPACITY_TYPE, "NotIn", ("spot",)),
                    Requirement("karpenter.k8s.aws/instance-generation", "Gt", ("5",)),
                ),
                taints=(Taint("dedicated", "web", "NoSchedule"),),
                startup_taints=(Taint("node.cilium.io/agent-not-ready", "", "NoExecute"),),
                limits={"cpu": 1_000_000, "memory": 1000 * 2**30, "nvidia.com/gpu": 4, "nodes": 50},
                node_class=("karpenter.k8s.aws", "EC2NodeClass", "default"),
            ),
        )
    )


@pytest.mark.parametrize(
    ("statuses", "not_ready"),
    [
        pytest.param(
            {"Ready": "True", "ValidationSucceeded": "True", "NodeClassReady": "True"},
            "",
            id="all-three-true",
        ),
        pytest.param({"Ready": "True"}, "ValidationSucceeded is missing", id="ready-alone"),
        pytest.param(
            {"Ready": "Unknown", "ValidationSucceeded": "True", "NodeClassReady": "True"},
            "Ready is Unknown",
            id="ready-unknown",
        ),
        pytest.param(
            {"Ready": "True", "ValidationSucceeded": "True", "NodeClassReady": "False"},
            "NodeClassReady is False",
            id="node-class-not-ready",
        ),
        pytest.param({}, "Ready is missing", id="no-status"),
    ],
)
def test_a_pool_is_ready_only_when_three_conditions_are_true(
    statuses: dict[str, str], not_ready: str
) -> None:
    state = _karpenter(_list(node_pool("p", ready=statuses)))
    assert state is not None
    assert (state.pools[0].ready, state.pools[0].not_ready) == (not not_ready, not_ready)


def test_claims_and_node_classes_are_read() -> None:
    claim = node_claim(
        "default-abc12",
        "default",
        "a",
        labels={"node.kubernetes.io/instance-type": "m7i.xlarge"},
        capacity={"cpu": "4", "memory": "16Gi", "pods": "58"},
        allocatable={"cpu": "3920m", "memory": "15Gi", "pods": "58"},
        taints=[{"key": "k", "effect": "NoSchedule"}],
    )
    in_flight = node_claim("default-xyz98", "default")
    ec2 = ec2_node_class(
        maxPods=58,
        podsPerCore=4,
        kubeReserved={"cpu": "80m", "memory": "893Mi", "pid": "1000"},
        systemReserved={"ephemeral-storage": "1Gi"},
        evictionHard={"memory.available": "5%", "nodefs.available": "10Gi"},
        evictionSoft={"memory.available": "500Mi", "nodefs.available": "15%"},
    )
    state = _karpenter(
        _own(
            nodeClaims=[claim, in_flight],
            ec2NodeClasses=[ec2],
            aksNodeClasses=[aks_node_class(max_pods=30)],
        )
    )
    assert state == KarpenterState(
        claims=(
            NodeClaim(
                name="default-abc12",
                pool="default",
                labels={
                    "karpenter.sh/nodepool": "default",
                    "node.kubernetes.io/instance-type": "m7i.xlarge",
                },
                taints=(Taint("k", "", "NoSchedule"),),
                capacity={"cpu": 4000, "memory": 16 * 2**30, "pods": 58},
                allocatable={"cpu": 3920, "memory": 15 * 2**30, "pods": 58},
                node_name="a",
            ),
            NodeClaim(
                name="default-xyz98", pool="default", labels={"karpenter.sh/nodepool": "default"}
            ),
        ),
        node_classes=(
            NodeClass(
                kind="EC2NodeClass",
                name="default",
                max_pods=58,
                pods_per_core=4,
                kube_reserved={"cpu": 80, "memory": 893 * 2**20},
                system_reserved={"ephemeral-storage": 2**30},
                eviction_hard={"nodefs.available": 10 * 2**30},
                eviction_percent={"memory.available": "5%"},
                eviction_soft={"memory.available": 500 * 2**20},
                eviction_soft_percent={"nodefs.available": "15%"},
            ),
            NodeClass(
                kind="AKSNodeClass",
                name="default",
                max_pods=30,
                image_family="AzureLinux",
                os_disk_gb=128,
            ),
        ),
    )


def test_the_subnets_of_an_ec2_node_class_s_status_give_its_zone_ids() -> None:
    """karpenter-provider-aws v1.8.8 ec2nodeclass_status.go ``Subnet``: ``zoneID`` is
    optional; a subnet without one gives none."""
    node_class = ec2_node_class()
    node_class["status"]["subnets"] = [
        {"id": "subnet-1", "zone": "us-east-1a", "zoneID": "use1-az1"},
        {"id": "subnet-2", "zone": "us-east-1b", "zoneID": "use1-az2"},
        {"id": "subnet-3", "zone": "us-east-1c"},
    ]
    state = _karpenter(_list(node_class))
    assert state is not None
    assert state.node_classes[0].zone_ids == {"us-east-1a": "use1-az1", "us-east-1b": "use1-az2"}


@pytest.mark.parametrize(
    "version", [pytest.param("v1beta1", id="v1beta1"), pytest.param("v1alpha2", id="v1alpha2")]
)
def test_both_served_versions_of_aks_node_class_are_read(version: str) -> None:
    state = _karpenter(_list(aks_node_class(max_pods=50, version=version)))
    assert state is not None
    assert state.node_classes == (
        NodeClass(
            kind="AKSNodeClass",
            name="default",
            max_pods=50,
            image_family="AzureLinux",
            os_disk_gb=128,
        ),
    )


def test_a_static_pool_keeps_its_replicas_and_node_limit() -> None:
    """pkg/apis/v1/nodepool.go: a static pool (alpha ``spec.replicas``) may limit only
    ``nodes``, and has no weight."""
    pool = node_pool("static", replicas=3, limits={"nodes": "5"})
    state = _karpenter(_list(pool))
    assert state is not None
    assert (state.pools[0].replicas, state.pools[0].limits, state.pools[0].weight) == (
        3,
        {"nodes": 5},
        0,
    )


def test_a_snapshot_of_karpenter_alone_has_an_autoscaling_state() -> None:
    snapshot = snapshot_of_document(_list(node_pool("default")), "s.json")
    assert snapshot.autoscaling is not None
    assert snapshot.autoscaling.status is None
    assert [p.name for p in snapshot.autoscaling.karpenter.pools] == ["default"]  # type: ignore[union-attr]


def test_another_group_s_node_pool_is_not_karpenter_s() -> None:
    other = {**node_pool("gke"), "apiVersion": "container.example.com/v1"}
    assert snapshot_of_document(_list(other), "s.json").autoscaling is None


def test_without_karpenter_objects_there_is_no_karpenter_state() -> None:
    assert snapshot_of_document(_own(nodePools=[], nodeClaims=[]), "s.json").autoscaling is None


def _pool_with(**changes: Any) -> dict[str, Any]:
    pool = node_pool("p", requirement(ARCH, "In", "amd64"))
    template = pool["spec"]["template"]["spec"]
    for key, value in changes.items():
        if key in ("requirements", "taints", "startupTaints", "nodeClassRef"):
            template[key] = value
        else:
            pool["spec"][key] = value
    return pool


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        pytest.param(
            _pool_with(weight=101),
            'NodePool "p": spec.weight: 101 is not between 1 and 100',
            id="weight-too-high",
        ),
        pytest.param(
            _pool_with(weight="10"),
            "NodePool \"p\": spec.weight: not an integer: '10'",
            id="weight-text",
        ),
        pytest.param(
            _pool_with(limits={"cpu": "ten"}),
            'NodePool "p": spec.limits: invalid quantity "ten"',
            id="limit-quantity",
        ),
        pytest.param(
            _pool_with(limits={"nodes": "1x"}),
            'NodePool "p": spec.limits: invalid quantity "1x"',
            id="nodes-limit-quantity",
        ),
        pytest.param(
            _pool_with(requirements=[requirement(ARCH, "In")]),
            'NodePool "p": spec.template.spec.requirements[0].values: requirements with '
            "operator 'In' must have a value defined",
            id="in-without-values",
        ),
        pytest.param(
            _pool_with(requirements=[requirement(ARCH, "Equals", "amd64")]),
            "NodePool \"p\": spec.template.spec.requirements[0].operator: 'Equals' is not one of",
            id="unknown-operator",
        ),
        pytest.param(
            _pool_with(requirements=[requirement("cpu", "Gt", "-1")]),
            "requirements[0].values: requirements operator 'Gt' or 'Lt' must have a single "
            "positive integer value",
            id="gt-negative",
        ),
        pytest.param(
            _pool_with(requirements=[requirement(ARCH, "In", "amd64", min_values=2)]),
            "requirements[0].minValues: requirements with 'minValues' must have at least",
            id="min-values-above-values",
        ),
        pytest.param(
            _pool_with(requirements=[requirement(ARCH, "Exists", min_values=51)]),
            "requirements[0].minValues: 51 is not between 1 and 50",
            id="min-values-too-high",
        ),
        pytest.param(
            _pool_with(requirements=[requirement("kubernetes.io/hostname", "In", "n1")]),
            'NodePool "p": spec.template.spec.requirements[0].key: label '
            '"kubernetes.io/hostname" is restricted',
            id="requirement-on-hostname",
        ),
        pytest.param(
            _pool_with(requirements=[requirement("karpenter.sh/nodepool", "In", "p")]),
            'requirements[0].key: label "karpenter.sh/nodepool" is restricted',
            id="requirement-on-nodepool",
        ),
        pytest.param(
            _pool_with(requirements=[requirement("karpenter.sh/unknown", "Exists")]),
            'requirements[0].key: label domain "karpenter.sh" is restricted',
            id="requirement-karpenter-domain",
        ),
        pytest.param(
            node_pool("p", labels={"kubernetes.io/role": "web"}),
            'NodePool "p": spec.template.metadata.labels[kubernetes.io/role]: label domain '
            '"kubernetes.io" is restricted',
            id="label-kubernetes-domain",
        ),
        pytest.param(
            node_pool("p", labels={"a\nb": 5}),  # type: ignore[dict-item]
            'NodePool "p": spec.template.metadata.labels["a\\nb"]: not a string: 5',
            id="label-key-with-a-newline",
        ),
        pytest.param(
            node_pool("p", labels={"cluster.x-k8s.io/pool": "a"}),
            'labels[cluster.x-k8s.io/pool]: label domain "k8s.io" is restricted',
            id="label-k8s-domain",
        ),
        pytest.param(
            _pool_with(replicas=3, weight=10),
            "NodePool \"p\": spec.weight: 'weight' is not supported on static NodePools",
            id="static-pool-weight",
        ),
        pytest.param(
            _pool_with(replicas=3, limits={"cpu": "8", "nodes": "5"}),
            "NodePool \"p\": spec.limits: only 'limits.nodes' is supported on static NodePools",
            id="static-pool-cpu-limit",
        ),
        pytest.param(
            _pool_with(replicas=-1),
            'NodePool "p": spec.replicas: -1 is not at least 0',
            id="replicas-negative",
        ),
        pytest.param(
            _pool_with(taints=[{"key": "k", "effect": "Sometimes"}]),
            'NodePool "p": spec.template.spec.taints[0].effect: not one of NoExecute, '
            "NoSchedule, PreferNoSchedule",
            id="taint-effect",
        ),
        pytest.param(
            _pool_with(requirements={"key": ARCH}),
            'NodePool "p": spec.template.spec.requirements: not a list',
            id="requirements-not-a-list",
        ),
        pytest.param(
            {**node_pool("p"), "metadata": {}},
            'NodePool "?": metadata.name: missing',
            id="pool-without-name",
        ),
        pytest.param(
            node_claim("c", "p", capacity={"cpu": "4 cores"}),
            'NodeClaim "c": status.capacity: invalid quantity "4 cores"',
            id="claim-capacity",
        ),
        pytest.param(
            node_claim("c", "p", capacity={"cpu": "-1000"}),
            'NodeClaim "c": status.capacity[cpu]: negative: must be greater than or equal to 0',
            id="a claim of negative cpu capacity is refused",
        ),
        pytest.param(
            node_claim("c", "p", allocatable={"memory": "-8Gi"}),
            'NodeClaim "c": status.allocatable[memory]: negative: must be greater than or equal '
            "to 0",
            id="a claim of negative allocatable memory is refused",
        ),
        pytest.param(
            ec2_node_class(kubeReserved={"gpu": "1"}),
            'EC2NodeClass "default": spec.kubelet.kubeReserved: valid keys are cpu, '
            "ephemeral-storage, memory, pid: not 'gpu'",
            id="reserved-key",
        ),
        pytest.param(
            ec2_node_class(systemReserved={"memory": "-1Gi"}),
            'EC2NodeClass "default": spec.kubelet.systemReserved[memory]: cannot be a negative',
            id="reserved-negative",
        ),
        pytest.param(
            ec2_node_class(evictionHard={"memory.available": "lots"}),
            'EC2NodeClass "default": spec.kubelet.evictionHard[memory.available]: invalid',
            id="eviction-quantity",
        ),
        pytest.param(
            ec2_node_class(maxPods=-1),
            'EC2NodeClass "default": spec.kubelet.maxPods: -1 is not at least 0',
            id="max-pods-negative",
        ),
        pytest.param(
            aks_node_class(max_pods=5),
            'AKSNodeClass "default": spec.maxPods: 5 is not between 10 and 250',
            id="aks-max-pods",
        ),
        pytest.param(
            {**aks_node_class(), "spec": {"osDiskSizeGB": 20}},
            'AKSNodeClass "default": spec.osDiskSizeGB: 20 is not between 30 and 2048',
            id="an OS disk below the CRD's minimum is refused",
        ),
        pytest.param(
            {**aks_node_class(), "spec": {"security": {"encryptionAtHost": "yes"}}},
            "AKSNodeClass \"default\": spec.security.encryptionAtHost: not a boolean: 'yes'",
            id="encryption at host that is not a boolean is refused",
        ),
        pytest.param(
            ec2_node_class() | {"status": {"subnets": [{"zone": 1}]}},
            'EC2NodeClass "default": status.subnets[0].zone: not a string: 1',
            id="a subnet's zone that is not a string is refused",
        ),
    ],
)
def test_what_the_api_server_would_refuse_is_one_line(obj: dict[str, Any], message: str) -> None:
    section = {v: k for k, v in AUTOSCALING_SECTIONS.items()}[obj["kind"]]
    for document in (_list(obj), _own(**{section: [obj]})):
        with pytest.raises(SnapshotError) as raised:
            snapshot_of_document(document, "s.json")
        text = str(raised.value)
        assert message in text and "\n" not in text


@pytest.mark.parametrize(
    ("objects", "message"),
    [
        pytest.param(
            [node_pool("p"), node_pool("p")],
            'NodePool "p": recorded twice; a cluster holds one of a name',
            id="two node pools with one name would double its limits",
        ),
        pytest.param(
            [node_claim("c", "p"), node_claim("c", "q")],
            'NodeClaim "c": recorded twice; a cluster holds one of a name',
            id="two node claims with one name",
        ),
        pytest.param(
            [ec2_node_class(), ec2_node_class()],
            'EC2NodeClass "default": recorded twice; a cluster holds one of a name',
            id="two node classes with one name",
        ),
    ],
)
def test_two_objects_of_one_kind_and_name_are_one_line(
    objects: list[dict[str, Any]], message: str
) -> None:
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(*objects), "s.json")
        assert str(raised.value) == message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_PLACES = [
    ("NodePool", ("spec", "weight")),
    ("NodePool", ("spec", "limits")),
    ("NodePool", ("spec", "template", "metadata", "labels")),
    ("NodePool", ("spec", "template", "spec", "requirements")),
    ("NodePool", ("spec", "template", "spec", "taints")),
    ("NodePool", ("spec", "template", "spec", "nodeClassRef")),
    ("NodePool", ("status", "conditions")),
    ("NodeClaim", ("status", "capacity")),
    ("NodeClaim", ("metadata", "labels")),
    ("EC2NodeClass", ("spec", "kubelet")),
    ("AKSNodeClass", ("spec", "maxPods")),
]


@settings(max_examples=60, deadline=None)
@given(place=st.sampled_from(_PLACES), value=_JSON)
def test_any_value_anywhere_is_a_state_or_one_line(
    place: tuple[str, tuple[str, ...]], value: Any
) -> None:
    """Untrusted input: whatever a field holds, both readers answer with a state or a
    SnapshotError of one line, never a traceback."""
    kind, path = place
    obj = {
        "NodePool": lambda: node_pool("p", requirement(ARCH, "In", "amd64")),
        "NodeClaim": lambda: node_claim("c", "p", "a"),
        "EC2NodeClass": lambda: ec2_node_class(),
        "AKSNodeClass": lambda: aks_node_class(),
    }[kind]()
    target = obj
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value
    for reader in (snapshot_of_document, build_snapshot):
        try:
            reader(_list(obj), "s.json")
        except SnapshotError as exc:
            assert "\n" not in str(exc)


def _device(name: str, size: str | None = None, root: bool = False) -> dict[str, Any]:
    device: dict[str, Any] = {
        "deviceName": name,
        "ebs": {} if size is None else {"volumeSize": size},
    }
    if root:
        device["rootVolume"] = True
    return device


@pytest.mark.parametrize(
    ("devices", "volume"),
    [
        pytest.param([], None, id="no block devices leave the AMI family's default"),
        pytest.param(
            [_device("/dev/xvdb", "50Gi"), _device("/dev/xvdc", "80Gi", root=True)],
            80 * 2**30,
            id="the device marked rootVolume holds ephemeral storage",
        ),
        pytest.param(
            [_device("/dev/xvdb", "50Gi"), _device("/dev/xvda", "100G")],
            100 * 10**9,
            id="without a root volume AL2023's /dev/xvda holds it",
        ),
        pytest.param(
            [_device("/dev/xvdc", root=True), _device("/dev/xvda", "60Gi")],
            60 * 2**30,
            id="a root volume with no size gives way to /dev/xvda",
        ),
        pytest.param(
            [_device("/dev/xvdb", "50Gi")], None, id="another device alone leaves the default"
        ),
    ],
)
def test_the_ephemeral_storage_volume_of_an_ec2_node_class(
    devices: list[dict[str, Any]], volume: int | None
) -> None:
    """karpenter-provider-aws types.go ``ephemeralStorage`` (357-393) for AL2023."""
    obj = ec2_node_class()
    obj["spec"]["blockDeviceMappings"] = devices
    state = _karpenter(_own(ec2NodeClasses=[obj]))
    assert state is not None and state.node_classes[0].root_volume == volume
