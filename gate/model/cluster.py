"""The cluster as a snapshot holds it: node views, the pods already running (with the
terms the inter-pod plugins read), the admission objects and the snapshot's facts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gate.model.autoscaling import AutoscalingState
from gate.model.storage import Mounts, StorageObjects
from gate.model.taints import Taint
from gate.model.workloads import Port

HostPort = Port
"""A used or wanted host port (:class:`Port`), as the scheduler names it."""


@dataclass(frozen=True, slots=True)
class NodeView:
    """A node as the filters see it: the pods already bound to it reduced to totals.

    ``allocatable`` and ``requested`` hold exact integers: cpu in millicores, every other
    resource in whole units (bytes, counts), keyed by resource name. ``nonzero`` is the
    pods' cpu and memory as the resource scores count them (NodeInfo.NonZeroRequested: a
    container naming no cpu or memory request counted at 100m and 200Mi); None when it is
    ``requested``'s cpu and memory (a view built by hand).
    """

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    allocatable: Mapping[str, int]
    requested: Mapping[str, int]
    pod_count: int
    used_ports: frozenset[HostPort] = frozenset()
    nonzero: tuple[int, int] | None = None
    capacity: tuple[int, int] | None = None
    """``status.capacity``'s cpu in whole cores and memory in bytes, as cluster-autoscaler
    counts a node towards its cluster totals; None when the node lists no capacity."""
    scale_set: str | None = None
    """The Azure scale set its ``spec.providerID`` names, lowercased (a recording keeps only
    this name, as ``scaleSet``); None for a node of any other provider."""

    @property
    def scored_requests(self) -> tuple[int, int]:
        """The node's cpu and memory as NodeResourcesFit's score reads them (``nonzero``)."""
        if self.nonzero is not None:
            return self.nonzero
        return self.requested.get("cpu", 0), self.requested.get("memory", 0)

    @property
    def is_addon_node(self) -> bool:
        return any(t.key == "CriticalAddonsOnly" for t in self.taints)


class UnfrozenNode:
    """A :class:`NodeView`'s fields in a class of its slots: ``UnfrozenNode(...).frozen()``
    is ``NodeView(...)`` with every field given, at a fraction of its cost (as
    :class:`UnfrozenPod` for pods): a large run builds some 15,000 nodes less a workload's
    pods."""

    __slots__ = (
        "allocatable",
        "capacity",
        "labels",
        "name",
        "nonzero",
        "pod_count",
        "requested",
        "scale_set",
        "taints",
        "unschedulable",
        "used_ports",
    )

    def __init__(
        self,
        name: str,
        labels: Mapping[str, str],
        taints: tuple[Taint, ...],
        unschedulable: bool,
        allocatable: Mapping[str, int],
        requested: Mapping[str, int],
        pod_count: int,
        used_ports: frozenset[HostPort],
        nonzero: tuple[int, int] | None,
        capacity: tuple[int, int] | None,
        scale_set: str | None,
    ) -> None:
        self.name = name
        self.labels = labels
        self.taints = taints
        self.unschedulable = unschedulable
        self.allocatable = allocatable
        self.requested = requested
        self.pod_count = pod_count
        self.used_ports = used_ports
        self.nonzero = nonzero
        self.capacity = capacity
        self.scale_set = scale_set

    def frozen(self) -> NodeView:
        self.__class__ = NodeView  # type: ignore[assignment]
        return self  # type: ignore[return-value]


WeightedTerms = tuple[tuple[int, Mapping[str, Any]], ...]
"""Preferred pod (anti-)affinity terms as ``(weight, podAffinityTerm)``, the term as stored."""


@dataclass(frozen=True, slots=True)
class ExistingPod:
    """A pod already bound to a node of the snapshot, as the inter-pod filters read it
    (InterPodAffinity, PodTopologySpread). Only pods that count against a
    node are kept (``spec.nodeName`` names a node of the snapshot, phase neither Succeeded
    nor Failed), as the scheduler's informer keeps them.
    ``nonzero`` is its cpu and memory as ``NodeView.nonzero`` counts them (None: as
    ``requests``').

    ``requests`` are its requests as the node's totals count them (scheduler units, as in
    ``NodeView.requested``) and ``ports`` its used host ports: a workload's update releases
    its own running pods, so what they hold must be known per pod.
    ``owners`` are its ownerReferences as ``(kind, name)``; ``terminating`` is true when
    ``metadata.deletionTimestamp`` is set; ``affinity_terms`` and ``anti_affinity_terms``
    are its required ``podAffinity`` / ``podAntiAffinity`` terms as the API server stored
    them (``requiredDuringSchedulingIgnoredDuringExecution`` items, already merged with
    their matchLabelKeys at creation); ``preferred_affinity_terms`` and
    ``preferred_anti_affinity_terms`` are its ``preferredDuringSchedulingIgnoredDuringExecution``
    items as ``(weight, podAffinityTerm)`` pairs, the term as stored: InterPodAffinity's
    score weighs the incoming pod against them. A pod with some is a :class:`PreferringPod`.
    ``priority`` is its ``spec.priority`` (0 when unset, as the scheduler reads it) and
    ``started`` its ``status.startTime`` as written (None: not started, which preemption
    counts as starting now): what DefaultPreemption weighs of a victim.
    """

    namespace: str
    name: str
    node: str
    labels: Mapping[str, str]
    owners: tuple[tuple[str, str], ...] = ()
    terminating: bool = False
    affinity_terms: tuple[Mapping[str, Any], ...] = ()
    anti_affinity_terms: tuple[Mapping[str, Any], ...] = ()
    requests: Mapping[str, int] = field(default_factory=dict)
    ports: tuple[HostPort, ...] = ()
    nonzero: tuple[int, int] | None = None
    priority: int = 0
    started: str | None = None

    @property
    def preferred_affinity_terms(self) -> WeightedTerms:
        return ()

    @property
    def preferred_anti_affinity_terms(self) -> WeightedTerms:
        return ()


class UnfrozenPod:
    """An :class:`ExistingPod`'s fields in a class of its slots, stored directly:
    ``UnfrozenPod(...).frozen()`` is ``ExistingPod(...)`` with every field given, at a fifth
    of its cost. A frozen dataclass sets each field through ``object.__setattr__``, which
    over a large cluster's 150,000 pods took a quarter of a second; the interpreter lays
    slots out by name, so an object of this class may take the frozen one, and is then an
    ``ExistingPod`` like any other, frozen included."""

    __slots__ = (
        "affinity_terms",
        "anti_affinity_terms",
        "labels",
        "name",
        "namespace",
        "node",
        "nonzero",
        "owners",
        "ports",
        "priority",
        "requests",
        "started",
        "terminating",
    )

    def __init__(
        self,
        namespace: str,
        name: str,
        node: str,
        labels: Mapping[str, str],
        owners: tuple[tuple[str, str], ...],
        terminating: bool,
        affinity_terms: tuple[Mapping[str, Any], ...],
        anti_affinity_terms: tuple[Mapping[str, Any], ...],
        requests: Mapping[str, int],
        ports: tuple[HostPort, ...],
        nonzero: tuple[int, int] | None,
        priority: int,
        started: str | None,
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.node = node
        self.labels = labels
        self.owners = owners
        self.terminating = terminating
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.requests = requests
        self.ports = ports
        self.nonzero = nonzero
        self.priority = priority
        self.started = started

    def frozen(self) -> ExistingPod:
        self.__class__ = ExistingPod  # type: ignore[assignment]
        return self  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class PreferringPod(ExistingPod):
    """An :class:`ExistingPod` with preferred pod (anti-)affinity terms. A class of its own
    because most pods of a cluster have none, and every field of a frozen dataclass costs
    each pod built a call: those pods are built with no more fields than before."""

    preferred_affinity_terms: WeightedTerms = ()
    preferred_anti_affinity_terms: WeightedTerms = ()


SNAPSHOT_CAVEAT = "a snapshot is a point in time: it is wrong a second later"
"""What every report says of its snapshot."""


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """Provenance of the one cluster snapshot a run evaluates against."""

    source: str
    captured_at: str | None
    context: str | None
    server: str | None
    server_version: str | None
    nodes: int
    pods: int
    captured_by: str | None = None
    """Where ``captured_at`` came from when the snapshot does not record it (the flag that
    gave it): reports say so beside the time, since it decides the age check."""

    @property
    def taken(self) -> datetime | None:
        """When it was captured; None when unknown or not an RFC 3339 time."""
        return rfc3339_time(self.captured_at)


@dataclass(frozen=True, slots=True)
class AdmissionObjects:
    """The snapshot's LimitRanges (per namespace, each whole, as LimitRanger reads each
    apart), RuntimeClasses and PriorityClasses (by name): what the admission plugins read
    when they complete a pod
    (``gate.k8s.completion``). ``has_priority_classes``: the snapshot recorded them (an
    unknown class is then the API server's refusal)."""

    limit_ranges: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    runtime_classes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    has_runtime_classes: bool = False
    priority_classes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    has_priority_classes: bool = False
    resource_quotas: tuple[Mapping[str, Any], ...] = ()
    """The ResourceQuotas recorded (spec and ``status.used``), and the run's new ones."""
    has_resource_quotas: bool = False
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """The labels of the Namespaces the run ships, which replace the snapshot's for the
    PodSecurity plugin (``gate.k8s.podsecurity``)."""


@dataclass(frozen=True, slots=True)
class DisruptionBudget:
    """A PodDisruptionBudget as preemption reads it (default_preemption.go
    ``filterPodsWithPDBViolation``): its namespace, its ``spec.selector`` as written (None:
    absent; a nil or empty selector matches nothing), ``status.disruptionsAllowed`` and the
    names in ``status.disruptedPods``, which the API server already counted."""

    namespace: str
    name: str
    selector: Mapping[str, Any] | None
    allowed: int
    disrupted: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The cluster as one run sees it: what the snapshot readers build (``gate.snapshot``,
    ``gate.live``) and the scheduler reads, kept here so neither stage imports the other.

    ``pods``: the counted pods, for the filters that look at pods rather than totals.
    ``namespaces``: each namespace's labels, or None when the snapshot recorded none (a
    recording made before namespaces were read); namespaceSelector terms then match no
    namespace.
    """

    info: SnapshotInfo
    nodes: tuple[NodeView, ...]
    admission: AdmissionObjects = field(default_factory=AdmissionObjects)
    pods: tuple[ExistingPod, ...] = ()
    namespaces: Mapping[str, Mapping[str, str]] | None = None
    autoscaling: AutoscalingState | None = None
    """What the snapshot recorded of its cluster-autoscaler (``gate.model.autoscaling``), None
    when it recorded nothing of it."""
    storage: StorageObjects | None = None
    """Its storage objects (``gate.model.storage``), None when it recorded none."""
    mounts: Mounts = field(default_factory=dict)
    """The claims and in-tree disks its counted pods mount, by pod (``Mounts``)."""
    disruption_budgets: tuple[DisruptionBudget, ...] = ()
    """Its PodDisruptionBudgets, which preemption weighs (none when it recorded none)."""


_RFC3339 = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})"
)


def rfc3339_time(text: object) -> datetime | None:
    """An RFC 3339 time as Kubernetes writes them (Go's nanoseconds included), or None.

    >>> rfc3339_time("2026-08-16T10:00:00.123456789Z").isoformat()
    '2026-08-16T10:00:00.123456+00:00'
    """
    found = _RFC3339.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        return None
    day, clock, fraction, zone = found.groups()
    micro = f".{(fraction + '000000')[:6]}" if fraction else ""  # Python's resolution
    offset = "+00:00" if zone in ("Z", "z") else zone
    try:
        return datetime.fromisoformat(f"{day}T{clock}{micro}{offset}")
    except ValueError:  # a 13th month, a 25th hour
        return None
