"""Frozen values exchanged between the stages of a run.

manifests -> Document -> Workload -> (Snapshot -> NodeView) -> WorkloadResult -> Report
"""

from __future__ import annotations

import operator
import re
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from functools import cache
from itertools import compress, repeat
from typing import Any, Final, overload

from gate.autoscaling import AutoscalingState
from gate.taints import Taint

__all__ = ["AutoscalingState", "Taint"]  # defined apart, exchanged as the rest


class Verdict(str, Enum):
    """The gate's answer for one workload (the README's "Verdicts")."""

    YES = "YES"
    SCALES = "SCALES"
    """Every copy fits, some only on nodes cluster-autoscaler would add."""
    NO = "NO"
    ADDON_ONLY = "ADDON_ONLY"
    PARTIAL = "PARTIAL"
    ERROR = "ERROR"
    SKIPPED = "SKIPPED"

    def __str__(self) -> str:
        return self.value


VERDICT_ORDER: tuple[Verdict, ...] = tuple(Verdict)
"""YES and SCALES pass by default, then the verdicts that fail, then the unjudged."""
DEFAULT_FAIL_ON: frozenset[Verdict] = frozenset(
    {Verdict.NO, Verdict.ADDON_ONLY, Verdict.PARTIAL, Verdict.ERROR}
)

COMMENT_LIMIT = 65_536  # GitHub: "Body is too long (maximum is 65536 characters)"
"""The longest pull-request comment GitHub takes: the markdown report is rendered within it,
and the comment poster (standard library only) refuses a longer body before sending it."""


@dataclass(frozen=True, slots=True)
class Location:
    """Where a document starts: the file as the user named it, its first line, and
    the file it was rendered from when the renderer said so (Helm's ``# Source:`` comment,
    kustomize's ``config.kubernetes.io/origin`` annotation).

    For standard input, ``document`` is the document's place in the stream (1 for the
    first), and ``origin_file`` the origin as a path of the repository when it names a file
    there: reports attach the workload to that file, since standard input is none."""

    file: str
    line: int
    origin: str | None = None
    document: int | None = field(default=None, compare=False)
    origin_file: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a document's (or a List item's) text is, to find the lines of its fields later.

    Positions are not kept per field while reading: a run of 100,000 documents would hold
    millions of them, and only the failing workloads' few fields are ever asked for. The
    text is the file's (shared by all its documents, so keeping it costs one reference);
    ``start`` and ``end`` delimit the value, which starts at 1-based ``line`` and
    0-based ``column``; ``end`` is -1 when it is a JSON value whose end is found on demand.
    """

    text: str = field(repr=False, compare=False)
    start: int
    end: int
    line: int
    column: int = 0


@dataclass(frozen=True, slots=True)
class Document:
    """One YAML/JSON document. Exactly one of ``body``, ``error`` and ``skipped`` is set,
    except for empty documents, which have none and are dropped by the reader.
    ``skipped`` says why a file was not read at all (a named pipe or a device met while
    walking a directory): a visible ``SKIPPED``, not an error and not a silent drop."""

    location: Location
    body: Mapping[str, Any] | None = None
    error: str | None = None
    skipped: str | None = None
    source: Source | None = field(default=None, compare=False, repr=False)


class WarningKind(str, Enum):
    """What a warning is about; reports choose by kind, never by the warning's words."""

    ZERO_REQUEST = "zero-request"
    """A container requests no cpu or memory: it fits every node and is evicted later."""
    NOT_MODELLED = "not-modelled"
    """A filter fitgate does not run (or a score, which no filter checks) reads the pod."""
    ADMISSION = "admission"
    """The API server changes the pod on creation in a way fitgate could not apply."""
    SCHEDULING = "scheduling"
    """The pod is not scheduled as evaluated: gated, another scheduler's, or bound by name."""
    NO_TARGET = "no-target"
    """A DaemonSet whose selector and tolerations take no node of the snapshot."""
    ROLLOUT = "rollout"
    """The rollout proceeds only by taking running pods down before new ones start."""
    LOST_NODE = "lost-node"
    """If the node holding most of its pods failed, the rest of the cluster could not take
    them back (below its wanted count, or below its disruption budget)."""
    AUTOSCALING = "autoscaling"
    """What cluster-autoscaler would do that the verdict does not say: blockers that may
    pass (a group in backoff, a stale status), a scale-up it could not judge."""
    IF_SCALED_UP = "if-scaled-up"
    """A workload that wants no pods (``replicas: 0``, a Job suspended by hand): one pod of
    its template would not fit if it were scaled up, or only on add-on nodes."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class WorkloadWarning:
    """Something the verdict does not say: its kind, and the sentence reports print."""

    kind: WarningKind
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Workload:
    """A pod template found in a document, completed as the API server would complete
    the pod (see :mod:`gate.k8s.completion`). ``pod_spec`` is the completed ``spec``;
    ``labels`` are the template's labels, which the inter-pod filters match."""

    kind: str
    namespace: str
    name: str
    location: Location
    replicas: int | None
    pod_spec: Mapping[str, Any]
    annotations: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[WorkloadWarning, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    scaling: Scaling | None = None
    source: Source | None = field(default=None, compare=False, repr=False)
    template: str = ""
    """The dotted field of the pod spec in its document (``spec.template.spec``), with
    ``source`` what finds the line of a field inside it."""


@dataclass(frozen=True, slots=True)
class AutoscalerRef:
    """An autoscaler of the run, by its kind (``HorizontalPodAutoscaler``, or KEDA's
    ``ScaledObject``) and name."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Scaling:
    """What the rest of the run says of a workload's pods: an autoscaler that targets it
    (``replicas`` is then its minimum, ``maximum`` its maximum), how many new pods its
    rollout starts before old ones go (``surge``), and the pods a PodDisruptionBudget of
    the run keeps available (``must_keep``, with the budget's name)."""

    autoscaler: AutoscalerRef | None = None
    maximum: int | None = None
    surge: int = 0
    budget: str | None = None
    must_keep: int | None = None


@dataclass(frozen=True, slots=True)
class HostPort:
    """A used or wanted host port, normalised: empty IP is 0.0.0.0, empty protocol TCP."""

    ip: str
    protocol: str
    port: int


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

    @property
    def preferred_affinity_terms(self) -> WeightedTerms:
        return ()

    @property
    def preferred_anti_affinity_terms(self) -> WeightedTerms:
        return ()


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
    """The snapshot's LimitRange items (per namespace) and RuntimeClasses (by name): what
    the admission plugins read when they complete a pod (``gate.k8s.completion``)."""

    limit_ranges: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    runtime_classes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    has_runtime_classes: bool = False


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
    """What the snapshot recorded of its cluster-autoscaler (``gate.autoscaling``), None
    when it recorded nothing of it."""


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


class Code(str, Enum):
    """The code of a plugin's rejecting status (framework/interface.go ``Code``).

    ``Unschedulable``: preempting pods could make the node fit; ``UnschedulableAndUnresolvable``:
    nothing done to the node's pods would.
    """

    UNSCHEDULABLE = "Unschedulable"
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"

    def __str__(self) -> str:
        return self.value


# The default profile's filter plugins (apis/config/v1/default_plugins.go), by name: a
# NodeOutcome names the one that rejected the node, and reports read which kind it was.
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_FIT = "NodeResourcesFit"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
INTER_POD_AFFINITY = "InterPodAffinity"
ROOM_PLUGINS = frozenset({NODE_PORTS, NODE_RESOURCES_FIT, POD_TOPOLOGY_SPREAD, INTER_POD_AFFINITY})
"""The plugins that reject a node the pod is meant for because of what already runs there
or nearby: it is full, a host port is taken, or the pods already placed forbid it. Each
plugin's module says so itself (``room``); reports read this set, which a test holds equal
to the plugins' word."""


@dataclass(frozen=True, slots=True)
class NodeOutcome:
    """The reasons one node rejected the pod (empty when it fits), as the rejecting
    plugin's status gives them.

    ``reasons`` are the scheduler's strings in the run's dialect; ``taint`` names the
    untolerated taint for human readers whatever the dialect; ``plugin`` and ``code`` are the
    rejecting plugin's name and status code ("" and None for a fit, and for outcomes read
    back from a report that does not record them). What the pod asks (NodeResourcesFit's
    shortfall) is the workload's, not the node's, so it stays on the scheduler's rejection.
    """

    node: str
    reasons: tuple[str, ...]
    taint: Taint | None = None
    plugin: str = ""
    code: Code | None = None

    @property
    def fits(self) -> bool:
        return not self.reasons


# Byte b of a bitset -> eight bytes, the j-th being bit j of b (0 or 1).
_EXPAND = [bytes((b >> j) & 1 for j in range(8)) for b in range(256)]


def bitset(positions: Iterable[int], count: int) -> int:
    """The bitset of ``positions``, each below ``count``, built at C speed.

    >>> bin(bitset([4, 1, 2], 6))
    '0b10110'
    """
    flags = bytearray(count)
    deque(map(flags.__setitem__, positions, repeat(1)), maxlen=0)
    return int(flags[::-1].translate(_digits(1)) or b"0", 2)


_NODE, _REASONS = operator.attrgetter("node"), operator.attrgetter("reasons")
_PLUGIN, _TAINT, _CODE = map(operator.attrgetter, ("plugin", "taint", "code"))


class _Numbering(dict[Hashable, int]):
    """Numbers keys in the order they are first looked up."""

    def __missing__(self, key: Hashable) -> int:
        number = self[key] = len(self)
        return number


def _looped(outcomes: Sequence[NodeOutcome]) -> tuple[tuple[NodeOutcome, int], ...]:
    """The sets of :meth:`NodeOutcomes.of` by one loop over the nodes, for any number of
    outcomes."""
    groups: dict[NodeOutcome, int] = {}
    for position, o in enumerate(outcomes):
        if o.reasons or o.taint is not None or o.plugin or o.code is not None:
            shown = NodeOutcome("", o.reasons, o.taint, o.plugin, o.code)
            groups[shown] = groups.get(shown, 0) | 1 << position
    return tuple(groups.items())


@cache
def _digits(number: int) -> bytes:
    """A ``bytes.translate`` table: the digit 1 for ``number``, 0 for every other byte."""
    return bytes(ord("1") if byte == number else ord("0") for byte in range(256))


def positions(bits: int, limit: int | None = None) -> Iterator[int]:
    """The positions of the bits set in ``bits``, lowest first, at most ``limit`` of them.

    >>> list(positions(0b10110)), list(positions(0b10110, limit=2))
    ([1, 2, 4], [1, 2])
    """
    while bits and limit != 0:
        lowest = bits & -bits
        yield lowest.bit_length() - 1
        bits ^= lowest
        limit = None if limit is None else limit - 1


@dataclass(frozen=True, slots=True, eq=False)
class NodeOutcomes(Sequence[NodeOutcome]):
    """Every node's outcome for one pod, in node order, kept as the sets of nodes that
    share one: a workload's answer is a few such sets, however many nodes there are.

    ``names`` are the nodes' names in node order; ``groups`` pair a rejection's outcome
    (its ``node`` empty) with the nodes that gave it, a bitset over ``names`` (bit i is
    ``names[i]``); the groups are disjoint, and a node in none of them fits. Reports derive
    what they show from the sets; indexing or iterating gives the per-node outcomes, and
    the value equals the tuple of the same outcomes (as read back from a report).

    >>> cpu = ("Insufficient cpu",)
    >>> outcomes = NodeOutcomes(("a", "b", "c"), ((NodeOutcome("", cpu), 0b101),))
    >>> outcomes == (NodeOutcome("a", cpu), NodeOutcome("b", ()), NodeOutcome("c", cpu))
    True
    >>> outcomes.nodes_in(outcomes.fitting), outcomes.nodes_in(0b101, limit=1)
    (('b',), ('a',))
    """

    names: tuple[str, ...]
    groups: tuple[tuple[NodeOutcome, int], ...]

    @classmethod
    def of(cls, outcomes: Sequence[NodeOutcome]) -> NodeOutcomes:
        """``outcomes`` as sets of nodes (themselves when they already are).

        Read at C speed, since a merged report has thousands of 5,000-node tuples: each
        node's outcome is numbered as first seen (its taint and code by identity, which C
        hashes), one byte per node, and each number's nodes are read off those bytes as the
        binary digits of its bitset. Equal outcomes numbered apart make two sets of one
        outcome, which every view of the sets merges as it merges different outcomes."""
        if isinstance(outcomes, NodeOutcomes):
            return outcomes
        names = tuple(map(_NODE, outcomes))
        numbering = _Numbering()
        keys = zip(
            map(_REASONS, outcomes),
            map(_PLUGIN, outcomes),
            map(id, map(_TAINT, outcomes)),
            map(id, map(_CODE, outcomes)),
            strict=True,
        )
        try:
            numbers = bytes(map(numbering.__getitem__, keys))
        except ValueError:  # more than 256 distinct outcomes: no byte holds their numbers
            return cls(names, _looped(outcomes))
        highest_first = numbers[::-1]
        groups = []
        for number in numbering.values():
            o = outcomes[numbers.find(number)]
            if o.reasons or o.taint is not None or o.plugin or o.code is not None:
                shown = NodeOutcome("", o.reasons, o.taint, o.plugin, o.code)
                groups.append((shown, int(highest_first.translate(_digits(number)), 2)))
        return cls(names, tuple(groups))

    @property
    def fitting(self) -> int:
        """The nodes the pod fits, as a bitset."""
        rejected = 0
        for shown, bits in self.groups:
            if shown.reasons:
                rejected |= bits
        return (1 << len(self.names)) - 1 & ~rejected

    def nodes_in(self, bits: int, limit: int | None = None) -> tuple[str, ...]:
        """The names of the nodes in ``bits``, in node order, at most ``limit`` of them."""
        if limit is None or limit >= bits.bit_count():
            packed = bits.to_bytes((len(self.names) + 7) // 8, "little")
            return tuple(compress(self.names, b"".join(map(_EXPAND.__getitem__, packed))))
        return tuple(map(self.names.__getitem__, positions(bits, limit)))

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, position: int) -> NodeOutcome: ...

    @overload
    def __getitem__(self, position: slice) -> tuple[NodeOutcome, ...]: ...

    def __getitem__(self, position: int | slice) -> NodeOutcome | tuple[NodeOutcome, ...]:
        if isinstance(position, slice):
            return tuple(self)[position]
        name = self.names[position]  # raises IndexError past the end, as a tuple does
        position %= len(self.names)
        for shown, bits in self.groups:
            if bits >> position & 1:
                return NodeOutcome(name, shown.reasons, shown.taint, shown.plugin, shown.code)
        return NodeOutcome(name, ())

    def __iter__(self) -> Iterator[NodeOutcome]:
        placed: list[NodeOutcome | None] = [None] * len(self.names)
        for shown, bits in self.groups:
            for position in positions(bits):
                placed[position] = shown
        for name, found in zip(self.names, placed, strict=True):
            if found is None:
                yield NodeOutcome(name, ())
            else:
                yield NodeOutcome(name, found.reasons, found.taint, found.plugin, found.code)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (tuple, NodeOutcomes)):
            return NotImplemented
        return len(self) == len(other) and all(map(operator.eq, self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))


class Family(str, Enum):
    """What kind of "no" a failing workload got, from the rejecting plugin (and, for
    results that were not evaluated, the verdict): one code-scanning rule each."""

    TAINTS = "taints"
    """TaintToleration and NodeUnschedulable: the node is tainted or cordoned."""
    RESOURCES = "resources"
    """NodeResourcesFit: too little cpu, memory... or no pod slot left."""
    SELECTOR = "selector"
    """NodeAffinity and NodeName: the node's labels or name are not the ones asked for."""
    AFFINITY = "affinity"
    """InterPodAffinity: the pods already placed forbid the node, or are missing from it."""
    SPREAD = "spread"
    """PodTopologySpread: the node's domain would be too crowded."""
    PORTS = "ports"
    """NodePorts: a host port is taken."""
    ADDON_ONLY = "addon-only"
    """Only the CriticalAddonsOnly (system) nodes take the pod."""
    ERROR = "error"
    """The document or its pod template cannot be read as the API server would read it."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Rule:
    """A code-scanning rule: one per :class:`Family`, its id the family's value. A filter
    plugin's family carries the rule its module states (``gate/scheduler/plugins/``)."""

    family: Family
    name: str
    short: str
    help: str


class Term(str, Enum):
    """Which part of the pod spec a cause points at, beyond its plugin."""

    REQUEST = "request"
    POD_SLOTS = "pod-slots"
    TOLERATIONS = "tolerations"
    NODE_NAME = "nodeName"
    NODE_SELECTOR = "nodeSelector"
    NODE_AFFINITY = "nodeAffinity"
    HOST_PORT = "hostPort"
    SPREAD = "topologySpreadConstraints"
    POD_AFFINITY = "podAffinity"
    POD_ANTI_AFFINITY = "podAntiAffinity"
    EXISTING_ANTI_AFFINITY = "existingAntiAffinity"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Cause:
    """The reason behind most of a failing workload's rejections, as structured data.

    Worked out by the scheduler from the rejecting plugins' statuses over the nodes that
    count (the user nodes when the cluster has any; for a DaemonSet only the nodes it
    targets): the (plugin, term) rejecting the most of them, a tie going to the plugin
    that runs last, whose nodes passed every filter before it. ``reason`` is the
    scheduler's reason string for it (shown, never read back), ``nodes`` how many nodes
    it rejected in all (user and add-on, as the scheduler's message counts). ``index`` is
    the term's place in its list (the node-affinity term, the hard spread constraint, the
    pod (anti-)affinity term) when one term is at fault;
    ``port`` the host port taken.

    For NodeResourcesFit, ``resource``, ``requested`` (the pod's request) and ``free``:
    the largest free amount of it among the nodes that NodeResourcesFit rejected for it
    and every other filter passes (quantity text; None when there is no such node), and
    ``free_on_addon`` when those are add-on (CriticalAddonsOnly) nodes only.
    """

    family: Family
    plugin: str
    term: Term
    reason: str
    nodes: int
    index: int | None = None
    port: HostPort | None = None
    resource: str = ""
    requested: str = ""
    free: str | None = None
    free_on_addon: bool = False


FieldPath = tuple[str | int, ...]
"""A field's path under the pod spec as steps: ``("containers", 0, "resources")``. A path
starting with ``".."`` starts at the pod spec's parent (the template's metadata)."""


@dataclass(frozen=True, slots=True)
class FieldLocation:
    """The field of the manifest behind a workload's cause: its path in the pod spec
    (``containers[0].resources.requests.cpu``; the pod spec's own field, e.g.
    ``spec.template.spec``, when the cause names no field inside it), the file line it is
    on, and its value when it is a scalar (``2``), else ""."""

    path: str
    line: int
    value: str = ""
    partial: bool = False
    """The value is less than what the pod asks in all (other containers ask too)."""
    origin_line: int | None = None
    """For a piped document whose origin is a file of the repository: the same field's line
    in that file, when it is there, or in ``origin_file``."""
    origin_file: str | None = None
    """For a piped document: the kustomize overlay's patch that sets the field, when one does
    (``--origin-root``): reports point at it, at ``origin_line``, not at the base's old
    value."""


@dataclass(frozen=True, slots=True)
class ReplicaFit:
    """How many of a workload's wanted pods fit, placed one after another (docs/reference.md,
    "A workload is all of its pods").

    ``alone``: with the cluster as the snapshot has it, the workload's own running pods
    released; ``together``: beside the run's other new workloads placed before it, in input
    order (None for a workload already running, which only replaces itself); ``beside``:
    those it competes with, when they leave it less room; ``headroom``: how many of an
    autoscaler's ``maximum`` fit; ``released``: running pods of its own the change replaces.
    """

    wanted: int
    alone: int
    together: int | None = None
    beside: tuple[str, ...] = ()
    autoscaler: AutoscalerRef | None = None
    maximum: int | None = None
    headroom: int | None = None
    released: int = 0
    most: int | None = None
    """The most copies found over the tie draws and, past 100 nodes, the node picks tried,
    when more than :attr:`fit` (the scheduler breaks ties between top-scored nodes at
    random and scores only a share of many nodes; the verdict takes the least)."""

    @property
    def fit(self) -> int:
        return self.alone if self.together is None else min(self.alone, self.together)


class Change(str, Enum):
    """How a workload compares with the baseline report (``--baseline``), as the gate
    sees both: "failing" means a verdict the gate fails on (``--fail-on``, less what
    ``allowAddonOnly`` allows)."""

    NEW = "new"
    """No workload of the baseline has its kind, namespace and name."""
    WORSE = "worse"
    """It fails the gate, and its verdict is worse than the baseline's (YES < SCALES < PARTIAL <
    ADDON_ONLY < NO), or it is an ERROR where the baseline was not, or the baseline could not
    say (ERROR, SKIPPED) and it now fails."""
    FIXED = "fixed"
    """The baseline's verdict failed the gate; this one does not."""
    STILL_FAILING = "still-failing"
    """It fails the gate as the baseline did, no worse."""
    UNCHANGED = "unchanged"
    """Neither fails the gate."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """A workload as the baseline report recorded it: what it is matched by, its verdict,
    and where and why the base said so (None when the report did not record it)."""

    kind: str
    namespace: str
    name: str
    verdict: Verdict
    file: str | None = None
    line: int | None = None
    message: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)

    @property
    def title(self) -> str:
        return (
            f"{self.kind} {self.namespace}/{self.name}"
            if self.namespace
            else (f"{self.kind} {self.name}")
        )


@dataclass(frozen=True, slots=True)
class Baseline:
    """The workloads of an earlier JSON report (``--baseline REPORT``), in its order, and
    the policy and ``failOn`` it was written under (None: a report of an older version,
    which did not record them)."""

    source: str
    entries: tuple[BaselineEntry, ...]
    policy: Policy | None = None
    fail_on: frozenset[Verdict] | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    """One workload against the baseline: how it changed, the baseline's verdict (None for
    a new workload), and whether it fails the gate: only a new or worse failure does, and
    an ``ERROR`` always does (an unreadable document says nothing about what it fixed)."""

    change: Change
    before: Verdict | None
    fails: bool


@dataclass(frozen=True, slots=True)
class BaselineRun:
    """What the reports say of the baseline as a whole: the report compared against, and
    its workloads this run does not have (renamed, deleted, or in another shard's part:
    a shard's report lists none)."""

    source: str
    gone: tuple[BaselineEntry, ...] = ()
    policy_changes: tuple[str, ...] = ()
    """How this run's policy differs from the baseline's: ``now: <line>`` for each line of
    this run's policy the baseline's lacks, ``was: <line>`` for each it had."""


NODE_GROUP: Final = "NodeGroup"
NODE_POOL: Final = "NodePool"
"""The kinds of what adds nodes: a cluster-autoscaler node group, a Karpenter NodePool."""
TYPES_SHOWN = 3
"""Instance types a NodePool's scale-up names before counting the rest."""
TYPES_LISTED = 100
"""Instance types a report lists of a NodePool's scale-up; the rest are counted: a catalog
of 100,000 types would otherwise list most of them for every workload."""


@dataclass(frozen=True, slots=True)
class GroupScaleUp:
    """What grows for a workload: ``nodes`` new nodes holding ``copies`` of its pods. A
    cluster-autoscaler node group (``kind`` ``NodeGroup``) grows from size ``start`` to
    ``end`` of at most ``maximum``; a Karpenter NodePool (``NodePool``) from the ``start``
    nodes it has, with no maximum of nodes, each new node one of ``instance_types``."""

    group: str
    nodes: int
    copies: int
    start: int
    end: int
    maximum: int | None
    kind: str = NODE_GROUP
    instance_types: tuple[str, ...] = ()
    type_count: int | None = None
    """How many instance types there are when ``instance_types`` lists only the first
    :data:`TYPES_LISTED`; None: it lists them all."""

    def __str__(self) -> str:
        """processors/nodegroupset ``ScaleUpInfo.String``: ``{aks-user 3->5 (max: 10)}``;
        a NodePool: ``NodePool "default" +2 nodes (m6i.large, m5.large, … 41 types)``."""
        if self.kind == NODE_POOL:
            noun = "node" if self.nodes == 1 else "nodes"
            types = ", ".join(self.instance_types[:TYPES_SHOWN])
            total = self.type_count or len(self.instance_types)
            if total > TYPES_SHOWN:
                types += f", … {total} types"
            return f'NodePool "{self.group}" +{self.nodes} {noun} ({types})'
        return f"{{{self.group} {self.start}->{self.end} (max: {self.maximum})}}"


KARPENTER_EVENT = "Failed to schedule pod, "
"""How Karpenter's ``FailedScheduling`` event begins, before each NodePool's error joined by
``; `` (pkg/controllers/provisioning/scheduling/events.go ``PodFailedToScheduleEvent``)."""


@dataclass(frozen=True, slots=True)
class PoolRefusal:
    """Why a Karpenter NodePool launches no node for a workload's first blocked copy: a
    short ``reason`` (``did not tolerate taint``, ``incompatible requirements``, ``no
    instance type has enough resources``, ...) and Karpenter's own ``text`` for it."""

    pool: str
    reason: str
    text: str

    def __str__(self) -> str:
        """``nodepool "gpu": did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)``."""
        return f'nodepool "{self.pool}": {self.text}'


@dataclass(frozen=True, slots=True)
class Autoscale:
    """Where a workload's copies go once the autoscalers have added what they would:
    ``fits_now`` on today's nodes, the node groups and NodePools that grow (``scale_up``:
    cluster-autoscaler's first, then Karpenter's), the copies none takes (``blocked``), each
    blocking reason with the number of groups or pools giving it, and the events the
    autoscalers publish for a blocked copy, one per line (``message``: CA's ``pod didn't
    trigger scale-up: ...``, Karpenter's ``Failed to schedule pod, ...``; "" when none is
    blocked). ``transient``: every blocker may pass (a group in
    backoff, not ready, a status that may have changed)."""

    fits_now: int
    scale_up: tuple[GroupScaleUp, ...] = ()
    blocked: int = 0
    reasons: Mapping[str, int] = field(default_factory=dict)
    message: str = ""
    transient: bool = False
    pools: tuple[PoolRefusal, ...] = ()
    """Each Ready NodePool's refusal of the first blocked copy, in Karpenter's pool order
    (empty when no NodePool was asked or none refused)."""

    @property
    def nodes(self) -> int:
        """The new nodes every group together adds."""
        return sum(s.nodes for s in self.scale_up)

    @property
    def after(self) -> int:
        """The copies the new nodes hold."""
        return sum(s.copies for s in self.scale_up)


@dataclass(frozen=True, slots=True)
class WorkloadResult:
    kind: str
    namespace: str
    name: str
    location: Location
    replicas: int | None
    verdict: Verdict
    message: str | None = None
    reason: str | None = None
    nodes: Sequence[NodeOutcome] = ()
    """Every node's outcome for its first pod, in node order: :class:`NodeOutcomes` from
    the engine, a tuple when read back from a report."""
    requests: tuple[tuple[str, str], ...] = ()
    warnings: tuple[WorkloadWarning, ...] = ()
    placement: ReplicaFit | None = None
    allowed: bool = False
    """An ``ADDON_ONLY`` the configuration allows (``allowAddonOnly``): it does not fail."""
    compared: Comparison | None = None
    """Against the baseline report, when the run was given one (``--baseline``)."""
    cause: Cause | None = None
    """For a workload that some nodes reject: the reason behind most rejections."""
    field_at: FieldLocation | None = None
    """Where the cause is in the manifest, when its field could be found."""
    autoscale: Autoscale | None = None
    """Where cluster-autoscaler would put the copies no existing node takes, when the run
    judged the snapshot's node groups for them."""

    @property
    def fits(self) -> tuple[str, ...]:
        """The nodes the pod fits, in node order (reports share them through
        :class:`gate.reports.views.Views`, derived once per outcomes)."""
        outcomes = NodeOutcomes.of(self.nodes)
        return outcomes.nodes_in(outcomes.fitting)

    @property
    def title(self) -> str:
        """``Kind namespace/name``; an unreadable document has no namespace, only its place."""
        if not self.namespace:
            return f"{self.kind} {self.name}"
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class Summary:
    workloads: int
    counts: Mapping[Verdict, int]
    warnings: int
    passed: bool


@dataclass(frozen=True, slots=True)
class ReadSummary:
    """What a run was given to read: the files read and the documents in them, the walked
    files the configuration left out (each with the pattern that did) and the documents
    read but not checked (a snapshot among the manifests, a named pipe met while walking).
    A reviewer sees from it whether the gate judged what the pull request holds."""

    files: int
    documents: int
    excluded: tuple[tuple[str, str], ...] = ()
    """``(file, pattern)`` for each walked file left out, in walk order."""
    skipped: tuple[tuple[str, str], ...] = ()
    """``(file:line, why)`` for each document read but not checked."""

    def excluded_by(self) -> tuple[tuple[str, int], ...]:
        """How many files each pattern left out, in the order the patterns first did.

        >>> ReadSummary(3, 3, (("a", "*.json"), ("b", "tests"), ("c", "*.json"))).excluded_by()
        (('*.json', 2), ('tests', 1))
        """
        counted: dict[str, int] = {}
        for _, pattern in self.excluded:
            counted[pattern] = counted.get(pattern, 0) + 1
        return tuple(counted.items())


@dataclass(frozen=True, slots=True)
class AutoscalingInput:
    """An input the autoscalers' verdicts are decided with that the repository (and so a
    pull request) gives: ``input`` is ``instanceTypes`` (the catalog), ``template`` (a
    configured group's fresh node), ``match`` (the label a group's members carry) or
    ``cluster`` (the configured limits); ``source`` the file or flag that gave it, ``says``
    what it says, ``sha256`` the catalog file's digest."""

    input: str
    source: str
    says: str
    sha256: str | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    """What the gate was told to decide, as a reviewer must see it: where ``failOn`` was set
    (None: the default), the ``ADDON_ONLY`` workloads allowed and the skips in force, each
    as ``(workloads, reason)`` (a skip with its last day, or None), and the autoscaler
    inputs the configuration gives."""

    fail_on_by: str | None = None
    allowed: tuple[tuple[str, str], ...] = ()
    skips: tuple[tuple[str, str, str | None], ...] = ()
    autoscaling: tuple[AutoscalingInput, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.fail_on_by or self.allowed or self.skips or self.autoscaling)


SNAPSHOT_FILE = "the snapshot file"
"""What leaves the run's own snapshot file out of a directory walk (a :class:`ReadSummary`'s
pattern for it)."""


JUDGED = frozenset({Verdict.YES, Verdict.SCALES, Verdict.NO, Verdict.ADDON_ONLY, Verdict.PARTIAL})
"""The verdicts of a workload that was evaluated against the snapshot: a run without one
judged nothing (an ``ERROR`` or a ``SKIPPED`` is no judgement of a workload's fit)."""


@dataclass(frozen=True, slots=True)
class Report:
    """Everything every reporter writes from: one snapshot, every workload result."""

    snapshot: SnapshotInfo
    results: tuple[WorkloadResult, ...]
    fail_on: frozenset[Verdict] = DEFAULT_FAIL_ON
    other_documents: tuple[tuple[str, int], ...] = ()
    version: str = ""
    warnings: tuple[str, ...] = ()
    """About the run as a whole, not one workload (a snapshot more than a day old): every
    report shows them."""

    baseline: BaselineRun | None = None
    """The baseline report the results were compared with (``--baseline``)."""

    read: ReadSummary | None = None
    """What the run read and left out, when it read files (a merge knows only results)."""

    policy: Policy | None = None
    """The gate's policy, when the configuration or a flag changed it from the default."""

    nothing_judged: str | None = None
    """Why the run judged no workload, when that fails it (exit 5): a gate that evaluated
    nothing must not read as one that found nothing wrong."""

    max_new_nodes: int | None = None
    """The run's budget of nodes cluster-autoscaler may add (``autoscaling.maxNewNodes``):
    needing more fails the gate."""

    @property
    def new_nodes(self) -> int:
        """The nodes cluster-autoscaler would add for the run's workloads, all together."""
        return sum(r.autoscale.nodes for r in self.results if r.autoscale is not None)

    @property
    def over_budget(self) -> bool:
        """Whether the run needs more new nodes than ``max_new_nodes`` allows."""
        return self.max_new_nodes is not None and self.new_nodes > self.max_new_nodes

    def judged(self) -> bool:
        """Whether any workload was evaluated: a run that judged nothing never passes
        unless asked to (``--allow-empty``)."""
        return any(r.verdict in JUDGED for r in self.results)

    def fails(self, result: WorkloadResult) -> bool:
        """Whether ``result`` fails the gate: its verdict is in ``fail_on`` and the
        configuration does not allow it (``allowAddonOnly``); against a baseline, only
        when it is a new or worse failure (or an ``ERROR``)."""
        if result.compared is not None:
            return result.compared.fails
        return self.fails_alone(result)

    def fails_alone(self, result: WorkloadResult) -> bool:
        """Whether ``result`` fails the gate by its own verdict, whatever a baseline says."""
        return result.verdict in self.fail_on and not result.allowed

    @property
    def summary(self) -> Summary:
        counts = {v: 0 for v in VERDICT_ORDER}
        for r in self.results:
            counts[r.verdict] += 1
        failed = any(map(self.fails, self.results))
        return Summary(
            workloads=len(self.results),
            counts=counts,
            warnings=sum(len(r.warnings) for r in self.results),
            passed=not failed and self.nothing_judged is None and not self.over_budget,
        )


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (``--shard K/N``): the items at positions K-1 modulo N."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def takes(self, position: int) -> bool:
        return position % self.count == self.index - 1


@dataclass(frozen=True, slots=True)
class ShardReport(Report):
    """A report of one shard: the shard's results, and what a merge needs (``nodes``: the
    snapshot's node names in its order, the order every result's outcomes are in)."""

    shard: Shard = Shard(1, 1)
    positions: tuple[int, ...] = ()
    items: int = 0
    inputs: str = ""
    cluster: str = ""
    nodes: tuple[str, ...] = ()
