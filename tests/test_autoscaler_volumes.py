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
