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
from gate.scheduler.placement.copyrules import CopyRules, Ledger, Placement, capacity_of, set_bits
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
    held = capacity_of(rules, ledger)
    full: list[int] = []

    def capacity_at(position: int) -> int:
        room = held(nodes[position])
        if not room:
            full.append(position)
        return room

    known = ledger.known_full(nodes, rules) if ledger is not None else 0
    for position in islice(fill_order(set_bits(fitting & ~known), capacity_at), wanted):
        copies[position] = copies.get(position, 0) + 1
    if ledger is not None and full:
        ledger.found_full(nodes, rules, full)
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
    held = capacity_of(rules, ledger)

    def capacity_at(index: int) -> int:
        return held(nodes[index])

    groups = _domain_groups(
        fitting,
        [rule.topology_key for rule in rules.spread] + keys,
        label_bits or _label_bits(nodes),
    )
    copies = _coupled(wanted, groups, capacity_at, rules, keys)
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
        # minMatchNum is the same for every group: asked once a copy, not once a group (500
        # zones, 5,000 copies: 1.25 billion counts compared, 73 s)
        leasts = [minimum(counts[k], rule.min_domains) for k, rule in enumerate(rules.spread)]
        target = None
        chosen = _fewest(slots, rules, counts, leasts, anti_keys, taken_domains)
        while chosen is not None:
            target = next(slots[chosen], None)
            if target is not None:
                break
            del slots[chosen]  # exhausted: no node of the group holds another copy
            chosen = _fewest(slots, rules, counts, leasts, anti_keys, taken_domains)
        if target is None or chosen is None:
            break
        copies[target] = copies.get(target, 0) + 1
        for k, rule in enumerate(rules.spread):
            land(counts[k], chosen[k], rule.raises)
        for k in range(len(anti_keys)):
            taken_domains[k].add(chosen[spread_count + k])
    return copies


def _fewest(
    groups: Iterable[Domains],
    rules: CopyRules,
    counts: Sequence[Mapping[str, int]],
    leasts: Sequence[int],
    anti_keys: Sequence[str],
    taken: Sequence[set[str | None]],
) -> Domains | None:
    """The allowed group whose spread domains hold the fewest matching pods, the first of
    ``groups`` among equals (None: no group is allowed). One pass, no sort: a copy asks
    each group once."""
    best: Domains | None = None
    fewest = 0
    for domains in groups:
        total = _joined(domains, rules, counts, leasts, anti_keys, taken)
        if total is not None and (best is None or total < fewest):
            best, fewest = domains, total
    return best


def _allowed(
    domains: Domains,
    rules: CopyRules,
    counts: Sequence[Mapping[str, int]],
    anti_keys: Sequence[str],
    taken: Sequence[set[str | None]],
) -> bool:
    """Whether a copy may join the group of ``domains`` as the counts stand."""
    leasts = [minimum(counts[k], rule.min_domains) for k, rule in enumerate(rules.spread)]
    return _joined(domains, rules, counts, leasts, anti_keys, taken) is not None


def _joined(
    domains: Domains,
    rules: CopyRules,
    counts: Sequence[Mapping[str, int]],
    leasts: Sequence[int],
    anti_keys: Sequence[str],
    taken: Sequence[set[str | None]],
) -> int | None:
    """The matching pods the spread domains of the group of ``domains`` hold, or None when a
    copy may not join it: a spread rule's skew against its minMatchNum (``leasts``) refuses
    it, or an anti-affinity domain already holds a copy."""
    total = 0
    for k, rule in enumerate(rules.spread):
        domain = domains[k]
        if domain is None:
            return None
        count = counts[k].get(domain, 0)
        if not admits(count, rule.self_match, leasts[k], rule.max_skew):
            return None
        total += count
    spread_count = len(rules.spread)
    if any(refuses_another(taken[k], domains[spread_count + k]) for k in range(len(anti_keys))):
        return None
    return total
