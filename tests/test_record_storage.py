"""``fitgate snapshot`` records the storage objects, each kind when the credentials may list
it (asked with a SelfSubjectAccessReview, never needed) and the cluster serves it, keeping
what the volume plugins read (gate/live/storage.py), through the real kubernetes client
against tests/apiserver.py; the recording read back holds the storage objects a kubectl
List of the same cluster holds."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.live.connection import READ_PATHS
from gate.live.credentials import LiveTarget
from gate.live.reader import live_snapshot, read_cluster
from gate.live.recorder import recorded
from gate.live.storage import KEPT_ANNOTATIONS, PersistentVolumeClaim
from gate.snapshot.load import load_snapshot
from gate.snapshot.state import SECTIONS
from gate.snapshot.storage import STORAGE_SECTIONS
from tests.apiserver import (
    CSI_DRIVERS,
    CSI_NODES,
    CSI_STORAGE_CAPACITIES,
    PERSISTENT_VOLUME_CLAIMS,
    PERSISTENT_VOLUMES,
    READ_ONLY,
    REVIEWS,
    STORAGE_CLASSES,
    STORAGE_READER,
    ApiState,
)
from tests.live import aks_document, live_cluster, run, serve_snapshot

NOW = datetime(2026, 8, 16, 10, 0, tzinfo=timezone.utc)
ZONE = "topology.kubernetes.io/zone"
DISK = "disk.csi.azure.com"
_TERMS = [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["westeurope-1"]}]}]
STORAGE: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "persistentVolumes": (
        PERSISTENT_VOLUMES,
        [
            {
                "metadata": {"name": "pv-data", "uid": "v1", "labels": {ZONE: "westeurope-1"}},
                "spec": {
                    "capacity": {"storage": "10Gi"},
                    "accessModes": ["ReadWriteOnce"],
                    "claimRef": {"namespace": "shop", "name": "data-db-0", "uid": "c1"},
                    "storageClassName": "managed-csi",
                    "csi": {"driver": DISK, "volumeHandle": "disk-1"},
                    "nodeAffinity": {"required": {"nodeSelectorTerms": _TERMS}},
                },
                "status": {"phase": "Bound"},
            }
        ],
    ),
    "persistentVolumeClaims": (
        PERSISTENT_VOLUME_CLAIMS,
        [
            {
                "metadata": {
                    "name": "data-db-0",
                    "namespace": "shop",
                    "uid": "c1",
                    "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
                },
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "10Gi"}},
                    "storageClassName": "managed-csi",
                    "volumeName": "pv-data",
                },
                "status": {"phase": "Bound"},
            },
            {
                "metadata": {"name": "fresh", "namespace": "shop", "uid": "c2"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "5Gi"}},
                    "storageClassName": "managed-csi",
                },
                "status": {"phase": "Pending"},
            },
        ],
    ),
    "storageClasses": (
        STORAGE_CLASSES,
        [
            {
                # of two default classes the newest is a new claim's (GetDefaultClass)
                "metadata": {"name": "managed-csi", "creationTimestamp": "2026-01-01T00:00:00Z"},
                "provisioner": DISK,
                "volumeBindingMode": "WaitForFirstConsumer",
                "allowedTopologies": [
                    {"matchLabelExpressions": [{"key": ZONE, "values": ["westeurope-1"]}]}
                ],
            }
        ],
    ),
    "csiNodes": (
        CSI_NODES,
        [
            {
                # the in-tree plugins migrated on the node: VolumeBinding's tryTranslatePVToCSI
                # and NodeVolumeLimits' isCSIMigrationOn read the annotation
                "metadata": {
                    "name": "aks-system-1",
                    "annotations": {
                        "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/azure-disk"
                    },
                },
                "spec": {"drivers": [{"name": DISK, "nodeID": "n1", "allocatable": {"count": 8}}]},
            }
        ],
    ),
    "csiDrivers": (CSI_DRIVERS, [{"metadata": {"name": DISK}, "spec": {"attachRequired": True}}]),
    "csiStorageCapacities": (
        CSI_STORAGE_CAPACITIES,
        [
            {
                "metadata": {"name": "cap-1", "namespace": "kube-system"},
                "storageClassName": "managed-csi",
                "nodeTopology": {"matchLabels": {ZONE: "westeurope-1"}},
                "capacity": "100Gi",
            }
        ],
    ),
}
KINDS = {
    "persistentVolumes": "v1",
    "persistentVolumeClaims": "v1",
    "storageClasses": "storage.k8s.io/v1",
    "csiNodes": "storage.k8s.io/v1",
    "csiDrivers": "storage.k8s.io/v1",
    "csiStorageCapacities": "storage.k8s.io/v1",
}


def _state(permissions: frozenset[tuple[str, str, str, str]], noisy: bool = False) -> ApiState:
    state = serve_snapshot(ApiState(), aks_document())
    state.permissions = permissions
    for path, objects in STORAGE.values():
        state.serve(path, [_noisy(o) if noisy else o for o in objects])
    return state


def _noisy(obj: dict[str, Any]) -> dict[str, Any]:
    """As an API server sends it: bookkeeping and annotations the plugins never read."""
    noisy = copy.deepcopy(obj)
    meta = noisy["metadata"]
    meta["managedFields"] = [{"manager": "kubectl", "operation": "Apply"}]
    meta["resourceVersion"] = "42"
    meta["annotations"] = {**meta.get("annotations", {}), "team": "storage-secret-note"}
    if "provisioner" in noisy:
        noisy["parameters"] = {"skuName": "Premium_LRS"}
    return noisy


def _record(tmp_path: Path, state: ApiState) -> tuple[str, Path]:
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    return err, path


def _kubectl_list(tmp_path: Path) -> Path:
    """``kubectl get ... -o json`` of the same cluster: one List, each item naming its kind."""
    document = aks_document()
    items = [{"kind": kind, **o} for key, kind in SECTIONS.items() for o in document.get(key, [])]
    for key, kind in STORAGE_SECTIONS.items():
        items += [{"apiVersion": KINDS[key], "kind": kind, **o} for o in STORAGE[key][1]]
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def test_the_recording_replays_the_storage_objects_of_a_kubectl_list(tmp_path: Path) -> None:
    _, path = _record(tmp_path, _state(STORAGE_READER))
    replayed = load_snapshot(str(path)).storage
    listed = load_snapshot(str(_kubectl_list(tmp_path))).storage
    assert replayed is not None
    assert replayed == listed
    assert replayed.recorded == frozenset(STORAGE_SECTIONS.values())


def test_bookkeeping_and_unread_annotations_never_reach_the_file(tmp_path: Path) -> None:
    _, path = _record(tmp_path, _state(STORAGE_READER, noisy=True))
    text = path.read_text(encoding="utf-8")
    for absent in ("managedFields", "resourceVersion", "storage-secret-note", "Premium_LRS"):
        assert absent not in text
    claims = json.loads(text)["persistentVolumeClaims"]
    assert claims[0]["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes"}
    assert load_snapshot(str(path)).storage == load_snapshot(str(_kubectl_list(tmp_path))).storage


def test_credentials_that_may_list_none_of_them_record_none(tmp_path: Path) -> None:
    err, path = _record(tmp_path, _state(READ_ONLY))
    document = json.loads(path.read_text(encoding="utf-8"))
    assert not set(STORAGE) & set(document)
    assert "may not list persistentvolumes: persistentvolumes not recorded" in err
    assert "may not list csidrivers.storage.k8s.io: csidrivers not recorded" in err
    assert load_snapshot(str(path)).storage is None


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        pytest.param(None, "not served (404)", id="a kind the cluster does not serve is left out"),
        pytest.param(403, "forbidden (403)", id="a list answered forbidden is left out"),
    ],
)
def test_a_kind_refused_by_the_list_is_left_out_and_said(
    tmp_path: Path, fault: int | None, said: str
) -> None:
    state = _state(STORAGE_READER)
    if fault is None:
        state.missing.add(CSI_STORAGE_CAPACITIES)
    else:
        state.faults[CSI_STORAGE_CAPACITIES] = [fault]
    err, path = _record(tmp_path, state)
    assert f"listing csistoragecapacities: {said}: csistoragecapacities not recorded" in err
    document = json.loads(path.read_text(encoding="utf-8"))
    assert "csiStorageCapacities" not in document
    storage = load_snapshot(str(path)).storage
    assert storage is not None
    assert "CSIStorageCapacity" not in storage.recorded
    assert "CSIDriver" in storage.recorded


def test_the_storage_lists_are_read_only(tmp_path: Path) -> None:
    state = _state(STORAGE_READER)
    _record(tmp_path, state)
    with state.lock:
        requests = list(state.requests)
    reads = {r.path for r in requests if r.method == "GET"}
    assert {path for path, _ in STORAGE.values()} <= reads <= READ_PATHS
    assert {(r.method, r.path) for r in requests if r.method != "GET"} == {("POST", REVIEWS)}
    assert not [r for r in requests if "watch" in r.query]


def test_a_live_check_reads_the_storage_objects_its_recording_replays(tmp_path: Path) -> None:
    state = _state(STORAGE_READER)
    with live_cluster(tmp_path, state) as live:
        target = LiveTarget(kubeconfig=str(live.kubeconfig))
        recording = read_cluster(target, live.env, NOW, lambda line: None)
    storage = live_snapshot(recording).storage
    assert storage is not None
    assert storage == load_snapshot(str(_kubectl_list(tmp_path))).storage


@given(
    st.dictionaries(
        st.sampled_from([*sorted(KEPT_ANNOTATIONS), "team", "kubectl.kubernetes.io/x"]),
        st.text(max_size=5),
    )
)
def test_only_the_annotations_the_binder_reads_are_kept(annotations: dict[str, str]) -> None:
    claim = {"metadata": {"name": "c", "annotations": annotations}}
    kept = recorded(PersistentVolumeClaim, claim)["metadata"].get("annotations", {})
    assert kept == {k: v for k, v in annotations.items() if k in KEPT_ANNOTATIONS}
