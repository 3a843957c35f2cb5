"""What NodeVolumeLimits counts of a pod on a node (``csi.go`` ``filterAttachableVolumes``,
``getCSIDriverInfo``, ``getCSIDriverInfoFromSC``, ``getVolumeLimits``; ``utils.go``
``isCSIMigrationOn``; ``k8s.io/csi-translation-lib`` for the in-tree disks): see the
package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar
from urllib.parse import urlsplit

import msgspec

from gate.k8s.labels import BETA_ZONE, ZONE
from gate.k8s.volumes import (
    BETA_CLASS,
    MOUNTED_SOURCES,
    annotations_of,
    claim_class,
    ephemeral_claim,
    mount_of,
    name_of,
    spec_of,
)
from gate.k8s.volumes import (
    MIGRATED_PLUGINS as MIGRATED_PLUGINS,  # re-exported: the plugins read it from here
)
from gate.model import NODE_VOLUME_LIMITS, Code
from gate.model.encoded import EncodedObjects, decoded
from gate.model.storage import Mount, PlainObject, StorageObjects
from gate.scheduler.framework.runtime import Rejection
from gate.untyped import as_list, mapping

# csi.go ErrReasonMaxVolumeCountExceeded
REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count"
EXCEEDED = Rejection(NODE_VOLUME_LIMITS, Code.UNSCHEDULABLE, (REASON_MAX_VOLUME_COUNT,))

PORTWORX = "kubernetes.io/portworx-volume"

# csi-translation-lib/plugins: each in-tree source's plugin name and the CSI driver it
# migrated to (aws_ebs.go, gce_pd.go, azure_disk.go, openstack_cinder.go, portworx.go)
IN_TREE: Mapping[str, tuple[str, str]] = {
    "awsElasticBlockStore": ("kubernetes.io/aws-ebs", "ebs.csi.aws.com"),
    "gcePersistentDisk": ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    "azureDisk": ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    "cinder": ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
    "portworxVolume": (PORTWORX, "pxd.portworx.com"),
}
DRIVER_OF_PLUGIN: Mapping[str, str] = dict(IN_TREE.values())
# csi-translation-lib translate.go: the in-tree provisioners it knows (azure-file and
# vsphere-volume too, whose migration isCSIMigrationOn never finds on)
MIGRATABLE_PROVISIONERS = frozenset(
    {*DRIVER_OF_PLUGIN, "kubernetes.io/azure-file", "kubernetes.io/vsphere-volume"}
)
# gce_pd.go volIDZonalFmt, volIDRegionalFmt, UnspecifiedValue
GCE_ZONAL = "projects/{project}/zones/{zone}/disks/{name}"
GCE_REGIONAL = "projects/{project}/regions/{region}/disks/{name}"
UNSPECIFIED = "UNSPECIFIED"

CLAIM, EPHEMERAL = "persistentVolumeClaim", "ephemeral"
HANDLE_PREFIX = "fitgate"
"""The prefix of an unbound claim's handle: upstream draws one at random per scheduler
(``randomVolumeIDPrefix``) so that it never equals a real handle; any constant does."""

Volumes = dict[str, str]
"""Counted volumes: ``<driver>/<handle>`` -> driver."""


def migration_on(csi_node: PlainObject | None, plugin: str) -> bool:
    """isCSIMigrationOn (the Portworx migration is on: its feature is locked on in 1.34)."""
    if csi_node is None or plugin not in DRIVER_OF_PLUGIN:
        return False
    if plugin != PORTWORX:
        return True
    listed = annotations_of(csi_node).get(MIGRATED_PLUGINS)
    return isinstance(listed, str) and plugin in listed.split(",")


# aws_ebs.go awsVolumeRegMatch
_EBS_VOLUME = re.compile(r"vol-[^/]*")


def ebs_volume_id(volume_id: str) -> str | None:
    """KubernetesVolumeIDToEBSVolumeID: ``aws://<zone>/<id>`` is ``<id>``; None when the
    URL names no EBS volume."""
    if not volume_id.startswith("aws://"):
        return volume_id
    found = urlsplit(volume_id).path.strip("/")
    return found if _EBS_VOLUME.fullmatch(found) else None


def _gce_handle(mount: Mount, labels: Mapping[str, str] | None) -> str | None:
    """The translated handle of a GCE PD: inline, in no zone; a volume, in its zone label's
    zone, or its region when the label names several zones of one region."""
    name = mount.disk
    if labels is None:
        return GCE_ZONAL.format(project=UNSPECIFIED, zone=UNSPECIFIED, name=name)
    zones = (labels.get(BETA_ZONE) or labels.get(ZONE) or "").split("__")
    if len(zones) == 1:
        zone = zones[0] or UNSPECIFIED
        return GCE_ZONAL.format(project=UNSPECIFIED, zone=zone, name=name)
    # gceGetRegionFromZones: every zone <locale>-<region>-<zone>, all of one region
    regions = {zone.rsplit("-", 1)[0] for zone in zones}
    if len(regions) != 1 or any(zone.count("-") != 2 for zone in zones):
        return None  # the translation fails
    return GCE_REGIONAL.format(project=UNSPECIFIED, region=regions.pop(), name=name)


def translated(
    mount: Mount, csi_node: PlainObject | None, labels: Mapping[str, str] | None = None
) -> tuple[str, str] | None:
    """An in-tree disk as the CSI volume it migrated to, (driver, handle); None when it is
    not counted on this node. ``labels``: the PersistentVolume's, for a volume's GCE PD."""
    plugin_and_driver = IN_TREE.get(mount.source)
    if plugin_and_driver is None or not migration_on(csi_node, plugin_and_driver[0]):
        return None
    driver = plugin_and_driver[1]
    if mount.source == "awsElasticBlockStore":
        handle = ebs_volume_id(mount.disk)
    elif mount.source == "gcePersistentDisk":
        handle = _gce_handle(mount, labels)
    elif mount.source == "azureDisk" and not mount.managed:
        handle = None
    else:
        handle = mount.disk
    return None if not handle else (driver, handle)


def _from_class(
    namespace: str, claim: PlainObject, storage: StorageObjects, csi_node: PlainObject | None
) -> tuple[str, str] | None:
    """getCSIDriverInfoFromSC."""
    class_name = claim_class(claim)
    found = storage.classes.get(class_name) if class_name else None
    if found is None:
        return None
    handle = f"{HANDLE_PREFIX}-{namespace}/{name_of(claim)}"
    provisioner = found.get("provisioner")
    if not isinstance(provisioner, str) or not provisioner:
        return None
    if provisioner in MIGRATABLE_PROVISIONERS:
        if not migration_on(csi_node, provisioner):
            return None
        return DRIVER_OF_PLUGIN[provisioner], handle
    return provisioner, handle


def claim_volume(
    namespace: str, claim: PlainObject, storage: StorageObjects, csi_node: PlainObject | None
) -> tuple[str, str] | None:
    """getCSIDriverInfo: the claim's volume as (driver, handle), or None: not counted."""
    volume_name = spec_of(claim).get("volumeName")
    volume = storage.volumes.get(volume_name) if isinstance(volume_name, str) else None
    if not volume_name or volume is None:
        return _from_class(namespace, claim, storage, csi_node)
    spec = spec_of(volume)
    csi = spec.get("csi")
    if isinstance(csi, Mapping):
        driver, handle = csi.get("driver"), csi.get("volumeHandle")
        if isinstance(driver, str) and isinstance(handle, str) and driver and handle:
            return driver, handle
        return None
    mount = mount_of(spec)
    if mount is None:
        return None
    labels = mapping(mapping(volume.get("metadata")).get("labels"))
    return translated(mount, csi_node, {str(k): str(v) for k, v in labels.items()})


def attachable(
    namespace: str,
    pod_name: str | None,
    mounts: tuple[Mount, ...],
    storage: StorageObjects,
    csi_node: PlainObject | None,
) -> Volumes:
    """filterAttachableVolumes: a pod's counted volumes. ``pod_name`` None: the incoming
    pod, whose generic ephemeral volumes count only where they name the claim created for
    it (:func:`gate.scheduler.framework.pods.with_ephemeral_of`)."""
    found: Volumes = {}
    for mount in mounts:
        if mount.source == CLAIM:
            name = mount.disk
        elif mount.source == EPHEMERAL:
            if mount.disk:
                name = mount.disk
            elif pod_name is None:
                continue
            else:
                name = ephemeral_claim(pod_name, mount.name)
        else:
            inline = translated(mount, csi_node)
            if inline is not None:
                found[f"{inline[0]}/{inline[1]}"] = inline[0]
            continue
        claim = storage.claims.get((namespace, name))
        volume = None if claim is None else claim_volume(namespace, claim, storage, csi_node)
        if volume is not None:
            found[f"{volume[0]}/{volume[1]}"] = volume[0]
    return found


# What claim_volume reads of a claim (its name, class: its beta annotation or spec, and
# volume's name) and of its volume (its zone labels, CSI source and in-tree sources:
# mount_of reads the spec as a pod's volume, its name included), and nothing else.
_UNSET: Any = msgspec.UNSET
K = TypeVar("K", bound=Hashable)


def _decoder(
    metadata: Mapping[str, tuple[str, ...] | None], spec: tuple[str, ...]
) -> msgspec.json.Decoder[Any]:
    """A decoder of the ``spec`` fields and ``metadata`` fields of an object, each of the
    latter whole (None) or only the keys it names (an annotation, a label)."""

    def part(name: str, keys: Iterable[str]) -> Any:
        return msgspec.defstruct(name, [(key, Any, _UNSET) for key in keys])

    def only(keys: tuple[str, ...]) -> Any:
        fields = [(f"k{i}", Any, msgspec.field(default=_UNSET, name=k)) for i, k in enumerate(keys)]
        return msgspec.defstruct("Keys", fields)

    read = [(key, Any if keys is None else only(keys), _UNSET) for key, keys in metadata.items()]
    fields = [
        ("metadata", msgspec.defstruct("Metadata", read), _UNSET),
        ("spec", part("Spec", spec), _UNSET),
    ]
    return msgspec.json.Decoder(msgspec.defstruct("Part", fields))


_CLAIM_PART = _decoder(
    {"name": None, "annotations": (BETA_CLASS,)}, ("volumeName", "storageClassName")
)
_VOLUME_PART = _decoder({"labels": (BETA_ZONE, ZONE)}, ("name", "csi", *MOUNTED_SOURCES))


def _part_reader(decoder: msgspec.json.Decoder[Any]) -> Callable[[bytes], PlainObject]:
    def read(text: bytes) -> PlainObject:
        """The part of an object's text ``decoder`` reads, as the whole object's decoding
        has it (a field not written stays out); a text whose part does not decode so (a
        metadata or spec that is no object) is decoded whole."""
        try:
            part: PlainObject = msgspec.to_builtins(decoder.decode(text))
        except msgspec.DecodeError:
            return decoded(text)
        return part

    return read


_read_claim, _read_volume = _part_reader(_CLAIM_PART), _part_reader(_VOLUME_PART)
# What migration_on and volume_limits read of a CSINode.
_read_csi_node = _part_reader(_decoder({"annotations": (MIGRATED_PLUGINS,)}, ("drivers",)))


def _read_parts(
    objects: Mapping[K, PlainObject], read: Callable[[bytes], PlainObject]
) -> Mapping[K, PlainObject]:
    return objects.read_by(read) if isinstance(objects, EncodedObjects) else objects


def counted_parts(storage: StorageObjects) -> StorageObjects:
    """``storage`` with its claims, volumes and CSINodes read only as far as the count
    reads them (:func:`attachable`, :func:`volume_limits`): counting every mounting pod
    of a cluster decodes each of them once, and most of a volume's text is what the plugin
    never reads (its node affinity, status)."""
    return replace(
        storage,
        claims=_read_parts(storage.claims, _read_claim),
        volumes=_read_parts(storage.volumes, _read_volume),
        csi_nodes=_read_parts(storage.csi_nodes, _read_csi_node),
    )


def volume_limits(csi_node: PlainObject | None) -> dict[str, int]:
    """getVolumeLimits: each driver's ``allocatable.count``."""
    limits: dict[str, int] = {}
    for driver in as_list(spec_of(csi_node or {}).get("drivers")):
        name = mapping(driver).get("name")
        count = mapping(mapping(driver).get("allocatable")).get("count")
        if isinstance(name, str) and isinstance(count, int) and not isinstance(count, bool):
            limits[name] = count
    return limits
