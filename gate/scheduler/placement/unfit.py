"""The first copy that does not fit, as the scheduler would answer it.

When fewer copies fit than wanted, the count stops at a copy no node takes; its FitError
("0/7 nodes are available: 3 ..., 4 ...") is what limits the workload, not the first copy's.
Here every node's first rejection is worked out for the state the placed
copies leave: a node no copy could ever take keeps the rejection it gave the first copy
(what refused it, taints or labels or room the copies only shrink, does not change); a node
that could take copies is filtered again, in plugin order, with the copies it holds bound
to it (NodePorts, NodeResourcesFit), the disks they mount (VolumeRestrictions), the spread
counts they raised (PodTopologySpread) and the domains they took (InterPodAffinity,
anti-affinity against its own labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gate.k8s.version import Dialect
from gate.model import NODE_PORTS, NODE_RESOURCES_FIT, NodeView
from gate.scheduler.framework.runtime import CycleState, Groups, Rejection
from gate.scheduler.placement.copies import CopyRules, Ledger, Placement, capacity_of, set_bits
from gate.scheduler.placement.copyrules import counted_takers, spread_counts
from gate.scheduler.plugins.interpodaffinity.copies import (
    one_per_node,
    refuses_another,
    wider_than_a_node,
)
from gate.scheduler.plugins.interpodaffinity.filtering import AFFINITY, ANTI_AFFINITY
from gate.scheduler.plugins.podtopologyspread.copies import counts_copies, land
from gate.scheduler.plugins.podtopologyspread.filtering import SKEW, SpreadState
from gate.scheduler.plugins.volumerestrictions import DISK_CONFLICT


@dataclass(frozen=True, slots=True)
class Refused:
    """The rejections of the first copy that does not fit, and the nodes as the placed
    copies leave them (by position; the others as the snapshot has them)."""

    groups: Groups
    nodes: Sequence[NodeView]
    after: Mapping[int, NodeView]

    def largest_free(self, resource: str, among: int) -> int | None:
        """The largest free amount of ``resource`` among the nodes of ``among``."""
        found = None
        for position in set_bits(among):
            node = self.after.get(position) or self.nodes[position]
            free = node.allocatable.get(resource, 0) - node.requested.get(resource, 0)
            found = free if found is None else max(found, free)
        return found


def refusals(
    base: Groups,
    cycle: CycleState,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    placement: Placement,
    candidates: int,
    ledger: Ledger | None,
    dialect: Dialect,
) -> Refused:
    """Every node's first rejection for the copy after ``placement``'s last (module doc).
    ``base``: the first copy's rejections; ``candidates``: the nodes asked per copy."""
    groups: Groups = {r: bits & ~candidates for r, bits in base.items() if bits & ~candidates}
    after: dict[int, NodeView] = {}
    room = [p for p in cycle if p.plugin.name in (NODE_PORTS, NODE_RESOURCES_FIT)]
    spread = _spread_after(cycle, nodes, rules, placement, ledger)
    taken = _domains_taken(nodes, rules, placement)
    # The copies share the first one's domain: its terms now count it, and only it.
    first = min(placement.copies, default=None)
    followed = None if first is None or not rules.follow_first else _values(nodes[first], rules)
    held = ledger or Ledger()
    room_of = capacity_of(rules, held)
    # A candidate takes the pod alone, so the room plugins refuse nodes that lack the same
    # beside the ledger's copies alike (Ledger.lacking): asked once per kind of lack.
    refusing: dict[tuple[tuple[str, ...], bool], Rejection | None] = {}
    for position in set_bits(candidates):
        node = nodes[position]
        copies = placement.copies.get(position, 0)
        rejection: Rejection | None = None
        # Else its room is as the first copy found it; and where the quick count of its room
        # holds another copy, the room plugins pass it (a DaemonSet's pods are on every node).
        if copies and room_of(node) <= copies:
            view = after[position] = held.view(node, rules, copies)
            for prepared in room:
                rejection = rejection or prepared.check(view, dialect)
        elif not copies and held.holds(node.name):
            lacking = held.lacking(node, rules)
            if lacking is not None:
                view = after[position] = held.view(node, rules, copies)
                if lacking in refusing:
                    rejection = refusing[lacking]
                else:
                    for prepared in room:
                        rejection = rejection or prepared.check(view, dialect)
                    refusing[lacking] = rejection
        if rejection is None and copies and rules.disks_collide:
            rejection = DISK_CONFLICT
        if rejection is None and spread is not None:
            rejection = spread.filter(node.labels)
        if rejection is None and followed is not None and followed != _values(node, rules):
            rejection = AFFINITY
        if rejection is None and (
            (copies and one_per_node(rules.one_per_domain))
            or any(refuses_another(domains, node.labels.get(key)) for key, domains in taken)
        ):
            rejection = ANTI_AFFINITY
        if rejection is not None:
            groups[rejection] = groups.get(rejection, 0) | 1 << position
    return Refused(groups, nodes, after)


def _values(node: NodeView, rules: CopyRules) -> tuple[str | None, ...]:
    """The node's values of the keys that hold every copy to the first one's domain."""
    return tuple(node.labels.get(key) for key in rules.follow_first)


def _spread_after(
    cycle: CycleState,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    placement: Placement,
    ledger: Ledger | None,
) -> SpreadState | None:
    """PodTopologySpread's PreFilter state with the copies, and the run's earlier copies
    beside them (``ledger``), counted where they match."""
    state = next((p.state for p in cycle if isinstance(p.state, SpreadState)), None)
    if state is None:
        return None
    counts = list(spread_counts(rules, nodes, ledger))
    for position, copies in placement.copies.items():
        labels = nodes[position].labels
        for i, constraint in enumerate(state.constraints):
            raises = counts_copies(state.self_match[i], constraint.selector)
            land(counts[i], labels.get(constraint.topology_key), raises, copies)
    return replace(state, counts=tuple(counts))


def _domains_taken(
    nodes: Sequence[NodeView], rules: CopyRules, placement: Placement
) -> list[tuple[str, set[str | None]]]:
    """By key of the pod's own anti-affinity wider than a node, the domains its copies took."""
    return [
        (key, {nodes[p].labels.get(key) for p in placement.copies})
        for key in wider_than_a_node(rules.one_per_domain)
    ]


def consumers(
    refused: Groups, nodes: Sequence[NodeView], ledger: Ledger, rules: CopyRules
) -> tuple[str, ...]:
    """The earlier workloads whose copies hold what refused the copy (room, pod slots,
    host ports) on the nodes that refused it, or raised the spread counts of the domains
    that refused it (copies a constraint's selector matches, in those domains), the most
    copies there first (ties: the earlier workload). A workload that holds none of what
    ran short is not one of them."""
    held = _counted_in(refused.get(SKEW, 0), nodes, ledger, rules)
    for rejection, bits in refused.items():
        if rejection.plugin not in (NODE_PORTS, NODE_RESOURCES_FIT):
            continue
        short = {s.resource for s in rejection.shortfall}
        if ledger.daemons_only:  # one pod of each DaemonSet on each node of its set
            for taker, there in ledger.daemons.items():
                copies = (bits & there).bit_count()
                if copies and _holds(ledger.rules[taker], rejection, short, rules):
                    held[taker] = held.get(taker, 0) + copies
            continue
        holding: dict[str, bool] = {}  # by taker: it holds what this rejection lacks
        for position in set_bits(bits):
            for taker, copies in ledger.takers.get(nodes[position].name, {}).items():
                holds = holding.get(taker)
                if holds is None:
                    holds = holding[taker] = _holds(ledger.rules[taker], rejection, short, rules)
                if holds:
                    held[taker] = held.get(taker, 0) + copies
    order = {taker: i for i, taker in enumerate(ledger.rules)}
    return tuple(sorted(held, key=lambda t: (-held[t], order[t])))


def _holds(taker: CopyRules, rejection: Rejection, short: set[str], rules: CopyRules) -> bool:
    if rejection.plugin == NODE_PORTS:
        return bool(taker.host_ports)
    return "pods" in short or any(taker.requests.get(r, 0) > 0 for r in short)


def _counted_in(
    skewed: int, nodes: Sequence[NodeView], ledger: Ledger, rules: CopyRules
) -> dict[str, int]:
    """By earlier workload, its copies the spread constraints count in the domains of the
    ``skewed`` nodes (each copy once, whatever constraints count it)."""
    held: dict[str, int] = {}
    if not skewed or not rules.spread or not ledger.labels:
        return held
    matched = [counted_takers(rule, rules.namespace, ledger) for rule in rules.spread]
    if not any(matched):
        return held
    domains = [
        {nodes[p].labels.get(rule.topology_key) for p in set_bits(skewed)} - {None}
        for rule in rules.spread
    ]
    for node in nodes:
        there = ledger.takers.get(node.name)
        if not there:
            continue
        for taker, copies in there.items():
            if any(
                taker in matched[k] and node.labels.get(rule.topology_key) in domains[k]
                for k, rule in enumerate(rules.spread)
            ):
                held[taker] = held.get(taker, 0) + copies
    return held
