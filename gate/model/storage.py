"""The storage objects a snapshot recorded, as the volume plugins read them.

PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers and
CSIStorageCapacities, kept as the API server returns them (plain objects: the volume
plugins read a few fields of each). StorageClasses and CSIDrivers carry the defaults the
API server gives them (``pkg/apis/storage/v1/defaults.go``), as the scheduler's informers
see them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PlainObject = Mapping[str, Any]

STORAGE_KINDS = (
    "PersistentVolume",
    "PersistentVolumeClaim",
    "StorageClass",
    "CSINode",
    "CSIDriver",
    "CSIStorageCapacity",
)
"""The kinds a snapshot may record for the volume plugins."""


@dataclass(frozen=True, slots=True)
class StorageObjects:
    """The snapshot's storage objects: ``volumes`` (PersistentVolumes by name), ``claims``
    (PersistentVolumeClaims by namespace and name), ``classes`` (StorageClasses by name,
    defaulted), ``csi_nodes`` (CSINodes by name, a node's name), ``csi_drivers`` (CSIDrivers
    by name, defaulted), ``capacities`` (CSIStorageCapacities) and ``recorded``: the kinds
    the snapshot listed at all (a kind it did not list is unknown, not empty). A reader may
    keep the volumes, claims and CSINodes as their texts (:mod:`gate.model.encoded`): they
    read as the same plain objects."""

    volumes: Mapping[str, PlainObject] = field(default_factory=dict)
    claims: Mapping[tuple[str, str], PlainObject] = field(default_factory=dict)
    classes: Mapping[str, PlainObject] = field(default_factory=dict)
    csi_nodes: Mapping[str, PlainObject] = field(default_factory=dict)
    csi_drivers: Mapping[str, PlainObject] = field(default_factory=dict)
    capacities: tuple[PlainObject, ...] = ()
    recorded: frozenset[str] = frozenset()
    created: frozenset[tuple[str, str]] = frozenset()
    """The claims the run's manifests create (shipped beside their pods, or made from a
    StatefulSet's templates), by namespace and name: none of them exists in the cluster yet."""
    refused: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """The claims a run's StatefulSet's controller would create that the API server refuses,
    by namespace and name: its refusal of each (``PersistentVolumeClaim "data-web-0" is
    invalid: ...``). None of them is created."""

    @property
    def knows_claims(self) -> bool:
        """Whether the claims, their volumes and classes were all recorded: what a pod's
        claim needs before the volume plugins can judge it."""
        return {"PersistentVolume", "PersistentVolumeClaim", "StorageClass"} <= self.recorded


@dataclass(frozen=True, slots=True)
class Mount:
    """A pod's volume as the volume plugins read it (NodeVolumeLimits, VolumeRestrictions):
    ``name`` (the volume's), ``source`` (its kind, ``persistentVolumeClaim``,
    ``ephemeral`` or an in-tree disk: ``gcePersistentDisk``, ``awsElasticBlockStore``,
    ``azureDisk``, ``cinder``, ``portworxVolume``, ``rbd``, ``iscsi``), ``disk`` (the claim's
    name, or the disk's: pdName, volumeID, diskURI, RBD image, iSCSI IQN; for a generic
    ephemeral volume the claim made for its pod once the pod is named, else ""), ``read_only``,
    ``monitors`` and ``pool`` (RBD) and ``managed`` (an Azure Disk of kind Managed, the
    only kind CSI migration translates)."""

    name: str
    source: str
    disk: str = ""
    read_only: bool = False
    monitors: frozenset[str] = frozenset()
    pool: str = ""
    managed: bool = False

    def __reduce__(
        self,
    ) -> tuple[type[Mount], tuple[str, str, str, bool, frozenset[str], str, bool]]:
        # Pickled as its fields: a second reader of a snapshot file hands thousands over,
        # and a frozen slotted dataclass's own __setstate__ looks its fields up each time.
        fields = (self.name, self.source, self.disk, self.read_only, self.monitors, self.pool)
        return Mount, (*fields, self.managed)


Mounts = Mapping[tuple[str, str], tuple[Mount, ...]]
"""The running pods' mounts by namespace and pod name; only pods that mount a claim or an
in-tree disk are listed."""
