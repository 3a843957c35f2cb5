"""The two filters that look at other pods, PodTopologySpread then InterPodAffinity, as
plugins of the one filter list (:mod:`gate.scheduler.plugins`).

Their PreFilters count existing pods once per incoming pod, through :class:`OtherPods`,
which one run shares: the node classes, the existing pods (indexed on first use) and the
namespaces' labels. A pod that asks nothing of these filters, in a cluster where no
existing pod has a required anti-affinity term, costs a look at a few fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from copy import copy
from dataclasses import dataclass

from gate.k8s.matching import first_untolerated
from gate.k8s.version import Dialect
from gate.model import ExistingPod, NodeView
from gate.scheduler.filters import PodProfile, Rejection, node_affinity
from gate.scheduler.interpodaffinity import AffinityState, affinity_groups, affinity_state
from gate.scheduler.nodeindex import NodeIndex, lowest
from gate.scheduler.podindex import PodIndex
from gate.scheduler.podtopologyspread import SpreadState, spread_groups, spread_state

Parts = Iterable[tuple[int, "Rejection | None"]]
_NODE_AFFINITY_DIALECT = Dialect(named_taint=True)
"""NodeAffinity's answer does not depend on the dialect (only the taint wording does)."""


@dataclass(frozen=True, slots=True)
class PinnedSpread:
    """PodTopologySpread's state for a DaemonSet's pods. The pod for node X is pinned to X
    by a required node affinity that replaces the template's (its nodeSelector stays), so
    under ``nodeAffinityPolicy: Honor`` the only node of its domains is X, when X passes
    the nodeSelector: each node has its own PreFilter state."""

    pod: PodProfile
    others: OtherPods
    selector_bits: int
    taint_bits: int

    def state_for(self, position: int) -> SpreadState:
        return self.others.spread_for(self.pod, self.selector_bits & 1 << position, self.taint_bits)


class OtherPods:
    """What one run's inter-pod PreFilters share (module doc)."""

    def __init__(
        self,
        nodes: NodeIndex,
        pods: Iterable[ExistingPod],
        namespaces: Mapping[str, Mapping[str, str]] | None,
    ) -> None:
        self.nodes = nodes
        self._source = pods
        self._index: PodIndex | None = None
        self._namespaces = namespaces
        self._positions: dict[str, int] | None = None

    @property
    def pods(self) -> PodIndex:
        if self._index is None:
            self._index = PodIndex(self._source, self.nodes.nodes)
        return self._index

    def without(self, excluded: Iterable[int]) -> OtherPods:
        """These pods less those at ``excluded`` (positions in :attr:`pods`)."""
        view = copy(self)
        view._index = self.pods.without(excluded)
        return view

    def position(self, node: NodeView) -> int:
        if self._positions is None:
            self._positions = {n.name: i for i, n in enumerate(self.nodes.nodes)}
        return self._positions[node.name]

    def relevant(self, pod: PodProfile) -> bool:
        """Whether the two filters can reject anything for ``pod``."""
        asks = pod.spread or pod.pod_affinity or pod.pod_anti_affinity
        return bool(asks) or bool(self.pods.anti_affinity_terms())

    def spread(self, pod: PodProfile) -> SpreadState | PinnedSpread | None:
        """PodTopologySpread's PreFilter; None for Skip (no DoNotSchedule constraint)."""
        if not pod.spread:
            return None
        honours_taints = any(c.honor_taints for c in pod.spread)
        taint_bits = self._tolerated(pod) if honours_taints else self.nodes.everyone
        if pod.pinned:
            return PinnedSpread(pod, self, self._selector_bits(pod), taint_bits)
        honours_affinity = any(c.honor_node_affinity for c in pod.spread)
        affinity_bits = self._affinity_bits(pod) if honours_affinity else self.nodes.everyone
        return self.spread_for(pod, affinity_bits, taint_bits)

    def spread_for(self, pod: PodProfile, affinity_bits: int, taint_bits: int) -> SpreadState:
        return spread_state(
            pod.spread, pod.namespace, pod.labels, self.nodes, self.pods, affinity_bits, taint_bits
        )

    def affinity(self, pod: PodProfile) -> AffinityState | None:
        """InterPodAffinity's PreFilter; None for Skip."""
        if not self.relevant(pod):
            return None
        namespaces = self._namespaces
        own = None if namespaces is None else namespaces.get(pod.namespace, {})
        state = affinity_state(
            pod.namespace,
            pod.labels,
            tuple(t.with_namespaces_listed(namespaces) for t in pod.pod_affinity),
            tuple(t.with_namespaces_listed(namespaces) for t in pod.pod_anti_affinity),
            own,
            self.nodes,
            self.pods,
        )
        return None if state.skip else state

    def _affinity_bits(self, pod: PodProfile) -> int:
        """The nodes the pod's nodeSelector and required node affinity accept, asked once
        per class of the labels they read (node by node when a term names nodes)."""
        dialect, nodes = _NODE_AFFINITY_DIALECT, self.nodes
        by_name = any(term.fields for term in pod.affinity_terms or ())
        parts = (
            [1 << i for i in range(len(nodes.nodes))]
            if by_name
            else nodes.label_parts(pod.label_keys, nodes.everyone)
        )
        return _passing(parts, lambda n: node_affinity(pod, n, dialect) is None, nodes)

    def _selector_bits(self, pod: PodProfile) -> int:
        selector, nodes = pod.node_selector, self.nodes
        parts = nodes.label_parts(selector, nodes.everyone)
        return _passing(
            parts, lambda n: all(n.labels.get(k) == v for k, v in selector.items()), nodes
        )

    def _tolerated(self, pod: PodProfile) -> int:
        """The nodes without a NoSchedule/NoExecute taint the pod does not tolerate."""
        bits = 0
        for class_bits, rep in self.nodes.taint_classes:
            if first_untolerated(self.nodes.nodes[rep].taints, pod.tolerations) is None:
                bits |= class_bits
        return bits


def _passing(parts: Iterable[int], accepts: Callable[[NodeView], bool], nodes: NodeIndex) -> int:
    """The parts whose first node ``accepts`` takes (the nodes of a part are alike to it)."""
    bits = 0
    for part in parts:
        if accepts(nodes.nodes[lowest(part)]):
            bits |= part
    return bits


# The Plugin functions (gate.scheduler.plugins): PreFilter, Filter, and the node-set split.


def prepare_spread(pod: PodProfile, others: OtherPods) -> SpreadState | PinnedSpread | None:
    return others.spread(pod)


def check_spread(
    state: SpreadState | PinnedSpread | None, node: NodeView, dialect: Dialect
) -> Rejection | None:
    if state is None:
        return None
    if isinstance(state, PinnedSpread):
        return state.state_for(state.others.position(node)).filter(node.labels)
    return state.filter(node.labels)


def split_spread(
    index: NodeIndex, state: SpreadState | PinnedSpread | None, dialect: Dialect, among: int
) -> Parts:
    if state is None:
        return []
    if isinstance(state, SpreadState):
        return spread_groups(state, index, among)
    nodes = index.nodes
    return [
        (1 << i, state.state_for(i).filter(nodes[i].labels))
        for i in range(len(nodes))
        if among >> i & 1
    ]


def prepare_affinity(pod: PodProfile, others: OtherPods) -> AffinityState | None:
    return others.affinity(pod)


def check_affinity(
    state: AffinityState | None, node: NodeView, dialect: Dialect
) -> Rejection | None:
    return None if state is None else state.filter(node.labels)


def split_affinity(
    index: NodeIndex, state: AffinityState | None, dialect: Dialect, among: int
) -> Parts:
    return [] if state is None else affinity_groups(state, index, among)
