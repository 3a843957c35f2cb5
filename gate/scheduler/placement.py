"""How many copies of one pod fit, placed one after another as the scheduler places them.

Counting is not scheduling: the copies are placed in memory only to count them, and no
report ever names the node a copy would take (SPEC section 4). For each wanted copy in turn
(schedule_one.go schedulePod):

1. **Filter** against the state the earlier copies left. A node that passed every filter
   for the first copy, or that PodTopologySpread alone refused for it (its skew can even
   out as copies land elsewhere), is asked again for every copy:

   - NodeResourcesFit: every copy takes its requests and one pod slot from its node, so a
     node holds ``min(free_r // request_r, free pod slots)`` copies;
   - NodePorts: a copy that wants a host port holds it, so a node holds at most one;
   - InterPodAffinity: required anti-affinity of the pod against its own labels holds one
     copy per domain of the term's topology key;
   - PodTopologySpread (``DoNotSchedule``): a copy may join domain ``d`` only while
     ``count[d] + 1 - min(count)`` stays within ``maxSkew``, and copies matching the
     constraint's selector raise ``count[d]``.

2. **Score** the feasible nodes as the default profile does (:mod:`gate.scheduler.scores`;
   each rule in its plugin's module): NodeResourcesFit LeastAllocated, BalancedAllocation,
   TaintToleration, NodeAffinity, PodTopologySpread, ImageLocality, each normalised over the
   feasible nodes and weighted. With one feasible node nothing is scored.

3. **Select** a node of the highest total. Upstream picks uniformly among the tied nodes
   (selectHost); here a :data:`TiePolicy` picks: the lowest position, the highest, or a
   seeded draw. :func:`place_range` places with several policies and reports the least and
   the most copies found.

Nodes alike in everything filters and scores read (free room, requests, taints, preferred
affinity, domains, matching pods) form one class, scored once per copy: the cost is copies x
classes, not copies x nodes, and ties inside a class are between interchangeable nodes.

On more than 100 nodes the scheduler scores only a share of the feasible nodes from a
rotating start (schedule_one.go numFeasibleNodesToFind): there copies nothing couples fill
the nodes evenly in node order (their count does not depend on the order), and copies
coupled by zone-wide domains go by groups of nodes sharing their domains
(docs/scheduler-rules.md).

Worked example (issue 23): n1 in zone a with 3 CPU free and one matching pod, n2 in zone b
with 4 CPU free, a zone spread of maxSkew 1 and ten copies of 1 CPU: the first copy is
refused on n1 (skew 1 + 1 - 0 = 2) and takes n2; then the zones take turns as the skew
allows, and 7 fit (``tests/test_placement_scores.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice

from gate.model import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
    HostPort,
    NodeView,
)
from gate.scheduler.plugins.balancedallocation import balanced_allocation
from gate.scheduler.plugins.imagelocality import image_locality
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring
from gate.scheduler.plugins.interpodaffinity.scoring import normalize as interpod_normalize
from gate.scheduler.plugins.nodeports import port_conflicts
from gate.scheduler.plugins.noderesources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    SCORED,
    least_allocated,
)
from gate.scheduler.plugins.podtopologyspread.scoring import (
    SpreadScoring,
    go_round,
    normalizing_weight,
    score_for_count,
)
from gate.scheduler.plugins.podtopologyspread.scoring import (
    normalize as spread_normalize,
)
from gate.scheduler.scores import (
    BALANCED_ALLOCATION,
    IMAGE_LOCALITY,
    WEIGHTS,
    default_normalize,
)

PODS = "pods"
HOSTNAME = "kubernetes.io/hostname"

TiePolicy = str | int
"""How a tie between nodes of the highest score is broken: ``"first"`` (the lowest node
position), ``"last"`` (the highest), or an int seeding a uniform draw (selectHost's)."""

POLICIES: tuple[TiePolicy, ...] = ("first", "last", 1, 2, 3)
"""The policies :func:`place_range` tries: the range found, not every path of the draw."""


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


def _no_score(node: NodeView) -> int:
    return 0


@dataclass(frozen=True, slots=True)
class ScoreRules:
    """What the score plugins read of the pod: its cpu and memory requests with the
    non-zero defaults (LeastAllocated) and as written (BalancedAllocation; None for a best
    effort pod, which it skips), the intolerable PreferNoSchedule taints of a node, the
    weight of the preferred node affinity terms a node matches, the spread scoring and the
    inter-pod affinity scoring."""

    nonzero: tuple[int, int] = (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)
    balanced: tuple[int, int] | None = None
    taints: Callable[[NodeView], int] = _no_score
    affinity: Callable[[NodeView], int] = _no_score
    spread: SpreadScoring | None = None
    interpod: AffinityScoring | None = None

    @classmethod
    def of(cls, requests: Mapping[str, int]) -> ScoreRules:
        """Scores for a pod of one container with these requests and nothing preferred."""
        cpu, memory = (requests.get(r, 0) for r in SCORED)
        return cls(
            nonzero=(cpu or DEFAULT_MILLI_CPU_REQUEST, memory or DEFAULT_MEMORY_REQUEST),
            balanced=(cpu, memory) if cpu or memory else None,
        )


@dataclass(frozen=True, slots=True)
class Placement:
    """``copies``: by a node's position, the copies it holds (nodes holding none are absent);
    kept to count, never reported by node. ``fit``: their sum. ``tied``: some copy's node
    was drawn among tied nodes that are not interchangeable (another draw may count
    differently)."""

    wanted: int
    fit: int
    copies: Mapping[int, int]
    tied: bool = False

    @property
    def busiest(self) -> int:
        """The copies lost if the node holding the most of them failed."""
        return max(self.copies.values(), default=0)


@dataclass(frozen=True, slots=True)
class FitRange:
    """The least and the most copies found over the tie policies tried, and the placement
    that gave the least (the verdict's)."""

    least: int
    most: int
    placement: Placement


@dataclass(slots=True)
class Ledger:
    """Room already taken on nodes by copies placed earlier in the run, by node name; and
    by node, the copies each earlier workload holds there."""

    requested: dict[str, dict[str, int]] = field(default_factory=dict)
    pods: dict[str, int] = field(default_factory=dict)
    ports: dict[str, frozenset[HostPort]] = field(default_factory=dict)
    takers: dict[str, dict[str, int]] = field(default_factory=dict)
    rules: dict[str, CopyRules] = field(default_factory=dict)

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
        held = self.takers.setdefault(node, {})
        held[taker] = held.get(taker, 0) + copies
        self.rules[taker] = rules

    def view(self, node: NodeView, rules: CopyRules | None = None, copies: int = 0) -> NodeView:
        """``node`` as a filter sees it with the ledger's copies, and ``copies`` copies
        under ``rules``, bound to it."""
        requested = dict(node.requested)
        for resource, amount in self.requested.get(node.name, {}).items():
            requested[resource] = requested.get(resource, 0) + amount
        ports = node.used_ports | self.ports.get(node.name, frozenset())
        if rules is not None and copies:
            for resource, amount in rules.requests.items():
                requested[resource] = requested.get(resource, 0) + amount * copies
            ports |= frozenset(rules.host_ports)
        return NodeView(
            name=node.name,
            labels=node.labels,
            taints=node.taints,
            unschedulable=node.unschedulable,
            allocatable=node.allocatable,
            requested=requested,
            pod_count=node.pod_count + self.pods.get(node.name, 0) + copies,
            used_ports=ports,
        )


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


def set_bits(bits: int) -> Iterator[int]:
    """Positions of the set bits, lowest first, one step per set bit."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


LabelBits = Callable[[str], Mapping[str, int]]
"""A label key -> the nodes (a bitset) by their value of it (the node index's classes)."""


MIN_FEASIBLE_NODES_TO_FIND = 100  # schedule_one.go minFeasibleNodesToFind
MIN_FEASIBLE_NODES_PERCENTAGE = 5  # minFeasibleNodesPercentageToFind


def feasible_nodes_to_find(all_nodes: int) -> int:
    """numFeasibleNodesToFind with percentageOfNodesToScore unset (adaptive): every node
    under 100, else ``all * max(50 - all // 125, 5) // 100`` and at least 100.

    >>> feasible_nodes_to_find(1000), feasible_nodes_to_find(5000)
    (420, 500)
    """
    if all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return all_nodes
    percentage = max(50 - all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE)
    return max(all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


class _Run:
    """One placement: the copies so far, the nodes in classes alike in everything the
    filters and scores read (module doc), the domain counts the copies raise."""

    def __init__(
        self,
        nodes: Sequence[NodeView],
        rules: CopyRules,
        scores: ScoreRules,
        candidates: int,
        ledger: Ledger | None,
    ) -> None:
        self.nodes, self.rules, self.scores = nodes, rules, scores
        self.anti_keys = [k for k in rules.one_per_domain if k != HOSTNAME]
        self.counts = [dict(rule.counts) for rule in rules.spread]
        self.taken: list[set[str | None]] = [set() for _ in self.anti_keys]
        self.copies: dict[int, int] = {}
        cpu, memory = SCORED
        self.actual = (rules.requests.get(cpu, 0), rules.requests.get(memory, 0))
        self.caps: dict[int, int] = {}
        self.base: dict[int, tuple[int, int]] = {}
        self.static: dict[int, tuple[object, ...]] = {}
        self.taint: dict[int, int] = {}
        self.preferred: dict[int, int] = {}
        self.classes: dict[tuple[object, ...], set[int]] = {}
        self.resource_scores: dict[tuple[object, ...], tuple[int, int | None]] = {}
        self.soft = scores.spread
        self.interpod = scores.interpod
        self.interpod_copies: list[dict[str, int]] = [
            {} for _ in (self.interpod.keys if self.interpod else ())
        ]
        self.zone = self._zone_counts(ledger)
        for p in set_bits(candidates):
            self._describe(p, ledger)
            self.classes.setdefault(self._key(p), set()).add(p)

    def _describe(self, p: int, ledger: Ledger | None) -> None:
        node = self.nodes[p]
        taken = ledger.requested.get(node.name, {}) if ledger else {}
        self.caps[p] = capacity(node, self.rules, ledger)
        self.base[p] = (
            node.requested.get(SCORED[0], 0) + taken.get(SCORED[0], 0),
            node.requested.get(SCORED[1], 0) + taken.get(SCORED[1], 0),
        )
        allocatable = (node.allocatable.get(SCORED[0], 0), node.allocatable.get(SCORED[1], 0))
        keys = [r.topology_key for r in self.rules.spread] + self.anti_keys
        domains = tuple(node.labels.get(k) for k in keys if k != HOSTNAME)
        hard_host = tuple(
            self.counts[k].get(node.labels.get(HOSTNAME, ""), 0)
            for k, r in enumerate(self.rules.spread)
            if r.topology_key == HOSTNAME
        )
        soft: tuple[object, ...] = ()
        if self.soft is not None:
            soft = (
                *(
                    c.existing.get(p, 0)
                    if c.topology_key == HOSTNAME
                    else node.labels.get(c.topology_key)
                    for c in self.soft.constraints
                ),
                self._ignored(node),
            )
        self.taint[p] = self.scores.taints(node)
        self.preferred[p] = self.scores.affinity(node)
        interpod = tuple(node.labels.get(k) for k in self.interpod.keys) if self.interpod else ()
        self.static[p] = (
            interpod,
            self.caps[p],
            self.base[p],
            allocatable,
            self.taint[p],
            self.preferred[p],
            domains,
            hard_host,
            soft,
        )

    def _ignored(self, node: NodeView) -> bool:
        soft = self.soft
        return (
            soft is not None
            and soft.require_all
            and any(c.topology_key not in node.labels for c in soft.constraints)
        )

    def _zone_counts(self, ledger: Ledger | None) -> list[dict[str, int]]:
        """Per soft constraint over a zone-like key: the matching pods by domain, over the
        nodes whose pods count (PreScore's processAllNode)."""
        soft = self.soft
        if soft is None:
            return []
        found: list[dict[str, int]] = []
        for c in soft.constraints:
            counts: dict[str, int] = {}
            if c.topology_key != HOSTNAME:
                for p, n in c.existing.items():
                    if self._counts_toward(p):
                        value = self.nodes[p].labels.get(c.topology_key, "")
                        counts[value] = counts.get(value, 0) + n
            found.append(counts)
        return found

    def _counts_toward(self, p: int) -> bool:
        soft = self.soft
        return soft is not None and bool(soft.counted >> p & 1) and not self._ignored(self.nodes[p])

    def _key(self, p: int) -> tuple[object, ...]:
        return (self.static[p], self.copies.get(p, 0))

    def allowed(self, p: int, minimums: Sequence[int]) -> bool:
        """Every filter the copies change passes node ``p`` for the next copy."""
        if self.caps[p] - self.copies.get(p, 0) <= 0:
            return False
        labels = self.nodes[p].labels
        for k, rule in enumerate(self.rules.spread):
            domain = labels.get(rule.topology_key)
            if domain is None:
                return False
            skew = self.counts[k].get(domain, 0) + rule.self_match - minimums[k]
            if skew > rule.max_skew:
                return False
        for k, key in enumerate(self.anti_keys):
            domain = labels.get(key)
            if domain is not None and domain in self.taken[k]:
                return False
        return True

    def minimums(self) -> list[int]:
        return [
            min(counts.values(), default=0) if len(counts) >= rule.min_domains else 0
            for counts, rule in zip(self.counts, self.rules.spread, strict=True)
        ]

    def feasible(self) -> list[tuple[int, set[int]]]:
        """The classes whose nodes pass for the next copy, each with a representative."""
        minimums = self.minimums()
        found = []
        for members in self.classes.values():
            if members:
                p = next(iter(members))
                if self.allowed(p, minimums):
                    found.append((p, members))
        return found

    def totals(self, feasible: Sequence[tuple[int, set[int]]]) -> list[int]:
        """Each feasible class's total score (RunScorePlugins, module doc)."""
        least, balanced, taints, affinity = [], [], [], []
        for p, _ in feasible:
            key = self._key(p)
            found = self.resource_scores.get(key)
            if found is None:
                found = self.resource_scores[key] = self._resource_scores(p)
            least.append(found[0])
            if found[1] is not None:
                balanced.append(found[1])
            taints.append(self.taint[p])
            affinity.append(self.preferred[p])
        taint_scores = default_normalize(taints, reverse=True)
        affinity_scores = default_normalize(affinity)
        spread_scores = self._spread(feasible)
        interpod_scores = self._interpod(feasible)
        totals = []
        for i in range(len(feasible)):
            total = (
                WEIGHTS[NODE_RESOURCES_FIT] * least[i]
                + WEIGHTS[TAINT_TOLERATION] * taint_scores[i]
                + WEIGHTS[NODE_AFFINITY] * affinity_scores[i]
                + WEIGHTS[POD_TOPOLOGY_SPREAD] * spread_scores[i]
                + WEIGHTS[INTER_POD_AFFINITY] * interpod_scores[i]
                + WEIGHTS[IMAGE_LOCALITY] * image_locality()
            )
            if balanced:
                total += WEIGHTS[BALANCED_ALLOCATION] * balanced[i]
            totals.append(total)
        return totals

    def _resource_scores(self, p: int) -> tuple[int, int | None]:
        """LeastAllocated and BalancedAllocation (None: skipped) for the next copy on
        ``p``: a class's, worked out once."""
        node, held = self.nodes[p], self.copies.get(p, 0) + 1
        allocatable = (node.allocatable.get(SCORED[0], 0), node.allocatable.get(SCORED[1], 0))
        base, nonzero = self.base[p], self.scores.nonzero
        least = least_allocated(
            (base[0] + held * nonzero[0], base[1] + held * nonzero[1]), allocatable
        )
        actual = self.scores.balanced
        if actual is None:
            return least, None
        return least, balanced_allocation(
            (base[0] + held * actual[0], base[1] + held * actual[1]), allocatable
        )

    def _interpod(self, feasible: Sequence[tuple[int, set[int]]]) -> list[int]:
        scoring = self.interpod
        if scoring is None:
            return [0] * len(feasible)
        raw = []
        for p, _ in feasible:
            labels = self.nodes[p].labels
            score = 0
            for k, key in enumerate(scoring.keys):
                value = labels.get(key)
                if value is not None:
                    copies = self.interpod_copies[k].get(value, 0)
                    score += scoring.existing[k].get(value, 0) + scoring.per_copy[k] * copies
            raw.append(score)
        return interpod_normalize(raw)

    def _spread(self, feasible: Sequence[tuple[int, set[int]]]) -> list[int]:
        soft = self.soft
        if soft is None:
            return [0] * len(feasible)
        kept = [(p, m) for p, m in feasible if not self._ignored(self.nodes[p])]
        weights = []
        for c in soft.constraints:
            if c.topology_key == HOSTNAME:
                size = sum(len(m) for _, m in kept)
            else:
                size = len({self.nodes[p].labels.get(c.topology_key, "") for p, _ in kept})
            weights.append(normalizing_weight(size))
        raw: list[int | None] = []
        for p, _ in feasible:
            node = self.nodes[p]
            if self._ignored(node):
                raw.append(None)
                continue
            score = 0.0
            for k, c in enumerate(soft.constraints):
                value = node.labels.get(c.topology_key)
                if value is None:
                    continue
                if c.topology_key == HOSTNAME:
                    count = c.existing.get(p, 0) + self.copies.get(p, 0) * c.self_match
                else:
                    count = self.zone[k].get(value, 0)
                score += score_for_count(count, c.max_skew, weights[k])
            raw.append(go_round(score))
        return spread_normalize(raw)

    def take(self, p: int) -> None:
        """A copy lands on node ``p``."""
        self.classes[self._key(p)].discard(p)
        self.copies[p] = self.copies.get(p, 0) + 1
        labels = self.nodes[p].labels
        for k, rule in enumerate(self.rules.spread):
            domain = labels.get(rule.topology_key)
            if rule.self_match and domain is not None and domain in self.counts[k]:
                self.counts[k][domain] += 1
        for k, key in enumerate(self.anti_keys):
            self.taken[k].add(labels.get(key))
        if self.interpod is not None:
            for k, key in enumerate(self.interpod.keys):
                value = labels.get(key)
                if value is not None:
                    self.interpod_copies[k][value] = self.interpod_copies[k].get(value, 0) + 1
        if self.soft is not None and self._counts_toward(p):
            for k, c in enumerate(self.soft.constraints):
                if c.topology_key != HOSTNAME and c.self_match:
                    value = labels.get(c.topology_key, "")
                    self.zone[k][value] = self.zone[k].get(value, 0) + 1
        self.classes.setdefault(self._key(p), set()).add(p)


def place(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    candidates: int | None = None,
    *,
    ledger: Ledger | None = None,
    label_bits: LabelBits | None = None,
    scores: ScoreRules | None = None,
    policy: TiePolicy = "first",
    count_only: bool = False,
) -> Placement:
    """Copies of one pod on the ``candidates`` (a bitset over ``nodes`` of those that may
    take one: every node by default), each filtered, scored and selected as the module doc
    says, ties broken by ``policy``. ``label_bits`` groups nodes by a label's values
    (built from ``nodes`` when not given).

    Copies that no spread or zone-wide anti-affinity couples fill the nodes' capacities
    whatever the order: their count is ``min(wanted, sum of capacities)``, in arithmetic,
    and when they all fit a node's share is worked out only when asked (``count_only``
    false: the copies are then placed one by one, as scored)."""
    fitting = (1 << len(nodes)) - 1 if candidates is None else candidates
    sampled = len(nodes) > MIN_FEASIBLE_NODES_TO_FIND
    if sampled and uncoupled(rules):
        return _filled(wanted, nodes, rules, fitting, ledger)
    if sampled and all(rule.topology_key != HOSTNAME for rule in rules.spread):
        return _by_domain(wanted, nodes, rules, fitting, ledger, label_bits)
    if uncoupled(rules):
        caps = capacities(nodes, rules, fitting, ledger)
        room = sum(caps.values())
        if room <= wanted:  # every node fills up, whatever the order
            return Placement(wanted=wanted, fit=room, copies=caps)
        if count_only:
            return Placement(wanted=wanted, fit=wanted, copies={})
    run = _Run(nodes, rules, scores or ScoreRules.of(rules.requests), fitting, ledger)
    draw = random.Random(policy) if isinstance(policy, int) else None
    tied = False
    for _ in range(wanted):
        feasible = run.feasible()
        if not feasible:
            break
        if len(feasible) == 1 and len(feasible[0][1]) == 1:
            run.take(feasible[0][0])
            continue
        totals = run.totals(feasible)
        best = max(totals)
        top = [
            members for (_, members), total in zip(feasible, totals, strict=True) if total == best
        ]
        tied = tied or len(top) > 1
        run.take(_pick(top, policy, draw))
    copies = {p: c for p, c in sorted(run.copies.items())}
    return Placement(wanted=wanted, fit=sum(copies.values()), copies=copies, tied=tied)


def _filled(
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


def uncoupled(rules: CopyRules) -> bool:
    """Whether no copy can change another node's answer (no spread constraint, no
    anti-affinity wider than a node): then the order of the copies cannot change their
    count, and no tie can."""
    return not rules.spread and all(key == HOSTNAME for key in rules.one_per_domain)


def capacities(
    nodes: Sequence[NodeView], rules: CopyRules, candidates: int, ledger: Ledger | None = None
) -> dict[int, int]:
    """The copies each candidate holds by its room alone (nodes holding none absent)."""
    found = {}
    for position in set_bits(candidates):
        held = capacity(nodes[position], rules, ledger)
        if held > 0:
            found[position] = held
    return found


def _pick(top: Sequence[set[int]], policy: TiePolicy, draw: random.Random | None) -> int:
    if policy == "last":
        return max(max(members) for members in top)
    if draw is None:
        return min(min(members) for members in top)
    tied = sorted(p for members in top for p in members)
    return tied[draw.randrange(len(tied))]


def place_range(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    candidates: int | None = None,
    *,
    ledger: Ledger | None = None,
    scores: ScoreRules | None = None,
    count_only: bool = False,
) -> FitRange:
    """The copies placed with each tie policy of :data:`POLICIES` while some draw was
    between nodes that are not interchangeable: the least and the most found, and the
    placement of the least (ties: the earlier policy)."""
    first = place(
        wanted, nodes, rules, candidates, ledger=ledger, scores=scores, count_only=count_only
    )
    if not first.tied or first.fit == 0 or uncoupled(rules):
        return FitRange(first.fit, first.fit, first)
    found = [first]
    for policy in POLICIES[1:]:
        found.append(
            place(wanted, nodes, rules, candidates, ledger=ledger, scores=scores, policy=policy)
        )
    least = min(found, key=lambda p: p.fit)
    return FitRange(least.fit, max(p.fit for p in found), least)


def _by_domain(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    fitting: int,
    ledger: Ledger | None,
    label_bits: LabelBits | None,
) -> Placement:
    """Copies coupled by zone-wide domains on a cluster where the scheduler scores only a
    share of the feasible nodes (more than 100): one copy at a time over the groups of
    nodes that share their domains, each to an allowed group whose spread domains hold
    the fewest matching pods, within it as :func:`fill_order` goes. Every group is asked
    again for every copy, so a domain the skew refused once takes copies as the counts
    even out. The cost is copies x groups, not copies x nodes."""
    keys = [k for k in rules.one_per_domain if k != HOSTNAME]

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
