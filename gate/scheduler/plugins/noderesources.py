"""NodeResourcesFit: the pod's requests must fit in what the node has left.

Upstream ``pkg/scheduler/framework/plugins/noderesources/fit.go`` (fitsRequest): one pod
slot, then cpu, memory, ephemeral-storage and each scalar resource; every shortage is
reported, equality fits. Amounts are in scheduler units (see :class:`NodeView`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gate.errors import QuantityError
from gate.k8s.quantity import parse_quantity
from gate.k8s.resources import (
    NATIVE_CHECKED,
    PODS,
)
from gate.k8s.version import Dialect
from gate.model import NODE_RESOURCES_FIT, Cause, Code, Family, FieldPath, NodeView, Rule, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import NodeIndex, free
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import (
    UNRESOLVABLE,
    Explained,
    Parts,
    Plugin,
    Rejection,
    Shortfall,
    containers,
)
from gate.scheduler.framework.scores import Placing, ScorePlugin, Workload

# noderesources/fit.go fitsRequest
REASON_TOO_MANY_PODS = "Too many pods"
REASON_INSUFFICIENT = "Insufficient {resource}"

RULE = Rule(
    Family.RESOURCES,
    "InsufficientResources",
    "No node has room for the pod's requests",
    "Lower the request the message names to what the largest free node offers, or add "
    "capacity; 'Too many pods' means the nodes have no pod slot left.",
)


def fit_request(pod: PodProfile) -> tuple[Shortfall, ...]:
    """NodeResourcesFit's PreFilter: what fitsRequest compares, in its order. One pod slot
    first, then cpu, memory and ephemeral-storage when requested, then each scalar resource
    with a nonzero request (upstream walks a map; sorted here so reasons are deterministic).

    With DRAExtendedResource (on by default from v1.36) the scheduler leaves to the DRA
    plugin a scalar the node does not offer only when a DeviceClass maps its name
    (``shouldDelegateResourceToDRA``); a snapshot holds no DeviceClasses, and no class can
    map hugepages-*, *kubernetes.io/* or attachable-volumes-*, so every scalar is checked."""
    return wanted_of(pod.requests)


def wanted_of(requests: Mapping[str, int]) -> tuple[Shortfall, ...]:
    """What fitsRequest compares for a pod of ``requests`` (:func:`fit_request`)."""
    wanted = [Shortfall(PODS, 1)]
    wanted += [Shortfall(r, requests[r]) for r in NATIVE_CHECKED if requests.get(r, 0) > 0]
    scalars = sorted(r for r in requests if r not in NATIVE_CHECKED and r != PODS)
    wanted += [Shortfall(r, requests[r]) for r in scalars if requests[r] != 0]
    return tuple(wanted)


def short_of(wanted: tuple[Shortfall, ...], node: NodeView) -> tuple[Shortfall, ...]:
    """fitsRequest: what of ``wanted`` the node has not left; equality fits."""
    return tuple(w for w in wanted if w.requested > free(node, w.resource))


def copies_held(requests: Mapping[str, int], slots: int, free: Callable[[str], int]) -> int:
    """How many copies of a pod requesting ``requests`` fit in a node's free room, each
    passing fitsRequest after the ones before it: ``slots`` pod slots left, ``free(r)``
    left of each requested resource (0 when it holds none)."""
    wanted = per_copy(requests)
    return copies_in(wanted, slots, [free(resource) for resource, _ in wanted])


def per_copy(requests: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """What each copy takes of the resources that bound :func:`copies_held`: the resources
    requested, the pod slot aside (counted by ``slots``)."""
    return tuple((r, amount) for r, amount in requests.items() if amount > 0 and r != PODS)


def copies_in(wanted: Sequence[tuple[str, int]], slots: int, free: Sequence[int]) -> int:
    """:func:`copies_held` of a pod taking ``wanted`` (:func:`per_copy`), ``free`` left of
    each of those resources, in their order: a placement asks it of many nodes, the pod's
    part worked out once."""
    room = slots if slots > 0 else 0
    for (_, amount), left in zip(wanted, free, strict=True):
        held = left // amount if left > 0 else 0
        if held < room:
            room = held
    return room


def beyond_capacity(wanted: Shortfall, node: NodeView) -> bool:
    """InsufficientResource.Unresolvable: more than the node's allocatable, so evicting
    pods cannot help. Never for the pod slot."""
    return wanted.resource != PODS and wanted.requested > node.allocatable.get(wanted.resource, 0)


def reason(shortfall: Shortfall) -> str:
    if shortfall.resource == PODS:
        return REASON_TOO_MANY_PODS
    return REASON_INSUFFICIENT.format(resource=shortfall.resource)


def fit_rejection(shortfall: tuple[Shortfall, ...], unresolvable: bool) -> Rejection:
    """fit.go Filter: every insufficient resource's reason kept, in fitsRequest's order;
    UnschedulableAndUnresolvable when one of them exceeds the node's allocatable."""
    code = UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
    return Rejection(NODE_RESOURCES_FIT, code, tuple(map(reason, shortfall)), shortfall=shortfall)


def node_resources_fit(
    wanted: tuple[Shortfall, ...], node: NodeView, dialect: Dialect
) -> Rejection | None:
    """fitsRequest: every shortage is reported, equality fits."""
    shortfall = short_of(wanted, node)
    if not shortfall:
        return None
    return fit_rejection(shortfall, any(beyond_capacity(s, node) for s in shortfall))


def _fit_parts(
    index: NodeIndex, wanted: tuple[Shortfall, ...], dialect: Dialect, among: int
) -> Parts:
    """NodeResourcesFit over ``among``: nodes split by the resources they lack (each a
    threshold on free amounts), then by whether one of those exceeds their allocatable
    (``beyond_capacity``); the rejection is built by the same ``fit_rejection``."""
    parts: list[tuple[int, tuple[Shortfall, ...]]] = [(among, ())]
    for want in wanted:
        short = index.short_of(want.resource, want.requested)
        split = []
        for part, shortfall in parts:
            if part & short:
                split.append((part & short, (*shortfall, want)))
            if part & ~short:
                split.append((part & ~short, shortfall))
        parts = split
    for part, shortfall in parts:
        if not shortfall:
            yield part, None
            continue
        beyond = 0
        for lacking in shortfall:
            if lacking.resource != PODS:
                beyond |= index.smaller_than(lacking.resource, lacking.requested)
        if part & beyond:
            yield part & beyond, fit_rejection(shortfall, True)
        if part & ~beyond:
            yield part & ~beyond, fit_rejection(shortfall, False)


def _requests(pod: PodProfile, cluster: Cluster) -> Hashable:
    return tuple(pod.requests.items())


def _prepare(pod: PodProfile, cluster: Cluster) -> tuple[Shortfall, ...]:
    return fit_request(pod)


def _wanted(wanted: tuple[Shortfall, ...]) -> Hashable:
    return wanted


def _explained(rejection: Rejection) -> list[Explained]:
    """One cause per insufficient resource, the pod slot its own term."""
    return [
        (Term.POD_SLOTS if s.resource == PODS else Term.REQUEST, s.resource, i, reason(s))
        for i, s in enumerate(rejection.shortfall)
    ]


def _amount(resources: object, name: str) -> Fraction | None:
    value = resources.get(name) if isinstance(resources, Mapping) else None
    if value is None:
        return None
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


def _fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """For an insufficient resource: the pod-level request when set, then the container
    (init containers included) with the largest request of it, or its limit when the
    request defaults from it, first one on a tie. None for the pod slot: the pod spec."""
    if cause.term is not Term.REQUEST:
        return []
    resource = cause.resource
    fields: list[FieldPath] = []
    pod = spec.get("resources")
    for kind in ("requests", "limits"):
        if _amount(pod.get(kind) if isinstance(pod, Mapping) else None, resource) is not None:
            fields.append(("resources", kind, resource))
            break
    best: tuple[Fraction, FieldPath] | None = None
    for key, i, container in containers(spec):
        resources = container.get("resources")
        resources = resources if isinstance(resources, Mapping) else {}
        for kind in ("requests", "limits"):
            amount = _amount(resources.get(kind), resource)
            if amount is not None:
                if best is None or amount > best[0]:
                    best = (amount, (key, i, "resources", kind, resource))
                break
    return fields + ([best[1]] if best else [])


PLUGIN: Plugin[tuple[Shortfall, ...]] = Plugin(
    NODE_RESOURCES_FIT,
    Family.RESOURCES,
    Term.REQUEST,
    RULE,
    key=_requests,
    prepare=_prepare,
    check=node_resources_fit,
    room=True,
    reasons=(REASON_TOO_MANY_PODS, REASON_INSUFFICIENT),
    split=_fit_parts,
    asks=_wanted,
    explain=_explained,
    fields=_fields,
)


# --- Score: LeastAllocated (noderesources/least_allocated.go, resource_allocation.go) -------

SCORED = ("cpu", "memory")  # NodeResourcesFitArgs' default resources, weight 1 each


def least_allocated(requested: tuple[int, ...], allocatable: tuple[int, ...]) -> int:
    """leastResourceScorer over cpu and memory, weight 1 each: per resource
    ``(capacity - requested) * 100 // capacity`` (0 when over capacity), averaged with
    integer division; a resource the node has none of is left out.

    ``requested`` is the node's non-zero requests plus the pod's (resource_allocation.go
    calculateResourceAllocatableRequest, ``useRequested`` false).

    >>> least_allocated((3000, 5000), (4000, 10000))  # (25 + 50) // 2
    37
    """
    total = weights = 0
    for wanted, capacity in zip(requested, allocatable, strict=True):
        if capacity == 0:
            continue
        total += 0 if wanted > capacity else (capacity - wanted) * 100 // capacity
        weights += 1
    return total // weights if weights else 0


@dataclass(frozen=True, slots=True)
class Nonzero:
    """The pod's cpu and memory as LeastAllocated adds them to a node's (``incoming``:
    resource_allocation.go calculatePodResourceRequest, every container defaulted) and as
    each copy bound there counts in its ``NonZeroRequested`` (``bound``: framework/types.go
    PodInfo.CalculateResource, defaulted only where the pod-level requests lack the
    resource altogether). They differ only for a pod with pod-level requests."""

    incoming: tuple[int, int]
    bound: tuple[int, int]

    @classmethod
    def alike(cls, amounts: tuple[int, int]) -> Nonzero:
        return cls(amounts, amounts)


def _prescore(workload: Workload) -> Nonzero:
    return Nonzero(workload.profile.nonzero, workload.profile.bound_nonzero)


def _own(run: Placing, each: Nonzero, p: int) -> int:
    """LeastAllocated of node ``p`` for the next copy, the copies it holds counted."""
    node, held, nonzero = run.nodes[p], run.copies.get(p, 0), run.nonzero[p]
    allocatable = (node.allocatable.get(SCORED[0], 0), node.allocatable.get(SCORED[1], 0))
    requested = tuple(
        nonzero[r] + held * each.bound[r] + each.incoming[r] for r in range(len(SCORED))
    )
    return least_allocated(requested, allocatable)


SCORE: ScorePlugin[Nonzero, None] = ScorePlugin(
    NODE_RESOURCES_FIT, 1, "nonzero", _prescore, own=_own
)
"""Score: LeastAllocated over cpu and memory (not normalised)."""
