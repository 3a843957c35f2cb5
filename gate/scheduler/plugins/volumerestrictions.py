"""VolumeRestrictions: every claim the pod mounts must exist; a ReadWriteOncePod claim
in use by another pod, or an in-tree disk another pod of the node mounts, rules nodes out.

Upstream ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``
(v1.34.1). Its PreFilter reads every ``persistentVolumeClaim`` volume's claim first among
the volume plugins, so a missing claim is reported here (``readWriteOncePodPVCsForPod``:
``persistentvolumeclaim "<name>" not found``, UnschedulableAndUnresolvable), whether or
not the pod asks for ReadWriteOncePod. It counts the pod's ReadWriteOncePod claims that
some pod of the cluster already uses, wherever that pod runs (``calPreFilterState``,
``StorageInfos().IsPVCUsedByPods``), and skips the Filter when there are none and the pod
mounts no GCE PD, AWS EBS, RBD or iSCSI disk (``needsRestrictionsCheck``). The Filter
refuses a node one of whose pods mounts the same disk (``isVolumeConflict``: a GCE PD or
an iSCSI IQN unless both mount it read-only, any same EBS volume, an RBD image of the same
pool sharing a monitor unless both are read-only): ``node(s) had no available disk``;
then every node while a ReadWriteOncePod claim is in use: ``node(s) unavailable due to
PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod``
(both Unschedulable).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from gate.k8s.version import Dialect
from gate.k8s.volumes import spec_of
from gate.model import Code, Family, NodeView, Term
from gate.model.storage import Mount
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import VolumeUse
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Parts, Plugin, Rejection
from gate.scheduler.framework.volumes import RULE, claim_fields, claims_key, refused, storage_for
from gate.untyped import as_list

VOLUME_RESTRICTIONS = "VolumeRestrictions"

# volume_restrictions.go PreFilter: the claim lister's NotFound error, as its status
REASON_CLAIM_NOT_FOUND = 'persistentvolumeclaim "{claim}" not found'
# volume_restrictions.go ErrReasonDiskConflict, ErrReasonReadWriteOncePodConflict
REASON_DISK_CONFLICT = "node(s) had no available disk"
REASON_READ_WRITE_ONCE_POD = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)
DISK_CONFLICT = Rejection(VOLUME_RESTRICTIONS, Code.UNSCHEDULABLE, (REASON_DISK_CONFLICT,))
IN_USE = Rejection(VOLUME_RESTRICTIONS, Code.UNSCHEDULABLE, (REASON_READ_WRITE_ONCE_POD,))

# volume_restrictions.go needsRestrictionsCheck
CONFLICTING_SOURCES = frozenset({"gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi"})
READ_WRITE_ONCE_POD = "ReadWriteOncePod"


@dataclass(frozen=True, slots=True)
class State:
    """The PreFilter's answer: its own rejection; whether a ReadWriteOncePod claim of the
    pod is in use (``in_use``); the pod's disks the Filter compares with the node's pods',
    and those pods (``use``, the nodes' ``positions``)."""

    refusal: Rejection | None = None
    in_use: bool = False
    disks: tuple[Mount, ...] = ()
    use: VolumeUse | None = None
    positions: dict[str, int] | None = None


SKIP = State()


def conflicts(disk: Mount, other: Mount) -> bool:
    """isVolumeConflict for one volume of each pod."""
    if disk.source != other.source:
        return False
    both_read_only = disk.read_only and other.read_only
    if disk.source in ("gcePersistentDisk", "iscsi"):
        return disk.disk == other.disk and not both_read_only
    if disk.source == "awsElasticBlockStore":
        return disk.disk == other.disk
    return (  # rbd
        bool(disk.monitors & other.monitors)
        and disk.pool == other.pool
        and disk.disk == other.disk
        and not both_read_only
    )


def _prepare(pod: PodProfile, cluster: Cluster) -> State:
    disks = tuple(m for m in pod.mounts if m.source in CONFLICTING_SOURCES)
    storage = storage_for(pod, cluster)
    in_use = False
    if storage is not None:
        used = None
        for name in pod.claims:
            claim = storage.claims.get((pod.namespace, name))
            if claim is None:
                reason = REASON_CLAIM_NOT_FOUND.format(claim=name)
                return State(Rejection(VOLUME_RESTRICTIONS, UNRESOLVABLE, (reason,)))
            if READ_WRITE_ONCE_POD in as_list(spec_of(claim).get("accessModes")):
                used = used or cluster.others.volume_use.claims_in_use
                in_use = in_use or used[pod.namespace, name] > 0
    if not disks:
        return State(in_use=True) if in_use else SKIP
    positions = cluster.others.memo.get(VOLUME_RESTRICTIONS)
    if not isinstance(positions, dict):
        positions = {node.name: i for i, node in enumerate(cluster.index.nodes)}
        cluster.others.memo[VOLUME_RESTRICTIONS] = positions
    return State(None, in_use, disks, cluster.others.volume_use, positions)


def _disk_conflict(state: State, position: int | None) -> bool:
    """satisfyVolumeConflicts failing: a disk of the pod conflicts with one of a pod on
    the node at ``position``."""
    if position is None or state.use is None:
        return False
    return any(
        conflicts(disk, other)
        for pod in state.use.on(position)
        for other in pod.mounts
        for disk in state.disks
    )


def _answer(state: State, position: int | None) -> Rejection | None:
    if state.refusal is not None:
        return state.refusal
    if state.disks and _disk_conflict(state, position):
        return DISK_CONFLICT
    return IN_USE if state.in_use else None


def volume_restrictions(state: State, node: NodeView, dialect: Dialect) -> Rejection | None:
    positions = state.positions
    return _answer(state, None if positions is None else positions.get(node.name))


def _passes(state: State) -> bool:
    return state.refusal is None and not state.in_use and not state.disks


def _split(index: NodeIndex, state: State, dialect: Dialect, among: int) -> Parts:
    """Nodes holding no mounting pod share the answer they would get without disks; the
    others are asked one by one."""
    use = state.use
    holding = 0
    if state.disks and use is not None and state.refusal is None:
        for position in use.by_node:
            holding |= 1 << position
    holding &= among
    yield among & ~holding, _answer(state, None)
    yield from _one_by_one(state, holding)


def _one_by_one(state: State, asked: int) -> Iterator[tuple[int, Rejection | None]]:
    while asked:
        low = asked & -asked
        yield low, _answer(state, low.bit_length() - 1)
        asked ^= low


def _key(pod: PodProfile, cluster: Cluster) -> Hashable:
    """The claims (when the snapshot recorded them) and the disks the Filter compares."""
    disks = tuple(m for m in pod.mounts if m.source in CONFLICTING_SOURCES)
    return (claims_key(pod, cluster), disks) if disks else claims_key(pod, cluster)


PLUGIN: Plugin[State] = Plugin(
    VOLUME_RESTRICTIONS,
    Family.STORAGE,
    Term.CLAIM,
    RULE,
    key=_key,
    prepare=_prepare,
    check=volume_restrictions,
    reasons=(REASON_CLAIM_NOT_FOUND, REASON_DISK_CONFLICT, REASON_READ_WRITE_ONCE_POD),
    passes=_passes,
    split=_split,
    fields=claim_fields,
    refuses=refused,
)
