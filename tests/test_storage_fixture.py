"""The recorded AKS cluster with zonal Azure Disks (fixtures/snapshots/aks-zonal-disks.json)
and the StatefulSet whose nodeSelector moved to a pool without a node in its disk's zone
(fixtures/storage/postgres.yaml): the scheduler's message, the storage cause, the report."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import ROOT
from tests.engine_support import NOT_HELPFUL, preempting
from tests.test_cli import json_report, run

SNAPSHOT = "fixtures/snapshots/aks-zonal-disks.json"
MANIFEST = "fixtures/storage/postgres.yaml"
MESSAGE = (
    "0/6 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
    "2 node(s) didn't match PersistentVolume's node affinity, "
    "3 node(s) had untolerated taint {CriticalAddonsOnly: true}."
)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_the_first_copy_is_pending_for_its_disks_zone() -> None:
    code, report = json_report(MANIFEST, "--snapshot", SNAPSHOT)
    assert code == 1
    (workload,) = report["workloads"]
    suffix = preempting(6, (6, NOT_HELPFUL))
    assert (workload["verdict"], workload["message"]) == ("NO", MESSAGE + suffix)
    assert (workload["cause"]["family"], workload["cause"]["plugin"]) == (
        "storage",
        "VolumeBinding",
    )


def test_without_the_storage_objects_the_verdict_is_as_before() -> None:
    """The six-node snapshot records no storage: the claim template is warned about, with
    what to record."""
    _, report = json_report(MANIFEST, "--snapshot", "fixtures/snapshots/aks-six-nodes.json")
    (workload,) = report["workloads"]
    assert workload["cause"]["family"] == "selector"
    (warned,) = [w["text"] for w in workload["warnings"] if "volumeClaimTemplates" in w["text"]]
    assert warned == (
        "volumeClaimTemplates: volume filters (VolumeBinding, VolumeZone, NodeVolumeLimits, "
        "VolumeRestrictions) not checked; to check claims, give the snapshot the cluster's "
        "PersistentVolumes, PersistentVolumeClaims and StorageClasses "
        "(kubectl get nodes,pods,pv,pvc,storageclass,csinode,csidriver -A -o json)"
    )


def test_the_text_report(golden: Callable[[str, str], None]) -> None:
    _, out, _ = run("check", MANIFEST, "--snapshot", SNAPSHOT)
    golden("check-aks-zonal-disks.txt", out)
