"""NodeVolumeLimits: the CSI volumes a node can attach, per driver, as its CSINode says.

Upstream ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go`` and ``utils.go``
(v1.34.1), with ``k8s.io/csi-translation-lib`` for the in-tree plugins migrated to CSI.
A node's limit for a driver is its CSINode's ``spec.drivers[].allocatable.count``; a node
without a CSINode, or without a count for the driver, is unlimited (``getVolumeLimits``).
The volumes counted (``filterAttachableVolumes``), each once by ``<driver>/<handle>``:

* a claim's bound volume, a CSI one by its driver and handle, an in-tree one translated
  (``getCSIDriverInfo``); a claim naming no volume, or one not found, by its class's
  provisioner (an in-tree provisioner by the driver it migrated to), with a handle of its
  own (``getCSIDriverInfoFromSC``: an unbound WaitForFirstConsumer claim counts where the
  pod lands); a claim of no class or a class not found is not counted;
* an inline in-tree disk, translated (``checkAttachableInlineVolume``);
* for the pods already on the node, also their generic ephemeral volumes' claims
  (``<pod>-<volume>``); a claim not found is not counted.

A volume the node's pods already use is not counted again; a node fails when, for some
driver with a limit, its pods' volumes and the pod's new ones exceed it:
``node(s) exceed max volume count`` (Unschedulable). In-tree plugins count only on a node
with a CSINode (``isCSIMigrationOn``: AWS EBS, GCE PD, Azure Disk and Cinder always then,
Portworx when the CSINode's ``storage.alpha.kubernetes.io/migrated-plugins`` names it).

Not read: VolumeAttachments (a volume attached to the node by no pod of the snapshot is
not counted), and an inline Azure Disk of a kind other than Managed (upstream's Filter
errs on it; it is not counted here). The pod's own generic ephemeral volumes have no
claim before the pod exists, so they are not counted for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, replace

from gate.k8s.version import Dialect
from gate.model import NODE_VOLUME_LIMITS, Family, NodeView, Term
from gate.model.storage import Mount, StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import VolumeUse
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Parts, Plugin, Rejection
from gate.scheduler.framework.volumes import RULE, claim_fields
from gate.scheduler.plugins.nodevolumelimits.csi import (
    CLAIM,
    EXCEEDED,
    IN_TREE,
    REASON_MAX_VOLUME_COUNT,
    Volumes,
    attachable,
    volume_limits,
)


@dataclass(frozen=True, slots=True)
class State:
    """The pod's mounts, the storage objects and the node's running mounts; ``limited``:
    the nodes (a bitset of the cluster's index) whose CSINode lists some count."""

    namespace: str = ""
    mounts: tuple[Mount, ...] = ()
    storage: StorageObjects | None = None
    use: VolumeUse | None = None
    positions: Mapping[str, int] | None = None
    limited: int = 0


SKIP = State()


def exceeds(
    state: State, node: NodeView, extra: Volumes | None = None, position: int | None = None
) -> bool:
    """The Filter: whether the pod's new volumes (and ``extra``, volumes the copies placed
    before it on the node hold) pass the node's limits."""
    storage = state.storage
    assert storage is not None and state.use is not None and state.positions is not None
    csi_node = storage.csi_nodes.get(node.name)
    new = attachable(state.namespace, None, state.mounts, storage, csi_node)
    if not new:
        return False
    limits = volume_limits(csi_node)
    if not limits:
        return False
    attached: Volumes = dict(extra or {})
    where = state.positions.get(node.name) if position is None else position
    for pod in () if where is None else state.use.on(where):
        attached.update(attachable(pod.namespace, pod.name, pod.mounts, storage, csi_node))
    counts = Counter(attached.values())
    wanted = Counter(driver for unique, driver in new.items() if unique not in attached)
    return any(
        driver in limits and counts[driver] + count > limits[driver]
        for driver, count in wanted.items()
    )


def node_volume_limits(state: State, node: NodeView, dialect: Dialect) -> Rejection | None:
    if state.storage is None:
        return None
    return EXCEEDED if exceeds(state, node) else None


def _limited(index: NodeIndex, storage: StorageObjects) -> int:
    bits = 0
    for position, node in enumerate(index.nodes):
        if volume_limits(storage.csi_nodes.get(node.name)):
            bits |= 1 << position
    return bits


def _judged(pod: PodProfile, storage: StorageObjects | None) -> bool:
    """Whether the pod has a volume the plugin can count from what was recorded."""
    if storage is None or "CSINode" not in storage.recorded:
        return False
    if storage.knows_claims and any(m.source == CLAIM for m in pod.mounts):
        return True
    return any(m.source in IN_TREE for m in pod.mounts)


def _prepare(pod: PodProfile, cluster: Cluster) -> State:
    storage = cluster.snapshot.storage
    if storage is None or not _judged(pod, storage):
        return SKIP
    memo = cluster.others.memo
    limited = memo.get(NODE_VOLUME_LIMITS)
    if not isinstance(limited, int):
        limited = memo[NODE_VOLUME_LIMITS] = _limited(cluster.index, storage)
    if not limited:
        return SKIP
    mounts = (
        pod.mounts if storage.knows_claims else tuple(m for m in pod.mounts if m.source != CLAIM)
    )
    positions = {node.name: i for i, node in enumerate(cluster.index.nodes)}
    return State(pod.namespace, mounts, storage, cluster.others.volume_use, positions, limited)


def _key(pod: PodProfile, cluster: Cluster) -> Hashable:
    """The pod's namespace and mounts, their names aside (only an ephemeral volume's name
    names its claim, and the incoming pod's are not counted)."""
    if not _judged(pod, cluster.snapshot.storage):
        return None
    return pod.namespace, tuple(replace(m, name="") for m in pod.mounts)


def _passes(state: State) -> bool:
    return state.storage is None


def _split(index: NodeIndex, state: State, dialect: Dialect, among: int) -> Parts:
    """Nodes whose CSINode lists no count pass together; the others are asked one by one."""
    asked = among & state.limited
    yield among & ~asked, None
    yield from _one_by_one(index, state, asked)


def _one_by_one(
    index: NodeIndex, state: State, asked: int
) -> Iterator[tuple[int, Rejection | None]]:
    while asked:
        low = asked & -asked
        position = low.bit_length() - 1
        rejected = exceeds(state, index.nodes[position], position=position)
        yield low, EXCEEDED if rejected else None
        asked ^= low


PLUGIN: Plugin[State] = Plugin(
    NODE_VOLUME_LIMITS,
    Family.STORAGE,
    Term.CLAIM,
    RULE,
    key=_key,
    prepare=_prepare,
    check=node_volume_limits,
    room=True,
    reasons=(REASON_MAX_VOLUME_COUNT,),
    passes=_passes,
    split=_split,
    fields=claim_fields,
)
