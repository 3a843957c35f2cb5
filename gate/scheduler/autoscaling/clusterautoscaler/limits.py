"""What bounds a scale-up before any filter runs, as cluster-autoscaler-1.34.5 words it:
the reasons a group is skipped (core/scaleup/orchestrator/orchestrator.go
``filterValidScaleUpNodeGroups``, skippedreasons.go: health before backoff, then the group's
maximum, then the cluster's cpu and memory totals of core/scaleup/resource/manager.go), how
many nodes a group may still add, and the headroom the run's workloads share.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gate.model.autoscaling import HEALTHY
from gate.scheduler.autoscaling.clusterautoscaler.groups import Groups, NodeGroup
from gate.scheduler.autoscaling.clusterautoscaler.templates import (
    Template,
    is_ready,
    node_capacity,
)

# core/scaleup/orchestrator/skippedreasons.go
NOT_READY = "not ready for scale-up"
BACKOFF = "in backoff after failed scale-up"
MAX_SIZE = "max node group size reached"
MAX_RESOURCES = "max cluster {resources} limit reached"
# processors/status/eventing_scale_up_processor.go ReasonsMessage
MAX_TOTAL = "max total nodes in cluster reached"
DID_NOT_TRIGGER = "pod didn't trigger scale-up: {reasons}"
NEGATIVE_TOTAL = "--max-nodes-total={total} lets its estimator add no node"
"""estimator/cluster_capacity_threshold.go ``NodeLimit``: a negative total is no room."""
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

    def copy(self) -> Headroom:
        return Headroom(dict(self.nodes), self.total, self.cores, self.memory)

    def add(self, group: NodeGroup, template: Template, count: int) -> None:
        self.nodes[group.id] = self.nodes.get(group.id, 0) + count
        self.total += count
        self.cores += count * template.cores
        self.memory += count * template.memory


def recovered(groups: Groups) -> Groups:
    """The groups once every one is healthy and out of backoff: what the transient reasons
    leave to pass. Their maximums, limits and templates stay: recovery lifts no group past
    its maximum."""
    return replace(
        groups,
        groups=tuple(
            replace(g, status=replace(g.status, health=HEALTHY, scale_up="", backoff_code=""))
            for g in groups.groups
        ),
    )


def skipped(group: NodeGroup, groups: Groups, used: Headroom) -> str | None:
    """filterValidScaleUpNodeGroups: the reason CA skips the group before any filter."""
    status, template = group.status, group.template
    if not status.healthy:
        return NOT_READY
    if status.backed_off:
        return BACKOFF
    if status.target + used.nodes.get(group.id, 0) >= status.max_size:
        return MAX_SIZE
    if template is None:  # no node info, reached only when no cpu or memory limit is set
        return NOT_READY
    cores_left, memory_left = resources_left(groups, used)
    exceeded = [
        name
        for name, delta, left in (
            ("cpu", template.cores, cores_left),
            ("memory", template.memory, memory_left),
        )
        if left is not None and delta > 0 and delta > left
    ]
    return MAX_RESOURCES.format(resources=", ".join(exceeded)) if exceeded else None


def resources_left(groups: Groups, used: Headroom) -> tuple[int | None, int | None]:
    """core/scaleup/resource/manager.go ``ResourcesLeft``: each limit's max less each group's
    target times its template's capacity, the Ready nodes in no group (ScaleUp is given the
    Ready nodes alone) and what the run added; None for a limit not in force (a maximum of
    0, :attr:`Groups.limited`)."""
    counted = [node_capacity(n) for n in groups.ungrouped if is_ready(n, groups.flags)]
    cores = used.cores + sum(c for c, _ in counted)
    memory = used.memory + sum(m for _, m in counted)
    for group in groups.groups:
        if group.template is not None and group.status.target > 0:
            cores += group.status.target * group.template.cores
            memory += group.status.target * group.template.memory
    most_cores, most_memory = groups.limits.cores[1], groups.limits.memory[1]
    return (
        max(most_cores - cores, 0) if most_cores > 0 else None,
        max(most_memory - memory, 0) if most_memory > 0 else None,
    )


def limit(
    group: NodeGroup, template: Template, groups: Groups, used: Headroom, resources: bool = True
) -> tuple[int, str]:
    """The most nodes the group may still add, and the reason a copy left over gets.
    ``resources=False``: the estimator's option, which the cores and memory left do not cap
    (orchestrator.go caps the chosen option by them after the expander, ``applyLimits``)."""
    status = group.status
    caps = [(status.max_size - status.target - used.nodes.get(group.id, 0), MAX_SIZE)]
    cores_left, memory_left = resources_left(groups, used)
    if resources and template.cores > 0 and cores_left is not None:
        caps.append((cores_left // template.cores, MAX_RESOURCES.format(resources="cpu")))
    if resources and template.memory > 0 and memory_left is not None:
        caps.append((memory_left // template.memory, MAX_RESOURCES.format(resources="memory")))
    total = groups.limits.max_nodes_total
    if total > 0:
        caps.append((total - groups.counted - used.total, MAX_TOTAL))
    caps.append((MAX_NODES_PER_SCALE_UP, MAX_SIZE))
    return min(caps, key=lambda cap: cap[0])
