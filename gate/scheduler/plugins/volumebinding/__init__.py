"""VolumeBinding: a bound claim's volume must be usable on the node; an unbound claim of a
WaitForFirstConsumer class must find an available volume there or be provisionable there.

Upstream ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go`` and
``binder.go`` (v1.34.1). PreFilter (``podHasPVCs``, ``GetPodVolumeClaims``): a claim
marked Lost or being deleted is the pod's own status; a claim is bound only when it names
its volume and carries ``pv.kubernetes.io/bind-completed`` (``isPVCFullyBound``); an
unbound claim whose class waits for its first consumer waits (when it names no volume),
any other unbound claim is ``pod has unbound immediate PersistentVolumeClaims`` (in a real
cluster the PersistentVolume controller binds it first; fitgate judges the claim as
recorded). Filter (``FindPodVolumes``), each reason at most once and in this order:
a bound volume whose node affinity the node fails, or missing (``checkBoundClaims``); an
unbound claim selected for another node, or with neither a matching available volume
(``findMatchingVolumes``, smallest claims first) nor a class that can provision it on the
node (``checkVolumeProvisions``: a provisioner, ``allowedTopologies``); too little storage
capacity where the driver publishes it (``hasEnoughCapacity``, when CSIStorageCapacity was
recorded). A bound in-tree volume is read as its CSI driver's on a node whose CSINode says
its plugin migrated (``tryTranslatePVToCSI``: :mod:`.migration`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import replace

from gate.k8s.version import Dialect
from gate.k8s.volumes import PlainObject, spec_of
from gate.model import Family, NodeView, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Parts, Plugin, Rejection
from gate.scheduler.framework.volumes import RULE, claim_fields, claims_key, refused, storage_for
from gate.scheduler.plugins.volumebinding.binder import (
    REASON_BIND_CONFLICT,
    REASON_NODE_CONFLICT,
    REASON_NOT_ENOUGH_SPACE,
    REASON_UNBOUND_IMMEDIATE,
    REASON_VOLUME_MISSING,
    SKIP,
    VOLUME_BINDING,
    State,
    bound_volume,
    find_pod_volumes,
    pre_filter,
)
from gate.scheduler.plugins.volumebinding.migration import (
    READ_LABELS,
    migrated_plugins,
    translatable,
)
from gate.untyped import as_list, mapping


def _prepare(pod: PodProfile, cluster: Cluster) -> State:
    storage = storage_for(pod, cluster, pod.binding_claims)
    if storage is None:
        return SKIP
    claims, own = pod.binding_claims, pod.ephemeral_claims
    state = pre_filter(pod.namespace, claims, storage, own, pod.pod_name)
    return replace(state, memo=cluster.others.memo)


def _key(pod: PodProfile, cluster: Cluster) -> Hashable:
    """What VolumeBinding reads of the pod: its namespace and claims, its generic ephemeral
    volumes' and its name among them when it has any (the claims must be its own)."""
    if not pod.ephemeral_claims:
        return claims_key(pod, cluster)
    if storage_for(pod, cluster, pod.binding_claims) is None:
        return None
    return (pod.namespace, pod.binding_claims, pod.pod_name)


def volume_binding(state: State, node: NodeView, dialect: Dialect) -> Rejection | None:
    if state.refusal is not None:
        return state.refusal
    if state.storage is None:
        return None
    reasons = find_pod_volumes(state, node)
    return Rejection(VOLUME_BINDING, UNRESOLVABLE, reasons) if reasons else None


def _affinity_keys(state: State) -> tuple[tuple[str, ...], bool] | None:
    """The node labels the bound volumes' node affinity reads, and whether the node's
    CSINode decides how it reads them (an in-tree volume's translation); None when a term
    reads the node's name (``matchFields``)."""
    assert state.storage is not None
    keys: set[str] = set()
    migrating = False
    for name in state.bound:
        volume = bound_volume(state, state.storage, name).volume or {}
        if translatable(volume) is not None:
            migrating = True
            keys.update(READ_LABELS)
        spec = spec_of(volume)
        required = mapping(mapping(spec.get("nodeAffinity")).get("required"))
        for term in as_list(required.get("nodeSelectorTerms")):
            if mapping(term).get("matchFields"):
                return None
            keys.update(
                str(mapping(e).get("key")) for e in as_list(mapping(term).get("matchExpressions"))
            )
    return tuple(sorted(keys)), migrating


def _split(index: NodeIndex, state: State, dialect: Dialect, among: int) -> Parts:
    """Without a waiting claim, nodes alike in the labels the bound volumes' node affinity
    reads (and, for an in-tree volume, in what their CSINode says migrated) share the
    answer; otherwise every node is asked."""
    if state.refusal is not None or state.storage is None:
        yield among, state.refusal
        return
    keys = None if state.waiting else _affinity_keys(state)
    nodes = index.nodes
    if keys is None:
        bits = among
        while bits:
            low = bits & -bits
            bits ^= low
            yield low, volume_binding(state, nodes[low.bit_length() - 1], dialect)
        return
    labels, migrating = keys
    csi_nodes = state.storage.csi_nodes if migrating else None
    for found in _alike(index, labels, csi_nodes, state.memo):
        found &= among
        if found:
            yield found, volume_binding(state, nodes[(found & -found).bit_length() - 1], dialect)


def _alike(
    index: NodeIndex,
    keys: tuple[str, ...],
    csi_nodes: Mapping[str, PlainObject] | None,
    memo: dict[str, object] | None,
) -> list[int]:
    """The nodes by their values of the labels ``keys`` (and, with ``csi_nodes``, by the
    plugins their CSINode says migrated), worked out once per run."""
    name = f"{VOLUME_BINDING} {keys} {csi_nodes is not None}"
    found = None if memo is None else memo.get(name)
    if isinstance(found, list):
        return found
    groups: dict[Hashable, int] = {}
    for position, node in enumerate(index.nodes):
        key: Hashable = tuple(node.labels.get(k) for k in keys)
        if csi_nodes is not None:
            key = (key, migrated_plugins(csi_nodes.get(node.name)))
        groups[key] = groups.get(key, 0) | 1 << position
    listed = list(groups.values())
    if memo is not None:
        memo[name] = listed
    return listed


def _passes(state: State) -> bool:
    return state.refusal is None and not state.bound and not state.waiting


PLUGIN: Plugin[State] = Plugin(
    VOLUME_BINDING,
    Family.STORAGE,
    Term.CLAIM,
    RULE,
    key=_key,
    prepare=_prepare,
    check=volume_binding,
    reasons=(
        REASON_NODE_CONFLICT,
        REASON_BIND_CONFLICT,
        REASON_NOT_ENOUGH_SPACE,
        REASON_VOLUME_MISSING,
        REASON_UNBOUND_IMMEDIATE,
    ),
    passes=_passes,
    split=_split,
    fields=claim_fields,
    refuses=refused,
)
