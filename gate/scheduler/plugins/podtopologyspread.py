"""PodTopologySpread, the filter half: ``whenUnsatisfiable: DoNotSchedule`` constraints.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,plugin}.go``
(v1.34.1). PreFilter counts, once per pod, the matching pods of each eligible topology
domain; Filter then compares one node's domain with the smallest:

    skew = matching pods in the node's domain + (1 if the pod matches its own selector)
           - global minimum, and the node fails when skew > maxSkew.

Worked example (upstream "pods spread across nodes as 2/1/0/3, only node-x fits"): with
``maxSkew: 1`` over ``node``, counts a=2, b=1, x=0, y=3 give minimum 0; the pod matches
itself, so a: 2+1-0=3 > 1 fails, b: 1+1=2 fails, x: 0+1=1 fits, y fails.

What counts and what does not:

* only DoNotSchedule constraints filter; ScheduleAnyway ones (and the system default
  constraints, all ScheduleAnyway) are scores;
* a node is an eligible domain member when it carries the keys of *every* hard constraint
  and passes the constraint's policies: ``nodeAffinityPolicy`` (default Honor: the pod's
  nodeSelector and required node affinity) and ``nodeTaintsPolicy`` (default Ignore;
  Honor: no untolerated NoSchedule/NoExecute taint);
* matching pods: same namespace as the pod, not terminating, labels matched by the
  selector; an empty selector (``{}``) counts no pod at all (``selector.Empty()``) but the
  pod still matches itself; a null selector matches nothing;
* fewer eligible domains than ``minDomains`` (default 1) make the global minimum 0;
* a node without a constraint's key fails with "(missing required label)", code
  UnschedulableAndUnresolvable; a skew failure is Unschedulable.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gate.k8s.matching import first_untolerated
from gate.k8s.selectors import LabelSelector
from gate.k8s.spread import DO_NOT_SCHEDULE, SpreadConstraint
from gate.k8s.version import Dialect
from gate.model import POD_TOPOLOGY_SPREAD, Cause, Code, Family, FieldPath, NodeView, Rule, Term
from gate.scheduler.cluster import Cluster, OtherPods
from gate.scheduler.framework import Parts, Plugin, Rejection, indexed
from gate.scheduler.nodeindex import NodeIndex, lowest
from gate.scheduler.plugins.nodeaffinity import node_affinity
from gate.scheduler.podindex import PodIndex
from gate.scheduler.profile import PodProfile, frozen

# podtopologyspread/plugin.go ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch
REASON_SPREAD = "node(s) didn't match pod topology spread constraints"
REASON_SPREAD_MISSING_LABEL = REASON_SPREAD + " (missing required label)"

SKEW = Rejection(POD_TOPOLOGY_SPREAD, Code.UNSCHEDULABLE, (REASON_SPREAD,))
MISSING_LABEL = Rejection(
    POD_TOPOLOGY_SPREAD, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_SPREAD_MISSING_LABEL,)
)

RULE = Rule(
    Family.SPREAD,
    "TopologySpreadUnsatisfied",
    "A DoNotSchedule topology spread constraint rules the nodes out",
    "Check that the nodes carry the constraint's topology key and that maxSkew allows "
    "one more pod, or use whenUnsatisfiable: ScheduleAnyway.",
)


@dataclass(frozen=True, slots=True)
class SpreadState:
    """preFilterState: per constraint, matching pods by eligible domain value."""

    constraints: tuple[SpreadConstraint, ...]
    counts: tuple[Mapping[str, int], ...]
    self_match: tuple[bool, ...]

    def minimum(self, i: int) -> int:
        """minMatchNum: the smallest domain count, or 0 with fewer domains than minDomains."""
        counts = self.counts[i]
        if len(counts) < self.constraints[i].min_domains:
            return 0
        return min(counts.values(), default=0)

    def filter(self, labels: Mapping[str, str]) -> Rejection | None:
        """Filter for one node, by its labels: the first constraint that fails decides."""
        failing = self.failing(labels)
        if failing is None:
            return None
        return MISSING_LABEL if self.constraints[failing].topology_key not in labels else SKEW

    def failing(self, labels: Mapping[str, str]) -> int | None:
        """The position of the first constraint a node with ``labels`` fails, if any."""
        for i, constraint in enumerate(self.constraints):
            value = labels.get(constraint.topology_key)
            if value is None:
                return i
            skew = self.counts[i].get(value, 0) + self.self_match[i] - self.minimum(i)
            if skew > constraint.max_skew:
                return i
        return None


def spread_state(
    constraints: tuple[SpreadConstraint, ...],
    namespace: str,
    pod_labels: Mapping[str, str],
    nodes: NodeIndex,
    pods: PodIndex,
    affinity_bits: int,
    taint_bits: int,
) -> SpreadState:
    """calPreFilterState. ``affinity_bits``: the nodes whose labels the pod's nodeSelector
    and required node affinity accept; ``taint_bits``: the nodes without a NoSchedule or
    NoExecute taint the pod does not tolerate (both as node-position bitsets)."""
    with_keys = nodes.everyone
    for constraint in constraints:
        with_keys &= _has_key(nodes, constraint.topology_key)
    counts: list[Mapping[str, int]] = []
    for constraint in constraints:
        eligible = with_keys
        eligible &= affinity_bits if constraint.honor_node_affinity else nodes.everyone
        eligible &= taint_bits if constraint.honor_taints else nodes.everyone
        per_node = _matching_per_node(constraint.selector, namespace, pods)
        domains: dict[str, int] = {}
        for value, bits in nodes.label_values(constraint.topology_key).items():
            if bits & eligible:
                domains[value] = 0
        for node, count in per_node.items():
            if eligible >> node & 1:
                domains[nodes.nodes[node].labels[constraint.topology_key]] += count
        counts.append(domains)
    return SpreadState(
        constraints=constraints,
        counts=tuple(counts),
        self_match=tuple(c.selector.matches(pod_labels) for c in constraints),
    )


def _has_key(nodes: NodeIndex, key: str) -> int:
    bits = 0
    for value_bits in nodes.label_values(key).values():
        bits |= value_bits
    return bits


def _matching_per_node(selector: LabelSelector, namespace: str, pods: PodIndex) -> dict[int, int]:
    """countPodsMatchSelector summed per node: an empty selector counts nothing, and
    terminating pods are passed over (kubernetes/kubernetes#87621)."""
    if selector.empty:
        return {}
    counts: dict[int, int] = {}
    for i in pods.matching(frozenset({namespace}), selector):
        if not pods.pods[i].terminating:
            node = pods.node_of[i]
            counts[node] = counts.get(node, 0) + 1
    return counts


def spread_groups(state: SpreadState, nodes: NodeIndex, among: int) -> list[tuple[int, Rejection]]:
    """:meth:`SpreadState.filter` for every node of ``among`` at once, as disjoint bitsets:
    one comparison per value of each topology key instead of one per node."""
    groups: list[tuple[int, Rejection]] = []
    remaining = among
    for i, constraint in enumerate(state.constraints):
        missing = remaining & ~_has_key(nodes, constraint.topology_key)
        if missing:
            groups.append((missing, MISSING_LABEL))
            remaining &= ~missing
        values = nodes.label_values(constraint.topology_key)
        allowed = constraint.max_skew - state.self_match[i] + state.minimum(i)
        failing = 0
        counts = state.counts[i]
        for value, bits in values.items():
            if counts.get(value, 0) > allowed:
                failing |= bits
        failing &= remaining
        if failing:
            groups.append((failing, SKEW))
            remaining &= ~failing
    return groups


@dataclass(frozen=True, slots=True)
class PinnedSpread:
    """The state for a DaemonSet's pods. The pod for node X is pinned to X by a required
    node affinity that replaces the template's (its nodeSelector stays), so under
    ``nodeAffinityPolicy: Honor`` the only node of its domains is X, when X passes the
    nodeSelector: each node has its own PreFilter state."""

    pod: PodProfile
    others: OtherPods
    selector_bits: int
    taint_bits: int

    def state_for(self, position: int) -> SpreadState:
        return _state(self.pod, self.others, self.selector_bits & 1 << position, self.taint_bits)


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
        return PinnedSpread(pod, others, _selector_bits(pod, nodes), taint_bits)
    honours_affinity = any(c.honor_node_affinity for c in pod.spread)
    affinity_bits = _affinity_bits(pod, nodes) if honours_affinity else nodes.everyone
    return _state(pod, others, affinity_bits, taint_bits)


_NODE_AFFINITY_DIALECT = Dialect(named_taint=True)
"""NodeAffinity's answer does not depend on the dialect (only the taint wording does)."""


def _affinity_bits(pod: PodProfile, nodes: NodeIndex) -> int:
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
        frozen(pod.tolerations),
    )


def _skipped(state: object) -> bool:
    return state is None


def _refined(cause: Cause, state: SpreadState | PinnedSpread | None, node: NodeView) -> Cause:
    """The hard constraint the node fails."""
    if isinstance(state, PinnedSpread):
        state = state.state_for(state.others.position(node))
    return replace(cause, index=None if state is None else state.failing(node.labels))


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
