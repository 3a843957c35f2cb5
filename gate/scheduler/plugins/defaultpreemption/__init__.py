"""DefaultPreemption, the PostFilter that runs when a pod fits no node.

Upstream (v1.34.1) ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
and ``pkg/scheduler/framework/preemption/preemption.go``:

* ``PodEligibleToPreemptOthers``: a pod whose ``preemptionPolicy`` is ``Never`` preempts
  nothing (``not eligible due to preemptionPolicy=Never.``);
* ``findCandidates``: only nodes whose status is ``Unschedulable`` are asked; one whose
  filter said ``UnschedulableAndUnresolvable`` (taints, selectors, required node affinity,
  a request above its allocatable...) is one preemption cannot help;
* ``SelectVictimsOnNode``: every pod of strictly lower priority is removed; if the pod still
  does not fit, the node fails with the filter's own status; else the removed pods are
  added back one at a time, most important first (higher priority, then earlier start; a
  pod that has not started counts as starting now, and of such pods of one priority the
  last on the node comes first, as ``sort.Slice`` leaves them: :mod:`.gosort`), those
  whose PodDisruptionBudget they would violate first, and each that makes the pod fail
  again stays a victim;
* ``pickOneNodeForPreemption``: fewest PDB violations, then the lowest highest-victim
  priority, the smallest sum of priorities, the fewest victims, the latest start time of
  the highest-priority victims, then the first node.

The scheduler asks its candidates from a random node on and stops past a hundred (or a
tenth of the nodes) once it holds one that violates no budget; every candidate is asked
here, so that the answer does not depend on a draw.

When nothing is nominated, the PostFilter's message joins the FitError: DynamicResources
runs first and, for a pod without resource claims, says ``no new claims to deallocate``;
DefaultPreemption says ``preemption: `` and a FitError of its own over every node. A pod an
earlier PreFilter refused never reached DynamicResources' PreFilter, whose PostFilter then
fails on the missing state (``not found``) and ends the PostFilters there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Any

from gate.k8s.selectors import LabelSelector, SelectorError, parse_selector
from gate.k8s.version import Dialect
from gate.model import Code, DisruptionBudget, ExistingPod, NodeView, rfc3339_time
from gate.scheduler.framework.cluster import Cluster, node_without
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import (
    CycleState,
    Groups,
    Prepared,
    Rejection,
    pre_filter_refusal,
    run_filters,
)
from gate.scheduler.plugins import podtopologyspread, prepare
from gate.scheduler.plugins.defaultpreemption.gosort import sort_slice
from gate.scheduler.plugins.nodeaffinity import pre_filter_result

NAME = "DefaultPreemption"
NEVER = "Never"

# default_preemption.go PodEligibleToPreemptOthers
REASON_NOT_ELIGIBLE = "not eligible due to preemptionPolicy=Never."
# default_preemption.go SelectVictimsOnNode
REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
# preemption.go Preempt (SetAbsentNodesStatus), findCandidates
REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling"
# dynamicresources.go PostFilter, for a pod without resource claims
REASON_NO_CLAIMS = "no new claims to deallocate"
# kube-scheduler/framework cycle_state.go ErrNotFound: DynamicResources' PostFilter reads the
# state its PreFilter writes; when an earlier PreFilter refused the pod, that never ran, and
# the error ends the PostFilters before DefaultPreemption (runtime/framework.go)
REASON_NO_STATE = "not found"

_OFFSET = 2**31
_NOW = datetime.max.replace(tzinfo=timezone.utc)
"""A victim without a start time starts "now": after every recorded one."""


@dataclass(frozen=True, slots=True)
class Victim:
    """A pod preemption evicts: its position among the cluster's indexed pods, and the pod."""

    position: int
    pod: ExistingPod


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node preemption could make room on (by position), its victims most important
    first, and how many of them a PodDisruptionBudget forbids evicting."""

    node: int
    victims: tuple[Victim, ...]
    violations: int


@dataclass(frozen=True, slots=True)
class Preemption:
    """DefaultPreemption's answer: the nominated candidate, or the PostFilter message the
    FitError ends with when none is."""

    nominated: Candidate | None
    message: str = ""


class PodsByNode:
    """The cluster's indexed pods by the node they are bound to, and each node's lowest
    pod priority: built once, so that a node with no lower-priority pod is passed over
    without looking at its pods."""

    def __init__(self, pods: PodIndex) -> None:
        self.index = pods
        lowest: dict[int, int] = {}
        for node, pod in zip(pods.node_of, pods.pods, strict=True):
            if pod.priority < lowest.get(node, pod.priority + 1):
                lowest[node] = pod.priority
        self.lowest = lowest
        self._on: dict[int, list[int]] | None = None
        self._below: dict[int, int] = {}

    @property
    def on(self) -> dict[int, list[int]]:
        """By node, the positions of its pods in the order the API server lists them (by
        namespace and name), the order a starting scheduler adds them to the node in: the
        snapshot file's order must not choose which of the pods MoreImportantPod finds
        alike stays. Built when a node holding a lower-priority pod is first asked (where
        every pod has one priority, never)."""
        if self._on is None:
            on: dict[int, list[int]] = {}
            for position, node in enumerate(self.index.node_of):
                found = on.get(node)
                if found is None:
                    on[node] = [position]
                else:
                    found.append(position)
            pods = self.index.pods
            for positions in on.values():
                positions.sort(key=lambda i: (pods[i].namespace, pods[i].name))
            self._on = on
        return self._on

    def below(self, priority: int) -> int:
        """The nodes holding some pod of lower priority than ``priority``, as a bitset:
        worked out once per priority, so that a pod whose every node holds none is answered
        without a look at any node."""
        found = self._below.get(priority)
        if found is None:
            found = sum(1 << node for node, low in self.lowest.items() if low < priority)
            self._below[priority] = found
        return found

    def lower(self, node: int, priority: int, excluded: frozenset[int]) -> list[int]:
        """The positions of the pods on ``node`` of lower priority than ``priority``."""
        if self.lowest.get(node, priority) >= priority:
            return []
        pods = self.index.pods
        return [
            i for i in self.on.get(node, ()) if i not in excluded and pods[i].priority < priority
        ]


@dataclass(slots=True)
class Budgets:
    """The snapshot's PodDisruptionBudgets with the disruptions each still allows: each
    victim a budget covers takes one (a workload's copies preempt one after another)."""

    budgets: tuple[DisruptionBudget, ...]
    allowed: list[int] = field(default_factory=list)
    _selectors: list[LabelSelector | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.allowed = [b.allowed for b in self.budgets]
        self._selectors = [_selector(b.selector) for b in self.budgets]

    def covering(self, pod: ExistingPod) -> list[int]:
        """The budgets that count ``pod``: of its namespace, their selector matching its
        labels (a nil or empty selector matches nothing), the pod not already among their
        disrupted pods."""
        if not pod.labels:
            return []
        return [
            i
            for i, (budget, selector) in enumerate(zip(self.budgets, self._selectors, strict=True))
            if budget.namespace == pod.namespace
            and selector is not None
            and selector.matches(pod.labels)
            and pod.name not in budget.disrupted
        ]

    def violating(self, pods: Sequence[Victim]) -> tuple[list[Victim], list[Victim]]:
        """``pods`` split as ``filterPodsWithPDBViolation`` splits them, in their order:
        those that would take some budget below zero, and the others."""
        allowed = list(self.allowed)
        violating: list[Victim] = []
        fine: list[Victim] = []
        for victim in pods:
            violated = False
            for i in self.covering(victim.pod):
                allowed[i] -= 1
                violated = violated or allowed[i] < 0
            (violating if violated else fine).append(victim)
        return violating, fine

    def evict(self, victims: Iterable[Victim]) -> None:
        """The victims are gone: every budget covering one allows one disruption less."""
        for victim in victims:
            for i in self.covering(victim.pod):
                self.allowed[i] -= 1


def _selector(written: Mapping[str, object] | None) -> LabelSelector | None:
    """A budget's selector, None when it matches nothing (nil, empty or invalid)."""
    try:
        selector = parse_selector(written)
    except SelectorError:
        return None
    return None if selector.nothing or selector.empty else selector


def started(pod: ExistingPod) -> datetime:
    """GetPodStartTime: ``status.startTime``, or now for a pod without one."""
    return rfc3339_time(pod.started) or _NOW


def importance(victim: Victim) -> tuple[int, datetime]:
    """MoreImportantPod as a sort key (ascending is most important first)."""
    return -victim.pod.priority, started(victim.pod)


def more_important(first: Victim, second: Victim) -> bool:
    """MoreImportantPod itself: higher priority, then the earlier start. GetPodStartTime
    gives a pod that has not started the time it is asked, and asks of ``first`` before
    ``second``: of two such pods of one priority, each is more important than the other."""
    if first.pod.priority != second.pod.priority:
        return first.pod.priority > second.pod.priority
    one, two = rfc3339_time(first.pod.started), rfc3339_time(second.pod.started)
    if one is None and two is None:
        return True
    return (one or _NOW) < (two or _NOW)


def by_importance(victims: Sequence[Victim]) -> list[Victim]:
    """``victims`` as ``sort.Slice`` with MoreImportantPod leaves them, most important
    first (:mod:`.gosort`). Where no two tie, every sort agrees: Python's sorts them."""
    keys = [importance(v) for v in victims]
    if len(set(keys)) == len(keys):
        return [v for _, v in sorted(zip(keys, victims, strict=True), key=lambda kv: kv[0])]
    ordered = list(victims)
    sort_slice(ordered, more_important)
    return ordered


@dataclass(frozen=True, slots=True)
class Ask:
    """What one preemption reads: the pod, the cluster its PreFilters ran on, their state,
    the nodes as they stand (a workload's earlier copies and evictions included) and each
    node's rejection of the pod."""

    pod: PodProfile
    cluster: Cluster
    cycle: CycleState
    nodes: Sequence[NodeView]
    groups: Groups
    dialect: Dialect
    prepared: Callable[[Cluster], CycleState] | None = None
    """The pod's PreFilters run on a cluster as ``cycle`` was (the copies of its workload
    already placed counted in, as the scheduler's cache holds them); None: on the cluster
    alone."""


def preempt(ask: Ask, pods: PodsByNode, budgets: Budgets) -> Preemption:
    """DefaultPreemption's PostFilter for a pod no node took (module doc)."""
    if pre_filter_refusal(ask.cycle) or pre_filter_result(ask.pod).rejection:
        return Preemption(None, REASON_NO_STATE)
    if ask.pod.preemption_policy == NEVER:
        return Preemption(None, post_filter_message(f"preemption: {REASON_NOT_ELIGIBLE}"))
    total = len(ask.nodes)
    potential = sum(bits for r, bits in ask.groups.items() if r.code is Code.UNSCHEDULABLE)
    statuses: Counter[str] = Counter()
    statuses[REASON_NOT_HELPFUL] = total - potential.bit_count()
    candidates: list[Candidate] = []
    priority = ask.pod.priority or 0
    excluded = ask.cluster.others.pods.excluded
    bits = potential & pods.below(priority)
    statuses[REASON_NO_VICTIMS] = (potential & ~bits).bit_count()
    while bits:
        lowest = bits & -bits
        position = lowest.bit_length() - 1
        bits ^= lowest
        lower = pods.lower(position, priority, excluded)
        if not lower:
            statuses[REASON_NO_VICTIMS] += 1
            continue
        victims = [Victim(i, pods.index.pods[i]) for i in lower]
        found = select_victims(ask, position, victims, budgets)
        if isinstance(found, Rejection):
            statuses.update(found.reasons)
        else:
            candidates.append(found)
    if candidates:
        return Preemption(pick_one(candidates))
    histogram = {reason: count for reason, count in statuses.items() if count}
    return Preemption(None, post_filter_message(f"preemption: {fit_error_text(total, histogram)}"))


def post_filter_message(preemption: str) -> str:
    """The PostFilter plugins' message: DynamicResources' first, joined with ", "."""
    return f"{REASON_NO_CLAIMS}, {preemption}"


def fit_error_text(total: int, histogram: Mapping[str, int]) -> str:
    """FitError.Error()'s histogram: ``0/N nodes are available:``, each entry ``<count>
    <reason>``, sorted byte-wise."""
    entries = sorted(
        (f"{count} {reason}" for reason, count in histogram.items()),
        key=lambda text: text.encode("utf-8"),
    )
    return f"0/{total} nodes are available: {', '.join(entries)}."


def select_victims(
    ask: Ask, position: int, lower: list[Victim], budgets: Budgets
) -> Candidate | Rejection:
    """SelectVictimsOnNode: the fewest lower-priority pods whose eviction lets the pod fit
    on the node at ``position``, or the filter's rejection with every one of them gone."""
    node = ask.nodes[position]
    still = _fails(ask, node, lower)
    if still is not None:
        return still
    ordered = by_importance(lower)
    violating, fine = budgets.violating(ordered)
    gone = list(ordered)
    victims: list[Victim] = []
    violations = 0
    for victim in (*violating, *fine):
        gone.remove(victim)
        if _fails(ask, node, gone) is not None:
            gone.append(victim)
            victims.append(victim)
            violations += victim in violating
    if not victims:
        # It fits with no pod gone, where its filters refused it: what refused it (a copy
        # already placed there, which its own anti-affinity or spread reads) is nothing a
        # preemption removes, and upstream, holding those copies, finds the node fails.
        return next(r for r, bits in ask.groups.items() if bits >> position & 1)
    if violating and fine:
        victims = by_importance(victims)
    return Candidate(position, tuple(victims), violations)


def _fails(ask: Ask, node: NodeView, gone: Sequence[Victim]) -> Rejection | None:
    """The filters' rejection of the pod on ``node`` once ``gone`` leave it (None: it fits).
    The PreFilters are run again only when one that reads other pods may have counted one
    of them (:func:`_counted`), and are then left as SelectVictimsOnNode's RemovePod leaves
    them (PodTopologySpread also takes off the victims its PreFilter never counted)."""
    cycle = ask.cycle
    pods = [v.pod for v in gone]
    if _counted(ask.pod, gone, ask.cluster):
        prepared = ask.prepared or partial(prepare, ask.pod)
        cycle = prepared(ask.cluster.without(v.position for v in gone))
        if ask.pod.spread:
            cycle = tuple(_removed(p, ask.pod, node, pods) for p in cycle)
    return run_filters(cycle, node_without(node, pods), ask.dialect)


def _removed(
    prepared: Prepared[Any], pod: PodProfile, node: NodeView, gone: Sequence[ExistingPod]
) -> Prepared[Any]:
    """A PreFilter's state run again without ``gone``, as its RemovePod would leave it."""
    if prepared.plugin is not podtopologyspread.PLUGIN:
        return prepared
    return Prepared(
        prepared.plugin, podtopologyspread.victims_removed(prepared.state, pod, node, gone)
    )


def _counted(pod: PodProfile, gone: Sequence[Victim], cluster: Cluster) -> bool:
    """Whether the PreFilters that read other pods may have counted any of ``gone``: the pod
    asks the inter-pod ones something, or one of them carries a required anti-affinity term,
    or both the pod and one of them mount volumes (the volume plugins read what the node's
    pods mount, and count the ReadWriteOncePod claims in use)."""
    asks = pod.spread or pod.pod_affinity or pod.pod_anti_affinity
    if asks or any(v.pod.anti_affinity_terms for v in gone):
        return True
    mounts = cluster.snapshot.mounts
    return bool(pod.mounts and mounts) and any(
        (v.pod.namespace, v.pod.name) in mounts for v in gone
    )


def pick_one(candidates: Sequence[Candidate]) -> Candidate:
    """pickOneNodeForPreemption over ``candidates`` in node order (module doc)."""

    def score(candidate: Candidate) -> tuple[int, int, int, int, datetime]:
        victims = candidate.victims
        top = max(v.pod.priority for v in victims)
        earliest = min(started(v.pod) for v in victims if v.pod.priority == top)
        return (
            candidate.violations,
            top,
            # MaxInt32+1 added to each, so that more victims of negative priority never
            # sum below fewer
            sum(v.pod.priority + _OFFSET for v in victims),
            len(victims),
            _negated(earliest),
        )

    return min(candidates, key=score)


def _negated(moment: datetime) -> datetime:
    """A start time ordered latest first (``min`` then prefers the latest)."""
    return datetime.min.replace(tzinfo=timezone.utc) + (_NOW - moment)
