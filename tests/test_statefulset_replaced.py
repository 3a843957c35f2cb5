"""A running StatefulSet's change: its controller deletes an old copy before it creates the
new one of the same ordinal, so each new copy, the first and those after it, meets the
cluster without the old copies (their room, and the claims and disks they hold). A
ReadWriteOncePod claim of an old copy is free for its successor (VolumeRestrictions'
PreFilter counts the pods that use it, and the old one is gone)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot

HOST = "kubernetes.io/hostname"
WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
OWNER = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "name": "db",
    "uid": "u",
    "controller": True,
}
IN_USE = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)


def _statefulset(replicas: int, cpu: str, mode: str) -> dict[str, Any]:
    container = {"name": "pg", "image": "p", "resources": {"requests": {"cpu": cpu}}}
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": [mode], "storageClassName": "wait"},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "db"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [container]},
            },
            "volumeClaimTemplates": [claim],
        },
    }


def _old_copy(ordinal: int, cpu: str, owned: bool) -> dict[str, Any]:
    container = {"name": "pg", "image": "p", "resources": {"requests": {"cpu": cpu}}}
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{ordinal}"}}
    pod = api_pod(f"db-{ordinal}", "n-a", namespace="db", containers=[container], volumes=[volume])
    pod["metadata"]["labels"] = {"app": "db"}
    if owned:
        pod["metadata"]["ownerReferences"] = [OWNER]
    return pod


def _claim_and_volume(ordinal: int, mode: str) -> tuple[dict[str, Any], dict[str, Any]]:
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    claim = {
        "metadata": {"name": f"data-db-{ordinal}", "namespace": "db", "annotations": notes},
        "spec": {"volumeName": f"pv-{ordinal}", "storageClassName": "wait", "accessModes": [mode]},
    }
    volume = {
        "metadata": {"name": f"pv-{ordinal}"},
        "spec": {
            "csi": {"driver": "disk.csi.azure.com", "volumeHandle": f"pv-{ordinal}"},
            "storageClassName": "wait",
            "accessModes": [mode],
            "capacity": {"storage": "1Gi"},
        },
        "status": {"phase": "Bound"},
    }
    return claim, volume


def _result(cpu: str, mode: str, owned: bool, nodes: int) -> Any:
    pairs = [_claim_and_volume(i, mode) for i in range(2)]
    snapshot = cluster_snapshot(
        [api_node(f"n-{x}", cpu="1", labels={HOST: f"n-{x}"}) for x in "ab"[:nodes]],
        [_old_copy(i, cpu, owned) for i in range(2)],
        persistentVolumes=[v for _, v in pairs],
        persistentVolumeClaims=[c for c, _ in pairs],
        storageClasses=[WAIT],
    )
    report = check(
        [Document(Location("db.yaml", 1), _statefulset(2, cpu, mode))],
        build_snapshot(snapshot, "s.json"),
        RunOptions(),
    )
    (result,) = report.results
    return result


@pytest.mark.parametrize(
    ("cpu", "mode", "owned", "nodes", "expected"),
    [
        pytest.param(
            "500m",
            "ReadWriteOnce",
            True,
            1,
            (Verdict.YES, 2, None),
            id="copies whose old ones fill their node fit once the old ones are gone",
        ),
        pytest.param(
            "100m",
            "ReadWriteOncePod",
            True,
            2,
            (Verdict.YES, 2, None),
            id="a ReadWriteOncePod claim an old copy held is free for its successor",
        ),
        pytest.param(
            "100m",
            "ReadWriteOncePod",
            False,
            2,
            (Verdict.NO, 0, f"0/2 nodes are available: 2 {IN_USE}."),
            id="a ReadWriteOncePod claim a pod of no workload holds blocks every node",
        ),
    ],
)
def test_a_replaced_statefulsets_copies_meet_the_cluster_without_the_old_ones(
    cpu: str, mode: str, owned: bool, nodes: int, expected: tuple[Verdict, int, str | None]
) -> None:
    verdict, fit, message = expected
    result = _result(cpu, mode, owned, nodes)
    assert (result.verdict, 0 if result.placement is None else result.placement.fit) == (
        verdict,
        fit,
    )
    # the PostFilters' part of a FitError is left out: preemption is not the question here
    assert result.message == message or result.message.startswith(f"{message} ")
