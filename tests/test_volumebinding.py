"""VolumeBinding, row by row as upstream's table (pkg/scheduler/framework/plugins/
volumebinding/volume_binding_test.go, v1.34: TestVolumeBinding's PreFilter and Filter
statuses; its scores are not a filter's). Upstream's ``makeNode`` labels a node with its
hostname, ``withBoundPV`` names the volume and sets ``pv.kubernetes.io/bind-completed``, and
its classes name no provisioner, so an unmatched waiting claim cannot be provisioned."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Code, NodeView
from gate.model.storage import StorageObjects
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.volumebinding import PLUGIN
from gate.scheduler.plugins.volumebinding.binder import (
    REASON_BIND_CONFLICT,
    REASON_NODE_CONFLICT,
    REASON_VOLUME_MISSING,
)
from tests.builders import node
from tests.volume_support import (
    DIALECT,
    NAMESPACE,
    claim,
    cluster_of,
    run_plugin,
    storage,
    storage_class,
    volume,
    with_claims,
)

HOSTNAME = "kubernetes.io/hostname"
CLASSES = (
    storage_class("immediate-sc", volumeBindingMode="Immediate"),
    storage_class("wait-sc", volumeBindingMode="WaitForFirstConsumer"),
    storage_class("wait-hdd-sc", volumeBindingMode="WaitForFirstConsumer"),
)


def _node(name: str, **labels: str) -> NodeView:
    return node(name, labels={HOSTNAME: name, **labels})


def _pvc(name: str, class_name: str, pv: str = "", **spec: Any) -> dict[str, Any]:
    return claim(name, storageClassName=class_name, volumeName=pv, bound=bool(pv), **spec)


def _pv(name: str, class_name: str, on: dict[str, list[str]] | None = None, **spec: Any) -> Any:
    if on:
        terms = [
            {"matchExpressions": [{"key": k, "operator": "In", "values": v}]} for k, v in on.items()
        ]
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    phase = spec.pop("phase", "Available")
    return volume(name, storageClassName=class_name, status={"phase": phase}, **spec)


def _objects(*objects: dict[str, Any]) -> StorageObjects:
    return storage(*CLASSES, *objects)


def _status(*reasons: str) -> Rejection:
    return Rejection("VolumeBinding", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)


def _sized(size: str) -> dict[str, Any]:
    return {"resources": {"requests": {"storage": size}}}


LOCAL = [
    _pv(f"pv-{n}-{i}", "wait-sc", {HOSTNAME: [f"node-{n}"]}, capacity={"storage": size})
    for n, size in (("a", "200Gi"), ("b", "100Gi"))
    for i in (0, 1)
]
CASES = [
    pytest.param([], _objects(), [_node("node-a")], None, [None], id="a pod without claims passes"),
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "wait-sc", "pv-a"), _pv("pv-a", "wait-sc")),
        [_node("node-a")],
        None,
        [None],
        id="all bound passes",
    ),
    pytest.param(
        ["pvc-a", "pvc-b"],
        _objects(
            _pvc("pvc-a", "wait-sc", "pv-a"),
            _pvc("pvc-b", "wait-sc", "pv-b"),
            _pv("pv-a", "wait-sc", {HOSTNAME: ["node-a"]}, phase="Bound"),
            _pv("pv-b", "wait-sc", {HOSTNAME: ["node-a"]}, phase="Bound"),
        ),
        [_node("node-a")],
        None,
        [None],
        id="all bound with local volumes on the node passes",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(),
        [_node("node-a")],
        _status('persistentvolumeclaim "pvc-a" not found'),
        None,
        id="a claim that does not exist is the PreFilter's rejection",
    ),
    pytest.param(
        ["pvc-a", "pvc-b"],
        _objects(_pvc("pvc-a", "wait-sc", "pv-a")),
        [_node("node-a")],
        _status('persistentvolumeclaim "pvc-b" not found'),
        None,
        id="a part of the claims that does not exist is the PreFilter's rejection",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "immediate-sc")),
        [_node("node-a")],
        _status("pod has unbound immediate PersistentVolumeClaims"),
        None,
        id="an unbound immediate claim is the PreFilter's rejection",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "wait-sc")),
        [_node("node-a")],
        None,
        [_status(REASON_BIND_CONFLICT)],
        id="an unbound claim without a match is a bind conflict",
    ),
    pytest.param(
        ["pvc-a", "pvc-b"],
        _objects(
            _pvc("pvc-a", "wait-sc", "pv-a"),
            _pvc("pvc-b", "wait-sc"),
            _pv("pv-a", "wait-sc", {"foo": ["bar"]}),
        ),
        [_node("node-a", foo="barbar")],
        None,
        [_status(REASON_NODE_CONFLICT, REASON_BIND_CONFLICT)],
        id="a bound and an unbound claim unsatisfied give both reasons",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "wait-sc", "pv-a")),
        [_node("node-a")],
        None,
        [_status(REASON_VOLUME_MISSING)],
        id="a claim bound to a volume not found is the Filter's rejection",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "wait-sc", "pv-a", status={"phase": "Lost"})),
        [_node("node-a")],
        _status('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'),
        None,
        id="a lost claim is the PreFilter's rejection",
    ),
    # volume_binding.go podHasPVCs: each claim in the pod's order, lost before deleted
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "wait-sc", meta={"deletionTimestamp": "2026-01-01T00:00:00Z"})),
        [_node("node-a")],
        _status('persistentvolumeclaim "pvc-a" is being deleted'),
        None,
        id="a claim being deleted is the PreFilter's rejection",
    ),
    pytest.param(
        ["pvc-a", "pvc-b"],
        _objects(
            _pvc("pvc-a", "wait-sc", meta={"deletionTimestamp": "2026-01-01T00:00:00Z"}),
            _pvc("pvc-b", "wait-sc", "pv-b", status={"phase": "Lost"}),
        ),
        [_node("node-a")],
        _status('persistentvolumeclaim "pvc-a" is being deleted'),
        None,
        id="of two refused claims the first the pod mounts is named",
    ),
    pytest.param(
        ["pvc-a", "pvc-b"],
        _objects(_pvc("pvc-a", "immediate-sc"), _pvc("pvc-b", "wait-sc", status={"phase": "Lost"})),
        [_node("node-a")],
        _status('persistentvolumeclaim "pvc-b" bound to non-existent persistentvolume ""'),
        None,
        id="a lost claim is named before another claim is found unbound",
    ),
    # GetPodVolumeClaims and IsDelayBindingMode: a class not found binds at once, and a
    # claim naming its volume before the bind completed is pre-bound, so immediate
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "gone-sc")),
        [_node("node-a")],
        _status("pod has unbound immediate PersistentVolumeClaims"),
        None,
        id="an unbound claim of a class not found is an immediate one",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(claim("pvc-a", storageClassName="wait-sc", volumeName="pv-a")),
        [_node("node-a")],
        _status("pod has unbound immediate PersistentVolumeClaims"),
        None,
        id="a waiting claim naming its volume before the bind completed is an immediate one",
    ),
    # checkBoundClaims: the first bound claim refused decides; a missing volume is no
    # node conflict
    pytest.param(
        ["pvc-a", "pvc-b"],
        _objects(
            _pvc("pvc-a", "wait-sc", "pv-gone"),
            _pvc("pvc-b", "wait-sc", "pv-b"),
            _pv("pv-b", "wait-sc", {"foo": ["bar"]}),
        ),
        [_node("node-a", foo="barbar")],
        None,
        [_status(REASON_VOLUME_MISSING)],
        id="a missing volume before a conflicting one is the only reason",
    ),
    pytest.param(
        ["pvc-b", "pvc-a"],
        _objects(
            _pvc("pvc-a", "wait-sc", "pv-gone"),
            _pvc("pvc-b", "wait-sc", "pv-b"),
            _pv("pv-b", "wait-sc", {"foo": ["bar"]}),
        ),
        [_node("node-a", foo="barbar")],
        None,
        [_status(REASON_NODE_CONFLICT)],
        id="a conflicting volume before a missing one is the only reason",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(
            _pvc("pvc-a", "wait-sc", "pv-a"),
            volume(
                "pv-a",
                nodeAffinity={
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "foo", "operator": "In", "values": ["x"]}
                                ]
                            },
                            {"matchExpressions": [{"key": HOSTNAME, "operator": "Exists"}]},
                        ]
                    }
                },
            ),
        ),
        [_node("node-a")],
        None,
        [None],
        id="a bound volume's node affinity terms are ORed",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(
            _pvc("pvc-a", "wait-sc", "pv-a"),
            volume(
                "pv-a",
                nodeAffinity={
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["node-a"]}
                                ]
                            }
                        ]
                    }
                },
            ),
        ),
        [_node("node-a")],
        None,
        [_status(REASON_NODE_CONFLICT)],
        id="a bound volume's node affinity naming the node by its fields matches no node",
    ),
    pytest.param(
        ["pvc-a"],
        _objects(_pvc("pvc-a", "wait-sc", **_sized("50Gi")), *LOCAL),
        [_node("node-a"), _node("node-b"), _node("node-c")],
        None,
        [None, None, _status(REASON_BIND_CONFLICT)],
        id="local volumes bind only on their nodes",
    ),
]


@pytest.mark.parametrize(("claims", "objects", "nodes", "pre_filter", "filtered"), CASES)
def test_volume_binding(
    claims: list[str],
    objects: StorageObjects,
    nodes: list[NodeView],
    pre_filter: Rejection | None,
    filtered: list[Rejection | None] | None,
) -> None:
    answers = [run_plugin(PLUGIN, with_claims(*claims), objects, n) for n in nodes]
    assert [refused for refused, _ in answers] == [pre_filter] * len(nodes)
    if filtered is not None:
        assert [checked for _, checked in answers] == filtered


PRE_BOUND = {"claimRef": {"name": "pvc-a", "namespace": NAMESPACE}}
NODES_AB = [_node("node-a"), _node("node-b")]
# binder.go findMatchingVolumes hands FindMatchingVolume (pv_helpers.go) only the volumes
# of the claim's class (assume_cache.go ListPVs: the PV cache indexed by
# pvStorageClassIndexFunc), so its claimRef shortcut never meets a volume of another class
PRE_BOUND_CASES = [
    pytest.param(
        _objects(
            _pvc("pvc-a", "wait-sc"), _pv("pv-pre", "wait-sc", {HOSTNAME: ["node-a"]}, **PRE_BOUND)
        ),
        [None, _status(REASON_BIND_CONFLICT)],
        id="a volume pre-bound to the claim of its class binds only where its affinity holds",
    ),
    pytest.param(
        _objects(
            _pvc("pvc-a", "wait-sc"),
            _pv("pv-pre", "wait-hdd-sc", {HOSTNAME: ["node-a"]}, **PRE_BOUND),
        ),
        [_status(REASON_BIND_CONFLICT)] * 2,
        id="a volume pre-bound to the claim of another class is not among those it may bind",
    ),
    pytest.param(
        _objects(
            _pvc("pvc-a", "wait-sc"),
            _pv("pv-pre", "wait-hdd-sc", {HOSTNAME: ["node-a"]}, **PRE_BOUND),
            _pv("pv-free", "wait-sc", {HOSTNAME: ["node-b"]}),
        ),
        [_status(REASON_BIND_CONFLICT), None],
        id="beside a volume pre-bound to it of another class the claim binds a free one of its own",
    ),
    pytest.param(
        _objects(
            _pvc("pvc-a", "wait-sc"),
            _pv("pv-pre", "wait-sc", {HOSTNAME: ["node-a"]}, **PRE_BOUND),
            _pv("pv-free", "wait-sc", {HOSTNAME: ["node-b"]}),
        ),
        [None, _status(REASON_BIND_CONFLICT)],
        id="a volume pre-bound to the claim of its class is its only match, even where it fails",
    ),
]


@pytest.mark.parametrize(("objects", "filtered"), PRE_BOUND_CASES)
def test_a_volume_pre_bound_to_a_waiting_claim(
    objects: StorageObjects, filtered: list[Rejection | None]
) -> None:
    answers = [run_plugin(PLUGIN, with_claims("pvc-a"), objects, n) for n in NODES_AB]
    assert [checked for _, checked in answers] == filtered


ZONE = "topology.kubernetes.io/zone"
SELECTED = "volume.kubernetes.io/selected-node"
ZONAL = storage_class(
    "zonal",
    provisioner="disk.csi.azure.com",
    volumeBindingMode="WaitForFirstConsumer",
    allowedTopologies=[{"matchLabelExpressions": [{"key": ZONE, "values": ["z1"]}]}],
)
LOCAL_ONLY = storage_class(
    "local", provisioner="kubernetes.io/no-provisioner", volumeBindingMode="WaitForFirstConsumer"
)
DRIVER = {"kind": "CSIDriver", "metadata": {"name": "d"}, "spec": {"storageCapacity": True}}
MEASURED = storage_class("measured", provisioner="d", volumeBindingMode="WaitForFirstConsumer")


def _capacity(size: str, zone: str) -> dict[str, Any]:
    return {
        "kind": "CSIStorageCapacity",
        "metadata": {"name": f"c-{zone}", "namespace": "kube-system"},
        "storageClassName": "measured",
        "capacity": size,
        "nodeTopology": {"matchLabels": {ZONE: zone}},
    }


# binder.go checkVolumeProvisions and hasEnoughCapacity, and FindPodVolumes' selected node
PROVISIONING = [
    pytest.param(
        storage(ZONAL, _pvc("c", "zonal")),
        "z1",
        None,
        id="a class provisions where its allowed topologies match the node",
    ),
    pytest.param(
        storage(ZONAL, _pvc("c", "zonal")),
        "z2",
        _status(REASON_BIND_CONFLICT),
        id="a class does not provision outside its allowed topologies",
    ),
    pytest.param(
        storage(LOCAL_ONLY, _pvc("c", "local")),
        "z1",
        _status(REASON_BIND_CONFLICT),
        id="a class without a provisioner provisions nowhere",
    ),
    pytest.param(
        storage(ZONAL, _pvc("c", "zonal", meta={"annotations": {SELECTED: "elsewhere"}})),
        "z1",
        _status(REASON_BIND_CONFLICT),
        id="a claim selected for another node is a bind conflict",
    ),
    pytest.param(
        storage(MEASURED, DRIVER, _capacity("10Gi", "z1"), _pvc("c", "measured", **_sized("5Gi"))),
        "z1",
        None,
        id="a driver's published capacity that holds the claim passes",
    ),
    pytest.param(
        storage(MEASURED, DRIVER, _capacity("1Gi", "z1"), _pvc("c", "measured", **_sized("5Gi"))),
        "z1",
        _status("node(s) did not have enough free storage"),
        id="a driver's published capacity too small is not enough free storage",
    ),
]


PROVISIONING += [
    # binder.go hasEnoughCapacity and capacitySufficient compare Quantity.Value(), which
    # rounds a fraction of a byte up, on both sides
    pytest.param(
        storage(MEASURED, DRIVER, _capacity("1", "z1"), _pvc("c", "measured", **_sized("1500m"))),
        "z1",
        _status("node(s) did not have enough free storage"),
        id="a claim of a fraction of a byte more needs the next whole byte",
    ),
    pytest.param(
        storage(MEASURED, DRIVER, _capacity("1500m", "z1"), _pvc("c", "measured", **_sized("2"))),
        "z1",
        None,
        id="a published capacity of a fraction of a byte more holds the next whole byte",
    ),
]
PROVISIONING += [
    # binder.go volumeLimit: maximumVolumeSize when set, else capacity; a null one is unset
    pytest.param(
        storage(
            MEASURED,
            DRIVER,
            {**_capacity("10Gi", "z1"), "maximumVolumeSize": None},
            _pvc("c", "measured", **_sized("5Gi")),
        ),
        "z1",
        None,
        id="a null maximum volume size leaves the capacity to decide",
    ),
    pytest.param(
        storage(
            MEASURED,
            DRIVER,
            {**_capacity("10Gi", "z1"), "maximumVolumeSize": "1Gi"},
            _pvc("c", "measured", **_sized("5Gi")),
        ),
        "z1",
        _status("node(s) did not have enough free storage"),
        id="a maximum volume size below the claim is not enough free storage",
    ),
]
EMPTY_TERM = storage_class(
    "empty-term",
    provisioner="disk.csi.azure.com",
    volumeBindingMode="WaitForFirstConsumer",
    allowedTopologies=[{"matchLabelExpressions": []}],
)


def _attributed(volume_class: str | None, claim_class: str | None) -> StorageObjects:
    """An available local volume and a claim it fits, each of an attributes class or none."""
    pv = _pv("pv", "local", capacity={"storage": "1Gi"})
    pvc = _pvc("c", "local", **_sized("1Gi"))
    if volume_class:
        pv["spec"]["volumeAttributesClassName"] = volume_class
    if claim_class:
        pvc["spec"]["volumeAttributesClassName"] = claim_class
    return storage(LOCAL_ONLY, pv, pvc)


PROVISIONING += [
    # core/v1/helper MatchTopologySelectorTerms: "nil or empty term selects no objects",
    # and storage validation lets an allowedTopologies term have no expression
    pytest.param(
        storage(EMPTY_TERM, _pvc("c", "empty-term")),
        "z1",
        _status(REASON_BIND_CONFLICT),
        id="an allowed topology term without expressions provisions nowhere",
    ),
    # component-helpers pv_helpers.go FindMatchingVolume with the VolumeAttributesClass
    # feature on (GA in v1.34): a volume matches only a claim of its attributes class
    pytest.param(
        _attributed("gold", "gold"),
        "z1",
        None,
        id="a volume of the claim's attributes class binds",
    ),
    pytest.param(
        _attributed("silver", "gold"),
        "z1",
        _status(REASON_BIND_CONFLICT),
        id="a volume of another attributes class does not bind",
    ),
    pytest.param(
        _attributed("gold", None),
        "z1",
        _status(REASON_BIND_CONFLICT),
        id="a volume with an attributes class does not bind a claim without one",
    ),
    pytest.param(
        _attributed(None, None),
        "z1",
        None,
        id="a volume and a claim without attributes class bind",
    ),
]


@pytest.mark.parametrize(("objects", "zone", "filtered"), PROVISIONING)
def test_provisioning(objects: StorageObjects, zone: str, filtered: Rejection | None) -> None:
    assert run_plugin(PLUGIN, with_claims("c"), objects, _node("n", **{ZONE: zone})) == (
        None,
        filtered,
    )


@pytest.mark.parametrize(("claims", "objects", "nodes", "pre_filter", "filtered"), CASES)
def test_one_state_asked_of_node_after_node_answers_each_as_a_fresh_one(
    claims: list[str],
    objects: StorageObjects,
    nodes: list[NodeView],
    pre_filter: Rejection | None,
    filtered: list[Rejection | None] | None,
) -> None:
    """The Filter reads each bound volume once per PreFilter state: asked of one node after
    another, twice over, the state answers each node as one prepared for it alone does."""
    spec = with_claims(*claims)
    state = PLUGIN.prepare(pod_profile(spec, NAMESPACE), cluster_of(objects, *nodes))
    fresh = [run_plugin(PLUGIN, spec, objects, n)[1] for n in nodes]
    assert [PLUGIN.check(state, n, DIALECT) for n in [*nodes, *nodes]] == fresh * 2
