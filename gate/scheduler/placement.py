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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gate.model import NodeView

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
    host_ports: bool = False
    one_per_domain: tuple[str, ...] = ()  # topology keys of self anti-affinity terms
    spread: tuple[SpreadRule, ...] = ()


@dataclass(frozen=True, slots=True)
class Placement:
    """``copies[i]`` copies on the i-th of the candidate nodes; ``fit`` their sum."""

    wanted: int
    fit: int
    copies: tuple[int, ...]

    @property
    def busiest(self) -> int:
        """The copies lost if the node holding the most of them failed."""
        return max(self.copies, default=0)


@dataclass(slots=True)
class Ledger:
    """Room already taken on nodes by copies placed earlier in the run, by node name."""

    requested: dict[str, dict[str, int]] = field(default_factory=dict)
    pods: dict[str, int] = field(default_factory=dict)

    def take(self, node: str, requests: Mapping[str, int], copies: int) -> None:
        if copies <= 0:
            return
        used = self.requested.setdefault(node, {})
        for resource, amount in requests.items():
            used[resource] = used.get(resource, 0) + amount * copies
        self.pods[node] = self.pods.get(node, 0) + copies


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


def place(
    wanted: int, nodes: Sequence[NodeView], rules: CopyRules, ledger: Ledger | None = None
) -> Placement:
    """Copies of one pod on ``nodes`` (those that pass every filter for its first copy)."""
    caps = [capacity(node, rules, ledger) for node in nodes]
    keys = [k for k in rules.one_per_domain if k != HOSTNAME]
    if not keys and not rules.spread:
        copies = even_fill(caps, wanted)
    else:
        copies = _coupled(wanted, nodes, caps, rules, keys)
    return Placement(wanted=wanted, fit=sum(copies), copies=copies)


def _domains(node: NodeView, keys: Sequence[str]) -> tuple[str | None, ...]:
    return tuple(node.labels.get(key) for key in keys)


def _coupled(
    wanted: int,
    nodes: Sequence[NodeView],
    caps: Sequence[int],
    rules: CopyRules,
    anti_keys: Sequence[str],
) -> tuple[int, ...]:
    """One copy at a time over groups of nodes sharing their domains: each copy goes to the
    allowed group whose spread domains hold the fewest matching pods (ties in the order the
    groups first appear), and within it to the node holding the fewest copies."""
    spread_keys = [rule.topology_key for rule in rules.spread]
    groups: dict[tuple[str | None, ...], list[int]] = {}
    for index, node in enumerate(nodes):
        if caps[index] > 0:
            groups.setdefault(_domains(node, [*spread_keys, *anti_keys]), []).append(index)
    counts = [dict(rule.counts) for rule in rules.spread]
    taken_domains: list[set[str | None]] = [set() for _ in anti_keys]
    copies = [0] * len(nodes)
    for _ in range(wanted):
        best: tuple[int, int] | None = None  # (spread load, group position)
        choice: list[int] | None = None
        for position, (domains, members) in enumerate(groups.items()):
            open_members = [i for i in members if copies[i] < caps[i]]
            if not open_members or not _allowed(domains, rules, counts, anti_keys, taken_domains):
                continue
            load = sum(counts[k].get(domains[k] or "", 0) for k in range(len(rules.spread)))
            if best is None or (load, position) < best:
                best, choice = (load, position), open_members
        if choice is None:
            break
        target = min(choice, key=lambda i: (copies[i], i))
        copies[target] += 1
        domains = _domains(nodes[target], [*spread_keys, *anti_keys])
        for k, rule in enumerate(rules.spread):
            if rule.self_match and domains[k] is not None:
                counts[k][domains[k] or ""] = counts[k].get(domains[k] or "", 0) + 1
        for k in range(len(anti_keys)):
            taken_domains[k].add(domains[len(spread_keys) + k])
    return tuple(copies)


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
