"""How many copies of one pod fit, placed one after another on the nodes that pass.

Counting is not scheduling: the copies are placed in memory only to count them, and no
report ever names the node a copy would take (SPEC section 4). Each copy goes to a node that
passes every filter given the copies already placed:

- NodeResourcesFit: every copy takes its requests and one pod slot from the node, so a node
  holds ``min(free_r // request_r, free pod slots)`` copies (pods with no request of a
  resource are not limited by it).
- NodePorts: a copy that wants a host port holds it, so a node holds at most one.
- Required anti-affinity of the pod against its own labels: one copy per domain of that
  term's topology key (per node for ``kubernetes.io/hostname``).
- PodTopologySpread (``DoNotSchedule``): a copy may join domain ``d`` of a constraint only
  while ``count[d] + 1 - min(count)`` stays within ``maxSkew``, the minimum taken over the
  eligible domains (0 while fewer than ``minDomains`` exist), and copies that match the
  constraint's selector raise ``count[d]``.

Where no anti-affinity or spread couples the nodes, the count is arithmetic: the copies fill
the nodes evenly (each next copy to a node holding the fewest so far, ties in node order, as
the default scoring spreads a workload), capped per node. Otherwise copies are placed one at a
time over groups of nodes that share their domains, which costs copies x groups, not
copies x nodes.

Worked example: three nodes with 2500m, 1500m and 700m cpu free and a pod asking 700m hold
3, 2 and 1 copies; 10 wanted copies give ``fit = 6``, evenly filled as 3, 2, 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice

from gate.model import HostPort, NodeView
from gate.scheduler.plugins.nodeports import port_conflicts

PODS = "pods"
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True, slots=True)
class SpreadRule:
    """One ``DoNotSchedule`` constraint as the copies meet it.

    ``counts`` holds every eligible domain with the matching pods already in it (0 included);
    ``self_match``: the copies match the constraint's selector, so each raises its domain's
    count.
    """

    topology_key: str
    max_skew: int
    counts: Mapping[str, int]
    min_domains: int = 1
    self_match: bool = True


@dataclass(frozen=True, slots=True)
class CopyRules:
    """What limits the copies of one pod beyond its first one."""

    requests: Mapping[str, int] = field(default_factory=dict)
    host_ports: tuple[HostPort, ...] = ()
    one_per_domain: tuple[str, ...] = ()  # topology keys of self anti-affinity terms
    spread: tuple[SpreadRule, ...] = ()


@dataclass(frozen=True, slots=True)
class Placement:
    """``copies``: by a node's position, the copies it holds (nodes holding none are absent);
    kept to count, never reported by node. ``fit``: their sum."""

    wanted: int
    fit: int
    copies: Mapping[int, int]

    @property
    def busiest(self) -> int:
        """The copies lost if the node holding the most of them failed."""
        return max(self.copies.values(), default=0)


@dataclass(slots=True)
class Ledger:
    """Room already taken on nodes by copies placed earlier in the run, by node name."""

    requested: dict[str, dict[str, int]] = field(default_factory=dict)
    pods: dict[str, int] = field(default_factory=dict)
    ports: dict[str, frozenset[HostPort]] = field(default_factory=dict)
    takers: dict[str, list[str]] = field(default_factory=dict)

    def take(self, node: str, rules: CopyRules, copies: int, taker: str) -> None:
        """``copies`` copies of ``taker``'s pod now hold their room on ``node``."""
        if copies <= 0:
            return
        used = self.requested.setdefault(node, {})
        for resource, amount in rules.requests.items():
            used[resource] = used.get(resource, 0) + amount * copies
        self.pods[node] = self.pods.get(node, 0) + copies
        if rules.host_ports:
            self.ports[node] = self.ports.get(node, frozenset()) | frozenset(rules.host_ports)
        self.takers.setdefault(node, []).append(taker)


def capacity(node: NodeView, rules: CopyRules, ledger: Ledger | None = None) -> int:
    """How many copies ``node`` holds by its free room alone (0 when it holds none)."""
    taken = ledger.requested.get(node.name, {}) if ledger else {}
    slots = (
        node.allocatable.get(PODS, 0)
        - node.pod_count
        - (ledger.pods.get(node.name, 0) if ledger else 0)
    )
    room = max(slots, 0)
    for resource, amount in rules.requests.items():
        if amount <= 0 or resource == PODS:
            continue
        free = (
            node.allocatable.get(resource, 0)
            - node.requested.get(resource, 0)
            - taken.get(resource, 0)
        )
        room = min(room, max(free, 0) // amount)
    if rules.host_ports:
        taken_ports = ledger.ports.get(node.name, frozenset()) if ledger else frozenset()
        if any(port_conflicts(port, taken_ports) for port in rules.host_ports):
            return 0
        room = min(room, 1)
    if HOSTNAME in rules.one_per_domain:
        room = min(room, 1)
    return room


def even_fill(caps: Sequence[int], wanted: int) -> tuple[int, ...]:
    """Copies per node when each next copy goes to a node holding the fewest so far (ties in
    node order), never past a node's cap. Arithmetic, not one step per copy."""
    total = sum(caps)
    if total <= wanted:
        return tuple(caps)
    low, high = 0, max(caps)  # the smallest level L with sum(min(c, L)) >= wanted
    while low < high:
        level = (low + high) // 2
        if sum(min(c, level) for c in caps) >= wanted:
            high = level
        else:
            low = level + 1
    below = [min(c, low - 1) for c in caps]
    extra = wanted - sum(below)
    copies = []
    for cap, base in zip(caps, below, strict=True):
        if extra > 0 and cap >= low:
            copies.append(base + 1)
            extra -= 1
        else:
            copies.append(base)
    return tuple(copies)


def fill_order(candidates: Iterable[int], capacity_of: Callable[[int], int]) -> Iterator[int]:
    """The nodes copies go to, one copy per item, in the order :func:`even_fill` fills them:
    one each in node order, then a second each to nodes that hold two, and so on. Lazy:
    a node's capacity is asked for only when the copies reach it, so counting ten copies
    over five thousand candidates looks at ten nodes."""
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


def set_bits(bits: int) -> Iterator[int]:
    """Positions of the set bits, lowest first, one step per set bit."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


LabelBits = Callable[[str], Mapping[str, int]]
"""A label key -> the nodes (a bitset) by their value of it (the node index's classes)."""


def _label_bits(nodes: Sequence[NodeView]) -> LabelBits:
    def values(key: str) -> Mapping[str, int]:
        found: dict[str, int] = {}
        for position, node in enumerate(nodes):
            if key in node.labels:
                value = node.labels[key]
                found[value] = found.get(value, 0) | 1 << position
        return found

    return values


def place(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    candidates: int | None = None,
    *,
    ledger: Ledger | None = None,
    label_bits: LabelBits | None = None,
) -> Placement:
    """Copies of one pod on the ``candidates`` (a bitset over ``nodes`` of those that pass
    every filter for its first copy; all of them by default). ``label_bits`` groups nodes
    by a label's values when the copies are coupled by domains (built from ``nodes`` when
    not given)."""
    fitting = (1 << len(nodes)) - 1 if candidates is None else candidates
    keys = [k for k in rules.one_per_domain if k != HOSTNAME]
    copies: dict[int, int] = {}

    def capacity_of(index: int) -> int:
        return capacity(nodes[index], rules, ledger)

    if not keys and not rules.spread:
        for index in islice(fill_order(set_bits(fitting), capacity_of), wanted):
            copies[index] = copies.get(index, 0) + 1
    else:
        groups = _domain_groups(
            fitting,
            [rule.topology_key for rule in rules.spread] + keys,
            label_bits or _label_bits(nodes),
        )
        copies = _coupled(wanted, groups, capacity_of, rules, keys)
    return Placement(wanted=wanted, fit=sum(copies.values()), copies=copies)


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
            domain = chosen[k]
            if rule.self_match and domain is not None:
                counts[k][domain] = counts[k].get(domain, 0) + 1
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
        minimum = min(values.values(), default=0) if len(values) >= rule.min_domains else 0
        if values.get(domain, 0) + (1 if rule.self_match else 0) - minimum > rule.max_skew:
            return False
    for k in range(len(anti_keys)):
        domain = domains[spread_count + k]
        if domain is not None and domain in taken[k]:
            return False
    return True
