"""VolumeBinding's PreFilter state and its Filter's reasons (``binder.go``): see the
package."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from gate.errors import QuantityError
from gate.k8s.claims import owned_by
from gate.k8s.matching import SelectorTerm
from gate.k8s.quantity import parse_quantity
from gate.k8s.selectors import SelectorError, parse_selector
from gate.k8s.volumes import (
    AVAILABLE,
    NO_PROVISIONER,
    SELECTED_NODE,
    PlainObject,
    annotations_of,
    claim_class,
    delay_binding,
    fully_bound,
    matching_volume,
    name_of,
    node_affinity_ok,
    node_affinity_terms,
    spec_of,
    storage_request,
    terms_hold,
    topology_ok,
    volume_class,
)
from gate.model import NodeView
from gate.model.encoded import holding
from gate.model.storage import StorageObjects
from gate.scheduler.framework.runtime import UNRESOLVABLE, Rejection
from gate.scheduler.plugins.volumebinding.migration import as_migrated, translatable
from gate.untyped import mapping

VOLUME_BINDING = "VolumeBinding"

# binder.go ErrReasonNodeConflict, ErrReasonBindConflict, ErrReasonNotEnoughSpace,
# ErrReasonPVNotExist
REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
REASON_VOLUME_MISSING = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
# volume_binding.go PreFilter
REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
# volume_binding.go podHasPVCs (its errors as the status; they read back as VolumeRestrictions'
# missing claim would, so they are not listed among the reasons)
REASON_LOST = 'persistentvolumeclaim "{claim}" bound to non-existent persistentvolume "{volume}"'
REASON_DELETING = 'persistentvolumeclaim "{claim}" is being deleted'
REASON_WAITING = (
    'waiting for ephemeral volume controller to create the persistentvolumeclaim "{claim}"'
)
# component-helpers/storage/ephemeral VolumeIsForPod
REASON_NOT_FOR_POD = (
    "PVC {namespace}/{claim} was not created for pod {namespace}/{pod} (pod is not owner)"
)

UNBOUND_IMMEDIATE = Rejection(VOLUME_BINDING, UNRESOLVABLE, (REASON_UNBOUND_IMMEDIATE,))


@dataclass(frozen=True, slots=True)
class State:
    """The PreFilter's claims: ``bound`` (their volume names), ``waiting`` (unbound, of a
    WaitForFirstConsumer class), the storage objects; or its own rejection."""

    bound: tuple[str, ...] = ()
    waiting: tuple[PlainObject, ...] = ()
    storage: StorageObjects | None = None
    refusal: Rejection | None = None
    memo: dict[str, object] | None = field(default=None, compare=False)
    """What the run works out once of its nodes (the cluster's ``others.memo``)."""
    read: dict[str, Bound] = field(default_factory=dict, init=False, compare=False, repr=False)
    """The bound volumes as the Filter reads them, by name, each read at its first node."""


@dataclass(frozen=True, slots=True)
class Bound:
    """A bound claim's volume as the Filter reads it on every node: the volume (None: not
    found), whether its node's CSINode may change its node affinity (an in-tree volume's
    translation), and else that node affinity's terms parsed (None: none)."""

    volume: PlainObject | None
    translated: bool = False
    terms: tuple[SelectorTerm, ...] | None = None


def bound_volume(state: State, storage: StorageObjects, name: str) -> Bound:
    """The bound volume ``name`` read once per PreFilter state: the Filter asks it again of
    every class of nodes (and the split, which keys it reads), and decoding it and parsing
    its terms each time would cost more than matching them."""
    found = state.read.get(name)
    if found is None:
        volume = storage.volumes.get(name)
        if volume is None:
            found = Bound(None)
        elif translatable(volume) is not None:
            found = Bound(volume, translated=True)
        else:
            found = Bound(volume, terms=node_affinity_terms(volume))
        state.read[name] = found
    return found


SKIP = State()


def pre_filter(
    namespace: str,
    claims: tuple[str, ...],
    storage: StorageObjects,
    ephemeral: Collection[str] = (),
    pod: str = "",
) -> State:
    """podHasPVCs, then GetPodVolumeClaims. ``ephemeral``: those of ``claims`` that are
    the pod ``pod``'s generic ephemeral volumes' (the pod must own each)."""
    found: list[PlainObject] = []
    for name in claims:
        claim = storage.claims.get((namespace, name))
        if claim is None:  # VolumeRestrictions' PreFilter says so first of a claim's
            reason = f'persistentvolumeclaim "{name}" not found'
            if name in ephemeral:
                reason = REASON_WAITING.format(claim=name)
            return State(refusal=Rejection(VOLUME_BINDING, UNRESOLVABLE, (reason,)))
        volume = spec_of(claim).get("volumeName") or ""
        if mapping(claim.get("status")).get("phase") == "Lost":
            reason = REASON_LOST.format(claim=name, volume=volume)
            return State(refusal=Rejection(VOLUME_BINDING, UNRESOLVABLE, (reason,)))
        if mapping(claim.get("metadata")).get("deletionTimestamp") is not None:
            reason = REASON_DELETING.format(claim=name)
            return State(refusal=Rejection(VOLUME_BINDING, UNRESOLVABLE, (reason,)))
        if name in ephemeral and not owned_by(claim, namespace, pod):
            reason = REASON_NOT_FOR_POD.format(namespace=namespace, claim=name, pod=pod)
            return State(refusal=Rejection(VOLUME_BINDING, UNRESOLVABLE, (reason,)))
        found.append(claim)
    bound, waiting = [], []
    for claim in found:
        if fully_bound(claim):
            bound.append(str(spec_of(claim)["volumeName"]))
        elif delay_binding(claim, storage.classes) and not spec_of(claim).get("volumeName"):
            waiting.append(claim)
        else:
            return State(refusal=UNBOUND_IMMEDIATE)
    return State(tuple(bound), tuple(waiting), storage)


def _bytes(raw: object) -> int | None:
    """Quantity.Value(): the quantity in bytes, a fraction rounded up."""
    try:
        return math.ceil(parse_quantity(raw))
    except QuantityError:
        return None


def _enough_capacity(
    storage: StorageObjects, claim: PlainObject, class_obj: PlainObject, labels: Mapping[str, str]
) -> bool:
    """hasEnoughCapacity: true unless the claim requests storage and the class's driver
    publishes capacity; then some CSIStorageCapacity of the class reaching the node must
    hold it (``maximumVolumeSize`` when set, else ``capacity``). Without a recorded list
    of capacities the storage is taken to suffice."""
    requests = mapping(mapping(spec_of(claim).get("resources")).get("requests"))
    if "storage" not in requests or "CSIStorageCapacity" not in storage.recorded:
        return True
    driver = storage.csi_drivers.get(str(class_obj.get("provisioner") or ""))
    if driver is None or spec_of(driver).get("storageCapacity") is not True:
        return True
    wanted = math.ceil(storage_request(claim))
    for capacity in storage.capacities:
        if capacity.get("storageClassName") != name_of(class_obj):
            continue
        limit = capacity.get("maximumVolumeSize")  # volumeLimit: a null one is not set
        if limit is None:
            limit = capacity.get("capacity")
        size = None if limit is None else _bytes(limit)
        if size is None or size < wanted:
            continue
        topology = capacity.get("nodeTopology")
        if isinstance(topology, Mapping) and _selects(topology, labels):
            return True
    return False


def _selects(selector: Mapping[str, object], labels: Mapping[str, str]) -> bool:
    """nodeHasAccess: the capacity's ``nodeTopology`` selects the node."""
    try:
        return parse_selector(selector).matches(labels)
    except SelectorError:
        return False


def find_pod_volumes(state: State, node: NodeView) -> tuple[str, ...]:
    """FindPodVolumes: the node's reasons, in upstream's order."""
    storage = state.storage
    assert storage is not None
    labels = node.labels
    bound_ok, volumes_found = True, True
    for volume_name in state.bound:
        bound = bound_volume(state, storage, volume_name)
        volume = bound.volume
        if volume is None:
            volumes_found = False
            break
        if bound.translated:
            ok = node_affinity_ok(as_migrated(volume, storage.csi_nodes.get(node.name)), labels)
        else:
            ok = terms_hold(bound.terms, labels)
        if not ok:
            bound_ok = False
            break
    unbound_ok, enough = True, True
    if state.waiting:
        unbound_ok, enough = _waiting_ok(state.waiting, storage, node)
    reasons = []
    if not bound_ok:
        reasons.append(REASON_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(REASON_BIND_CONFLICT)
    if not enough:
        reasons.append(REASON_NOT_ENOUGH_SPACE)
    if not volumes_found:
        reasons.append(REASON_VOLUME_MISSING)
    return tuple(reasons)


def matches(
    claims: Sequence[PlainObject], storage: StorageObjects, node: NodeView
) -> list[tuple[PlainObject, PlainObject | None]]:
    """findMatchingVolumes on ``node``: each claim (smallest first, ``byPVCSize``) with the
    available volume it would bind there, none taken twice; None where it must be
    provisioned."""
    chosen: set[str] = set()
    found: list[tuple[PlainObject, PlainObject | None]] = []
    for claim in sorted(claims, key=storage_request):
        wanted_class, name = claim_class(claim), name_of(claim)
        # FindMatchingVolume takes an Available volume or one bound to the claim, so only
        # those are decoded (a cluster's volumes are nearly all bound to other claims).
        listed = holding(storage.volumes, AVAILABLE, name) if name else storage.volumes.values()
        volumes = [v for v in listed if volume_class(v) == wanted_class]
        volume = matching_volume(claim, volumes, node.labels, chosen)
        if volume is not None:
            chosen.add(name_of(volume))
        found.append((claim, volume))
    return found


def _waiting_ok(
    waiting: Sequence[PlainObject], storage: StorageObjects, node: NodeView
) -> tuple[bool, bool]:
    """The unbound WaitForFirstConsumer claims on ``node``: (satisfied, enough storage)."""
    to_match, to_provision = [], []
    for claim in waiting:
        selected = annotations_of(claim).get(SELECTED_NODE)
        if selected is not None:
            if selected != node.name:
                return False, True
            to_provision.append(claim)
        else:
            to_match.append(claim)
    to_provision.extend(claim for claim, volume in matches(to_match, storage, node) if not volume)
    # checkVolumeProvisions, when some claim is left to provision, decides alone
    for claim in to_provision:
        class_obj = storage.classes.get(claim_class(claim))
        if class_obj is None:
            return False, True
        provisioner = class_obj.get("provisioner")
        if not provisioner or provisioner == NO_PROVISIONER:
            return False, True
        if not topology_ok(class_obj.get("allowedTopologies"), node.labels):
            return False, True
        if not _enough_capacity(storage, claim, class_obj, node.labels):
            return True, False
    return True, True
