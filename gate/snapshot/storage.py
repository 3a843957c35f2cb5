"""A snapshot's storage objects -> :class:`~gate.model.storage.StorageObjects`.

They are read whole, as the admission and autoscaler objects are; a StorageClass and a
CSIDriver get the defaults the API server gives them (``pkg/apis/storage/v1/defaults.go``
``SetDefaults_StorageClass``, ``SetDefaults_CSIDriver``) before the volume plugins read
them. Anything not shaped like its kind is passed over, as the schema says nothing of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gate.model.storage import STORAGE_KINDS, PlainObject, StorageObjects

STORAGE_SECTIONS: Mapping[str, str] = {
    "persistentVolumes": "PersistentVolume",
    "persistentVolumeClaims": "PersistentVolumeClaim",
    "storageClasses": "StorageClass",
    "csiNodes": "CSINode",
    "csiDrivers": "CSIDriver",
    "csiStorageCapacities": "CSIStorageCapacity",
}
"""The arrays of a ClusterSnapshot that hold storage objects, and their kinds."""

_CLASS_DEFAULTS = {"reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}
_DRIVER_DEFAULTS = {
    "attachRequired": True,
    "podInfoOnMount": False,
    "storageCapacity": False,
    "fsGroupPolicy": "ReadWriteOnceWithFSType",
    "requiresRepublish": False,
}


def _name(obj: PlainObject) -> str | None:
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) and name else None


def _namespace(obj: PlainObject) -> str:
    metadata = obj.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    return namespace if isinstance(namespace, str) and namespace else "default"


def defaulted_class(obj: PlainObject) -> PlainObject:
    """A StorageClass as the API server stores it: an unset ``reclaimPolicy`` is Delete,
    an unset ``volumeBindingMode`` Immediate."""
    return {**obj, **{k: v for k, v in _CLASS_DEFAULTS.items() if obj.get(k) is None}}


def defaulted_driver(obj: PlainObject) -> PlainObject:
    """A CSIDriver as the API server stores it, its spec's unset fields defaulted."""
    spec = obj.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    filled = {k: v for k, v in _DRIVER_DEFAULTS.items() if spec.get(k) is None}
    if not spec.get("volumeLifecycleModes"):
        filled["volumeLifecycleModes"] = ["Persistent"]
    return {**obj, "spec": {**spec, **filled}}


def _by_name(items: Iterable[Any]) -> dict[str, PlainObject]:
    return {name: o for o in items if isinstance(o, Mapping) and (name := _name(o))}


def storage_objects(by_kind: Mapping[str, list[Any]]) -> StorageObjects | None:
    """The storage objects of a snapshot's objects by kind (a kind absent: not listed);
    None when it listed none of the kinds."""
    recorded = frozenset(kind for kind in STORAGE_KINDS if kind in by_kind)
    if not recorded:
        return None
    claims = {
        (_namespace(o), name): o
        for o in by_kind.get("PersistentVolumeClaim", [])
        if isinstance(o, Mapping) and (name := _name(o))
    }
    classes = _by_name(by_kind.get("StorageClass", []))
    drivers = _by_name(by_kind.get("CSIDriver", []))
    return StorageObjects(
        volumes=_by_name(by_kind.get("PersistentVolume", [])),
        claims=claims,
        classes={name: defaulted_class(o) for name, o in classes.items()},
        csi_nodes=_by_name(by_kind.get("CSINode", [])),
        csi_drivers={name: defaulted_driver(o) for name, o in drivers.items()},
        capacities=tuple(
            o for o in by_kind.get("CSIStorageCapacity", []) if isinstance(o, Mapping)
        ),
        recorded=recorded,
    )
