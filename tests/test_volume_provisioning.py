"""VolumeBinding's Filter row by row as upstream's tables (volumebinding/binder_test.go):
TestFindPodVolumesWithoutProvisioning (a scenario upstream expects to fail is the
PreFilter's rejection here, as the plugin returns it), and TestFindPodVolumesWithProvisioning,
each scenario once without capacity tracking and once with a CSIDriver that tracks capacity
but publishes no CSIStorageCapacity, where a claim left to provision is not enough free
storage."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Code
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.volumebinding import PLUGIN
from gate.scheduler.plugins.volumebinding.binder import (
    REASON_BIND_CONFLICT,
    REASON_NODE_CONFLICT,
    REASON_NOT_ENOUGH_SPACE,
    REASON_UNBOUND_IMMEDIATE,
    REASON_VOLUME_MISSING,
)
from tests.builders import node
from tests.volume_support import claim, run_plugin, storage, storage_class, volume, with_claims

PROVISIONER = "test-provisioner"
KEY = "nodeKey"
SELECTED = "volume.kubernetes.io/selected-node"
WAIT = "WaitForFirstConsumer"


def _allowed(*values: str) -> list[dict[str, Any]]:
    return [{"matchLabelExpressions": [{"key": KEY, "values": list(values)}]}]


# binder_test.go newTestBinder's classes
CLASSES = (
    storage_class(
        "waitClassWithProvisioner",
        volumeBindingMode=WAIT,
        provisioner=PROVISIONER,
        allowedTopologies=_allowed("node1", "reference-value"),
    ),
    storage_class("immediateClass", volumeBindingMode="Immediate"),
    storage_class("waitClass", volumeBindingMode=WAIT, provisioner="kubernetes.io/no-provisioner"),
    storage_class(
        "topoMismatchClass",
        volumeBindingMode=WAIT,
        provisioner=PROVISIONER,
        allowedTopologies=_allowed("reference-value"),
    ),
)


def _pvc(
    name: str, size: str, class_name: str, pv: str = "", prebound: bool = False, **meta: Any
) -> dict[str, Any]:
    """makeTestPVC: ``pv`` names the volume it is bound to (only named, when ``prebound``)."""
    spec: dict[str, Any] = {
        "storageClassName": class_name,
        "resources": {"requests": {"storage": size}},
    }
    if pv:
        spec["volumeName"] = pv
    return claim(name, bound=bool(pv) and not prebound, meta=meta, **spec)


def _pv(
    name: str, size: str, class_name: str, claim_name: str = "", on: str = "node1"
) -> dict[str, Any]:
    """makeTestPV on node ``on``: Available, or Bound to ``claim_name``."""
    term = {"matchExpressions": [{"key": KEY, "operator": "In", "values": [on]}]}
    spec: dict[str, Any] = {
        "storageClassName": class_name,
        "capacity": {"storage": size},
        "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
    }
    if claim_name:
        spec["claimRef"] = {"name": claim_name, "namespace": "default"}
    return volume(name, status={"phase": "Bound" if claim_name else "Available"}, **spec)


PROVISIONED = _pvc("provisioned-pvc", "1Gi", "waitClassWithProvisioner")
UNBOUND = _pvc("unbound-pvc", "1G", "waitClass")
BOUND = _pvc("bound-pvc", "1G", "waitClass", "pv-bound")
SELECTED_NODE = _pvc(
    "provisioned-pvc", "1Gi", "waitClassWithProvisioner", annotations={SELECTED: "node1"}
)
IMMEDIATE_UNBOUND = _pvc("immediate-unbound-pvc", "1G", "immediateClass")
IMMEDIATE_BOUND = _pvc("immediate-bound-pvc", "1G", "immediateClass", "pv-bound-immediate")
NO_PROVISIONER = _pvc("no-provisioner-pvc", "1Gi", "waitClass")
TOPO_MISMATCH = _pvc("topo-mismatch-pvc", "1Gi", "topoMismatchClass")
PV_NODE_1A = _pv("pv-node1a", "5G", "waitClass")
PV_BOUND = _pv("pv-bound", "1G", "waitClass", "bound-pvc")
PV_BOUND_IMMEDIATE = _pv("pv-bound-immediate", "1G", "immediateClass", "immediate-bound-pvc")

# (name, the pod's claims, the volumes, the reasons, whether a claim is left to provision)
SCENARIOS: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], tuple[str, ...], bool]] = [
    ("one-provisioned", [PROVISIONED], [], (), True),
    (
        "two-unbound-pvcs,one-matched,one-provisioned",
        [UNBOUND, PROVISIONED],
        [PV_NODE_1A],
        (),
        True,
    ),
    ("one-bound,one-provisioned", [BOUND, PROVISIONED], [PV_BOUND], (), True),
    ("one-binding,one-selected-node", [BOUND, SELECTED_NODE], [PV_BOUND], (), True),
    (
        "one-immediate-bound,one-provisioned",
        [IMMEDIATE_BOUND, PROVISIONED],
        [PV_BOUND_IMMEDIATE],
        (),
        True,
    ),
    ("invalid-provisioner", [NO_PROVISIONER], [], (REASON_BIND_CONFLICT,), False),
    ("volume-topology-unsatisfied", [TOPO_MISMATCH], [], (REASON_BIND_CONFLICT,), False),
]
TRACKING = [
    {"kind": "CSIDriver", "metadata": {"name": PROVISIONER}, "spec": {"storageCapacity": True}}
]


def _rows() -> list[Any]:
    rows = []
    for name, claims, volumes, reasons, needs_capacity in SCENARIOS:
        for tracked in (False, True):
            wanted = (*reasons, REASON_NOT_ENOUGH_SPACE) if tracked and needs_capacity else reasons
            how = (
                "with capacity tracking and no capacity" if tracked else "without capacity tracking"
            )
            rows.append(pytest.param(claims, volumes, tracked, wanted, id=f"{name}, {how}"))
    return rows


@pytest.mark.parametrize(("claims", "volumes", "tracked", "reasons"), _rows())
def test_find_pod_volumes_with_provisioning(
    claims: list[dict[str, Any]],
    volumes: list[dict[str, Any]],
    tracked: bool,
    reasons: tuple[str, ...],
) -> None:
    objects = storage(*CLASSES, *claims, *volumes, *(TRACKING if tracked else []))
    spec = with_claims(*(c["metadata"]["name"] for c in claims))
    checked = Rejection("VolumeBinding", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)
    got = run_plugin(PLUGIN, spec, objects, node("node1", labels={KEY: "node1"}))
    assert got == (None, checked if reasons else None)


def test_an_unbound_immediate_claim_is_the_pre_filters_rejection() -> None:
    """The scenario immediate-unbound-pvc: FindPodVolumes errs; the PreFilter says why."""
    objects = storage(*CLASSES, IMMEDIATE_UNBOUND)
    refused = Rejection(
        "VolumeBinding", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_UNBOUND_IMMEDIATE,)
    )
    got = run_plugin(PLUGIN, with_claims("immediate-unbound-pvc"), objects, node("node1"))
    assert got == (refused, refused)


UNBOUND_2 = _pvc("unbound-pvc2", "5G", "waitClass")
PREBOUND = _pvc("prebound-pvc", "1G", "waitClass", "pv-node1a", prebound=True)
PV_NODE_1B = _pv("pv-node1b", "10G", "waitClass")
PV_NODE_2 = _pv("pv-node2", "1G", "waitClass", on="node2")
PV_NODE_1A_BOUND = _pv("pv-node1a", "5G", "waitClass", "unbound-pvc")
PV_BOUND_IMMEDIATE_NODE_2 = _pv(
    "pv-bound-immediate", "1G", "immediateClass", "immediate-bound-pvc", on="node2"
)
IMMEDIATE = (REASON_UNBOUND_IMMEDIATE,)
NOT_FOUND = ('persistentvolumeclaim "bound-pvc" not found',)
# TestFindPodVolumesWithoutProvisioning: (the pod's claims, the claims recorded, the volumes,
# the PreFilter's reasons, the Filter's reasons)
WITHOUT_PROVISIONING = [
    pytest.param([], [], [], (), (), id="no-volumes"),
    pytest.param([BOUND], [], [], NOT_FOUND, (), id="pvc-not-found"),
    pytest.param([BOUND], [BOUND], [PV_BOUND], (), (), id="bound-pvc"),
    pytest.param([BOUND], [BOUND], [], (), (REASON_VOLUME_MISSING,), id="bound-pvc,pv-not-exists"),
    pytest.param([PREBOUND], [PREBOUND], [PV_NODE_1A_BOUND], IMMEDIATE, (), id="prebound-pvc"),
    pytest.param(
        [UNBOUND],
        [UNBOUND],
        [PV_NODE_2, PV_NODE_1A, PV_NODE_1B],
        (),
        (),
        id="unbound-pvc,pv-same-node",
    ),
    pytest.param(
        [UNBOUND],
        [UNBOUND],
        [PV_NODE_2],
        (),
        (REASON_BIND_CONFLICT,),
        id="unbound-pvc,pv-different-node",
    ),
    pytest.param(
        [UNBOUND, UNBOUND_2],
        [UNBOUND, UNBOUND_2],
        [PV_NODE_1A, PV_NODE_1B],
        (),
        (),
        id="two-unbound-pvcs",
    ),
    pytest.param(
        [UNBOUND_2, UNBOUND],
        [UNBOUND_2, UNBOUND],
        [PV_NODE_1A, PV_NODE_1B],
        (),
        (),
        id="two-unbound-pvcs,order-by-size",
    ),
    pytest.param(
        [UNBOUND, UNBOUND_2],
        [UNBOUND, UNBOUND_2],
        [PV_NODE_1A],
        (),
        (REASON_BIND_CONFLICT,),
        id="two-unbound-pvcs,partial-match",
    ),
    pytest.param(
        [UNBOUND, BOUND],
        [UNBOUND, BOUND],
        [PV_BOUND, PV_NODE_1A],
        (),
        (),
        id="one-bound,one-unbound",
    ),
    pytest.param(
        [UNBOUND, BOUND],
        [UNBOUND, BOUND],
        [PV_BOUND, PV_NODE_2],
        (),
        (REASON_BIND_CONFLICT,),
        id="one-bound,one-unbound,no-match",
    ),
    pytest.param(
        [UNBOUND, PREBOUND],
        [UNBOUND, PREBOUND],
        [PV_NODE_1A, PV_NODE_1B],
        IMMEDIATE,
        (),
        id="one-prebound,one-unbound",
    ),
    pytest.param(
        [IMMEDIATE_BOUND], [IMMEDIATE_BOUND], [PV_BOUND_IMMEDIATE], (), (), id="immediate-bound-pvc"
    ),
    pytest.param(
        [IMMEDIATE_BOUND],
        [IMMEDIATE_BOUND],
        [PV_BOUND_IMMEDIATE_NODE_2],
        (),
        (REASON_NODE_CONFLICT,),
        id="immediate-bound-pvc-wrong-node",
    ),
    pytest.param(
        [IMMEDIATE_UNBOUND], [IMMEDIATE_UNBOUND], [], IMMEDIATE, (), id="immediate-unbound-pvc"
    ),
    pytest.param(
        [IMMEDIATE_UNBOUND, BOUND],
        [IMMEDIATE_UNBOUND, BOUND],
        [PV_BOUND],
        IMMEDIATE,
        (),
        id="immediate-unbound-pvc,delayed-mode-bound",
    ),
    pytest.param(
        [IMMEDIATE_UNBOUND, UNBOUND],
        [IMMEDIATE_UNBOUND, UNBOUND],
        [],
        IMMEDIATE,
        (),
        id="immediate-unbound-pvc,delayed-mode-unbound",
    ),
]


@pytest.mark.parametrize(
    ("claims", "recorded", "volumes", "refused", "reasons"), WITHOUT_PROVISIONING
)
def test_find_pod_volumes_without_provisioning(
    claims: list[dict[str, Any]],
    recorded: list[dict[str, Any]],
    volumes: list[dict[str, Any]],
    refused: tuple[str, ...],
    reasons: tuple[str, ...],
) -> None:
    objects = storage(*CLASSES, *recorded, *volumes)
    spec = with_claims(*(c["metadata"]["name"] for c in claims))
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    refusal = Rejection("VolumeBinding", code, refused) if refused else None
    checked = Rejection("VolumeBinding", code, reasons) if reasons else refusal
    got = run_plugin(PLUGIN, spec, objects, node("node1", labels={KEY: "node1"}))
    assert got == (refusal, checked)


def _capacity(class_name: str, on: str | None, size: str) -> dict[str, Any]:
    """makeCapacity: published for the nodes labelled as ``on`` (any node when None)."""
    found: dict[str, Any] = {
        "kind": "CSIStorageCapacity",
        "metadata": {"name": "net", "namespace": "default"},
        "storageClassName": class_name,
        "nodeTopology": {} if on is None else {"matchLabels": {KEY: on}},
    }
    return found if not size else {**found, "capacity": size}


CLASS = "waitClassWithProvisioner"
# TestCapacity: a CSIDriver that tracks capacity, and these CSIStorageCapacities
CAPACITY = [
    pytest.param([_capacity(CLASS, None, "1Gi")], (), id="network-attached"),
    pytest.param([_capacity(CLASS, "node1", "1Gi")], (), id="local-storage"),
    pytest.param(
        [
            _capacity(CLASS, None, "1Gi"),
            _capacity(CLASS, "node2", "1Gi"),
            _capacity(CLASS, "node1", "1Gi"),
        ],
        (),
        id="multiple",
    ),
    pytest.param([], (REASON_NOT_ENOUGH_SPACE,), id="no-storage"),
    pytest.param([_capacity(CLASS, "node2", "1Gi")], (REASON_NOT_ENOUGH_SPACE,), id="wrong-node"),
    pytest.param(
        [_capacity("waitClass", "node1", "1Gi")],
        (REASON_NOT_ENOUGH_SPACE,),
        id="wrong-storage-class",
    ),
    pytest.param(
        [_capacity(CLASS, "node1", "1Mi")], (REASON_NOT_ENOUGH_SPACE,), id="insufficient-storage"
    ),
    pytest.param([_capacity(CLASS, "node1", "0Mi")], (REASON_NOT_ENOUGH_SPACE,), id="zero-storage"),
    pytest.param([_capacity(CLASS, "node1", "")], (REASON_NOT_ENOUGH_SPACE,), id="nil-storage"),
]


@pytest.mark.parametrize(("capacities", "reasons"), CAPACITY)
def test_capacity(capacities: list[dict[str, Any]], reasons: tuple[str, ...]) -> None:
    objects = storage(*CLASSES, PROVISIONED, *TRACKING, *capacities)
    checked = Rejection("VolumeBinding", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)
    got = run_plugin(
        PLUGIN, with_claims("provisioned-pvc"), objects, node("node1", labels={KEY: "node1"})
    )
    assert got == (None, checked if reasons else None)
