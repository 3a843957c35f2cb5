"""The volumes a StatefulSet's copies take as its count proceeds, copy by copy.

The scheduler places copy i before it sees copy i+1, and what it assumed for copy i stays
in its caches: VolumeBinding's Reserve (``AssumePodVolumes``) marks the available volume
copy i's new WaitForFirstConsumer claim matched as bound to that claim, so the next copy's
claim cannot bind it (a local volume, pinned to one node, goes to one ordinal only); and
the node's NodeInfo holds copy i, so NodeVolumeLimits counts its volumes there, a claim
still to be provisioned through its class's provisioner (``nodevolumelimits/csi.go``).

fitgate follows that when a copy's claims can touch either: some claim of the copies is
unbound of a WaitForFirstConsumer class while an Available volume of its class exists, or
some claim counts against a driver (its bound volume's, else its class's provisioner's, as
NodeVolumeLimits finds it) a CSINode limits on a node with less room left than the copies'
volumes (the copies before a copy cannot bring a node with more to its limit). Every other
StatefulSet is judged copy by copy against the cluster as recorded, its answers shared as
before.

fitgate does not score the copies' nodes: a tracked copy lands on the node, among those
every filter passes for it, that holds the fewest copies placed before it, the first in
the snapshot's order among equals (the default spreading's bent, not its score).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from gate.k8s.volumes import (
    AVAILABLE,
    BIND_COMPLETED,
    SELECTED_NODE,
    PlainObject,
    annotations_of,
    claim_class,
    copy_claim,
    delay_binding,
    fully_bound,
    name_of,
    spec_of,
    volume_class,
)
from gate.model import NodeView, Workload
from gate.model.encoded import holding, with_objects
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import Mounting
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.plugins.nodevolumelimits import counts_of
from gate.scheduler.plugins.nodevolumelimits.csi import (
    DRIVER_OF_PLUGIN,
    MIGRATED_PLUGINS,
    claim_volume,
)
from gate.scheduler.plugins.volumebinding.binder import matches
from gate.untyped import mapping

AVAILABLE_CLASSES = "claimed: classes with an Available volume"
EVERY_MIGRATION: PlainObject = {
    "metadata": {"annotations": {MIGRATED_PLUGINS: ",".join(DRIVER_OF_PLUGIN)}}
}
"""A CSINode of a node every in-tree plugin migrated on: a claim's driver as NodeVolumeLimits
finds it on such a node (its bound volume's, else its class's provisioner's), the driver it
counts against wherever it is counted at all."""
HEADROOM = "claimed: the fewest volumes a node can still attach, by driver"


def waiting(claim: PlainObject, storage: StorageObjects) -> bool:
    """The claim waits for its first consumer to bind (VolumeBinding's PreFilter)."""
    return (
        not fully_bound(claim)
        and delay_binding(claim, storage.classes)
        and not spec_of(claim).get("volumeName")
    )


def _memo(cluster: Cluster, storage: StorageObjects) -> tuple[frozenset[str], Mapping[str, int]]:
    """The classes with an Available volume, and for each driver some CSINode limits the
    fewest volumes a node can still attach (its headroom), worked out once per run."""
    memo = cluster.others.memo
    classes, headroom = memo.get(AVAILABLE_CLASSES), memo.get(HEADROOM)
    if not isinstance(classes, frozenset) or not isinstance(headroom, dict):
        classes = frozenset(
            volume_class(v)
            for v in holding(storage.volumes, AVAILABLE)
            if mapping(v.get("status")).get("phase") == AVAILABLE
        )
        least: dict[str, int] = {}
        if "CSINode" in storage.recorded and storage.csi_nodes:
            counts = counts_of(cluster.index, storage, cluster.others.volume_use)
            for node in counts.nodes:
                for driver, limit in node.limits.items():
                    left = limit - node.counts.get(driver, 0)
                    least[driver] = min(left, least.get(driver, left))
        headroom = least
        memo[AVAILABLE_CLASSES], memo[HEADROOM] = classes, headroom
    return classes, headroom


def touches(workload: Workload, pod: PodProfile, cluster: Cluster, ordinals: range) -> bool:
    """Whether the claims of the first copy to ``ordinals``' last can take an available
    volume, or the copies before one can bring a node to an attach limit it would
    otherwise stay within: each copy attaches at most its pod's volumes, so only a driver
    some node has less headroom for than all the copies' volumes can be reached."""
    storage = cluster.snapshot.storage
    if storage is None:
        return False
    classes, headroom = _memo(cluster, storage)
    if not classes and not headroom:
        return False
    copies = range(workload.first_ordinal, ordinals.stop)
    reachable = {d for d, left in headroom.items() if left < len(copies) * len(pod.mounts)}
    for ordinal in copies:
        for template in workload.claim_templates:
            key = (workload.namespace, copy_claim(template, workload.name, ordinal))
            claim = storage.claims.get(key)
            if claim is None:
                continue
            if claim_class(claim) in classes and waiting(claim, storage):
                return True
            counted = claim_volume(workload.namespace, claim, storage, EVERY_MIGRATION)
            if counted is not None and counted[0] in reachable:
                return True
    return False


def _bound(claim: PlainObject, volume: PlainObject) -> tuple[PlainObject, PlainObject]:
    """The claim and volume as AssumePodVolumes leaves them: bound to each other."""
    meta = mapping(claim.get("metadata"))
    notes = {**annotations_of(claim), BIND_COMPLETED: "yes"}
    bound_claim = {
        **claim,
        "metadata": {**meta, "annotations": notes},
        "spec": {**spec_of(claim), "volumeName": name_of(volume)},
    }
    ref = {"namespace": meta.get("namespace") or "default", "name": meta.get("name")}
    bound_volume = {
        **volume,
        "spec": {**spec_of(volume), "claimRef": ref},
        "status": {**mapping(volume.get("status")), "phase": "Bound"},
    }
    return bound_claim, bound_volume


@dataclass(slots=True)
class Claimed:
    """The cluster as the next copy meets it: the volumes the copies placed so far took,
    their mounts on their nodes, and how many copies each node holds."""

    cluster: Cluster
    copies: Counter[int] = field(default_factory=Counter)

    def place(self, pod: PodProfile, fitting: int, name: str) -> int | None:
        """Copy ``name`` (``pod``) on its node among ``fitting`` (module doc): its
        matched volumes bound, its mounts counted there. The node's position; None when
        no node fits."""
        if not fitting:
            return None
        node = chosen_node(fitting, self.copies)
        self.copies[node] += 1
        cluster = self.cluster
        storage = cluster.snapshot.storage
        assert storage is not None
        storage = _reserved(pod, storage, cluster.index.nodes[node])
        use = cluster.others.volume_use.with_pods(
            (Mounting(-sum(self.copies.values()), node, pod.namespace, name, pod.mounts),)
        )
        snapshot = replace(cluster.snapshot, storage=storage)
        self.cluster = replace(cluster, snapshot=snapshot, others=cluster.others.mounting(use))
        return node


def chosen_node(fitting: int, copies: Mapping[int, int]) -> int:
    """The fitting node holding the fewest copies, the first among equals."""
    best, fewest = -1, -1
    bits = fitting
    while bits:
        low = bits & -bits
        bits ^= low
        position = low.bit_length() - 1
        held = copies.get(position, 0)
        if best < 0 or held < fewest:
            best, fewest = position, held
            if not held:
                break
    return best


def _reserved(pod: PodProfile, storage: StorageObjects, node: NodeView) -> StorageObjects:
    """The storage once the copy's waiting claims bound the volumes they match on
    ``node`` (those left are provisioned there and stay unbound)."""
    claims = [storage.claims.get((pod.namespace, name)) for name in pod.claims]
    to_match = [
        c
        for c in claims
        if c is not None and waiting(c, storage) and SELECTED_NODE not in annotations_of(c)
    ]
    bound = [(claim, volume) for claim, volume in matches(to_match, storage, node) if volume]
    if not bound:
        return storage
    new_claims: dict[tuple[str, str], PlainObject] = {}
    new_volumes: dict[str, PlainObject] = {}
    for claim, volume in bound:
        bound_claim, bound_volume = _bound(claim, volume)
        new_claims[(pod.namespace, name_of(claim))] = bound_claim
        new_volumes[name_of(volume)] = bound_volume
    return replace(
        storage,
        claims=with_objects(storage.claims, new_claims),
        volumes=with_objects(storage.volumes, new_volumes),
    )
