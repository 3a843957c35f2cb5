"""VolumeRestrictions: every claim the pod mounts must exist; a ReadWriteOncePod claim
in use by another pod, or an in-tree disk another pod of the node mounts, rules nodes out.

Upstream ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``
(v1.34.1). Its PreFilter reads every ``persistentVolumeClaim`` volume's claim first among
the volume plugins, so a missing claim is reported here (``readWriteOncePodPVCsForPod``:
``persistentvolumeclaim "<name>" not found``, UnschedulableAndUnresolvable), whether or
not the pod asks for ReadWriteOncePod. Which claims existing pods use, and their in-tree
disks, are not recorded: the ReadWriteOncePod and disk conflicts are not judged, and the
pod's warning says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.k8s.version import Dialect
from gate.model import Family, NodeView, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Plugin, Rejection
from gate.scheduler.framework.volumes import RULE, claim_fields, claims_key, refused, storage_for

VOLUME_RESTRICTIONS = "VolumeRestrictions"

# volume_restrictions.go PreFilter: the claim lister's NotFound error, as its status
REASON_CLAIM_NOT_FOUND = 'persistentvolumeclaim "{claim}" not found'
# volume_restrictions.go ErrReasonDiskConflict, ErrReasonReadWriteOncePodConflict
REASON_DISK_CONFLICT = "node(s) had no available disk"
REASON_READ_WRITE_ONCE_POD = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)


@dataclass(frozen=True, slots=True)
class State:
    """The PreFilter's answer: its own rejection, or None when the Filter passes."""

    refusal: Rejection | None = None


SKIP = State()


def _prepare(pod: PodProfile, cluster: Cluster) -> State:
    storage = storage_for(pod, cluster)
    if storage is None:
        return SKIP
    for name in pod.claims:
        if (pod.namespace, name) not in storage.claims:
            reason = REASON_CLAIM_NOT_FOUND.format(claim=name)
            return State(Rejection(VOLUME_RESTRICTIONS, UNRESOLVABLE, (reason,)))
    return SKIP


def volume_restrictions(state: State, node: NodeView, dialect: Dialect) -> Rejection | None:
    return state.refusal


def _passes(state: State) -> bool:
    return state.refusal is None


def _same(node: NodeView) -> None:
    return None


PLUGIN: Plugin[State] = Plugin(
    VOLUME_RESTRICTIONS,
    Family.STORAGE,
    Term.CLAIM,
    RULE,
    key=claims_key,
    prepare=_prepare,
    check=volume_restrictions,
    reasons=(REASON_CLAIM_NOT_FOUND, REASON_DISK_CONFLICT, REASON_READ_WRITE_ONCE_POD),
    reads=_same,
    passes=_passes,
    fields=claim_fields,
    refuses=refused,
)
