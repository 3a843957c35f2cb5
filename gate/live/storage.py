"""What ``fitgate snapshot`` keeps of the storage objects, and where it lists them (read-only,
``list`` only, each kind asked first; docs/rbac.md).

The volume plugins read these objects whole (:mod:`gate.snapshot.storage`), so their
``spec`` and ``status`` are kept as the API server sends them, and of their metadata what
the plugins read: the name, namespace, uid (a volume's ``claimRef`` may name it), labels,
the deletion timestamp, and only the annotations the plugins read (bind-completed, the
selected node, the beta class, a CSINode's migrated plugins). A StorageClass keeps its
creation time, provisioner, binding mode, allowed topologies and reclaim policy (not its
``parameters``); a CSIStorageCapacity its class, topology and capacities.
``managedFields``, owners and every other annotation never reach the file.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from gate.k8s.claims import BETA_DEFAULT_CLASS, DEFAULT_CLASS
from gate.k8s.volumes import BETA_CLASS, BIND_COMPLETED, MIGRATED_PLUGINS, SELECTED_NODE
from gate.live.objects import Quantity

KEPT_ANNOTATIONS = frozenset(
    {
        BIND_COMPLETED,
        SELECTED_NODE,
        BETA_CLASS,
        DEFAULT_CLASS,
        BETA_DEFAULT_CLASS,
        MIGRATED_PLUGINS,
    }
)
"""The binder's notes, the default StorageClass's (a run's new claim gets its class), and
a CSINode's migrated plugins (an in-tree volume is read as its CSI driver's there)."""


class _Part(Struct, omit_defaults=True, gc=False):
    pass


class _Object(_Part):
    apiVersion: str = ""
    kind: str = ""


class StorageMeta(_Part):
    name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    deletionTimestamp: str | None = None

    def __post_init__(self) -> None:
        if self.annotations is not None:
            kept = {k: v for k, v in self.annotations.items() if k in KEPT_ANNOTATIONS}
            self.annotations = kept or None


class _Whole(_Object):
    metadata: StorageMeta = field(default_factory=StorageMeta)
    spec: dict[str, Any] | None = None


class PersistentVolume(_Whole):
    status: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "PersistentVolume"


class PersistentVolumeClaim(_Whole):
    status: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "PersistentVolumeClaim"


class CSINode(_Whole):
    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "storage.k8s.io/v1", "CSINode"


class CSIDriver(_Whole):
    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "storage.k8s.io/v1", "CSIDriver"


class StorageClassMeta(StorageMeta):
    creationTimestamp: str | None = None
    """Of two default classes a new claim gets the newest (``GetDefaultClass``)."""


class StorageClass(_Object):
    metadata: StorageClassMeta = field(default_factory=StorageClassMeta)
    provisioner: str | None = None
    volumeBindingMode: str | None = None
    reclaimPolicy: str | None = None
    allowedTopologies: list[Any] | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "storage.k8s.io/v1", "StorageClass"


class CSIStorageCapacity(_Object):
    metadata: StorageMeta = field(default_factory=StorageMeta)
    storageClassName: str | None = None
    nodeTopology: dict[str, Any] | None = None
    capacity: Quantity | None = None
    maximumVolumeSize: Quantity | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "storage.k8s.io/v1", "CSIStorageCapacity"


Stored = (
    PersistentVolume
    | PersistentVolumeClaim
    | StorageClass
    | CSINode
    | CSIDriver
    | CSIStorageCapacity
)
