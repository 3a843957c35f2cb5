"""Karpenter's volume topology (volumetopology.go, v1.8): a copy whose claim is bound to a
zonal volume is launched only in that zone, and an unbound WaitForFirstConsumer claim only
where its class's first allowed topology term allows."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model.karpenter import NodePool, Requirement
from tests.karpenter_support import ZONE, Run, spec

BOUND = {"pv.kubernetes.io/bind-completed": "yes"}


def _storage(zone: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    topology = [{"matchLabelExpressions": [{"key": ZONE, "values": [zone]}]}]
    return {
        "persistentVolumes": [
            {
                "metadata": {"name": "pv"},
                "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
            }
        ],
        "persistentVolumeClaims": [
            {
                "metadata": {"name": "bound", "namespace": "default", "annotations": BOUND},
                "spec": {"volumeName": "pv"},
            },
            {
                "metadata": {"name": "waiting", "namespace": "default"},
                "spec": {"storageClassName": "late"},
            },
        ],
        "storageClasses": [
            {
                "metadata": {"name": "late"},
                "provisioner": "ebs.csi.aws.com",
                "volumeBindingMode": "WaitForFirstConsumer",
                "allowedTopologies": topology,
            }
        ],
    }


POOL_A = NodePool("a", requirements=(Requirement(ZONE, "In", ("zone-a",)),))
CASES = [
    pytest.param("bound", "zone-a", 2, id="a volume in the pool's zone: launched there"),
    pytest.param("bound", "zone-b", 0, id="a volume in another zone: the pool cannot launch it"),
    pytest.param("waiting", "zone-a", 2, id="a class allowing the pool's zone: launched there"),
    pytest.param("waiting", "zone-b", 0, id="a class allowing only another zone: not launched"),
]


@pytest.mark.parametrize(("claim", "zone", "placed"), CASES)
def test_a_volume_pins_the_node_claims(claim: str, zone: str, placed: int) -> None:
    run = Run((POOL_A,), storage=_storage(zone))
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    assert run.decide(spec(volumes=[volume]), 2).placed == placed
