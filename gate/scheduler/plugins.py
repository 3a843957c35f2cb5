"""The filter plugins, in the default profile's order: the one list both paths run.

A :class:`Plugin` is one kube-scheduler filter plugin as fitgate runs it:

``name``
    the plugin's name, carried by its rejections;
``prepare``
    its PreFilter: what it works out once per pod, from the pod's :class:`PodProfile` and the
    :class:`Cluster` (upstream keeps it in the CycleState). The node-local plugins read the
    profile itself; NodeResourcesFit prepares the list of amounts it compares. A plugin that
    looks at the pods already in the cluster (PodTopologySpread, InterPodAffinity) prepares
    its counts here, once, from the snapshot's pods and the node index's bitsets, and reads
    them per node;
``check``
    its Filter: the prepared state and one node -> ``None`` or a :class:`Rejection`;
``passes``
    true when the prepared state passes every node (upstream's PreFilter ``Skip``), so the
    fast path does not look at the nodes at all;
``reads`` / ``split``
    how the node-class fast path runs it. By default the nodes are grouped by ``reads(node)``,
    the part of a node the check reads, and the check runs on one node per group; a plugin
    whose answer follows from thresholds or from a few labels gives ``split`` instead:
    (index, state, dialect, nodes) -> (nodes, rejection or None) pairs covering the nodes.
    With neither, the check runs on every node.

Both paths run :data:`FILTERS` in order and stop at a node's first rejection
(framework/runtime/framework.go RunFilterPlugins): :func:`run_filters` node by node (the
reference, and the path for pods whose answer depends on node names), :func:`filter_groups`
per class of nodes. To add a plugin, append it to :data:`FILTERS` at its upstream place:
e.g. PodTopologySpread then InterPodAffinity after NodeResourcesFit, each with a
``prepare`` over the snapshot's pods and a ``split`` (or ``reads``) saying which nodes
share its answer. The answers to pods that ask the same questions are shared (see
``gate.scheduler.engine``): whatever a new plugin's state depends on must be part of the
pod's scheduling key there.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from gate.k8s.resources import PODS
from gate.k8s.version import Dialect
from gate.model import NodeView, Snapshot
from gate.scheduler.filters import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
    PodProfile,
    Rejection,
    Shortfall,
    fit_rejection,
    fit_request,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    taint_toleration,
)
from gate.scheduler.interpod import (
    OtherPods,
    PinnedSpread,
    check_affinity,
    check_spread,
    prepare_affinity,
    prepare_spread,
    split_affinity,
    split_spread,
)
from gate.scheduler.interpodaffinity import AffinityState
from gate.scheduler.nodeindex import NodeIndex, lowest, taints_of
from gate.scheduler.podtopologyspread import SpreadState

State = TypeVar("State")
Parts = Iterable[tuple[int, "Rejection | None"]]

SharedParts = dict[Hashable, list[tuple[int, "Rejection | None"]]]
"""A plugin's parts by what it asks, its name and the nodes still in question (see
:func:`filter_groups`)."""

Groups = dict[Rejection, int]
"""Disjoint sets of nodes (bitsets) by the rejection they share; fitting nodes are absent."""


@dataclass(frozen=True, slots=True)
class Cluster:
    """What a PreFilter reads besides the pod, built once per snapshot: the snapshot (its
    nodes, existing pods and namespaces), its nodes indexed as bitsets, and ``others``, the
    existing pods indexed by namespace and label for PodTopologySpread and InterPodAffinity
    (built at their first use, so that it too is built once)."""

    snapshot: Snapshot
    index: NodeIndex
    others: OtherPods

    @classmethod
    def of(cls, snapshot: Snapshot) -> Cluster:
        index = NodeIndex.of(snapshot.nodes)
        return cls(snapshot, index, OtherPods(index, snapshot.pods, snapshot.namespaces))

    def without(self, excluded: Iterable[int]) -> Cluster:
        """The cluster less the existing pods at ``excluded`` (positions in
        ``others.pods``): what a workload's new pods meet once its old ones are gone."""
        return replace(self, others=self.others.without(excluded))


def frozen(value: object) -> Hashable:
    """A hashable stand-in equal only for equal data of equal types (``1``, ``1.0`` and
    ``True`` are equal in Python, not to the filters)."""
    kind = value.__class__
    if kind is str:  # most of what a pod spec holds, so asked first
        return value
    if kind is dict or isinstance(value, Mapping):
        return tuple((frozen(k), frozen(v)) for k, v in value.items())  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return (list, *map(frozen, value))  # type: ignore[call-overload]
    return (kind, value)


def _profile(pod: PodProfile, cluster: Cluster) -> PodProfile:
    return pod


def _never(state: object) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Plugin(Generic[State]):
    """One filter plugin: PreFilter, Filter, and how the fast path runs it (module doc)."""

    name: str
    prepare: Callable[[PodProfile, Cluster], State]
    check: Callable[[State, NodeView, Dialect], Rejection | None]
    reads: Callable[[NodeView], Hashable] | None = None
    passes: Callable[[State], bool] = _never
    split: Callable[[NodeIndex, State, Dialect, int], Parts] | None = None
    asks: Callable[[State], Hashable] | None = None

    def parts(self, index: NodeIndex, state: State, dialect: Dialect, among: int) -> Parts:
        """``among`` split into sets of nodes by this plugin's answer."""
        if self.split is not None:
            return self.split(index, state, dialect, among)
        reads = self.reads
        if reads is None:  # reads all of a node: each node is its own class
            classes: Iterable[tuple[int, int]] = ((1 << i, i) for i in range(len(index.nodes)))
        else:
            classes = index.classes(reads)
        nodes, check = index.nodes, self.check
        return ((bits, check(state, nodes[rep], dialect)) for bits, rep in classes if bits & among)


@dataclass(frozen=True, slots=True)
class Prepared(Generic[State]):
    """A plugin with its state for one pod."""

    plugin: Plugin[State]
    state: State

    def check(self, node: NodeView, dialect: Dialect) -> Rejection | None:
        return self.plugin.check(self.state, node, dialect)

    def passes(self) -> bool:
        return self.plugin.passes(self.state)

    def parts(self, index: NodeIndex, dialect: Dialect, among: int) -> Parts:
        return self.plugin.parts(index, self.state, dialect, among)


CycleState = tuple[Prepared[Any], ...]
"""Every plugin of :data:`FILTERS`, in order, prepared for one pod."""


def _affinity_parts(index: NodeIndex, pod: PodProfile, dialect: Dialect, among: int) -> Parts:
    """Nodes alike in every label the pod's selector and required terms read. Node names
    (``matchFields``) are not among them: such pods are evaluated node by node."""
    nodes = index.nodes
    for part in index.label_parts(pod.label_keys, among):
        yield part, node_affinity(pod, nodes[lowest(part)], dialect)


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


def _prepare_fit(pod: PodProfile, cluster: Cluster) -> tuple[Shortfall, ...]:
    return fit_request(pod)


def _prepare_spread(pod: PodProfile, cluster: Cluster) -> SpreadState | PinnedSpread | None:
    return prepare_spread(pod, cluster.others)


def _prepare_affinity(pod: PodProfile, cluster: Cluster) -> AffinityState | None:
    return prepare_affinity(pod, cluster.others)


def _tolerations(pod: PodProfile) -> Hashable:
    return frozen(pod.tolerations)


def _skipped(state: object) -> bool:
    """The PreFilter returned Skip."""
    return state is None


FILTERS: tuple[Plugin[Any], ...] = (
    Plugin(
        NODE_UNSCHEDULABLE,
        _profile,
        node_unschedulable,
        reads=lambda n: n.unschedulable,
        asks=_tolerations,
    ),
    Plugin(NODE_NAME, _profile, node_name, passes=lambda pod: not pod.node_name),
    Plugin(TAINT_TOLERATION, _profile, taint_toleration, reads=taints_of, asks=_tolerations),
    Plugin(
        NODE_AFFINITY,
        _profile,
        node_affinity,
        passes=lambda pod: not pod.node_selector and pod.affinity_terms is None,
        split=_affinity_parts,
    ),
    Plugin(
        NODE_PORTS,
        _profile,
        node_ports,
        reads=lambda n: n.used_ports,
        passes=lambda pod: not pod.wanted_ports,
        asks=lambda pod: pod.wanted_ports,
    ),
    Plugin(
        NODE_RESOURCES_FIT,
        _prepare_fit,
        node_resources_fit,
        split=_fit_parts,
        asks=lambda wanted: wanted,
    ),
    Plugin(POD_TOPOLOGY_SPREAD, _prepare_spread, check_spread, passes=_skipped, split=split_spread),
    Plugin(
        INTER_POD_AFFINITY,
        _prepare_affinity,
        check_affinity,
        passes=_skipped,
        split=split_affinity,
    ),
)
"""The filter plugins of the default profile, in its order (apis/config/v1/default_plugins.go)."""


def prepare(pod: PodProfile, cluster: Cluster) -> CycleState:
    """Every plugin's PreFilter for one pod, once."""
    return tuple(Prepared(plugin, plugin.prepare(pod, cluster)) for plugin in FILTERS)


def run_filters(cycle: CycleState, node: NodeView, dialect: Dialect) -> Rejection | None:
    """The first rejection in plugin order, or None when every filter passes."""
    for prepared in cycle:
        rejection = prepared.check(node, dialect)
        if rejection is not None:
            return rejection
    return None


def filter_groups(
    index: NodeIndex,
    cycle: CycleState,
    dialect: Dialect,
    shared: SharedParts | None = None,
) -> Groups:
    """Every node's first rejection, as :func:`run_filters` gives it, for a pod whose answer
    does not depend on node names. With ``shared`` (one per index and dialect), a plugin
    that says what it ``asks`` splits the nodes once for the pods alike in that."""
    groups: Groups = {}
    remaining = index.everyone
    for prepared in cycle:
        if not remaining:
            break
        if prepared.passes():
            continue
        parts = prepared.parts(index, dialect, remaining)
        asks = prepared.plugin.asks
        if shared is not None and asks is not None:
            key = (prepared.plugin.name, asks(prepared.state), remaining)
            try:
                found = shared.get(key)
            except TypeError:  # some part of the pod cannot be hashed: not shared
                found = list(parts)
            else:
                if found is None:
                    found = shared[key] = list(parts)
            parts = found
        for bits, rejection in parts:
            bits &= remaining
            if rejection is not None and bits:
                groups[rejection] = groups.get(rejection, 0) | bits
                remaining &= ~bits
    return groups
