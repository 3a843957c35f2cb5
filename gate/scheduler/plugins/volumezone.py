"""VolumeZone: a pod whose bound PersistentVolumes carry zone or region labels fits only
on nodes of those zones and regions.

Upstream ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go`` (v1.34.1). The
PreFilter (``getPVbyPod``) reads each claim's volume and keeps its topology labels (the
beta and GA zone and region keys, a value ``a__b`` meaning either zone); an unbound claim
of a WaitForFirstConsumer class is passed over, any other unbound claim, a missing volume
or class is its own UnschedulableAndUnresolvable status. The Filter passes a node with
none of the four labels; otherwise each volume's label, read on the node under its key or
the GA key it translates to, must be one of the volume's values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gate.k8s.labels import BETA_REGION, BETA_ZONE, REGION, ZONE
from gate.k8s.version import Dialect
from gate.k8s.volumes import WAIT, claim_class, spec_of
from gate.model import Family, NodeView, Term
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Plugin, Rejection
from gate.scheduler.framework.volumes import RULE, claim_fields, claims_key, refused, storage_for

VOLUME_ZONE = "VolumeZone"

# volume_zone.go ErrReasonConflict
REASON_CONFLICT = "node(s) had no available volume zone"
# volume_zone.go getPVbyPod: its own statuses, and the listers' NotFound errors
REASON_NO_CLAIM_NAME = "PersistentVolumeClaim had no name"
REASON_NO_VOLUME_OR_CLASS = "PersistentVolumeClaim had no pv name and storageClass name"
REASON_NO_VOLUME_NAME = "PersistentVolume had no name"
REASON_VOLUME_NOT_FOUND = 'persistentvolume "{volume}" not found'
REASON_CLASS_NOT_FOUND = 'storageclass.storage.k8s.io "{storage_class}" not found'

CONFLICT = Rejection(VOLUME_ZONE, UNRESOLVABLE, (REASON_CONFLICT,))

# volume_zone.go topologyLabels, in its order, and translateToGALabel
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, ZONE, REGION)
GA_LABEL = {BETA_ZONE: ZONE, BETA_REGION: REGION}

Topology = tuple[tuple[str, frozenset[str]], ...]


@dataclass(frozen=True, slots=True)
class State:
    """The volumes' topology labels (key, allowed values), or the PreFilter's rejection."""

    topology: Topology = ()
    refusal: Rejection | None = None


SKIP = State()


def label_zones(value: str) -> frozenset[str] | None:
    """volumehelpers.LabelZonesToSet: ``a__b`` is zones a and b (``__`` is the only
    separator: ``a,b`` is one zone); None when a zone is empty (upstream ignores such a
    label)."""
    zones = [zone.strip() for zone in value.split("__")]
    return None if any(not zone for zone in zones) else frozenset(zones)


def volume_topology(labels: Mapping[str, str]) -> Topology:
    """getPVTopologies: the volume's topology labels, in upstream's order."""
    found = []
    for key in TOPOLOGY_LABELS:
        value = labels.get(key)
        zones = None if value is None else label_zones(value)
        if zones is not None:
            found.append((key, zones))
    return tuple(found)


def _refusal(reason: str) -> State:
    return State(refusal=Rejection(VOLUME_ZONE, UNRESOLVABLE, (reason,)))


def pre_filter(namespace: str, claims: tuple[str, ...], storage: StorageObjects) -> State:
    """getPVbyPod."""
    topology: list[tuple[str, frozenset[str]]] = []
    for name in claims:
        if not name:
            return _refusal(REASON_NO_CLAIM_NAME)
        claim = storage.claims.get((namespace, name))
        if claim is None:  # VolumeRestrictions' PreFilter says so first
            return _refusal(f'persistentvolumeclaim "{name}" not found')
        volume_name = spec_of(claim).get("volumeName")
        if not volume_name:
            class_name = claim_class(claim)
            if not class_name:
                return _refusal(REASON_NO_VOLUME_OR_CLASS)
            found = storage.classes.get(class_name)
            if found is None:
                return _refusal(REASON_CLASS_NOT_FOUND.format(storage_class=class_name))
            if found.get("volumeBindingMode") == WAIT:
                continue
            return _refusal(REASON_NO_VOLUME_NAME)
        volume = storage.volumes.get(str(volume_name))
        if volume is None:
            return _refusal(REASON_VOLUME_NOT_FOUND.format(volume=volume_name))
        metadata = volume.get("metadata")
        labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
        topology.extend(volume_topology(labels if isinstance(labels, Mapping) else {}))
    return State(tuple(topology)) if topology else SKIP


def _prepare(pod: PodProfile, cluster: Cluster) -> State:
    storage = storage_for(pod, cluster)
    return SKIP if storage is None else pre_filter(pod.namespace, pod.claims, storage)


def volume_zone(state: State, node: NodeView, dialect: Dialect) -> Rejection | None:
    if state.refusal is not None:
        return state.refusal
    labels = node.labels
    if not any(key in labels for key in TOPOLOGY_LABELS):
        return None
    for key, values in state.topology:
        value = labels.get(key)
        if value is None:
            value = labels.get(GA_LABEL.get(key, key))
        if value is None or value not in values:
            return CONFLICT
    return None


def _passes(state: State) -> bool:
    return state.refusal is None and not state.topology


def _topology_labels(node: NodeView) -> tuple[str | None, ...]:
    return tuple(node.labels.get(key) for key in TOPOLOGY_LABELS)


PLUGIN: Plugin[State] = Plugin(
    VOLUME_ZONE,
    Family.STORAGE,
    Term.CLAIM,
    RULE,
    key=claims_key,
    prepare=_prepare,
    check=volume_zone,
    reasons=(
        REASON_CONFLICT,
        REASON_NO_CLAIM_NAME,
        REASON_NO_VOLUME_OR_CLASS,
        REASON_NO_VOLUME_NAME,
        REASON_VOLUME_NOT_FOUND,
        REASON_CLASS_NOT_FOUND,
    ),
    reads=_topology_labels,
    passes=_passes,
    fields=claim_fields,
    refuses=refused,
)
