"""Would cluster-autoscaler add nodes for a workload's copies that fit no existing node?

Upstream cluster-autoscaler-1.34.5, core/scaleup/orchestrator/orchestrator.go ``ScaleUp``:
groups are skipped first (``filterValidScaleUpNodeGroups``: health before backoff, then the
group's maximum, then the cluster's cpu and memory totals; skippedreasons.go words them);
the scheduler's filters run on each remaining group's template node (``SchedulablePodGroups``;
a rejection gives the filter's own reasons); the binpacking estimator
(estimator/binpacking_estimator.go) fills fresh template copies, the last added first, up to
the group's headroom (``maxSize - cloudProviderTarget``), ``--max-nodes-total`` and the cores
and memory left. A workload's copies are alike, so a fresh node takes as many as fit on
one template copy (one for a host port or an anti-affinity to itself on the hostname);
copies with spread constraints are placed one at a time (:mod:`.spread`).

CA runs loop after loop; this answers for the loop that scales nothing more: copies go to
the groups that could take them in the order the expander (``--expander``, expander/) would
choose them, each group's nodes counted against the headroom the run's earlier workloads
left (:class:`Headroom`), and each loop's options weighed with the nodes the loops before it
added. A negative ``--max-nodes-total`` gives no group an option
(estimator/cluster_capacity_threshold.go), and a group bringing up nodes without a template
fails the scale-up before any group is judged (orchestrator.go ``UpcomingNodes``).
``most-pods`` keeps the options that schedule the most copies,
``least-nodes`` those adding the fewest nodes and ``least-waste`` those leaving the least
fraction of cpu plus memory of the new nodes' capacity unrequested; ``priority`` those the
highest priority of the recorded ``cluster-autoscaler-priority-expander`` ConfigMap matches
(:mod:`.priority`; every option when cluster-autoscaler ignores the ConfigMap); ``random``
(:mod:`gate.snapshot.flags` says which expander runs by default), ``price`` and ``priority``
without its ConfigMap in the snapshot, or with a regular expression fitgate does not
evaluate, choose nothing from recorded state. When a choice is left open, the groups are
taken by name, never by the status's order, and every group that helps is named with what it
alone would add (:attr:`Decision.options`). The copies left blocked get each group's reason
as that last loop sees it (skipped as the headroom then stands, else rejected by a filter,
else what stopped it taking more):
``pod didn't trigger scale-up: <n> <reason>, ...`` (processors/status/
eventing_scale_up_processor.go ``ReasonsMessage``: per reason, the groups giving it; here
sorted by reason), ``max total nodes in cluster reached`` alone when the Ready nodes, once
the groups' upcoming nodes are Ready too, reach ``--max-nodes-total`` (static_autoscaler.go
``ScaleUpLimitedByMaxNodesTotal``; :attr:`Groups.counted`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TypeVar

from gate.k8s.labels import ZONE
from gate.k8s.resources import CPU, MEMORY, PODS
from gate.k8s.version import Dialect
from gate.scheduler.autoscaling.clusterautoscaler.groups import Groups, NodeGroup
from gate.scheduler.autoscaling.clusterautoscaler.limits import (
    DID_NOT_TRIGGER,
    MAX_TOTAL,
    NEGATIVE_TOTAL,
    TRANSIENT,
    Headroom,
    limit,
    recovered,
    skipped,
)
from gate.scheduler.autoscaling.clusterautoscaler.priority import chosen
from gate.scheduler.autoscaling.clusterautoscaler.spread import Filling, spread_state
from gate.scheduler.autoscaling.clusterautoscaler.templates import Template
from gate.scheduler.framework.nodeindex import free
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState, pre_filter_refusal, run_filters
from gate.scheduler.placement.copyrules import disks_collide
from gate.scheduler.plugins.interpodaffinity.copies import cycle_anti_keys, one_per_node
from gate.scheduler.plugins.interpodaffinity.filtering import REASON_ANTI_AFFINITY
from gate.scheduler.plugins.nodeaffinity import pre_filter_result
from gate.scheduler.plugins.nodeports import copies_collide
from gate.scheduler.plugins.noderesources import copies_held
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState

T = TypeVar("T")


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
    recoverable: bool = True
    """Whether the groups, once recovered (healthy, out of backoff), would take every copy
    a transient reason blocks; False when their maximums or the limits still block some."""
    options: tuple[ScaleUp, ...] = ()
    """Every group that helps, with what it alone would add, when the expander's choice
    among them is not known from recorded state (empty when it is)."""

    @property
    def blocked(self) -> int:
        return self.wanted - self.placed

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in self.scale_up)

    @property
    def transient(self) -> bool:
        """Some copies are blocked, by transient reasons only."""
        return (
            bool(self.blocked and self.reasons)
            and set(self.reasons) <= TRANSIENT
            and self.recoverable
        )

    @property
    def message(self) -> str:
        """What CA's NotTriggerScaleUp event says for a blocked copy ("" when none is, or
        when CA scales nothing at all: no event then). Groups that all give no reason (each
        template left out by name) leave the list empty, as ReasonsMessage joins it."""
        if not self.blocked or self.unjudged:
            return ""
        if MAX_TOTAL in self.reasons:  # said alone, without a count
            return DID_NOT_TRIGGER.format(reasons=MAX_TOTAL)
        shown = ", ".join(f"{n} {reason}" for reason, n in sorted(self.reasons.items()))
        return DID_NOT_TRIGGER.format(reasons=shown)


def _per_node(cycle: CycleState, pod: PodProfile, template: Template, dialect: Dialect) -> int:
    """How many copies one fresh template node takes (the first is known to fit)."""
    node = template.node
    if copies_collide(pod.wanted_ports) or one_per_node(cycle_anti_keys(cycle, pod)):
        return 1
    if disks_collide(pod.mounts):  # the estimator's VolumeRestrictions, copy after copy
        return 1
    slots = node.allocatable.get(PODS, 0) - node.pod_count
    count = max(copies_held(pod.requests, slots, partial(free, node)), 1)
    full = {r: node.requested.get(r, 0) + (count - 1) * a for r, a in pod.requests.items()}
    last = replace(node, requested={**node.requested, **full}, pod_count=node.pod_count + count - 1)
    return count if run_filters(cycle, last, dialect) is None else 1


def decide(
    cycle: CycleState,
    pod: PodProfile,
    wanted: int,
    groups: Groups,
    used: Headroom,
    dialect: Dialect,
) -> Decision:
    """Where ``wanted`` copies of ``pod`` (prepared as ``cycle``) go when no existing node
    takes them; ``used`` is updated with the nodes they add (module doc). Copies blocked
    only by groups not ready or in backoff are transient only when the recovered groups
    would take every one of them (a group's maximum bounds what recovery can add)."""
    decision = _decide(cycle, pod, wanted, groups, used, dialect)
    if not (decision.blocked and decision.reasons and set(decision.reasons) <= TRANSIENT):
        return decision
    after = _decide(cycle, pod, wanted, recovered(groups), used.copy(), dialect)
    return replace(decision, recoverable=not after.blocked)


def _decide(
    cycle: CycleState,
    pod: PodProfile,
    wanted: int,
    groups: Groups,
    used: Headroom,
    dialect: Dialect,
) -> Decision:
    if wanted <= 0:
        return Decision(0)
    total = groups.limits.max_nodes_total
    # static_autoscaler.go RunOnce stops at the total before ScaleUp computes anything
    if total > 0 and groups.counted + used.total >= total:
        return Decision(wanted, reasons={MAX_TOTAL: 1})
    awaited = [
        g.id for g in groups.groups if g.template is None and g.status.target > len(g.members)
    ]
    if awaited:  # UpcomingNodes fails first: a group's upcoming nodes are copies of its template
        return Decision(
            wanted, unjudged=f"failed to find template node for node group {awaited[0]}"
        )
    lacking = [g.id for g in groups.groups if g.template is None]
    if lacking and groups.limited:  # ResourcesLeft fails before any group is judged
        return Decision(wanted, unjudged=f"No node info for: {lacking[0]}")
    helping = [
        (group, group.template)
        for group in groups.groups
        if group.template is not None
        and skipped(group, groups, used) is None
        and run_filters(cycle, group.template.node, dialect) is None
    ]
    if total < 0 and helping:
        # No group has an option; a pod a group's template takes is left without an event
        # (GetRemainingPods passes over its schedulable equivalence group).
        return Decision(wanted, unjudged=NEGATIVE_TOTAL.format(total=total))
    per_node = {group.id: _per_node(cycle, pod, template, dialect) for group, template in helping}
    zonal = ZONE in cycle_anti_keys(cycle, pod)
    state = spread_state(cycle)
    weighed: dict[tuple[int, bool, int, frozenset[tuple[str, int]]], dict[str, ScaleUp]] = {}

    def weigh(copies: int, resources: bool, headroom: Headroom = used) -> dict[str, ScaleUp]:
        """Each helping group's option for ``copies`` with ``headroom`` used; the expander
        weighs it before the cores and memory left cap it, and what a group would add is
        named capped. Spread copies are placed one at a time on the group's fresh nodes
        alone, as its estimator places them (:mod:`.spread`)."""
        key = (copies, resources, headroom.total, frozenset(headroom.nodes.items()))
        found = weighed.get(key)
        if found is not None:
            return found
        found = weighed[key] = {
            group.id: option
            for group, template in helping
            if (
                option := _alone(
                    copies, per_node[group.id], group, template, groups, headroom, resources, zonal
                )
                if state is None
                else _spread_alone(
                    copies,
                    per_node[group.id],
                    group,
                    template,
                    groups,
                    headroom,
                    resources,
                    state,
                    cycle,
                    pod,
                    dialect,
                )
            )
        }
        return found

    alone = weigh(wanted, True)
    # Spread copies are placed a group at a time by their skew (:mod:`.spread`), not by
    # one option taking them all: every group stays in the expander's order.
    helping, open_choice = _expanded(
        helping,
        weigh,
        pod,
        groups,
        used,
        wanted,
        packed=state is None,
    )
    options = tuple(alone[g.id] for g, _ in helping if g.id in alone)
    options = options if open_choice else ()
    if state is not None:
        scale_ups, placed, why = _spread(cycle, pod, state, wanted, helping, groups, used, dialect)
    else:
        scale_ups, placed, why = _packed(cycle, pod, wanted, helping, groups, used, dialect)
    if placed == wanted:
        return Decision(wanted, scale_ups, placed, options=options)
    if total > 0 and groups.counted + used.total >= total:
        # the loop that scales nothing more starts at the total: it considers no group
        return Decision(wanted, scale_ups, placed, {MAX_TOTAL: 1}, options=options)
    reasons = _reasons(cycle, pod, groups, used, dialect, why)
    return Decision(wanted, scale_ups, placed, reasons, options=options)


def _own_zone(zonal: bool, template: Template) -> str | None:
    """The template's zone when the pod's required anti-affinity to its own copies is over
    the zone (``zonal``): a group's fresh nodes share it, so the estimator puts one copy in
    the group (binpacking_estimator.go: the next copy fails on the last node, then on a
    fresh one, which stays empty and uncounted)."""
    return template.node.labels.get(ZONE) if zonal else None


def _alone(
    wanted: int,
    per_node: int,
    group: NodeGroup,
    template: Template,
    groups: Groups,
    used: Headroom,
    resources: bool,
    zonal: bool,
) -> ScaleUp | None:
    """What ``group`` would add if the expander chose it for every copy (binpacked, one
    copy in all when its zone holds one at most), the cores and memory left capping it or
    not (:func:`.limits.limit`)."""
    cap, _ = limit(group, template, groups, used, resources)
    if _own_zone(zonal, template) is not None:
        wanted = per_node = min(wanted, 1)
    nodes = min(-(-wanted // per_node), max(cap, 0))
    if nodes <= 0:
        return None
    start = group.status.target + used.nodes.get(group.id, 0)
    return ScaleUp(group.id, nodes, min(wanted, nodes * per_node), start, group.status.max_size)


def _go_ratio(numerator: int, denominator: int) -> float:
    """``float64(numerator) / float64(denominator)`` as Go computes it: IEEE division, a
    zero denominator giving an infinity or NaN where Python would raise."""
    if denominator:
        return float(numerator) / float(denominator)
    return math.nan if numerator == 0 else math.copysign(math.inf, numerator)


def _spread_alone(
    wanted: int,
    per_node: int,
    group: NodeGroup,
    template: Template,
    groups: Groups,
    used: Headroom,
    resources: bool,
    state: SpreadState,
    cycle: CycleState,
    pod: PodProfile,
    dialect: Dialect,
) -> ScaleUp | None:
    """What ``group`` alone would add for spread copies: binpacking_estimator.go runs the
    filters for each copy on the group's last new node, else on a fresh one, and stops at
    the first fresh node left empty; its skew counts only the group's own new nodes."""
    spare = used.copy()
    fresh, placed, _ = Filling(cycle, pod, state, dialect, per_node).place(
        [(group, template)],
        wanted,
        lambda g, t: limit(g, t, groups, spare, resources),
        lambda g, t: spare.add(g, t, 1),
    )
    nodes = fresh[group.id].nodes
    if nodes <= 0:
        return None
    start = group.status.target + used.nodes.get(group.id, 0)
    return ScaleUp(group.id, nodes, placed, start, group.status.max_size)


def _waste(option: ScaleUp, template: Template, pod: PodProfile) -> float:
    """expander/waste ``BestOptions``: the fraction of the new nodes' cpu plus that of their
    memory the copies leave unrequested (the capacity's cpu in millicores), in float64 as
    upstream adds them: 0.1 + 0.2 outweighs 0.3 there, so two options equal in exact
    arithmetic may not tie."""
    cpu = (template.millicores or template.cores * 1000) * option.nodes
    memory = template.memory * option.nodes
    wasted_cpu = _go_ratio(cpu - pod.requests.get(CPU, 0) * option.copies, cpu)
    return wasted_cpu + _go_ratio(memory - pod.requests.get(MEMORY, 0) * option.copies, memory)


def _least_waste(scores: list[tuple[T, float]]) -> list[T]:
    """waste.go ``BestOptions``' loop over the options in order: an equal score joins the
    least so far, a lower one (or the first option) replaces them; a NaN first option
    stays alone, as nothing compares below or equal to it."""
    least, kept = 0.0, list[T]()
    for item, score in scores:
        if score == least:
            kept.append(item)
        if not kept or score < least:
            least, kept = score, [item]
    return kept


def _expanded(
    helping: list[tuple[NodeGroup, Template]],
    weigh: Callable[[int, bool, Headroom], Mapping[str, ScaleUp]],
    pod: PodProfile,
    groups: Groups,
    used: Headroom,
    wanted: int,
    packed: bool,
) -> tuple[list[tuple[NodeGroup, Template]], bool]:
    """The helping groups in the order the expander would grow them, and whether its
    choice is left open (then by name after what it decides): each loop chooses among the
    groups left for the ``wanted`` copies still pending, the chain narrowing the options
    (expander/factory chain.go); no loop is left once the chosen groups hold every copy
    (``packed``; spread copies keep every group in order, weighed for all of them). A
    later loop skips and weighs the groups with the nodes the earlier ones added counted
    (orchestrator.go ScaleUp counts them among the upcoming nodes)."""
    expander, priorities = groups.flags.expander, groups.priorities
    left = sorted(helping, key=lambda g: g[0].id)
    ordered: list[tuple[NodeGroup, Template]] = []
    open_choice = False
    pending = wanted
    spare = used.copy()
    while left and pending > 0:
        alone = weigh(pending, False, spare)
        best = [g for g in left if g[0].id in alone and skipped(g[0], groups, spare) is None]
        for strategy in expander:
            if len(best) <= 1:
                break
            if strategy == "most-pods":
                most = max(alone[g.id].copies for g, _ in best)
                best = [g for g in best if alone[g[0].id].copies == most]
            elif strategy == "least-nodes":  # expander/leastnodes BestOptions
                fewest = min(alone[g.id].nodes for g, _ in best)
                best = [g for g in best if alone[g[0].id].nodes == fewest]
            elif strategy == "least-waste":
                best = _least_waste([((g, t), _waste(alone[g.id], t, pod)) for g, t in best])
            elif strategy == "priority" and priorities is not None and not priorities.unjudged:
                kept = set(chosen(priorities, [g.id for g, _ in best]))
                best = [g for g in best if g[0].id in kept]
            else:  # random, price, grpc; priority unrecorded: nothing recorded decides
                break
        if len(best) != 1:
            open_choice = open_choice or len(best) > 1
            return ordered + left, open_choice
        ordered.append(best[0])
        left.remove(best[0])
        if packed:
            taken = weigh(pending, True, spare).get(best[0][0].id)
            if taken is not None:
                pending -= taken.copies
                spare.add(*best[0], taken.nodes)
    return ordered + left, open_choice


Fill = tuple[tuple[ScaleUp, ...], int, dict[str, tuple[str, ...]]]
"""The groups' scale-ups, the copies placed, and why each group took no more."""


def _reasons(
    cycle: CycleState,
    pod: PodProfile,
    groups: Groups,
    used: Headroom,
    dialect: Dialect,
    why: dict[str, tuple[str, ...]],
) -> dict[str, int]:
    """Each group's reason in the loop that scales nothing more: skipped as the headroom now
    stands, else rejected by a filter, else what stopped it taking more."""
    reasons: Counter[str] = Counter()
    for group in groups.groups:
        said = skipped(group, groups, used)
        if said is not None:
            reasons[said] += 1
            continue
        assert group.template is not None
        if _left_out(cycle, pod, group.template):
            continue
        rejection = run_filters(cycle, group.template.node, dialect)
        reasons.update(rejection.reasons if rejection is not None else why.get(group.id, ()))
    return dict(reasons)


def _left_out(cycle: CycleState, pod: PodProfile, template: Template) -> bool:
    """Whether NodeAffinity's PreFilter leaves the template out by its name (``matchFields``
    pins naming only existing nodes): simulator/clustersnapshot/predicate/plugin_runner.go
    ``RunFiltersOnNode`` then fails it with no reasons, so the group is rejected under no
    reason in ReasonsMessage. A PreFilter's own rejection comes first and keeps its reason."""
    result = pre_filter_result(pod)
    return (
        pre_filter_refusal(cycle) is None
        and result.rejection is None
        and result.outside(template.node) is not None
    )


def _packed(
    cycle: CycleState,
    pod: PodProfile,
    wanted: int,
    helping: list[tuple[NodeGroup, Template]],
    groups: Groups,
    used: Headroom,
    dialect: Dialect,
) -> Fill:
    """Copies alike, a fresh node holding as many as fit one (module doc)."""
    scale_ups: list[ScaleUp] = []
    why: dict[str, tuple[str, ...]] = {}
    left = wanted
    # No group of a zone one copy took takes another (InterPodAffinity rejects the template
    # node once a copy is there).
    zonal = ZONE in cycle_anti_keys(cycle, pod)
    taken: set[str] = set()
    for group, template in helping:
        zone = _own_zone(zonal, template)
        if zone is not None and zone in taken:
            why[group.id] = (REASON_ANTI_AFFINITY,)
            continue
        if not left:
            break
        cap, stop = limit(group, template, groups, used)
        per_node = _per_node(cycle, pod, template, dialect)
        nodes = min(-(-left // per_node), max(cap, 0))
        if zone is not None:
            nodes = per_node = min(nodes, 1)
            if nodes:
                taken.add(zone)
                stop = REASON_ANTI_AFFINITY
        copies = min(left, nodes * per_node)
        if nodes > 0:
            start = group.status.target + used.nodes.get(group.id, 0)
            scale_ups.append(ScaleUp(group.id, nodes, copies, start, group.status.max_size))
            used.add(group, template, nodes)
            left -= copies
        why[group.id] = (stop,)
    return tuple(scale_ups), wanted - left, why


def _spread(
    cycle: CycleState,
    pod: PodProfile,
    state: SpreadState,
    wanted: int,
    helping: list[tuple[NodeGroup, Template]],
    groups: Groups,
    used: Headroom,
    dialect: Dialect,
) -> Fill:
    """Copies with spread constraints, one at a time (:mod:`.spread`)."""
    starts = {g.id: g.status.target + used.nodes.get(g.id, 0) for g, _ in helping}
    per_node = min((_per_node(cycle, pod, t, dialect) for _, t in helping), default=1)
    filling = Filling(cycle, pod, state, dialect, per_node)
    fresh, placed, why = filling.place(
        helping,
        wanted,
        lambda group, template: limit(group, template, groups, used),
        lambda group, template: used.add(group, template, 1),
    )
    scale_ups = tuple(
        ScaleUp(g.id, fresh[g.id].nodes, fresh[g.id].copies, starts[g.id], g.status.max_size)
        for g, _ in helping
        if fresh[g.id].nodes
    )
    return scale_ups, placed, why
