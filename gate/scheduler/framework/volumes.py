"""What the volume plugins (VolumeRestrictions, VolumeBinding, VolumeZone) share: the
storage family's rule, which pods they can judge, what they read of a pod, and the field
a rejection points at.

They judge a pod's ``persistentVolumeClaim`` volumes only when the snapshot recorded the
claims, their volumes and classes (``StorageObjects.knows_claims``); otherwise they pass
every node, as fitgate did before it read storage, and the pod's warning names what to
record (``gate.k8s.warnings``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from gate.k8s.volumes import claim_names
from gate.model import Cause, Family, FieldPath, Rule
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Rejection

RULE = Rule(
    Family.STORAGE,
    "VolumeUnavailable",
    "A volume the pod mounts cannot be used on any node it could land on",
    "Schedule the pod where its claim's volume lives (its zone, its node affinity), or "
    "give it a claim it can use there.",
)


def storage_for(
    pod: PodProfile, cluster: Cluster, claims: tuple[str, ...] | None = None
) -> StorageObjects | None:
    """The storage objects the plugins judge ``pod``'s claims by; None when it mounts no
    claim or the snapshot did not record them. ``claims``: those the plugin reads, when
    not ``pod.claims`` (VolumeBinding's take in its generic ephemeral volumes')."""
    storage = cluster.snapshot.storage
    read = pod.claims if claims is None else claims
    if not read or storage is None or not storage.knows_claims:
        return None
    return storage


def claims_key(pod: PodProfile, cluster: Cluster) -> Hashable:
    """What the volume plugins read of the pod: its namespace and claims."""
    if storage_for(pod, cluster) is None:
        return None
    return (pod.namespace, pod.claims)


def claim_fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """The claim's name in ``volumes``: the claim at fault when the cause says which
    (``index``, its place in ``volumes``), else the first claim."""
    positions = [i for i, _ in claim_names(spec)]
    if not positions:
        return []
    at = cause.index if cause.index in positions else positions[0]
    return [("volumes", at, "persistentVolumeClaim", "claimName"), ("volumes",)]


def refused(state: object) -> Rejection | None:
    """The PreFilter's own rejection kept in a state that has one (``refusal``)."""
    return getattr(state, "refusal", None)
