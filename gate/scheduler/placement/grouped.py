"""Copies placed without scores, on clusters where the scheduler scores only a share.

Past 100 nodes the scheduler scores only ``numFeasibleNodesToFind`` of the feasible nodes
from a rotating start (schedule_one.go), so which node takes a copy is not knowable from a
snapshot. Where the count does not depend on it (``placement.order_free``), the copies are
placed without scores: copies nothing couples fill the nodes evenly in node order, copies
under one zone-wide rule go by groups of nodes sharing their domains
(docs/scheduler-rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice

from gate.model import NodeView
from gate.scheduler.placement.copyrules import CopyRules, Ledger, Placement, capacity, set_bits
from gate.scheduler.plugins.interpodaffinity.copies import refuses_another, wider_than_a_node
from gate.scheduler.plugins.podtopologyspread.copies import admits, land, minimum

LabelBits = Callable[[str], Mapping[str, int]]
"""A label key -> the nodes (a bitset) by their value of it."""


def filled(
    wanted: int, nodes: Sequence[NodeView], rules: CopyRules, fitting: int, ledger: Ledger | None
) -> Placement:
    """Uncoupled copies on a cluster where the scheduler scores only a share of the
    feasible nodes from a rotating start (more than 100 nodes): which node takes a copy is
    not knowable there, and the count does not depend on it. The copies fill the nodes
    evenly in node order (:func:`fill_order`), asking only the nodes they reach."""
    copies: dict[int, int] = {}

    def capacity_of(position: int) -> int:
        return capacity(nodes[position], rules, ledger)

    for position in islice(fill_order(set_bits(fitting), capacity_of), wanted):
        copies[position] = copies.get(position, 0) + 1
    return Placement(wanted=wanted, fit=sum(copies.values()), copies=dict(sorted(copies.items())))


def fill_order(candidates: Iterable[int], capacity_of: Callable[[int], int]) -> Iterator[int]:
    """The nodes copies go to, one copy per item: one each in node order, then a second
    each to nodes that hold two, and so on. Lazy: a node's capacity is asked for only when
    the copies reach it, so counting ten copies over five thousand candidates looks at ten
    nodes."""
    opened: list[tuple[int, int]] = []
    for index in candidates:
        cap = capacity_of(index)
        if cap > 0:
            opened.append((index, cap))
            yield index
    level = 2
    while opened:
        opened = [(index, cap) for index, cap in opened if cap >= level]
        for index, _ in opened:
            yield index
        level += 1


def by_domain(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    fitting: int,
    ledger: Ledger | None,
    label_bits: LabelBits | None = None,
) -> Placement:
    """Copies under one zone-wide rule (their count is the same in any order) on a cluster
    where the scheduler scores only a share of the feasible nodes (more than 100): one
    copy at a time over the groups of
    nodes that share their domains, each to an allowed group whose spread domains hold
    the fewest matching pods, within it as :func:`fill_order` goes. Every group is asked
    again for every copy, so a domain the skew refused once takes copies as the counts
    even out. The cost is copies x groups, not copies x nodes."""
    keys = wider_than_a_node(rules.one_per_domain)

    def capacity_of(index: int) -> int:
        return capacity(nodes[index], rules, ledger)

    groups = _domain_groups(
        fitting,
        [rule.topology_key for rule in rules.spread] + keys,
        label_bits or _label_bits(nodes),
    )
    copies = _coupled(wanted, groups, capacity_of, rules, keys)
    return Placement(wanted=wanted, fit=sum(copies.values()), copies=dict(sorted(copies.items())))


def _label_bits(nodes: Sequence[NodeView]) -> LabelBits:
    def values(key: str) -> Mapping[str, int]:
        found: dict[str, int] = {}
        for position, node in enumerate(nodes):
            if key in node.labels:
                value = node.labels[key]
                found[value] = found.get(value, 0) | 1 << position
        return found

    return values


Domains = tuple[str | None, ...]


def _domain_groups(
    fitting: int, keys: Sequence[str], label_bits: LabelBits
) -> list[tuple[Domains, int]]:
    """The candidates split by their values of ``keys`` (None where a node lacks one), in
    the order of each group's first node: set operations, not a step per node."""
    groups: list[tuple[Domains, int]] = [((), fitting)] if fitting else []
    for key in keys:
        values = label_bits(key)
        split: list[tuple[Domains, int]] = []
        for domains, bits in groups:
            rest = bits
            for value, members in values.items():
                part = bits & members
                if part:
                    split.append(((*domains, value), part))
                    rest &= ~members
            if rest:
                split.append(((*domains, None), rest))
        groups = split
    return sorted(groups, key=lambda group: group[1] & -group[1])


def _coupled(
    wanted: int,
    groups: Sequence[tuple[Domains, int]],
    capacity_of: Callable[[int], int],
    rules: CopyRules,
    anti_keys: Sequence[str],
) -> dict[int, int]:
    """One copy at a time over groups of nodes sharing their domains: each copy goes to the
    allowed group whose spread domains hold the fewest matching pods (ties in the order of
    the groups' first nodes), and within it as :func:`fill_order` goes."""
    spread_count = len(rules.spread)
    slots = {domains: fill_order(set_bits(bits), capacity_of) for domains, bits in groups}
    counts = [dict(rule.counts) for rule in rules.spread]
    taken_domains: list[set[str | None]] = [set() for _ in anti_keys]
    copies: dict[int, int] = {}
    for _ in range(wanted):
        ranked = sorted(
            (
                sum(counts[k].get(d or "", 0) for k, d in enumerate(domains[:spread_count])),
                position,
                domains,
            )
            for position, domains in enumerate(slots)
            if _allowed(domains, rules, counts, anti_keys, taken_domains)
        )
        target = None
        chosen: Domains = ()
        for _, _, domains in ranked:
            target = next(slots[domains], None)
            if target is not None:
                chosen = domains
                break
            del slots[domains]  # exhausted: no node of the group holds another copy
        if target is None:
            break
        copies[target] = copies.get(target, 0) + 1
        for k, rule in enumerate(rules.spread):
            land(counts[k], chosen[k], rule.self_match)
        for k in range(len(anti_keys)):
            taken_domains[k].add(chosen[spread_count + k])
    return copies


def _allowed(
    domains: tuple[str | None, ...],
    rules: CopyRules,
    counts: Sequence[Mapping[str, int]],
    anti_keys: Sequence[str],
    taken: Sequence[set[str | None]],
) -> bool:
    spread_count = len(rules.spread)
    for k, rule in enumerate(rules.spread):
        domain = domains[k]
        if domain is None:
            return False
        values = counts[k]
        least = minimum(values, rule.min_domains)
        if not admits(values.get(domain, 0), rule.self_match, least, rule.max_skew):
            return False
    return not any(
        refuses_another(taken[k], domains[spread_count + k]) for k in range(len(anti_keys))
    )
