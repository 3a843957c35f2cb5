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
volumes (the copies before a copy cannot bring a node with more to its limit). The copies
of every other StatefulSet leave the volumes as recorded. The copies of any workload with
generic ephemeral volumes are followed the same way, each with the claims made for it
(``gate.scheduler.framework.ordinals.own_claims``). Copies of any workload that share
one such claim (:func:`binds_shared`) are followed the same way: the first binds it, and the
copies after it meet it bound.

Each copy also takes its room on its node (:class:`Walk`) and counts in its domains for
the spread and inter-pod PreFilters of the copies after it (:func:`with_copies`), as the
scheduler's cache holds an assumed pod. fitgate does not score the copies' nodes: a copy
lands on the node, among those every filter passes for it, that holds the fewest copies
placed before it, the first in the snapshot's order among equals (the default spreading's
bent, not its score).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from gate.k8s.podaffinity import AffinityTerm
from gate.k8s.spread import SpreadConstraint
from gate.k8s.volumes import (
    AVAILABLE,
    BIND_COMPLETED,
    SELECTED_NODE,
    PlainObject,
    annotations_of,
    claim_class,
    delay_binding,
    fully_bound,
    name_of,
    spec_of,
    volume_class,
)
from gate.model import NodeView, Workload
from gate.model.encoded import holding, with_objects
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import ChangedNodes, Cluster
from gate.scheduler.framework.mounts import Mounting
from gate.scheduler.framework.ordinals import own_claims
from gate.scheduler.framework.pods import copy_namer, template_claims
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState, Rejection
from gate.scheduler.placement.copies import CopyRules, Ledger
from gate.scheduler.plugins import ORDER
from gate.scheduler.plugins.interpodaffinity.filtering import AffinityState
from gate.scheduler.plugins.nodevolumelimits import counts_of
from gate.scheduler.plugins.nodevolumelimits.csi import (
    DRIVER_OF_PLUGIN,
    MIGRATED_PLUGINS,
    claim_volume,
)
from gate.scheduler.plugins.podtopologyspread.copies import counts_copies
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState
from gate.scheduler.plugins.volumebinding.binder import matches
from gate.scheduler.plugins.volumerestrictions import DISK_CONFLICT, VOLUME_RESTRICTIONS
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


@dataclass(frozen=True, slots=True)
class Reach:
    """What the claims of a StatefulSet's copies can touch: an available volume
    (``available``), or an attach limit of the ``drivers`` they count against, on a node
    with less headroom for one than ``volumes``, all the copies' volumes."""

    available: bool = False
    drivers: frozenset[str] = frozenset()
    volumes: int = 0

    def __bool__(self) -> bool:
        return self.available or bool(self.drivers)

    def tight(self, cluster: Cluster, position: int) -> bool:
        """Whether the node at ``position`` has less headroom than :attr:`volumes` for
        one of the :attr:`drivers`: a copy placed there can bring it to its limit."""
        if self.available:
            return True
        storage = cluster.snapshot.storage
        if storage is None or not self.drivers:
            return False
        node = counts_of(cluster.index, storage, cluster.others.volume_use).nodes[position]
        return any(
            limit - node.counts.get(driver, 0) < self.volumes
            for driver, limit in node.limits.items()
            if driver in self.drivers
        )


def binds_shared(workload: Workload, pod: PodProfile, cluster: Cluster) -> bool:
    """Whether the first copy binds a claim every copy mounts (not a StatefulSet's own)
    to a volume: the claim waits for its first consumer and an Available volume of its
    class exists. The copies after it then meet the claim bound (AssumePodVolumes), held
    to that volume's nodes."""
    storage = cluster.snapshot.storage
    if storage is None or not pod.claims or not storage.knows_claims:
        return False
    classes, _ = _memo(cluster, storage)
    if not classes:
        return False
    own = set(template_claims(workload, workload.first_ordinal))
    for name in pod.claims:
        claim = storage.claims.get((workload.namespace, name))
        if name in own or claim is None:
            continue
        if claim_class(claim) in classes and waiting(claim, storage):
            return True
    return False


def reach(workload: Workload, pod: PodProfile, cluster: Cluster, ordinals: range) -> Reach:
    """What the claims of the first copy to ``ordinals``' last can touch (:class:`Reach`):
    each copy attaches at most its pod's volumes, so only a driver some node has less
    headroom for than all the copies' volumes can be brought to a limit."""
    storage = cluster.snapshot.storage
    if storage is None:
        return Reach()
    classes, headroom = _memo(cluster, storage)
    if not classes and not headroom:
        return Reach()
    if binds_shared(workload, pod, cluster):
        return Reach(available=True)
    copies = range(workload.first_ordinal, ordinals.stop)
    volumes = len(copies) * len(pod.mounts)
    reachable = {d for d, left in headroom.items() if left < volumes}
    drivers: set[str] = set()
    names = copy_namer(workload) if pod.pod_name else None
    for ordinal in copies:
        for name in own_claims(workload, pod, ordinal, names):
            claim = storage.claims.get((workload.namespace, name))
            if claim is None:
                continue
            if claim_class(claim) in classes and waiting(claim, storage):
                return Reach(available=True)
            counted = claim_volume(workload.namespace, claim, storage, EVERY_MIGRATION)
            if counted is not None and counted[0] in reachable:
                drivers.add(counted[0])
    return Reach(drivers=frozenset(drivers), volumes=volumes)


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
        self.take(pod, node, name)
        return node

    def take(self, pod: PodProfile, node: int, name: str) -> None:
        """Copy ``name`` (``pod``) on the node at ``node``: its matched volumes bound, its
        mounts counted there."""
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


class Walk(ChangedNodes):
    """The nodes as the copies placed so far, one by one, leave them: each copy's requests,
    pod slot and host ports taken on its node (NodeInfo.AddPod of the copies the scheduler
    assumed before the next), over ``nodes`` (the snapshot's, or those the workload's old
    pods leave, which differ at ``changed``)."""

    def __init__(self, nodes: Sequence[NodeView], requests: CopyRules, released: int = 0):
        super().__init__(nodes)
        self._rules = requests
        self.taken: Counter[int] = Counter()
        self.released = released
        """The positions, as a bitset, where ``nodes`` have room given back."""
        self.holding = 0
        """The positions, as a bitset, of the nodes holding copies."""
        self._built: dict[int, NodeView] = {}

    def take(self, position: int) -> None:
        """One more copy on the node at ``position``."""
        self.taken[position] += 1
        self.holding |= 1 << position
        self._built.pop(position, None)

    def refusal(self, position: int, rejection: Rejection | None) -> Rejection | None:
        """The first rejection of the node at ``position``, ``rejection`` as the filters
        found it there, or VolumeRestrictions' (in its place in the filters' order) where
        a copy the node holds mounts a disk the next copy's conflicts with."""
        if not self._rules.disks_collide or not self.taken.get(position):
            return rejection
        if rejection is not None and ORDER[rejection.plugin] < ORDER[VOLUME_RESTRICTIONS]:
            return rejection
        return DISK_CONFLICT

    def changed_at(self, position: int) -> NodeView | None:
        copies = self.taken.get(position)
        if not copies:
            return None
        found = self._built.get(position)
        if found is None:
            found = self._built[position] = Ledger().view(
                self._nodes[position], self._rules, copies
            )
        return found


def with_copies(
    cycle: CycleState,
    pod: PodProfile,
    landed: Sequence[Mapping[str, str]],
    copies: Sequence[Mapping[str, str]] | None = None,
) -> CycleState:
    """``cycle`` (``pod``'s PreFilters) once copies of ``pod`` are bound on nodes with the
    labels ``landed`` (one entry a copy), as the scheduler's cache holds the copies it
    assumed: each constraint of PodTopologySpread whose selector counts the copies
    (:func:`counts_copies`) counts them in their eligible domains, and InterPodAffinity
    counts them for every term of the pod they match (its anti-affinity then keeps the next
    copy out of their domains, its affinity holds it there). ``copies``: each landed copy's
    own labels, when they differ from ``pod``'s (a StatefulSet's pod name and index, an
    indexed Job's completion index): each is then matched by its own."""
    if not landed:
        return cycle
    found = []
    for prepared in cycle:
        state = prepared.state
        if isinstance(state, SpreadState):
            counts = tuple(
                _counted(counts, constraint.topology_key, landed, _matching(copies, constraint))
                if copies is not None or counts_copies(state.self_match[i], constraint.selector)
                else counts
                for i, (constraint, counts) in enumerate(
                    zip(state.constraints, state.counts, strict=True)
                )
            )
            prepared = replace(prepared, state=replace(state, counts=counts))
        elif isinstance(state, AffinityState):
            namespaces = state.namespace_labels
            anti = _matched_keys(state.anti_affinity_terms, pod, copies, namespaces, landed)
            affinity = _matched_keys(state.affinity_terms, pod, copies, namespaces, landed)
            if any(anti) or any(affinity):
                prepared = replace(
                    prepared,
                    state=replace(
                        state,
                        anti_counts=_paired(state.anti_counts, anti, landed),
                        affinity_counts=_paired(state.affinity_counts, affinity, landed),
                        counted={},
                    ),
                )
        found.append(prepared)
    return tuple(found)


def _matching(
    copies: Sequence[Mapping[str, str]] | None, constraint: SpreadConstraint
) -> Sequence[bool] | None:
    """Which landed copies a spread constraint counts, when they differ by copy
    (countPodsMatchSelector: none under an empty selector)."""
    if copies is None:
        return None
    selector = constraint.selector
    return [not selector.empty and selector.matches(labels) for labels in copies]


def _matched_keys(
    terms: Sequence[AffinityTerm],
    pod: PodProfile,
    copies: Sequence[Mapping[str, str]] | None,
    namespaces: Mapping[str, str] | None,
    landed: Sequence[Mapping[str, str]],
) -> list[list[str]]:
    """By landed copy, the topology keys of the ``terms`` it matches (each its own labels
    when ``copies`` gives them, else ``pod``'s)."""
    if copies is None:
        keys = [t.topology_key for t in terms if t.matches(pod.namespace, pod.labels, namespaces)]
        return [keys] * len(landed) if keys else []
    return [
        [t.topology_key for t in terms if t.matches(pod.namespace, labels, namespaces)]
        for labels in copies
    ]


def _counted(
    counts: Mapping[str, int],
    key: str,
    landed: Sequence[Mapping[str, str]],
    matching: Sequence[bool] | None = None,
) -> Mapping[str, int]:
    """A constraint's counts by domain with the copies on nodes of an eligible domain
    (``matching``: which copies it counts; None: all)."""
    raised = dict(counts)
    for i, labels in enumerate(landed):
        value = labels.get(key)
        if value is not None and value in raised and (matching is None or matching[i]):
            raised[value] += 1
    return raised


def _paired(
    pairs: Mapping[tuple[str, str], int],
    keys: Sequence[Sequence[str]],
    landed: Sequence[Mapping[str, str]],
) -> Mapping[tuple[str, str], int]:
    """Pairs (topology key, value) counted, with each landed copy's pairs of its ``keys``
    (one per term it matches; none given: no copy matches a term)."""
    if not any(keys):
        return pairs
    raised = dict(pairs)
    for labels, matched in zip(landed, keys, strict=True):
        for key in matched:
            value = labels.get(key)
            if value is not None:
                raised[key, value] = raised.get((key, value), 0) + 1
    return raised


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
    claims = [storage.claims.get((pod.namespace, name)) for name in pod.binding_claims]
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
