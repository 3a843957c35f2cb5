"""A workload's copies that fit only by preemption, one after another.

Upstream runs DefaultPreemption (:mod:`gate.scheduler.plugins.defaultpreemption`) for a
copy no node takes; the copy is nominated to the node it chose, its victims leave, every
PodDisruptionBudget covering one allows one disruption less, and the copy lands there
(``evaluateNominatedNode`` in ``schedule_one.go`` tries that node first). The next copy
sees that state: it first takes what free room the evictions left, and preempts again
when there is none. The count stops at the first copy for which nothing is nominated,
with its FitError and the PostFilter's message.

Copies whose own spread constraints or pod affinity terms count one another are followed
past their first preempting copy no further: what one landing copy changes for the next is
placement's to say (:mod:`gate.scheduler.placement`), not this state's. Copies kept apart
by their own anti-affinity alone (over hostnames and at most one wider key) are followed
on: a copy shuts its whole domain wherever in it the free room put it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gate.k8s.version import Dialect
from gate.model import Code, Evicted, NodeView, Preemption
from gate.scheduler.engine.claimed import with_copies
from gate.scheduler.framework.cluster import ChangedNodes, Cluster, node_without
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState, Groups, run_filters
from gate.scheduler.placement.copies import Ledger, uncoupled
from gate.scheduler.placement.ownership import workload_of
from gate.scheduler.placement.replicas import copy_rules
from gate.scheduler.plugins import prepare
from gate.scheduler.plugins.defaultpreemption import (
    NEVER,
    Ask,
    Budgets,
    Candidate,
    PodsByNode,
    Victim,
    fit_error_text,
    preempt,
    select_victims,
)
from gate.scheduler.plugins.interpodaffinity.copies import wider_than_a_node


class _Nodes(ChangedNodes):
    """The nodes as the copies and evictions so far leave them."""

    def __init__(self, nodes: Sequence[NodeView], changed: Mapping[int, NodeView]) -> None:
        super().__init__(nodes)
        self.changed = dict(changed)

    def changed_at(self, position: int) -> NodeView | None:
        return self.changed.get(position)


@dataclass(frozen=True, slots=True)
class Preempted:
    """The copies placed by preemption, their victims, and for the copy after them (when
    some copy is left) the FitError it ends with: the filters' histogram, then the
    PostFilter's message."""

    placed: int
    victims: tuple[Victim, ...]
    suffix: str
    message: str
    unfollowed: bool = False
    """The copies couple (module doc) and some are left past the first that preempts."""


@dataclass(frozen=True, slots=True)
class Start:
    """Where preemption starts: the nodes (``changed``: those the copies already placed
    hold), every node's rejection of the next copy, and how many copies are left."""

    nodes: Sequence[NodeView]
    changed: Mapping[int, NodeView]
    groups: Groups
    left: int


def preempt_copies(
    pod: PodProfile,
    cluster: Cluster,
    cycle: CycleState,
    start: Start,
    pods: PodsByNode,
    budgets: Budgets,
    dialect: Dialect,
) -> Preempted:
    """Copy after copy (module doc): ``cluster`` and ``cycle`` are those the first copy was
    filtered with; ``start.groups`` the rejections of the next one."""
    namespaces = cluster.snapshot.namespaces
    labels = None if namespaces is None else namespaces.get(pod.namespace, {})
    rules = copy_rules(pod, cycle, labels)
    coupled = not uncoupled(rules)
    # Copies kept apart by their own anti-affinity over one key wider than a node (and
    # hostnames) alone: a landed copy shuts its whole domain, whichever of its nodes the
    # free room put it on, so the next preemption nominates the same node either way.
    settled = (
        not rules.spread
        and not rules.follow_first
        and len(wider_than_a_node(rules.one_per_domain)) <= 1
    )
    nodes = _Nodes(start.nodes, start.changed)
    groups = dict(start.groups)
    gone: list[Victim] = []
    placed = 0
    base = cluster
    everyone = (1 << len(nodes)) - 1
    # The labels of the nodes this loop's copies took: the next copy's PreFilters count
    # them (its own anti-affinity and spread read them), as the scheduler's cache holds
    # the copies it placed, and so does a victim's search, which prepares them again.
    landed: list[Mapping[str, str]] = []
    own = cycle

    def prepared(on: Cluster) -> CycleState:
        return with_copies(prepare(pod, on), pod, landed)

    while placed < start.left:
        free = everyone
        for bits in groups.values():
            free &= ~bits
        if free:  # free room the evictions left: the copy takes it, no preemption
            position = (free & -free).bit_length() - 1
            nodes.changed[position] = Ledger().view(nodes[position], rules, 1)
            placed += 1
            landed.append(nodes[position].labels)
            cycle = with_copies(own, pod, landed)
            asked = range(len(nodes)) if coupled else (position,)
            groups = _asked_again(groups, cycle, nodes, asked, dialect)
            continue
        if coupled and gone and not settled:
            return Preempted(placed, tuple(gone), "", "", unfollowed=True)
        ask = Ask(pod, cluster, cycle, nodes, groups, dialect, prepared if landed else None)
        found = preempt(ask, pods, budgets)
        nominated = found.nominated
        if nominated is None:
            histogram: dict[str, int] = {}
            for rejection, bits in groups.items():
                for reason in rejection.reasons:
                    histogram[reason] = histogram.get(reason, 0) + bits.bit_count()
            text = f"{fit_error_text(len(nodes), histogram)} {found.message}"
            return Preempted(placed, tuple(gone), found.message, text)
        budgets.evict(nominated.victims)
        gone += nominated.victims
        cluster = base.without(v.position for v in gone)
        # A victim's anti-affinity term may have kept the pod off other nodes too: every
        # node is asked again without it.
        again = any(v.pod.anti_affinity_terms for v in nominated.victims)
        if again or coupled:
            own = prepare(pod, cluster)
        position = nominated.node
        view = node_without(nodes[position], [v.pod for v in nominated.victims])
        nodes.changed[position] = Ledger().view(view, rules, 1)
        placed += 1
        landed.append(nodes[position].labels)
        cycle = with_copies(own, pod, landed)
        asked = range(len(nodes)) if again else (position,)
        groups = _asked_again(groups, cycle, nodes, asked, dialect)
    return Preempted(placed, tuple(gone), "", "")


def evicted(victims: Sequence[Victim], copies: int) -> Preemption:
    """The victims as the report names them: by owning workload and priority, the highest
    priority first."""
    counted: dict[tuple[int, str, str, str], int] = {}
    for victim in victims:
        kind, name = workload_of(victim.pod)
        key = (-victim.pod.priority, victim.pod.namespace, name, kind)
        counted[key] = counted.get(key, 0) + 1
    return Preemption(
        copies=copies,
        evicts=tuple(
            Evicted(kind=kind, namespace=namespace, name=name, pods=n, priority=-negated)
            for (negated, namespace, name, kind), n in sorted(counted.items())
        ),
    )


def _asked_again(
    groups: Groups,
    cycle: CycleState,
    nodes: Sequence[NodeView],
    asked: Iterable[int],
    dialect: Dialect,
) -> Groups:
    """``groups`` with the nodes at ``asked`` filtered again as they now stand."""
    found = dict(groups)
    for position in asked:
        bit = 1 << position
        found = {r: bits & ~bit for r, bits in found.items() if bits & ~bit}
        refused = run_filters(cycle, nodes[position], dialect)
        if refused is not None:
            found[refused] = found.get(refused, 0) | bit
    return found


def preempt_pinned(
    pod: PodProfile,
    cluster: Cluster,
    cycle: CycleState,
    nodes: Sequence[NodeView],
    groups: Groups,
    pods: PodsByNode,
    budgets: Budgets,
    dialect: Dialect,
) -> tuple[tuple[Victim, ...], ...]:
    """A DaemonSet's pods, each bound to its own node: on each node that rejects its pod
    for room alone, in node order, the victims DefaultPreemption finds there (every other
    node is one its pod cannot use). The victims of each node its pod fits so, in node
    order."""
    if pod.preemption_policy == NEVER:
        return ()
    room = 0
    for rejection, bits in groups.items():
        if rejection.code is Code.UNSCHEDULABLE:
            room |= bits
    gone: list[tuple[Victim, ...]] = []
    excluded = cluster.others.pods.excluded
    ask = Ask(pod, cluster, cycle, nodes, groups, dialect)
    while room:
        lowest = room & -room
        position = lowest.bit_length() - 1
        room ^= lowest
        lower = pods.lower(position, pod.priority or 0, excluded)
        if not lower:
            continue
        found = select_victims(
            ask, position, [Victim(i, pods.index.pods[i]) for i in lower], budgets
        )
        if isinstance(found, Candidate):
            budgets.evict(found.victims)
            gone.append(tuple(found.victims))
    return tuple(gone)
