"""Copies of a pod that mounts an in-tree disk: VolumeRestrictions refuses a node where
another pod mounts the same disk (``isVolumeConflict``: any same EBS volume; a GCE PD, RBD
image or iSCSI IQN unless both mount it read-only), and a copy is such a pod to the next.
The copies then take one node each, as the scheduler finds them one after another, and
cluster-autoscaler's estimator puts one on each new node."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.autoscaler_support import AKS_USER, aks_node
from tests.autoscaler_support import Run as GroupsRun
from tests.autoscaler_support import spec as group_spec
from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node, cluster_snapshot

HOST = "kubernetes.io/hostname"
NO_DISK = "node(s) had no available disk"
VALID_CLAIM = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
EBS = {"name": "d", "awsElasticBlockStore": {"volumeID": "vol-1"}}
PD = {"name": "d", "gcePersistentDisk": {"pdName": "pd-1"}}
PD_READ_ONLY = {"name": "d", "gcePersistentDisk": {"pdName": "pd-1", "readOnly": True}}
ISCSI = {
    "name": "d",
    "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2016-12.server:t", "lun": 0},
}
WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def _workload(kind: str, volume: dict[str, Any], replicas: int = 3) -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}
    spec: dict[str, Any] = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": "a"}},
        "template": {
            "metadata": {"labels": {"app": "a"}},
            "spec": {"containers": [container], "volumes": [volume]},
        },
    }
    if kind == "StatefulSet":
        claim = {"metadata": {"name": "data"}, "spec": {**VALID_CLAIM, "storageClassName": "wait"}}
        spec["volumeClaimTemplates"] = [claim]
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "a"}, "spec": spec}


def _result(workload: dict[str, Any]) -> Any:
    nodes = [api_node(f"n-{x}", labels={HOST: f"n-{x}"}) for x in "ab"]
    storage: dict[str, Any] = {
        "persistentVolumes": [],
        "persistentVolumeClaims": [],
        "storageClasses": [WAIT],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    report = check([Document(Location("a.yaml", 1), workload)], snapshot, RunOptions())
    (result,) = report.results
    return result


CASES = [
    pytest.param(
        _workload("Deployment", EBS),
        (Verdict.PARTIAL, 2, f"0/2 nodes are available: 2 {NO_DISK}."),
        id="copies mounting one EBS volume take one node each",
    ),
    pytest.param(
        _workload("Deployment", PD),
        (Verdict.PARTIAL, 2, f"0/2 nodes are available: 2 {NO_DISK}."),
        id="copies mounting one GCE PD read-write take one node each",
    ),
    pytest.param(
        _workload("Deployment", PD_READ_ONLY),
        (Verdict.YES, 3, None),
        id="copies mounting one GCE PD read-only share a node",
    ),
    pytest.param(
        _workload("Deployment", ISCSI),
        (Verdict.PARTIAL, 2, f"0/2 nodes are available: 2 {NO_DISK}."),
        id="copies mounting one iSCSI IQN read-write take one node each",
    ),
    pytest.param(
        _workload("StatefulSet", EBS),
        (Verdict.PARTIAL, 2, f"0/2 nodes are available: 2 {NO_DISK}."),
        id="a StatefulSet's copies with their own claims and one EBS volume take a node each",
    ),
]


@pytest.mark.parametrize(("workload", "expected"), CASES)
def test_copies_sharing_a_disk_take_one_node_each(
    workload: dict[str, Any], expected: tuple[Verdict, int, str | None]
) -> None:
    verdict, fit, message = expected
    result = _result(workload)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit) == (verdict, fit)
    # the PostFilters' part of a FitError is left out: preemption is not the question here
    assert result.message == message or result.message.startswith(f"{message} ")


@pytest.mark.parametrize(
    ("volume", "nodes"),
    [
        pytest.param(EBS, 3, id="copies of one EBS volume need a fresh node each"),
        pytest.param(PD_READ_ONLY, 1, id="copies of one read-only GCE PD share a fresh node"),
    ],
)
def test_the_estimator_puts_copies_sharing_a_disk_on_a_node_each(
    volume: dict[str, Any], nodes: int
) -> None:
    full = [aks_node(f"user-{i}", cpu="1") for i in range(2)]
    groups = status_configmap(status_group(AKS_USER, target=2, max_size=10))
    decision = GroupsRun(full, [groups]).decide(group_spec(cpu="300m", volumes=[volume]), 3)
    assert (decision.placed, decision.nodes) == (3, nodes)
