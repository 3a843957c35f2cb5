"""A snapshot's storage objects -> :class:`~gate.model.storage.StorageObjects`.

They are read whole, as the admission and autoscaler objects are; a StorageClass and a
CSIDriver get the defaults the API server gives them (``pkg/apis/storage/v1/defaults.go``
``SetDefaults_StorageClass``, ``SetDefaults_CSIDriver``) before the volume plugins read
them. Anything not shaped like its kind is passed over, as the schema says nothing of it.

The kinds a cluster holds by the thousand (:data:`KEPT_AS_TEXT`: a volume and a claim per
StatefulSet pod, a CSINode per node) come from the typed reader as their JSON texts and
are kept so (:class:`~gate.model.encoded.EncodedObjects`): only their names are decoded
here, by a struct that skips the rest of each text.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, Struct, UnsetType

# stated in gate.k8s: the classes a run ships get the same defaults
from gate.k8s.volumes import defaulted_class as defaulted_class
from gate.model.encoded import EncodedObjects, decoded
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

KEPT_AS_TEXT = frozenset({"PersistentVolume", "PersistentVolumeClaim", "CSINode"})
"""The kinds the typed reader hands over as texts (:func:`storage_objects`)."""

_DRIVER_DEFAULTS = {
    "attachRequired": True,
    "podInfoOnMount": False,
    "storageCapacity": False,
    "fsGroupPolicy": "ReadWriteOnceWithFSType",
    "requiresRepublish": False,
    # set when SELinuxMountReadWriteOncePod is on: beta and on by default since 1.28
    "seLinuxMount": False,
}


def _name(obj: PlainObject) -> str | None:
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) and name else None


def _namespace(obj: PlainObject) -> str:
    metadata = obj.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    return namespace if isinstance(namespace, str) and namespace else "default"


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


class _NameOnly(Struct, gc=False):
    name: Any = UNSET
    namespace: Any = UNSET


class _Named(Struct, gc=False):
    """What an object's key is read from; every other member is skipped unbuilt."""

    metadata: _NameOnly | UnsetType | None = UNSET


_NAMED = msgspec.json.Decoder(_Named)
K = TypeVar("K", bound=Hashable)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


KeyedText = tuple[str, str, bytes]
"""A storage object of a kubectl List kept as text, with its name and namespace (the
namespace ``default`` when it names none): the typed reader decoded them with the item."""


def _keyed(items: list[Any], key: Callable[[str, str], K]) -> Mapping[K, PlainObject]:
    """The objects by ``key(name, namespace)``, the later of two with one key kept in the
    earlier's place (as a dict built in order keeps it). ``items`` are objects, or texts
    :func:`~gate.model.encoded.deferred` kept (alone, or as a :data:`KeyedText`), which
    stay texts."""
    if not any(isinstance(item, (bytes, tuple)) for item in items):
        return {
            key(name, _namespace(o)): o
            for o in items
            if isinstance(o, Mapping) and (name := _name(o))
        }
    found: dict[K, bytes | PlainObject] = {}
    for item in items:
        if isinstance(item, tuple):
            name, namespace, text = item
            found[key(name, namespace)] = text
            continue
        if isinstance(item, bytes):
            try:
                meta = _NAMED.decode(item).metadata
            except msgspec.DecodeError:  # not an object, or a name only json.loads reads
                item = decoded(item)
            else:
                if meta is not None and meta is not UNSET and (name := _text(meta.name)):
                    # interned: a namespace names thousands of claims
                    namespace = sys.intern(_text(meta.namespace) or "default")
                    found[key(name, namespace)] = item
                continue
        if isinstance(item, Mapping) and (name := _name(item)):
            found[key(name, _namespace(item))] = item
    return EncodedObjects(found)


def storage_objects(by_kind: Mapping[str, list[Any]]) -> StorageObjects | None:
    """The storage objects of a snapshot's objects by kind (a kind absent: not listed);
    None when it listed none of the kinds."""
    recorded = frozenset(kind for kind in STORAGE_KINDS if kind in by_kind)
    if not recorded:
        return None
    claims = _keyed(by_kind.get("PersistentVolumeClaim", []), lambda name, ns: (ns, name))
    classes = _by_name(by_kind.get("StorageClass", []))
    drivers = _by_name(by_kind.get("CSIDriver", []))
    return StorageObjects(
        volumes=_keyed(by_kind.get("PersistentVolume", []), _only_name),
        claims=claims,
        classes={name: defaulted_class(o) for name, o in classes.items()},
        csi_nodes=_keyed(by_kind.get("CSINode", []), _only_name),
        csi_drivers={name: defaulted_driver(o) for name, o in drivers.items()},
        capacities=tuple(
            o for o in by_kind.get("CSIStorageCapacity", []) if isinstance(o, Mapping)
        ),
        recorded=recorded,
    )


def _only_name(name: str, namespace: str) -> str:
    return name
