"""Preemption and the volume filters: a volume filter's Unschedulable rejection is one
evicting lower-priority pods can resolve, as upstream's SelectVictimsOnNode finds it
(VolumeRestrictions' ``RemovePod`` gives back a ReadWriteOncePod claim's use; its disk
conflicts and NodeVolumeLimits' attached volumes are read from the node's pods, which the
victims leave)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Verdict
from tests.builders import api_node, api_pod, cluster_snapshot
from tests.engine_support import evaluate, pod_spec

HIGH = [{"metadata": {"name": "high"}, "value": 1000}]
BOUND = {"pv.kubernetes.io/bind-completed": "yes"}
CLASS = {"metadata": {"name": "sc"}, "provisioner": "d"}


def _claim(name: str, *modes: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "annotations": BOUND},
        "spec": {"accessModes": list(modes), "volumeName": f"pv-{name}", "storageClassName": "sc"},
    }


def _pv(claim: str) -> dict[str, Any]:
    return {
        "metadata": {"name": f"pv-{claim}"},
        "spec": {"csi": {"driver": "d", "volumeHandle": claim}},
    }


def _mounting(claim: str) -> list[dict[str, Any]]:
    return [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}]


GCE = [{"name": "d", "gcePersistentDisk": {"pdName": "x"}}]
LIMIT_ONE = {
    "metadata": {"name": "n1"},
    "spec": {"drivers": [{"name": "d", "nodeID": "n1", "allocatable": {"count": 1}}]},
}
STORAGE: dict[str, Any] = {
    "persistentVolumes": [_pv("rwop"), _pv("other"), _pv("mine")],
    "persistentVolumeClaims": [
        _claim("rwop", "ReadWriteOncePod"),
        _claim("other", "ReadWriteOnce"),
        _claim("mine", "ReadWriteOnce"),
    ],
    "storageClasses": [CLASS],
}
CASES = [
    pytest.param(
        _mounting("rwop"),
        _mounting("rwop"),
        {},
        id="evicting the pod that uses a ReadWriteOncePod claim frees the claim",
    ),
    pytest.param(GCE, GCE, {}, id="evicting the pod that mounts a GCE PD frees the disk"),
    pytest.param(
        _mounting("mine"),
        _mounting("other"),
        {"csiNodes": [LIMIT_ONE]},
        id="evicting the pod whose volume fills the attach limit frees a slot",
    ),
]


@pytest.mark.parametrize(("volumes", "held", "more"), CASES)
def test_a_higher_priority_pod_preempts_the_volume_holder(
    volumes: list[dict[str, Any]], held: list[dict[str, Any]], more: dict[str, Any]
) -> None:
    snapshot = cluster_snapshot(
        [api_node("n1")],
        [api_pod("holder", "n1", volumes=held)],
        priorityClasses=HIGH,
        **STORAGE,
        **more,
    )
    result = evaluate(snapshot, pod_spec(cpu="100m", volumes=volumes, priorityClassName="high"))
    assert result.verdict is Verdict.PREEMPTS
    assert result.preemption is not None
    assert [e.name for e in result.preemption.evicts] == ["holder"]


def test_without_priority_the_holder_stays_and_the_pod_is_pending() -> None:
    snapshot = cluster_snapshot(
        [api_node("n1")], [api_pod("holder", "n1", volumes=GCE)], priorityClasses=HIGH, **STORAGE
    )
    result = evaluate(snapshot, pod_spec(cpu="100m", volumes=GCE))
    assert result.verdict is Verdict.NO
