"""Copies with topology spread constraints, placed one at a time on fresh nodes.

A workload's copies with DoNotSchedule ``topologySpreadConstraints`` change the answer for
the next copy as each one lands: a zone's count grows with every copy its group's nodes take,
and CA's binpacking estimator (estimator/binpacking_estimator.go, cluster-autoscaler-1.34.5)
runs the scheduler's filters again for each pod, the last added node first. Over CA's loops
the copies go where the constraints allow: here each copy goes to the first group (status
order) whose last fresh node, or a new one within its headroom, passes the filters with the
counts so far. Each fresh node is a domain of its own for ``kubernetes.io/hostname``
(``SanitizedNodeInfo`` names every copy apart), and a group's template domain counts as
eligible, as it does once CA adds the template to its snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from gate.k8s.labels import HOSTNAME
from gate.k8s.version import Dialect
from gate.model import POD_TOPOLOGY_SPREAD, NodeView
from gate.scheduler.autoscaling.clusterautoscaler.groups import NodeGroup
from gate.scheduler.autoscaling.clusterautoscaler.templates import Template
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState, Prepared, Rejection, run_filters
from gate.scheduler.plugins.podtopologyspread.copies import counts_copies, land
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState

Limit = Callable[[NodeGroup, Template], tuple[int, str]]
"""The nodes a group may still add (the run's headroom as used so far), and the reason a
copy gets when it may add none."""
Add = Callable[[NodeGroup, Template], None]
"""Count one more node of a group against the run's headroom."""


def spread_state(cycle: CycleState) -> SpreadState | None:
    """The PodTopologySpread PreFilter state of ``cycle`` when it constrains the pod."""
    for prepared in cycle:
        if prepared.plugin.name == POD_TOPOLOGY_SPREAD and isinstance(prepared.state, SpreadState):
            return prepared.state
    return None


@dataclass(slots=True)
class _Fresh:
    """One group's fresh nodes: how many were added, and the last one's copies."""

    nodes: int = 0
    copies: int = 0
    on_last: int = 0


@dataclass(slots=True)
class Filling:
    """Copies placed one at a time over the helping groups (module doc)."""

    cycle: CycleState
    pod: PodProfile
    state: SpreadState
    dialect: Dialect
    per_node: int
    counts: list[dict[str, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.counts = [dict(c) for c in self.state.counts]

    def _counts(self, labels: dict[str, str]) -> list[dict[str, int]]:
        """The counts with the domains of a fresh node of ``labels`` eligible (module doc)."""
        counts = [dict(c) for c in self.counts]
        for i, constraint in enumerate(self.state.constraints):
            value = labels.get(constraint.topology_key)
            if value is not None:
                counts[i].setdefault(value, 0)
        return counts

    def _cycle(self, labels: dict[str, str]) -> CycleState:
        counts = self._counts(labels)
        state = SpreadState(self.state.constraints, tuple(counts), self.state.self_match)
        return tuple(
            Prepared(p.plugin, state) if p.plugin.name == POD_TOPOLOGY_SPREAD else p
            for p in self.cycle
        )

    def _node(self, template: Template, fresh: _Fresh, new: bool) -> NodeView:
        node = template.node
        number, on = (fresh.nodes, 0) if new else (fresh.nodes - 1, fresh.on_last)
        labels = {**node.labels, HOSTNAME: f"{node.name}-e-{number}"}
        requested = {
            r: node.requested.get(r, 0) + on * self.pod.requests.get(r, 0)
            for r in {*node.requested, *self.pod.requests}
        }
        return replace(node, labels=labels, requested=requested, pod_count=node.pod_count + on)

    def _try(self, template: Template, fresh: _Fresh, new: bool) -> Rejection | NodeView:
        node = self._node(template, fresh, new)
        rejection = run_filters(self._cycle(dict(node.labels)), node, self.dialect)
        return node if rejection is None else rejection

    def _count(self, labels: dict[str, str]) -> None:
        for i, constraint in enumerate(self.state.constraints):
            value = labels.get(constraint.topology_key)
            counted = counts_copies(self.state.self_match[i], constraint.selector)
            if value is not None and counted:  # a fresh node's domain is eligible (module doc)
                self.counts[i].setdefault(value, 0)
            land(self.counts[i], value, counted)

    def place(
        self, helping: Sequence[tuple[NodeGroup, Template]], left: int, limit: Limit, add: Add
    ) -> tuple[dict[str, _Fresh], int, dict[str, tuple[str, ...]]]:
        """Each group's fresh nodes, the copies placed, and why each group took no more
        when copies are left."""
        fresh = {group.id: _Fresh() for group, _ in helping}
        placed = 0
        while placed < left:
            reasons: dict[str, tuple[str, ...]] = {}
            for group, template in helping:
                mine = fresh[group.id]
                if mine.nodes and mine.on_last < self.per_node:
                    tried = self._try(template, mine, new=False)
                    if isinstance(tried, NodeView):
                        mine.on_last, mine.copies = mine.on_last + 1, mine.copies + 1
                        break
                cap, why = limit(group, template)
                if cap <= 0:
                    reasons[group.id] = (why,)
                    continue
                tried = self._try(template, mine, new=True)
                if isinstance(tried, Rejection):
                    reasons[group.id] = tried.reasons
                    continue
                mine.nodes, mine.on_last, mine.copies = mine.nodes + 1, 1, mine.copies + 1
                add(group, template)
                break
            else:
                return fresh, placed, reasons
            self._count(dict(tried.labels))
            placed += 1
        return fresh, placed, {}
