"""Why a node takes a pod or not, and what a report points at: per-node outcomes as
shared sets, their plugins and codes, the cause of a failing workload, the field that
made the no, and how many copies fit."""

from __future__ import annotations

import operator
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from itertools import compress, islice, repeat
from typing import Annotated, overload

import msgspec
from msgspec import UNSET, Meta, UnsetType

from gate.model.reported import Count, Line, Reported
from gate.model.taints import Taint
from gate.model.workloads import AutoscalerRef, Port


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
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
ROOM_PLUGINS = frozenset({NODE_PORTS, NODE_RESOURCES_FIT, POD_TOPOLOGY_SPREAD, INTER_POD_AFFINITY})
ROOM_PLUGINS |= {NODE_VOLUME_LIMITS}  # a node at its attach limit is full for volumes
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

_FEW_NAMES = 64
"""Up to this many names are read off a bitset one set bit at a time, each step a few
word operations per 64 nodes; more are picked out of the whole expansion, about 50 us on
5,000 nodes however few it holds (a report lists 5 to 20 names of groups that may hold
thousands of nodes, or a handful)."""


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
        count = bits.bit_count()
        if count <= _FEW_NAMES or (limit is not None and limit <= _FEW_NAMES):
            return tuple(map(self.names.__getitem__, positions(bits, limit)))
        packed = bits.to_bytes((len(self.names) + 7) // 8, "little")
        names = compress(self.names, b"".join(map(_EXPAND.__getitem__, packed)))
        return tuple(names if limit is None or limit >= count else islice(names, limit))

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
    STORAGE = "storage"
    """The volume plugins: a claim, its volume or the node's attach limit rules the node out."""
    QUOTA = "quota"
    """ResourceQuota admission: the namespace's quota refuses to create a pod or the object."""
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
    CLAIM = "persistentVolumeClaim"

    def __str__(self) -> str:
        return self.value


class Cause(Reported, frozen=True, kw_only=True):
    """The reason behind most rejections, and the field it points at."""

    # The reason behind most of a failing workload's rejections, as structured data.
    #
    # Worked out by the scheduler from the rejecting plugins' statuses over the nodes that
    # count (the user nodes when the cluster has any; for a DaemonSet only the nodes it
    # targets): the (plugin, term) rejecting the most of them, a tie going to the plugin
    # that runs last, whose nodes passed every filter before it. ``reason`` is the
    # scheduler's reason string for it (shown, never read back), ``nodes`` how many nodes
    # it rejected in all (user and add-on, as the scheduler's message counts). ``index`` is
    # the term's place in its list (the node-affinity term, the hard spread constraint, the
    # pod (anti-)affinity term) when one term is at fault; ``port`` the host port taken.
    #
    # For NodeResourcesFit, ``resource``, ``requested`` (the pod's request) and ``free``:
    # the largest free amount of it among the nodes that NodeResourcesFit rejected for it
    # and every other filter passes (quantity text; None when there is no such node), and
    # ``free_on_addon`` when those are add-on (CriticalAddonsOnly) nodes only.
    #
    # No field has a default: the report writes every one, so a report read back must
    # have every one (the schema says they are required).

    family: Family
    plugin: str
    term: Term
    reason: str
    nodes: Count
    index: Count | None
    port: Port | None
    resource: str
    requested: str
    free: str | None
    free_on_addon: bool = msgspec.field(name="freeOnAddonNodes")


FieldPath = tuple[str | int, ...]
"""A field's path under the pod spec as steps: ``("containers", 0, "resources")``. A path
starting with ``".."`` starts at the pod spec's parent (the template's metadata)."""


class Field(Reported, frozen=True):
    """The manifest's field behind the cause: its path, line and scalar value."""

    # The field of the manifest behind a workload's cause: its path in the pod spec
    # (``containers[0].resources.requests.cpu``; the pod spec's own field, e.g.
    # ``spec.template.spec``, when the cause names no field inside it), the file line it is
    # on, and its value when it is a scalar (``2``), else "".

    path: str
    line: Line
    value: str
    partial: bool
    """The value is less than what the pod asks in all (other containers ask too)."""
    origin_line: (
        Annotated[
            Line,
            Meta(
                description="The same field's line in the file originFile names: the "
                "workload's, or this field's own when the overlay's patch sets it."
            ),
        ]
        | UnsetType
    ) = msgspec.field(default=UNSET, name="originLine")
    """For a piped document whose origin is a file of the repository: the same field's line
    in that file, when it is there, or in ``origin_file``."""
    origin_file: (
        Annotated[
            str,
            Meta(
                description="For standard input: the kustomize overlay's patch that sets the "
                "field (--origin-root), which annotations, JUnit and SARIF point at, at "
                "originLine."
            ),
        ]
        | UnsetType
    ) = msgspec.field(default=UNSET, name="originFile")
    """For a piped document: the kustomize overlay's patch that sets the field, when one does
    (``--origin-root``): reports point at it, at ``origin_line``, not at the base's old
    value."""


FieldLocation = Field
"""Where a cause is in the manifest (:class:`Field`), as the stages that find it name it."""


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
    first_fits: int | None = None
    """The nodes the first copy fits, when the workload's per-node outcomes are those of a
    later copy: the one that does not fit, which limits the workload."""

    @property
    def fit(self) -> int:
        return self.alone if self.together is None else min(self.alone, self.together)
