"""The nodes a DaemonSet targets, as its controller chooses them, not as the scheduler
places its pods.

Upstream: pkg/controller/daemon/daemon_controller.go ``NodeShouldRunDaemonPod`` and
``predicates``: a node is targeted when the template's ``nodeName`` is empty or the node's,
its required node affinity (``nodeSelector`` included) matches, and every NoSchedule and
NoExecute taint is tolerated (with the tolerations
pkg/controller/daemon/util/daemonset_util.go ``AddOrUpdateDaemonPodTolerations`` adds).
Volumes are not among them: on a targeted node whose volumes the scheduler refuses, the
pod is created and stays Pending.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Document, Location, Verdict, WorkloadResult
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container

DISK = [{"name": "d", "gcePersistentDisk": {"pdName": "shared"}}]
MISSING_CLAIM = [{"name": "v", "persistentVolumeClaim": {"claimName": "missing"}}]
STORAGE: dict[str, Any] = {
    "persistentVolumes": [],
    "persistentVolumeClaims": [],
    "storageClasses": [],
    "csiNodes": [],
    "csiDrivers": [],
}


def _daemonset(volumes: list[dict[str, Any]]) -> dict[str, Any]:
    requests = {"cpu": "100m", "memory": "1Mi"}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [container("c", requests=requests)], "volumes": volumes},
            },
        },
    }


def _run(volumes: list[dict[str, Any]], pods: list[dict[str, Any]], **extra: Any) -> WorkloadResult:
    nodes = [api_node(name, labels={"kubernetes.io/hostname": name}) for name in ("a", "b")]
    nodes.append(api_node("tainted", taints=[{"key": "dedicated", "effect": "NoSchedule"}]))
    document = cluster_snapshot(nodes, pods, server_version="v1.34.1", **extra)
    snapshot = build_snapshot(document, "s.json")
    [result] = check(
        [Document(Location("m.yaml", 1), _daemonset(volumes))], snapshot, RunOptions()
    ).results
    return result


# (id, the template's volumes, the snapshot's pods, its storage objects, verdict, targeted,
# the nodes its pod fits)
CASES: list[
    tuple[str, list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], Verdict, int, int]
] = [
    (
        "a node whose disk another pod holds is targeted and its pod stays pending",
        DISK,
        [api_pod("holder", "a", volumes=DISK)],
        {},
        Verdict.PARTIAL,
        2,
        1,
    ),
    (
        "a claim refused before any node is asked leaves every untainted node targeted",
        MISSING_CLAIM,
        [],
        STORAGE,
        Verdict.NO,
        2,
        0,
    ),
]


@pytest.mark.parametrize(
    ("volumes", "pods", "storage", "verdict", "targeted", "fits"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_a_daemonset_targets_the_nodes_its_controller_chooses(
    volumes: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    storage: dict[str, Any],
    verdict: Verdict,
    targeted: int,
    fits: int,
) -> None:
    result = _run(volumes, pods, **storage)
    assert result.placement is not None
    found = (result.verdict, result.replicas, result.placement.alone)
    assert found == (verdict, targeted, fits)
