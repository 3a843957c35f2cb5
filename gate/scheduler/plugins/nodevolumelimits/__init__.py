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
errs on it; it is not counted here). The pod's own generic ephemeral volumes count through
the claims the ephemeral volume controller creates for it, when the run names it
(``gate.k8s.claims.ephemeral_claims``); otherwise they are not counted for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from gate.k8s.version import Dialect
from gate.k8s.volumes import annotations_of
from gate.model import NODE_VOLUME_LIMITS, Family, NodeView, Term
from gate.model.storage import Mount, PlainObject, StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import VolumeUse
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Parts, Plugin, Rejection
from gate.scheduler.framework.volumes import RULE, claim_fields
from gate.scheduler.plugins.nodevolumelimits.csi import (
    CLAIM,
    EPHEMERAL,
    EXCEEDED,
    IN_TREE,
    MIGRATED_PLUGINS,
    REASON_MAX_VOLUME_COUNT,
    Volumes,
    attachable,
    counted_parts,
    volume_limits,
)

Migration = tuple[bool, str]
"""What the in-tree translation reads of a node: whether it has a CSINode, and the plugins
its CSINode says migrated."""

Tally = tuple[tuple[str, int], ...]
"""Counts by driver (or limits), sorted by driver."""
Key = tuple[Tally, Tally, Migration]
"""All the Filter reads of a node: its limits, its volumes' count per driver, its migration."""


def migration_of(csi_node: PlainObject | None) -> Migration:
    listed = annotations_of(csi_node or {}).get(MIGRATED_PLUGINS)
    return csi_node is not None, listed if isinstance(listed, str) else ""


@dataclass(frozen=True, slots=True)
class NodeCounts:
    """What one node holds for the Filter, worked out once: its CSINode (the part the
    plugin reads), its limits, the volumes its pods have attached (``<driver>/<handle>``
    -> driver) and their count per driver; ``migration``: what the in-tree translation
    reads of the node (a CSINode, the plugins it says migrated); ``key``: all the Filter
    reads of the node but its volumes; ``overlap``: whether two of its pods may count one
    volume alike (the node holds it once)."""

    csi_node: PlainObject | None
    limits: Mapping[str, int]
    attached: Volumes
    counts: Mapping[str, int]
    migration: Migration
    key: Key
    overlap: bool = True

    @classmethod
    def of(
        cls,
        csi_node: PlainObject | None,
        attached: Volumes,
        limits: Mapping[str, int],
        migration: Migration | None = None,
        overlap: bool = True,
    ) -> NodeCounts:
        """``migration``: :func:`migration_of` the CSINode, when already known."""
        if migration is None:
            migration = migration_of(csi_node)
        tally = tuple(sorted(limits.items()))
        return _holding(csi_node, limits, tally, attached, migration, overlap)

    def holding_only(self, attached: Volumes, overlap: bool) -> NodeCounts:
        """This node holding ``attached`` in place of its volumes (its CSINode's reading
        stands): itself when they are the same."""
        if attached == self.attached and overlap == self.overlap:
            return self
        return _holding(self.csi_node, self.limits, self.key[0], attached, self.migration, overlap)

    def less(self, volumes: Iterable[Volumes | None]) -> NodeCounts | None:
        """This node without the pods that attached ``volumes`` (each pod's, None: not
        known); None when those are not known or another of its pods may count one of
        them alike (it stays): count the node again."""
        if self.overlap:
            return None
        gone: set[str] = set()
        for each in volumes:
            if each is None:
                return None
            gone.update(each)
        kept = {unique: driver for unique, driver in self.attached.items() if unique not in gone}
        return self.holding_only(kept, False)


def _holding(
    csi_node: PlainObject | None,
    limits: Mapping[str, int],
    tally: Tally,
    attached: Volumes,
    migration: Migration,
    overlap: bool,
) -> NodeCounts:
    """A node of these CSINode readings (``tally``: its limits sorted) holding ``attached``."""
    counts: dict[str, int] = {}
    for driver in attached.values():
        counts[driver] = counts.get(driver, 0) + 1
    key = (tally, tuple(sorted(counts.items())), migration)
    return NodeCounts(csi_node, limits, attached, counts, migration, key, overlap)


@dataclass(slots=True)
class Counts:
    """Every node's :class:`NodeCounts` for one view of the cluster's pods, the nodes alike
    in what the Filter reads of them but their volumes (``groups``), and the nodes (by
    position) whose pods have attached each volume (``holders``); ``pods``: each running
    pod's counted volumes by its position and its node's migration, shared by a cluster's
    counts and its views' (a view counts again the nodes whose pods differ, and their other
    pods' volumes are the same). A view's ``holders`` holds only the nodes it counts again
    (``recounted``, a bitset) that attached a volume their base's did not; the others'
    are its ``base``'s, less those a node counted again no longer attaches: :meth:`holding`
    reads both."""

    nodes: tuple[NodeCounts, ...]
    groups: dict[Key, int]
    holders: dict[str, list[int]]
    pods: dict[tuple[int, Migration], Volumes]
    base: Counts | None = None
    recounted: int = 0

    @classmethod
    def of(cls, index: NodeIndex, storage: StorageObjects, use: VolumeUse) -> Counts:
        """The counts of ``use``'s pods: worked out node by node for the cluster's own
        pods, and for a view from its base's, only the nodes whose pods differ worked out
        again (a node that only lost pods, from its base's volumes less theirs)."""
        parts = counted_parts(storage)
        base = None if use.base is None else counts_of(index, storage, use.base)
        pods: dict[tuple[int, Migration], Volumes] = {} if base is None else base.pods

        def attached(
            position: int, csi_node: PlainObject | None, migration: Migration
        ) -> tuple[Volumes, bool]:
            """The volumes the node's pods attach, and whether two count one alike."""
            found: Volumes = {}
            total = 0
            for pod in use.on(position):
                key = (pod.position, migration)
                # the cluster's own counts meet each pod first; a copy a count placed is not
                # kept (its position is only its count's)
                kept = pods.get(key) if base is not None and pod.position >= 0 else None
                if kept is None:
                    kept = attachable(pod.namespace, pod.name, pod.mounts, parts, csi_node)
                    if pod.position >= 0:
                        pods[key] = kept
                found.update(kept)
                total += len(kept)
            return found, total != len(found)

        holders: dict[str, list[int]] = {}
        if base is None:
            groups: dict[Key, int] = {}
            nodes = []
            for position, node in enumerate(index.nodes):
                csi_node = parts.csi_nodes.get(node.name)
                migration = migration_of(csi_node)
                volumes, overlap = attached(position, csi_node, migration)
                limits = volume_limits(csi_node)
                found = NodeCounts.of(csi_node, volumes, limits, migration, overlap)
                nodes.append(found)
                groups[found.key] = groups.get(found.key, 0) | 1 << position
                for unique in volumes:
                    holders.setdefault(unique, []).append(position)
            return cls(tuple(nodes), groups, holders, pods)
        leaving: dict[int, list[Volumes | None]] = {}
        for pod in use.mounting:
            migration = base.nodes[pod.node].migration
            leaving.setdefault(pod.node, []).append(pods.get((pod.position, migration)))
        groups = dict(base.groups)
        changed = list(base.nodes)
        recounted = 0
        for position in use.changed:
            before = base.nodes[position]
            gone = leaving.get(position)
            after = None if gone is None or use.added else before.less(gone)
            if after is None:
                after = before.holding_only(*attached(position, before.csi_node, before.migration))
                for unique in after.attached.keys() - before.attached.keys():
                    holders.setdefault(unique, []).append(position)
            changed[position] = after
            bit = 1 << position
            recounted |= bit
            if after.key != before.key:
                left = groups[before.key] & ~bit
                if left:
                    groups[before.key] = left
                else:
                    del groups[before.key]
                groups[after.key] = groups.get(after.key, 0) | bit
        return cls(tuple(changed), groups, holders, pods, base, recounted)

    def holding(self, unique: str) -> int:
        """The nodes (a bitset) whose pods have attached the volume ``unique``."""
        chain = []  # from this view down to the cluster's own counts, walked back up
        counts: Counts | None = self
        while counts is not None:  # (a count's copies, placed one by one, stack views)
            chain.append(counts)
            counts = counts.base
        found = 0
        for counts in reversed(chain):
            recounted = found & counts.recounted
            while recounted:  # the base's holders counted again: do they still hold it?
                low = recounted & -recounted
                if unique not in counts.nodes[low.bit_length() - 1].attached:
                    found ^= low
                recounted ^= low
            for position in counts.holders.get(unique, ()):
                found |= 1 << position
        return found


def counts_of(index: NodeIndex, storage: StorageObjects, use: VolumeUse) -> Counts:
    """``use``'s :class:`Counts`, worked out once."""
    found = use.memo.get(NODE_VOLUME_LIMITS)
    if not isinstance(found, Counts):
        found = use.memo[NODE_VOLUME_LIMITS] = Counts.of(index, storage, use)
    return found


@dataclass(frozen=True, slots=True)
class State:
    """The pod's namespace and mounts, the storage objects, the nodes' counts (``counts``,
    by position) and the nodes by name (``positions``)."""

    namespace: str = ""
    mounts: tuple[Mount, ...] = ()
    storage: StorageObjects | None = None
    counts: Counts | None = None
    positions: Mapping[str, int] | None = None
    new: dict[Migration, Volumes] = field(default_factory=dict)
    """The pod's counted volumes by what the translation reads of a node, as found."""


SKIP = State()


def _new(state: State, node: NodeCounts) -> Volumes:
    """The pod's counted volumes on a node like ``node`` (they differ only by migration)."""
    key = node.migration
    found = state.new.get(key)
    if found is None:
        assert state.storage is not None
        found = attachable(state.namespace, None, state.mounts, state.storage, node.csi_node)
        state.new[key] = found
    return found


def exceeds(state: State, node: NodeCounts, extra: Volumes | None = None) -> bool:
    """The Filter on a node holding ``node``'s volumes (and ``extra``, volumes the copies
    placed before the pod on the node hold): whether the pod's new volumes exceed a limit."""
    new = _new(state, node)
    if not new or not node.limits:
        return False
    attached = node.attached if not extra else {**node.attached, **extra}
    counts = node.counts if not extra else Counter(attached.values())
    wanted = Counter(driver for unique, driver in new.items() if unique not in attached)
    return _over(node.limits, counts, wanted)


def _over(limits: Mapping[str, int], counts: Mapping[str, int], wanted: Mapping[str, int]) -> bool:
    """Whether ``wanted`` more volumes by driver bring ``counts`` over a driver's limit."""
    return any(
        driver in limits and counts.get(driver, 0) + count > limits[driver]
        for driver, count in wanted.items()
    )


def node_volume_limits(state: State, node: NodeView, dialect: Dialect) -> Rejection | None:
    if state.counts is None or state.positions is None:
        return None
    position = state.positions.get(node.name)
    if position is None:  # a node of no snapshot (an autoscaler's): no CSINode, no limit
        return None
    return EXCEEDED if exceeds(state, state.counts.nodes[position]) else None


def _judged(pod: PodProfile, storage: StorageObjects | None) -> bool:
    """Whether the pod has a volume the plugin can count from what was recorded."""
    if storage is None or "CSINode" not in storage.recorded:
        return False
    if storage.knows_claims and any(_claimed(m) for m in pod.mounts):
        return True
    return any(m.source in IN_TREE for m in pod.mounts)


def _claimed(mount: Mount) -> bool:
    """Whether the mount counts through a claim: a ``persistentVolumeClaim`` volume, or a
    generic ephemeral one naming the claim created for the pod."""
    return mount.source == CLAIM or (mount.source == EPHEMERAL and bool(mount.disk))


def _prepare(pod: PodProfile, cluster: Cluster) -> State:
    storage = cluster.snapshot.storage
    if storage is None or not _judged(pod, storage) or not storage.csi_nodes:
        return SKIP
    counts = counts_of(cluster.index, storage, cluster.others.volume_use)
    positions = cluster.others.memo.get(NODE_VOLUME_LIMITS)
    if not isinstance(positions, dict):
        positions = {node.name: i for i, node in enumerate(cluster.index.nodes)}
        cluster.others.memo[NODE_VOLUME_LIMITS] = positions
    mounts = (
        pod.mounts if storage.knows_claims else tuple(m for m in pod.mounts if m.source != CLAIM)
    )
    return State(pod.namespace, mounts, storage, counts, positions)


def _key(pod: PodProfile, cluster: Cluster) -> Hashable:
    """The pod's namespace and mounts, their names aside (only an ephemeral volume's name
    names its claim, and the incoming pod's names it in its ``disk``)."""
    if not _judged(pod, cluster.snapshot.storage):
        return None
    return pod.namespace, tuple(replace(m, name="") for m in pod.mounts)


def _passes(state: State) -> bool:
    return state.counts is None


def _split(index: NodeIndex, state: State, dialect: Dialect, among: int) -> Parts:
    """Nodes alike in limits, counts per driver and migration share the answer, but those
    already holding one of the pod's volumes, which are asked one by one."""
    counts = state.counts
    if counts is None:
        yield among, None
        return
    new: dict[Migration, Volumes] = {}  # the pod's volumes differ by migration alone
    for key, bits in counts.groups.items():
        if key[2] not in new and bits & among:
            new[key[2]] = _new(state, counts.nodes[(bits & -bits).bit_length() - 1])
    holding = 0
    for unique in {unique for volumes in new.values() for unique in volumes}:
        holding |= counts.holding(unique)
    holding &= among
    rest = among & ~holding
    wanted = {migration: Counter(volumes.values()) for migration, volumes in new.items()}
    for bits in counts.groups.values():
        bits &= rest
        if bits:  # nodes holding none of the pod's volumes: it wants them all
            node = counts.nodes[(bits & -bits).bit_length() - 1]
            over = node.limits and _over(node.limits, node.counts, wanted[node.migration])
            yield bits, EXCEEDED if over else None
    while holding:
        low = holding & -holding
        node = counts.nodes[low.bit_length() - 1]
        yield low, EXCEEDED if exceeds(state, node) else None
        holding ^= low


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
