"""The storage objects a snapshot records, read from a kubectl List and from a
ClusterSnapshot, by the typed reader and the reference reader alike."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model.storage import StorageObjects
from gate.snapshot.load import build_snapshot, snapshot_of_document
from gate.snapshot.storage import defaulted_class, defaulted_driver

NODE = {
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {}},
    "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}},
}
CLAIM = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "db"}}
VOLUME = {"kind": "PersistentVolume", "metadata": {"name": "pv-1"}, "spec": {}}
CLASS = {"kind": "StorageClass", "metadata": {"name": "managed"}, "provisioner": "d"}
CSI_NODE = {"kind": "CSINode", "metadata": {"name": "n1"}, "spec": {"drivers": []}}


def _list(*items: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "List", "items": [NODE, *items]}


def _own(**arrays: list[dict[str, Any]]) -> dict[str, Any]:
    envelope = {"apiVersion": "fitgate/v1", "kind": "ClusterSnapshot", "nodes": [NODE]}
    return {**envelope, "pods": [], **arrays}


def _read(document: dict[str, Any]) -> list[StorageObjects | None]:
    """What both readers make of ``document``'s storage objects."""
    return [snapshot_of_document(document, "s").storage, build_snapshot(document, "s").storage]


def test_a_snapshot_without_storage_objects_records_none() -> None:
    assert _read(_list()) == [None, None]


LISTED = ["PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver"]
CASES = [
    pytest.param(
        _list(CLAIM), LISTED, id="a List with one claim has listed every kind kubectl lists"
    ),
    pytest.param(
        _own(persistentVolumeClaims=[CLAIM]),
        ["PersistentVolumeClaim"],
        id="a recording has listed only the arrays it holds",
    ),
    pytest.param(
        _own(persistentVolumeClaims=[], csiStorageCapacities=[]),
        ["PersistentVolumeClaim", "CSIStorageCapacity"],
        id="an empty array is a kind listed with nothing in it",
    ),
]


@pytest.mark.parametrize(("document", "recorded"), CASES)
def test_the_kinds_listed_are_known(document: dict[str, Any], recorded: list[str]) -> None:
    for storage in _read(document):
        assert storage is not None
        assert storage.recorded == frozenset(recorded)


def test_the_objects_are_kept_by_name_and_claims_by_namespace() -> None:
    for storage in _read(_list(CLAIM, VOLUME, CLASS, CSI_NODE)):
        assert storage is not None
        assert set(storage.claims) == {("db", "data")}
        assert set(storage.volumes) == {"pv-1"}
        assert set(storage.classes) == {"managed"}
        assert set(storage.csi_nodes) == {"n1"}
        assert storage.knows_claims


def test_a_claim_without_a_namespace_is_in_default() -> None:
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data"}}
    for storage in _read(_list(claim)):
        assert storage is not None and set(storage.claims) == {("default", "data")}


DEFAULTS = [
    pytest.param(
        {"metadata": {"name": "c"}},
        {"reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"},
        id="an unset binding mode is Immediate and an unset reclaim policy Delete",
    ),
    pytest.param(
        {"metadata": {"name": "c"}, "volumeBindingMode": "WaitForFirstConsumer"},
        {"reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"},
        id="a binding mode given is kept",
    ),
]


@pytest.mark.parametrize(("given", "expected"), DEFAULTS)
def test_a_storage_class_gets_the_api_servers_defaults(
    given: dict[str, Any], expected: dict[str, str]
) -> None:
    defaulted = defaulted_class(given)
    assert {k: defaulted[k] for k in expected} == expected


def test_a_csi_driver_gets_the_api_servers_defaults() -> None:
    spec = defaulted_driver({"metadata": {"name": "d"}, "spec": {"attachRequired": False}})["spec"]
    assert spec["attachRequired"] is False
    assert spec["volumeLifecycleModes"] == ["Persistent"]
    assert spec["storageCapacity"] is False


def test_the_classes_read_are_defaulted() -> None:
    for storage in _read(_list(CLASS)):
        assert storage is not None
        assert storage.classes["managed"]["volumeBindingMode"] == "Immediate"
