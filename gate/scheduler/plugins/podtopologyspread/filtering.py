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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from gate.k8s.selectors import LabelSelector
from gate.k8s.spread import SpreadConstraint
from gate.model import POD_TOPOLOGY_SPREAD, Code, ExistingPod
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.podtopologyspread.copies import admits, minimum

# podtopologyspread/plugin.go ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch
REASON_SPREAD = "node(s) didn't match pod topology spread constraints"
REASON_SPREAD_MISSING_LABEL = REASON_SPREAD + " (missing required label)"

SKEW = Rejection(POD_TOPOLOGY_SPREAD, Code.UNSCHEDULABLE, (REASON_SPREAD,))
MISSING_LABEL = Rejection(
    POD_TOPOLOGY_SPREAD, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_SPREAD_MISSING_LABEL,)
)


@dataclass(frozen=True, slots=True)
class SpreadState:
    """preFilterState: per constraint, matching pods by eligible domain value."""

    constraints: tuple[SpreadConstraint, ...]
    counts: tuple[Mapping[str, int], ...]
    self_match: tuple[bool, ...]

    def minimum(self, i: int) -> int:
        """minMatchNum: the smallest domain count, or 0 with fewer domains than minDomains."""
        return minimum(self.counts[i], self.constraints[i].min_domains)

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
            count = self.counts[i].get(value, 0)
            if not admits(count, self.self_match[i], self.minimum(i), constraint.max_skew):
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
        with_keys &= nodes.with_label(constraint.topology_key)
    counts: list[Mapping[str, int]] = []
    for constraint in constraints:
        eligible = with_keys
        eligible &= affinity_bits if constraint.honor_node_affinity else nodes.everyone
        eligible &= taint_bits if constraint.honor_taints else nodes.everyone
        per_node = matching_per_node(constraint.selector, namespace, pods)
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


def uncounted_removed(
    state: SpreadState, namespace: str, labels: Mapping[str, str], pods: Iterable[ExistingPod]
) -> SpreadState:
    """The state of a PreFilter run without ``pods`` (DefaultPreemption's victims on a node
    with ``labels``) as upstream's RemovePod leaves it: updateWithPod takes off every pod of
    the namespace a constraint's selector matches, also those calPreFilterState never
    counted (a terminating pod; any pod under an empty selector). The node passed NodeAffinity
    and TaintToleration (preemption asks no other), so it is eligible for every constraint
    once it carries all their keys."""
    if any(c.topology_key not in labels for c in state.constraints):
        return state
    counts = list(state.counts)
    for i, constraint in enumerate(state.constraints):
        value = labels[constraint.topology_key]
        taken = sum(
            1
            for pod in pods
            if pod.namespace == namespace
            and (pod.terminating or constraint.selector.empty)
            and constraint.selector.matches(pod.labels)
        )
        if taken and value in counts[i]:
            counts[i] = {**counts[i], value: counts[i][value] - taken}
    return replace(state, counts=tuple(counts))


def matching_per_node(selector: LabelSelector, namespace: str, pods: PodIndex) -> dict[int, int]:
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
        missing = remaining & ~nodes.with_label(constraint.topology_key)
        if missing:
            groups.append((missing, MISSING_LABEL))
            remaining &= ~missing
        values = nodes.label_values(constraint.topology_key)
        least, self_match = state.minimum(i), state.self_match[i]
        failing = 0
        counts = state.counts[i]
        for value, bits in values.items():
            if not admits(counts.get(value, 0), self_match, least, constraint.max_skew):
                failing |= bits
        failing &= remaining
        if failing:
            groups.append((failing, SKEW))
            remaining &= ~failing
    return groups
