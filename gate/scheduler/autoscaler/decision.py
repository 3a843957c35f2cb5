"""Would cluster-autoscaler add nodes for a workload's copies that fit no existing node?

Upstream cluster-autoscaler-1.34.5, core/scaleup/orchestrator/orchestrator.go ``ScaleUp``:
groups are skipped first (``filterValidScaleUpNodeGroups``: health before backoff, then the
group's maximum, then the cluster's cpu and memory totals; skippedreasons.go words them);
the scheduler's filters run on each remaining group's template node (``SchedulablePodGroups``;
a rejection gives the filter's own reasons); the binpacking estimator
(estimator/binpacking_estimator.go) fills fresh template copies, the last added first, up to
the group's headroom (``maxSize - cloudProviderTarget``), ``--max-nodes-total`` and the cores
and memory left. A workload's copies are alike, so a fresh node takes as many as fit on
one template copy (one for a host port or an anti-affinity to itself on the hostname).

CA runs loop after loop; this answers for the loop that scales nothing more: copies go to
the groups that could take them in status order, each group's nodes counted against the
headroom the run's earlier workloads left (:class:`Headroom`). The copies left blocked get
``pod didn't trigger scale-up: <n> <reason>, ...`` (processors/status/
eventing_scale_up_processor.go ``ReasonsMessage``: per reason, the groups giving it; here
sorted by reason), ``max total nodes in cluster reached`` alone when the Ready nodes already
reach ``--max-nodes-total`` (static_autoscaler.go ``ScaleUpLimitedByMaxNodesTotal``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from gate.k8s.version import Dialect
from gate.scheduler.autoscaler.groups import Groups, NodeGroup
from gate.scheduler.autoscaler.templates import HOSTNAME, Template
from gate.scheduler.framework import CycleState, run_filters
from gate.scheduler.profile import PodProfile

# core/scaleup/orchestrator/skippedreasons.go
NOT_READY = "not ready for scale-up"
BACKOFF = "in backoff after failed scale-up"
MAX_SIZE = "max node group size reached"
MAX_RESOURCES = "max cluster {resources} limit reached"
# processors/status/eventing_scale_up_processor.go ReasonsMessage
MAX_TOTAL = "max total nodes in cluster reached"
DID_NOT_TRIGGER = "pod didn't trigger scale-up: {reasons}"
TRANSIENT = frozenset({NOT_READY, BACKOFF})
"""Reasons that pass with time; every other blocker is permanent."""
MAX_NODES_PER_SCALE_UP = 1000
"""config/flags/flags.go ``--max-nodes-per-scaleup`` default: the estimator's static cap."""


@dataclass(slots=True)
class Headroom:
    """What the run's workloads have added so far, in input order: nodes per group, and in
    all, with their cores and memory (CA's cluster totals grow by them)."""

    nodes: dict[str, int] = field(default_factory=dict)
    total: int = 0
    cores: int = 0
    memory: int = 0

    def add(self, group: NodeGroup, template: Template, count: int) -> None:
        self.nodes[group.id] = self.nodes.get(group.id, 0) + count
        self.total += count
        self.cores += count * template.cores
        self.memory += count * template.memory


@dataclass(frozen=True, slots=True)
class ScaleUp:
    """A group that can take copies: ``nodes`` new nodes from size ``start`` (its target plus
    what earlier workloads added) towards its ``maximum``, holding ``copies``."""

    group: str
    nodes: int
    copies: int
    start: int
    maximum: int

    @property
    def end(self) -> int:
        return self.start + self.nodes

    def __str__(self) -> str:
        """processors/nodegroupset ``ScaleUpInfo.String``: ``{aks-user 3->5 (max: 10)}``."""
        return f"{{{self.group} {self.start}->{self.end} (max: {self.maximum})}}"


@dataclass(frozen=True, slots=True)
class Decision:
    """For ``wanted`` copies that fit no existing node: the groups that take them
    (``scale_up``), how many are ``placed`` and ``blocked``, each blocking reason with the
    number of groups giving it, and whether every blocker is transient. ``unjudged``: why
    CA would scale up nothing at all, whatever the pod (a group with no node info)."""

    wanted: int
    scale_up: tuple[ScaleUp, ...] = ()
    placed: int = 0
    reasons: Mapping[str, int] = field(default_factory=dict)
    unjudged: str = ""

    @property
    def blocked(self) -> int:
        return self.wanted - self.placed

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in self.scale_up)

    @property
    def transient(self) -> bool:
        """Some copies are blocked, by transient reasons only."""
        return bool(self.blocked and self.reasons) and set(self.reasons) <= TRANSIENT

    @property
    def message(self) -> str:
        """What CA's NotTriggerScaleUp event says for a blocked copy ("" when none is)."""
        if not self.blocked or not self.reasons:
            return ""
        if MAX_TOTAL in self.reasons:  # said alone, without a count
            return DID_NOT_TRIGGER.format(reasons=MAX_TOTAL)
        shown = ", ".join(f"{n} {reason}" for reason, n in sorted(self.reasons.items()))
        return DID_NOT_TRIGGER.format(reasons=shown)


def _skipped(group: NodeGroup, groups: Groups, used: Headroom) -> str | None:
    """filterValidScaleUpNodeGroups: the reason CA skips the group before any filter."""
    status, template = group.status, group.template
    if not status.healthy:
        return NOT_READY
    if status.backed_off:
        return BACKOFF
    if status.target + used.nodes.get(group.id, 0) >= status.max_size:
        return MAX_SIZE
    assert template is not None  # a group without one stops the whole scale-up first
    cores_left, memory_left = _resources_left(groups, used)
    exceeded = [
        name
        for name, delta, left in (
            ("cpu", template.cores, cores_left),
            ("memory", template.memory, memory_left),
        )
        if delta > 0 and delta > left
    ]
    return MAX_RESOURCES.format(resources=", ".join(exceeded)) if exceeded else None


def _resources_left(groups: Groups, used: Headroom) -> tuple[int, int]:
    """core/scaleup/resource/manager.go ``ResourcesLeft``: each limit's max less each group's
    target times its template's capacity, the nodes in no group and what the run added."""
    cores = used.cores + sum(-(-n.allocatable.get("cpu", 0) // 1000) for n in groups.ungrouped)
    memory = used.memory + sum(n.allocatable.get("memory", 0) for n in groups.ungrouped)
    for group in groups.groups:
        if group.template is not None and group.status.target > 0:
            cores += group.status.target * group.template.cores
            memory += group.status.target * group.template.memory
    limits = groups.limits
    return max(limits.cores[1] - cores, 0), max(limits.memory[1] - memory, 0)


def _per_node(cycle: CycleState, pod: PodProfile, template: Template, dialect: Dialect) -> int:
    """How many copies one fresh template node takes (the first is known to fit)."""
    node = template.node
    if pod.wanted_ports or any(
        term.topology_key == HOSTNAME and term.matches(pod.namespace, pod.labels)
        for term in pod.pod_anti_affinity
    ):
        return 1
    count = node.allocatable.get("pods", 0) - node.pod_count
    for resource, amount in pod.requests.items():
        if amount > 0:
            free = node.allocatable.get(resource, 0) - node.requested.get(resource, 0)
            count = min(count, free // amount)
    count = max(count, 1)
    full = {r: node.requested.get(r, 0) + (count - 1) * a for r, a in pod.requests.items()}
    last = replace(node, requested={**node.requested, **full}, pod_count=node.pod_count + count - 1)
    return count if run_filters(cycle, last, dialect) is None else 1


def _limit(group: NodeGroup, template: Template, groups: Groups, used: Headroom) -> tuple[int, str]:
    """The most nodes the group may still add, and the reason a copy left over gets."""
    status = group.status
    caps = [(status.max_size - status.target - used.nodes.get(group.id, 0), MAX_SIZE)]
    cores_left, memory_left = _resources_left(groups, used)
    if template.cores > 0:
        caps.append((cores_left // template.cores, MAX_RESOURCES.format(resources="cpu")))
    if template.memory > 0:
        caps.append((memory_left // template.memory, MAX_RESOURCES.format(resources="memory")))
    total = groups.limits.max_nodes_total
    if total > 0:
        caps.append((total - groups.node_count - used.total, MAX_TOTAL))
    caps.append((MAX_NODES_PER_SCALE_UP, MAX_SIZE))
    return min(caps, key=lambda cap: cap[0])


def decide(
    cycle: CycleState,
    pod: PodProfile,
    wanted: int,
    groups: Groups,
    used: Headroom,
    dialect: Dialect,
) -> Decision:
    """Where ``wanted`` copies of ``pod`` (prepared as ``cycle``) go when no existing node
    takes them; ``used`` is updated with the nodes they add (module doc)."""
    if wanted <= 0:
        return Decision(0)
    lacking = [g.id for g in groups.groups if g.template is None]
    if lacking:
        return Decision(wanted, unjudged=f"No node info for: {lacking[0]}")
    total = groups.limits.max_nodes_total
    if total > 0 and groups.ready_nodes + used.total >= total:
        return Decision(wanted, reasons={MAX_TOTAL: 1})
    reasons: Counter[str] = Counter()
    scale_ups: list[ScaleUp] = []
    left = wanted
    for group in groups.groups:
        skipped = _skipped(group, groups, used)
        if skipped is not None:
            reasons[skipped] += 1
            continue
        template = group.template
        assert template is not None
        rejection = run_filters(cycle, template.node, dialect)
        if rejection is not None:
            reasons.update(rejection.reasons)
            continue
        if not left:
            continue
        cap, why = _limit(group, template, groups, used)
        per_node = _per_node(cycle, pod, template, dialect)
        nodes = min(-(-left // per_node), max(cap, 0))
        copies = min(left, nodes * per_node)
        if nodes > 0:
            start = group.status.target + used.nodes.get(group.id, 0)
            scale_ups.append(ScaleUp(group.id, nodes, copies, start, group.status.max_size))
            used.add(group, template, nodes)
            left -= copies
        if left:
            reasons[why] += 1
    return Decision(wanted, tuple(scale_ups), wanted - left, dict(reasons) if left else {})
