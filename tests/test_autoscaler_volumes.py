"""cluster-autoscaler and a copy pinned by its volume: the group's template node is run
through the scheduler's filters (VolumeBinding among them), so a fresh node helps only in
the volume's zone; a template node has no CSINode, so no attach limit refuses it (the
group's members here attach none: count 0)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.autoscaler_support import AKS_USER, Run, aks_node, spec
from tests.autoscaling_objects import status_configmap, status_group

ZONE = "topology.kubernetes.io/zone"
BOUND = {"pv.kubernetes.io/bind-completed": "yes"}
PINNED = "node(s) didn't match PersistentVolume's node affinity"


def _run(volume_zone: str) -> Run:
    nodes = [aks_node(f"user-{i}", labels={ZONE: "westeurope-1"}, cpu="1") for i in range(2)]
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [volume_zone]}]}
    storage: dict[str, list[dict[str, Any]]] = {
        "persistentVolumes": [
            {
                "metadata": {"name": "pv"},
                "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
            }
        ],
        "persistentVolumeClaims": [
            {
                "metadata": {"name": "data", "namespace": "default", "annotations": BOUND},
                "spec": {"volumeName": "pv"},
            }
        ],
        "storageClasses": [],
        "csiNodes": [
            {
                "metadata": {"name": f"user-{i}"},
                "spec": {"drivers": [{"name": "disk.csi.azure.com", "allocatable": {"count": 0}}]},
            }
            for i in range(2)
        ],
    }
    groups = status_configmap(status_group(AKS_USER, target=2, max_size=5))
    return Run(nodes, [groups], storage=storage)


@pytest.mark.parametrize(
    ("zone", "placed", "reasons"),
    [
        pytest.param(
            "westeurope-1",
            1,
            {},
            id="a volume in the group's zone: a fresh node helps, whatever its members attach",
        ),
        pytest.param(
            "westeurope-3", 0, {PINNED: 1}, id="a volume in another zone: the group cannot help"
        ),
    ],
)
def test_a_fresh_node_helps_a_pinned_copy_only_in_its_volumes_zone(
    zone: str, placed: int, reasons: dict[str, int]
) -> None:
    volume = {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}
    decision = _run(zone).decide(spec(cpu="600m", volumes=[volume]), 1)
    assert (decision.placed, dict(decision.reasons)) == (placed, reasons)


HOST = "kubernetes.io/hostname"
NO_VOLUME = "node(s) didn't find available persistent volumes to bind"
NOT_BOUND_HERE = "node(s) didn't match PersistentVolume's node affinity"


def _claimed_run(volume: dict[str, Any], claim: dict[str, Any], classes: list[Any]) -> Run:
    """Two full members of the group in westeurope-1, the claim and its volume or class."""
    nodes = [aks_node(f"user-{i}", labels={ZONE: "westeurope-1"}, cpu="1") for i in range(2)]
    storage: dict[str, list[dict[str, Any]]] = {
        "persistentVolumes": [volume] if volume else [],
        "persistentVolumeClaims": [claim],
        "storageClasses": classes,
    }
    groups = status_configmap(status_group(AKS_USER, target=2, max_size=5))
    return Run(nodes, [groups], storage=storage)


def _local(node: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": HOST, "operator": "In", "values": [node]}]}
    return {
        "metadata": {"name": "pv"},
        "spec": {
            "local": {"path": "/mnt"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
        },
    }


def _late(*zones: str) -> dict[str, Any]:
    found: dict[str, Any] = {
        "metadata": {"name": "late"},
        "provisioner": "disk.csi.azure.com",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    if zones:
        found["allowedTopologies"] = [
            {"matchLabelExpressions": [{"key": ZONE, "values": list(zones)}]}
        ]
    return found


BOUND_CLAIM = {
    "metadata": {"name": "data", "namespace": "default", "annotations": BOUND},
    "spec": {"volumeName": "pv"},
}
WAITING_CLAIM = {
    "metadata": {"name": "data", "namespace": "default"},
    "spec": {"storageClassName": "late"},
}

# cluster-autoscaler-1.34.5 simulator/node_info_utils.go: the template node is a member
# renamed (its hostname label too), run through the scheduler's filters as any node
TEMPLATE_CASES = [
    pytest.param(
        _local("user-0"),
        BOUND_CLAIM,
        [],
        0,
        {NOT_BOUND_HERE: 1},
        id="a local volume pins its copy to its node: a fresh node never helps",
    ),
    pytest.param(
        {},
        WAITING_CLAIM,
        [_late("westeurope-1")],
        1,
        {},
        id="a waiting claim whose class allows the group's zone: a fresh node helps",
    ),
    pytest.param(
        {},
        WAITING_CLAIM,
        [_late("westeurope-2")],
        0,
        {NO_VOLUME: 1},
        id="a waiting claim whose class allows another zone only: the group cannot help",
    ),
]


@pytest.mark.parametrize(("volume", "claim", "classes", "placed", "reasons"), TEMPLATE_CASES)
def test_the_template_node_meets_the_volume_filters(
    volume: dict[str, Any],
    claim: dict[str, Any],
    classes: list[Any],
    placed: int,
    reasons: dict[str, int],
) -> None:
    mounted = {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}
    decision = _claimed_run(volume, claim, classes).decide(spec(cpu="600m", volumes=[mounted]), 1)
    assert (decision.placed, dict(decision.reasons)) == (placed, reasons)
