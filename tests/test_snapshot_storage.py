"""The storage objects a snapshot records, read from a kubectl List and from a
ClusterSnapshot, by the typed reader and the reference reader alike."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.errors import SnapshotError
from gate.model.storage import StorageObjects
from gate.snapshot.load import build_snapshot, snapshot_of_document
from gate.snapshot.storage import defaulted_class, defaulted_driver, storage_objects
from gate.snapshot.stream import read_snapshot

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
    # pkg/apis/storage/v1 defaults.go SetDefaults_CSIDriver, SELinuxMountReadWriteOncePod on
    assert spec["seLinuxMount"] is False
    assert spec["podInfoOnMount"] is False
    assert spec["requiresRepublish"] is False
    assert spec["fsGroupPolicy"] == "ReadWriteOnceWithFSType"


def test_the_classes_read_are_defaulted() -> None:
    for storage in _read(_list(CLASS)):
        assert storage is not None
        assert storage.classes["managed"]["volumeBindingMode"] == "Immediate"


def _plain(items: list[dict[str, Any]]) -> StorageObjects | None:
    """The storage objects of ``items`` decoded as plain objects (what a kubectl List holds)."""
    by_kind: dict[str, list[Any]] = {kind: [] for kind in LISTED}
    for item in items:
        by_kind.setdefault(item["kind"], []).append(item)
    return storage_objects(by_kind)


_PV, _PVC = "PersistentVolume", "PersistentVolumeClaim"
ODD_ITEMS = [
    pytest.param({"kind": _PV, "metadata": None}, id="a volume whose metadata is null is none"),
    pytest.param({"kind": _PV, "metadata": [1]}, id="a volume whose metadata is a list is none"),
    pytest.param({"kind": _PV, "metadata": {"name": 5}}, id="a volume named by a number is none"),
    pytest.param({"kind": _PV, "metadata": {"name": ""}}, id="a volume with an empty name is none"),
    pytest.param(
        {"kind": _PVC, "metadata": {"name": "c", "namespace": ""}},
        id="a claim with an empty namespace is in default",
    ),
    pytest.param(
        {"kind": _PVC, "metadata": {"name": "c", "namespace": 7}},
        id="a claim whose namespace is a number is in default",
    ),
    pytest.param(
        {"kind": _PV, "metadata": {"name": "pv-big"}, "spec": {"capacity": {"storage": 1e300}}},
        id="a volume with a large float reads it",
    ),
    pytest.param(
        {"kind": "CSINode", "metadata": {"name": "n1", "labels": {"é": "ü"}}},
        id="a CSINode with unicode labels reads them",
    ),
]


def _typed_metadata(item: dict[str, Any]) -> bool:
    """Whether an item's metadata is an object whose name and namespace, where given, are
    strings, as the schema describes a List item's."""
    metadata = item.get("metadata")
    if not isinstance(metadata, dict):
        return "metadata" not in item
    return all(isinstance(metadata.get(k, ""), str) for k in ("name", "namespace"))


_ARRAYS = {_PV: "persistentVolumes", _PVC: "persistentVolumeClaims", "CSINode": "csiNodes"}


@pytest.mark.parametrize("kubectl", [False, True], ids=["a recording", "a kubectl List"])
@pytest.mark.parametrize("item", ODD_ITEMS)
def test_both_readers_key_an_object_as_its_plain_object_is_keyed(
    item: dict[str, Any], kubectl: bool
) -> None:
    """A List's item is keyed by the name and namespace the typed reader decoded it with,
    a recording's by its text's: either as the plain object is."""
    items = [VOLUME, CLAIM, CSI_NODE, item, {**VOLUME, "spec": {"later": True}}]
    arrays: dict[str, list[dict[str, Any]]] = {key: [] for key in _ARRAYS.values()}
    for listed in items:
        arrays[_ARRAYS[listed["kind"]]].append(listed)
    expected = _plain(items)
    assert expected is not None
    if kubectl and not _typed_metadata(item):  # a List's item metadata is typed: refused
        refusals = []
        for reader in (snapshot_of_document, build_snapshot):
            with pytest.raises(SnapshotError) as refused:
                reader(_list(*items), "s")
            refusals.append(str(refused.value))
        assert refusals[0] == refusals[1]
        return
    for storage in _read(_list(*items) if kubectl else _own(**arrays)):
        assert storage is not None
        assert (storage.volumes, storage.claims, storage.csi_nodes) == (
            expected.volumes,
            expected.claims,
            expected.csi_nodes,
        )


RAW_LISTS = [
    pytest.param(
        b'{"kind": "PersistentVolume", "metadata": 5, "metadata": {"name": "pv-2"}}',
        id="the last of two metadata members names the object",
    ),
    pytest.param(
        b'{"kind": "PersistentVolume", "metadata": {"name": "pv-2"}, "spec": {"x": 1e400}}',
        id="a number past a float's range is read as json.loads reads it",
    ),
    pytest.param(
        b'{"kind": "PersistentVolume", "metadata": {"name": "pv-\\u00e9"}}',
        id="an escaped name is read unescaped",
    ),
]


@pytest.mark.parametrize("item", RAW_LISTS)
def test_an_unusual_text_reads_as_json_loads_reads_it(item: bytes) -> None:
    node = json.dumps(NODE).encode()
    text = b'{"kind": "List", "items": [\n    ' + node + b",\n    " + item + b"\n]}"
    assert snapshot_of_document(text, "s").storage == _plain(json.loads(text)["items"][1:])


_FIELDS = st.dictionaries(
    st.sampled_from(["storageClassName", "size", "ratio", "note", "modes"]),
    st.one_of(
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
        st.lists(st.text(max_size=3), max_size=2),
    ),
    max_size=3,
)


@st.composite
def _storage_items(draw: st.DrawFn) -> list[dict[str, Any]]:
    items = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from([_PV, _PVC, "CSINode"]))
        metadata: dict[str, Any] = {"name": draw(st.sampled_from(["a", "b", "é", "c\\d"]))}
        if kind == _PVC and draw(st.booleans()):
            metadata["namespace"] = draw(st.sampled_from(["db", ""]))
        items.append({"kind": kind, "metadata": metadata, "spec": draw(_FIELDS)})
    return items


_WRITERS: dict[str, dict[str, Any]] = {
    "kubectl": {"indent": 4},
    "compact": {"separators": (",", ":")},
    "unescaped": {"indent": 2, "ensure_ascii": False},
}


@settings(max_examples=60, deadline=None)
@given(_storage_items(), st.sampled_from(list(_WRITERS)), st.booleans(), st.integers(16, 4096))
def test_any_storage_objects_read_as_their_plain_objects(
    items: list[dict[str, Any]], writer: str, kubectl: bool, window: int
) -> None:
    if kubectl:
        document: dict[str, Any] = _list(*items)
    else:
        arrays: dict[str, list[dict[str, Any]]] = {key: [] for key in _ARRAYS.values()}
        for item in items:
            arrays[_ARRAYS[item["kind"]]].append(item)
        document = _own(**arrays)
    data = json.dumps(document, **_WRITERS[writer]).encode()
    storage = read_snapshot(io.BytesIO(data), "s", lambda n: None, window).storage
    expected = _plain(items)
    assert storage is not None and expected is not None
    for read, plain in (
        (storage.volumes, expected.volumes),
        (storage.claims, expected.claims),
        (storage.csi_nodes, expected.csi_nodes),
    ):
        assert list(read.items()) == list(plain.items())
