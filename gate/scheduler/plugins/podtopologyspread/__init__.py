"""PodTopologySpread, the plugin: ``whenUnsatisfiable: DoNotSchedule`` constraints.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread/`` (v1.34.1): its PreFilter
(the eligible nodes under the constraints' policies, then the counts of
:mod:`.filtering`), Filter, the per-class split, what it reads of a pod, and how a
rejection points at the constraint at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from msgspec import structs

from gate.k8s.matching import first_untolerated
from gate.k8s.spread import DO_NOT_SCHEDULE
from gate.k8s.version import Dialect
from gate.model import (
    POD_TOPOLOGY_SPREAD,
    Cause,
    ExistingPod,
    Family,
    FieldPath,
    NodeView,
    Rule,
    Term,
)
from gate.scheduler.framework.cluster import Cluster, OtherPods
from gate.scheduler.framework.nodeindex import NodeIndex, lowest
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Parts, Plugin, Rejection, indexed
from gate.scheduler.plugins.nodeaffinity import node_affinity
from gate.scheduler.plugins.podtopologyspread.filtering import (
    REASON_SPREAD,
    REASON_SPREAD_MISSING_LABEL,
    SpreadState,
    matching_per_node,
    spread_groups,
    spread_state,
    uncounted_removed,
)

RULE = Rule(
    Family.SPREAD,
    "TopologySpreadUnsatisfied",
    "A DoNotSchedule topology spread constraint rules the nodes out",
    "Check that the nodes carry the constraint's topology key and that maxSkew allows "
    "one more pod, or use whenUnsatisfiable: ScheduleAnyway.",
)


@dataclass(frozen=True, slots=True)
class PinnedSpread:
    """The state for a DaemonSet's pods. The pod for node X is pinned to X by a required
    node affinity that replaces the template's (its nodeSelector stays), so under
    ``nodeAffinityPolicy: Honor`` the only node of its domains is X, when X passes the
    nodeSelector: each node has its own PreFilter state.

    Those states differ only in the constraints that honour node affinity, and there only
    by X's own domain and count: what every node's state shares (the matching pods per
    node, the other constraints' counts) is worked out once per DaemonSet."""

    others: OtherPods
    shared: SpreadState
    """The state of a pod pinned to no node: the constraints that honour node affinity
    count no domain."""
    pinned: tuple[tuple[int, str, int, Mapping[int, int]], ...]
    """Per constraint that honours node affinity: its position, its topology key, the
    nodes that are its only domain when the pod is pinned to them, and the matching pods
    per node."""

    @classmethod
    def of(
        cls, pod: PodProfile, others: OtherPods, selector_bits: int, taint_bits: int
    ) -> PinnedSpread:
        nodes = others.nodes
        with_keys = nodes.everyone
        for constraint in pod.spread:
            with_keys &= nodes.with_label(constraint.topology_key)
        pinned = tuple(
            (
                i,
                constraint.topology_key,
                with_keys
                & selector_bits
                & (taint_bits if constraint.honor_taints else nodes.everyone),
                matching_per_node(constraint.selector, pod.namespace, others.pods),
            )
            for i, constraint in enumerate(pod.spread)
            if constraint.honor_node_affinity
        )
        return cls(others, _state(pod, others, 0, taint_bits), pinned)

    states: dict[tuple[tuple[str, int] | None, ...], SpreadState] = field(default_factory=dict)
    """The states worked out so far, by the domain and count of each pinned constraint:
    nodes alike in those share one."""

    def state_for(self, position: int) -> SpreadState:
        """calPreFilterState for the pod pinned to the node at ``position``."""
        labels = self.others.nodes.nodes[position].labels
        own = tuple(
            (labels[key], per_node.get(position, 0)) if eligible >> position & 1 else None
            for _, key, eligible, per_node in self.pinned
        )
        found = self.states.get(own)
        if found is None:
            counts = list(self.shared.counts)
            for (i, *_), domain in zip(self.pinned, own, strict=True):
                if domain is not None:
                    counts[i] = dict((domain,))
            found = self.states[own] = replace(self.shared, counts=tuple(counts))
        return found


def _state(pod: PodProfile, others: OtherPods, affinity_bits: int, taint_bits: int) -> SpreadState:
    return spread_state(
        pod.spread, pod.namespace, pod.labels, others.nodes, others.pods, affinity_bits, taint_bits
    )


def prepare_spread(pod: PodProfile, cluster: Cluster) -> SpreadState | PinnedSpread | None:
    """PreFilter; None for Skip (no DoNotSchedule constraint)."""
    if not pod.spread:
        return None
    others, nodes = cluster.others, cluster.index
    honours_taints = any(c.honor_taints for c in pod.spread)
    taint_bits = _tolerated(pod, nodes) if honours_taints else nodes.everyone
    if pod.pinned:
        return PinnedSpread.of(pod, others, _selector_bits(pod, nodes), taint_bits)
    honours_affinity = any(c.honor_node_affinity for c in pod.spread)
    accepted = affinity_bits(pod, nodes) if honours_affinity else nodes.everyone
    return _state(pod, others, accepted, taint_bits)


_NODE_AFFINITY_DIALECT = Dialect(named_taint=True)
"""NodeAffinity's answer does not depend on the dialect (only the taint wording does)."""


def affinity_bits(pod: PodProfile, nodes: NodeIndex) -> int:
    """The nodes the pod's nodeSelector and required node affinity accept, asked once per
    class of the labels they read (node by node when a term names nodes)."""
    dialect = _NODE_AFFINITY_DIALECT
    by_name = any(term.fields for term in pod.affinity_terms or ())
    parts = (
        [1 << i for i in range(len(nodes.nodes))]
        if by_name
        else nodes.label_parts(pod.label_keys, nodes.everyone)
    )
    return _passing(parts, lambda n: node_affinity(pod, n, dialect) is None, nodes)


def _selector_bits(pod: PodProfile, nodes: NodeIndex) -> int:
    selector = pod.node_selector
    parts = nodes.label_parts(selector, nodes.everyone)
    return _passing(parts, lambda n: all(n.labels.get(k) == v for k, v in selector.items()), nodes)


def _tolerated(pod: PodProfile, nodes: NodeIndex) -> int:
    """The nodes without a NoSchedule/NoExecute taint the pod does not tolerate."""
    bits = 0
    for class_bits, rep in nodes.taint_classes:
        if first_untolerated(nodes.nodes[rep].taints, pod.tolerations) is None:
            bits |= class_bits
    return bits


def _passing(parts: Iterable[int], accepts: Callable[[NodeView], bool], nodes: NodeIndex) -> int:
    """The parts whose first node ``accepts`` takes (the nodes of a part are alike to it)."""
    bits = 0
    for part in parts:
        if accepts(nodes.nodes[lowest(part)]):
            bits |= part
    return bits


def check_spread(
    state: SpreadState | PinnedSpread | None, node: NodeView, dialect: Dialect
) -> Rejection | None:
    if state is None:
        return None
    if isinstance(state, PinnedSpread):
        return state.state_for(state.others.position(node)).filter(node.labels)
    return state.filter(node.labels)


def victims_removed(
    state: SpreadState | PinnedSpread | None,
    pod: PodProfile,
    node: NodeView,
    victims: Sequence[ExistingPod],
) -> SpreadState | PinnedSpread | None:
    """The PreFilter's state for ``pod``, run again without DefaultPreemption's ``victims``
    on ``node``, as RemovePod leaves it (:func:`.filtering.uncounted_removed`); for a
    DaemonSet's pod, pinned to ``node``, the state of that node's pod (the only one asked)."""
    if isinstance(state, PinnedSpread):
        state = state.state_for(state.others.position(node))
    if isinstance(state, SpreadState):
        return uncounted_removed(state, pod.namespace, node.labels, victims)
    return state


def split_spread(
    index: NodeIndex, state: SpreadState | PinnedSpread | None, dialect: Dialect, among: int
) -> Parts:
    if state is None:
        return []
    if isinstance(state, SpreadState):
        return spread_groups(state, index, among)
    nodes = index.nodes
    parts = _alike(index, state, among)
    if parts is None:
        return [
            (1 << i, state.state_for(i).filter(nodes[i].labels))
            for i in range(len(nodes))
            if among >> i & 1
        ]
    return [
        (part, state.state_for(lowest(part)).filter(nodes[lowest(part)].labels)) for part in parts
    ]


def _alike(index: NodeIndex, state: PinnedSpread, among: int) -> list[int] | None:
    """The nodes of ``among`` split by all a DaemonSet's pod pinned to each reads: the
    node's domain of every constraint's key, and for each constraint that honours node
    affinity, whether the node is its domain and how many matching pods it holds. Nodes of
    one part have one state and one answer. None where the split would cost more than
    asking node by node (several keys with a value per node)."""
    splits: list[list[int]] = []
    for key in dict.fromkeys(c.topology_key for c in state.shared.constraints):
        splits.append(list(index.label_values(key).values()))
    for _, _, eligible, per_node in state.pinned:
        holding: dict[int, int] = {}
        for node, count in per_node.items():
            holding[count] = holding.get(count, 0) | 1 << node
        splits.append([eligible & bits for bits in holding.values()] + [eligible])
    parts = [among]
    for classes in splits:
        if len(parts) * len(classes) > 4 * len(index.nodes):
            return None
        parts = [piece for part in parts for piece in _pieces(part, classes)]
    return parts


def _pieces(part: int, classes: Iterable[int]) -> Iterator[int]:
    """``part`` cut by ``classes``, each node in the first class that holds it (the
    nodes in none a piece of their own)."""
    rest = part
    for bits in classes:
        piece = rest & bits
        if piece:
            yield piece
            rest &= ~piece
            if not rest:
                return
    if rest:
        yield rest


def _asked(pod: PodProfile, cluster: Cluster) -> Hashable:
    """What the PreFilter reads: nothing without a hard constraint; else the constraints,
    the pod's namespace and labels, and what its policies read (selector, terms, taints)."""
    if not pod.spread:
        return None
    return (
        pod.namespace,
        tuple(sorted(pod.labels.items())),
        pod.spread,
        pod.pinned,
        tuple(pod.node_selector.items()),
        pod.written_terms,
        pod.toleration_key,
    )


def _skipped(state: object) -> bool:
    return state is None


def _refined(cause: Cause, state: SpreadState | PinnedSpread | None, node: NodeView) -> Cause:
    """The hard constraint the node fails."""
    if isinstance(state, PinnedSpread):
        state = state.state_for(state.others.position(node))
    return structs.replace(cause, index=None if state is None else state.failing(node.labels))


def _fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """``topologySpreadConstraints[i]``, the hard constraint at fault (``cause.index``
    counts the hard ones only), else the list."""
    raw = spec.get("topologySpreadConstraints")
    hard = [
        i
        for i, item in enumerate(raw if isinstance(raw, list) else [])
        if isinstance(item, Mapping) and item.get("whenUnsatisfiable") == DO_NOT_SCHEDULE
    ]
    index = cause.index
    at = hard[index] if index is not None and index < len(hard) else None
    return indexed(("topologySpreadConstraints",), at)


PLUGIN: Plugin[SpreadState | PinnedSpread | None] = Plugin(
    POD_TOPOLOGY_SPREAD,
    Family.SPREAD,
    Term.SPREAD,
    RULE,
    key=_asked,
    prepare=prepare_spread,
    check=check_spread,
    room=True,
    reasons=(REASON_SPREAD, REASON_SPREAD_MISSING_LABEL),
    passes=_skipped,
    split=split_spread,
    refine=_refined,
    fields=_fields,
)
