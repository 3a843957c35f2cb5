"""What limits and steers the copies of one pod, and what earlier copies hold.

The values :mod:`gate.scheduler.placement.copies` places copies with: the filters' part the copies
change (:class:`CopyRules`: requests, host ports, anti-affinity against their own labels,
DoNotSchedule spread counts), the score plugins' inputs (:class:`ScoreRules`), the room the
run's earlier workloads took (:class:`Ledger`), a node's capacity for copies, and what a
placement found (:class:`Placement`, :class:`FitRange`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace

from gate.k8s.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from gate.k8s.selectors import LabelSelector
from gate.model import HostPort, NodeView
from gate.model.storage import Mount
from gate.scheduler.framework.cluster import with_pods
from gate.scheduler.framework.scores import Carried, Incoming
from gate.scheduler.placement.mixes import Mix, mix_at, with_daemon
from gate.scheduler.plugins.interpodaffinity.copies import one_per_node
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring
from gate.scheduler.plugins.nodeports import copies_collide, port_conflicts
from gate.scheduler.plugins.noderesources import SCORED, Nonzero, copies_in, per_copy
from gate.scheduler.plugins.podtopologyspread.copies import counts_copies, land
from gate.scheduler.plugins.podtopologyspread.scoring import SpreadScoring
from gate.scheduler.plugins.volumerestrictions import CONFLICTING_SOURCES, conflicts

PODS = "pods"


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
    selector: LabelSelector | None = None  # None: no other workload's copies are counted

    @property
    def raises(self) -> bool:
        """Whether a copy, once bound, raises its domain's count for the next one."""
        return counts_copies(self.self_match, self.selector)


@dataclass(frozen=True, slots=True)
class CopyRules:
    """What limits the copies of one pod beyond its first one."""

    requests: Mapping[str, int] = field(default_factory=dict)
    host_ports: tuple[HostPort, ...] = ()
    one_per_domain: tuple[str, ...] = ()  # topology keys of self anti-affinity terms
    spread: tuple[SpreadRule, ...] = ()
    namespace: str = ""  # the pod's: a spread constraint counts pods of it only
    follow_first: tuple[str, ...] = ()  # keys of self affinity terms no pod matches yet
    disks_collide: bool = False  # two copies mount a disk VolumeRestrictions keeps apart
    names: frozenset[str] | None = None
    """The nodes NodeAffinity's PreFilter narrows each copy to by name (None: every node):
    the scheduler filters and scores among those alone (findNodesThatFitPod)."""


def disks_collide(mounts: Sequence[Mount]) -> bool:
    """Whether two copies of a pod mounting ``mounts`` refuse each other's node: one's
    in-tree disk conflicts with the other's (VolumeRestrictions' ``isVolumeConflict``: the
    same EBS volume, or GCE PD, RBD image or iSCSI IQN not read-only in both)."""
    disks = [m for m in mounts if m.source in CONFLICTING_SOURCES]
    return any(conflicts(disk, other) for disk in disks for other in disks)


def _no_score(node: NodeView) -> int:
    return 0


DEFAULT_NONZERO = Nonzero.alike((DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST))
"""A pod naming no cpu or memory request, as the resource scores count it."""


@dataclass(frozen=True, slots=True)
class ScoreRules:
    """What the score plugins read of the pod, a field per plugin (its record's ``part``,
    worked out by its PreScore): its cpu and memory requests with the non-zero defaults
    (LeastAllocated) and as written (BalancedAllocation; None for a best effort pod, which
    it skips), the intolerable PreferNoSchedule taints of a node, the weight of the
    preferred node affinity terms a node matches, the spread scoring and the inter-pod
    affinity scoring."""

    nonzero: Nonzero = DEFAULT_NONZERO
    balanced: tuple[int, int] | None = None
    taints: Callable[[NodeView], int] = _no_score
    affinity: Callable[[NodeView], int] = _no_score
    spread: SpreadScoring | None = None
    interpod: AffinityScoring | None = None
    incoming: Incoming | None = None  # who the pod is, as earlier copies' terms read it

    @classmethod
    def of(cls, requests: Mapping[str, int]) -> ScoreRules:
        """Scores for a pod of one container with these requests and nothing preferred."""
        cpu, memory = (requests.get(r, 0) for r in SCORED)
        return cls(
            nonzero=Nonzero.alike(
                (cpu or DEFAULT_MILLI_CPU_REQUEST, memory or DEFAULT_MEMORY_REQUEST)
            ),
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
    """The least and the most copies found over the draws walked or the tie policies
    tried, and the placement that gave the least (the verdict's)."""

    least: int
    most: int
    placement: Placement


@dataclass(slots=True, eq=False)
class Ledger:
    """Room already taken on nodes by copies placed earlier in the run, by node name; and
    by node, the copies each earlier workload holds there. While it holds DaemonSets' pods
    only, they are kept by mix (:attr:`mixes`) and a node's entries written when read."""

    rules: dict[str, CopyRules] = field(default_factory=dict)
    labels: dict[str, Mapping[str, str]] = field(default_factory=dict)
    terms: dict[str, Carried] = field(default_factory=dict)
    """By earlier workload whose pods carry any, the terms that score a later pod."""
    daemons_only: bool = True
    """No copies but DaemonSets' pods (:meth:`take_daemon`) are on the ledger yet, so
    :attr:`layers` and :attr:`daemons` hold all it holds."""
    layers: dict[tuple[tuple[str, int], ...], int] = field(default_factory=dict)
    """The nodes holding DaemonSets' pods, as bitsets over the run's nodes, by what those
    pods take on each: the pod slots and every resource requested (few sets for many
    nodes: DaemonSets take the same room on every node they target)."""
    daemons: dict[str, int] = field(default_factory=dict)
    """By DaemonSet, the nodes holding its pod, as a bitset over the run's nodes."""
    full: dict[str, dict[int, int]] = field(default_factory=dict, compare=False, repr=False)
    """By resource (the pod slot included) and amount, nodes of :attr:`full_of` found
    without that much of it left beside the ledger's copies, as a bitset. The ledger only
    ever takes room, so such a node holds no copy that asks as much or more for the rest
    of the run: later placements skip it (beside a large run's earlier copies most nodes
    a fill walks are full)."""
    full_of: list[Sequence[NodeView]] = field(default_factory=list, compare=False, repr=False)
    """The nodes :attr:`full`'s bitsets are over (the run's, the first asked)."""
    mixes: list[tuple[int, Mix]] | None = field(default_factory=list)
    """While the ledger holds DaemonSets' pods only, the nodes holding them (bitsets over
    :attr:`mixes_of`) by the mix of them they hold (:mod:`gate.scheduler.placement.mixes`);
    the per-node entries are written from them when read. None once the entries are kept
    node by node."""
    mixes_of: Sequence[NodeView] | None = field(default=None, repr=False)
    """The nodes :attr:`mixes`' bitsets are over (the run's, the first DaemonSet's)."""
    _requested: dict[str, dict[str, int]] = field(default_factory=dict, init=False)
    _pods: dict[str, int] = field(default_factory=dict, init=False)
    _ports: dict[str, frozenset[HostPort]] = field(default_factory=dict, init=False)
    _takers: dict[str, dict[str, int]] = field(default_factory=dict, init=False)
    _nonzero: dict[str, tuple[int, int]] = field(default_factory=dict, init=False)
    _stale: bool = field(default=False, init=False)
    """Some node's entries lag :attr:`mixes`: only those in :attr:`_fresh` are written."""
    _fresh: set[str] = field(default_factory=set, init=False)
    _positions: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    @property
    def requested(self) -> dict[str, dict[str, int]]:
        """By node, the resources its copies request (each amount times its copies)."""
        self._settle()
        return self._requested

    @property
    def pods(self) -> dict[str, int]:
        """By node, the pod slots its copies take."""
        self._settle()
        return self._pods

    @property
    def ports(self) -> dict[str, frozenset[HostPort]]:
        """By node, the host ports its copies hold (nodes where they hold none are absent)."""
        self._settle()
        return self._ports

    @property
    def takers(self) -> dict[str, dict[str, int]]:
        """By node, by earlier workload, the copies it holds there."""
        self._settle()
        return self._takers

    @property
    def nonzero(self) -> dict[str, tuple[int, int]]:
        """By node, its copies' cpu and memory as the resource scores count them."""
        self._settle()
        return self._nonzero

    def _settle(self) -> None:
        """Every node's entries written from :attr:`mixes` (its own dicts: :meth:`take`
        adds to them in place)."""
        if not self._stale or self.mixes is None or self.mixes_of is None:
            return
        nodes = self.mixes_of
        for bits, mix in self.mixes:
            for position in set_bits(bits):
                self._write(nodes[position].name, mix)
        self._stale = False
        self._fresh.clear()

    def _look(self, name: str) -> None:
        """Node ``name``'s entries written from :attr:`mixes`, when they lag: a read of
        one node between DaemonSets (a refusal's view) leaves the others be."""
        if name in self._fresh or self.mixes is None or self.mixes_of is None:
            return
        self._fresh.add(name)
        if not self._positions:
            self._positions = {node.name: p for p, node in enumerate(self.mixes_of)}
        position = self._positions.get(name)
        mix = None if position is None else mix_at(self.mixes, position)
        if mix is not None:
            self._write(name, mix)

    def _write(self, name: str, mix: Mix) -> None:
        self._requested[name] = dict(mix.requested)
        self._nonzero[name] = mix.nonzero
        self._pods[name] = mix.pods
        if mix.ports:
            self._ports[name] = mix.ports
        self._takers[name] = dict(mix.takers)

    def _by_node(self) -> None:
        """Every node's entries written, and kept node by node from now on."""
        self._settle()
        self.mixes = None

    def take(
        self,
        node: str,
        rules: CopyRules,
        copies: int,
        taker: str,
        nonzero: tuple[int, int] | None = None,
        labels: Mapping[str, str] | None = None,
        terms: Carried = (),
    ) -> None:
        """``copies`` copies of ``taker``'s pod now hold their room on ``node``; ``nonzero``:
        each copy's cpu and memory as the resource scores count them once bound
        (``ScoreRules.nonzero.bound``; None: its requests'); ``labels``: the pod's, which
        later workloads' spread constraints count (:func:`spread_counts`); ``terms``: those
        it carries that score a later pod (:attr:`terms`)."""
        if copies <= 0:
            return
        self.daemons_only = False
        self._by_node()
        self._giving_back(rules)
        used = self._requested.setdefault(node, {})
        for resource, amount in rules.requests.items():
            used[resource] = used.get(resource, 0) + amount * copies
        if nonzero is None:
            nonzero = (rules.requests.get(SCORED[0], 0), rules.requests.get(SCORED[1], 0))
        cpu, memory = self._nonzero.get(node, (0, 0))
        self._nonzero[node] = (cpu + nonzero[0] * copies, memory + nonzero[1] * copies)
        self._pods[node] = self._pods.get(node, 0) + copies
        if rules.host_ports:
            self._ports[node] = self._ports.get(node, frozenset()) | frozenset(rules.host_ports)
        held = self._takers.setdefault(node, {})
        held[taker] = held.get(taker, 0) + copies
        self.rules[taker] = rules
        if labels is not None:
            self.labels[taker] = labels
        if terms:
            self.terms[taker] = terms

    def take_each(
        self,
        nodes: Iterable[str],
        rules: CopyRules,
        taker: str,
        nonzero: tuple[int, int],
        labels: Mapping[str, str],
        terms: Carried = (),
    ) -> None:
        """One copy of ``taker``'s pod on each of ``nodes`` (a DaemonSet's): :meth:`take`
        once per node, its lookups hoisted."""
        self._by_node()
        requests = [(r, amount) for r, amount in rules.requests.items()]
        self._giving_back(rules)
        ports = frozenset(rules.host_ports)
        requested, held, pods, takers = self._requested, self._nonzero, self._pods, self._takers
        cpu, memory = nonzero
        for node in nodes:
            used = requested.get(node)
            if used is None:
                used = requested[node] = {}
            for resource, amount in requests:
                used[resource] = used.get(resource, 0) + amount
            was = held.get(node)
            held[node] = (cpu, memory) if was is None else (was[0] + cpu, was[1] + memory)
            pods[node] = pods.get(node, 0) + 1
            if ports:
                self._ports[node] = self._ports.get(node, frozenset()) | ports
            there = takers.get(node)
            if there is None:
                takers[node] = {taker: 1}
            else:
                there[taker] = there.get(taker, 0) + 1
        self.rules[taker] = rules
        self.labels[taker] = labels
        if terms:
            self.terms[taker] = terms

    def _giving_back(self, rules: CopyRules) -> None:
        """A negative request would give room back: what :attr:`full` holds no longer holds."""
        if self.full and any(amount < 0 for amount in rules.requests.values()):
            self.full.clear()

    def known_full(self, nodes: Sequence[NodeView], rules: CopyRules) -> int:
        """The nodes (a bitset over ``nodes``) known to hold no copy under ``rules``."""
        if not self.full or not self.full_of or self.full_of[0] is not nodes:
            return 0
        bits = 0
        for resource, amount in ((PODS, 1), *per_copy(rules.requests)):
            for short, nodes_short in self.full.get(resource, {}).items():
                if short <= amount:
                    bits |= nodes_short
        return bits

    def found_full(self, nodes: Sequence[NodeView], rules: CopyRules, full: list[int]) -> None:
        """The nodes at ``full`` (positions in ``nodes``) found to hold no copy under
        ``rules``: kept by the resource they lack (not by a host port's conflict)."""
        if not self.full_of:
            self.full_of.append(nodes)
        if self.full_of[0] is not nodes:
            return
        for position in full:
            lacking = self.lacking(nodes[position], rules)
            if lacking is None or not lacking[0]:
                continue
            resource = lacking[0][0]
            amount = 1 if resource == PODS else rules.requests[resource]
            by_amount = self.full.setdefault(resource, {})
            by_amount[amount] = by_amount.get(amount, 0) | 1 << position

    def take_daemon(
        self,
        nodes: Sequence[NodeView],
        bits: int,
        rules: CopyRules,
        taker: str,
        nonzero: tuple[int, int],
        labels: Mapping[str, str],
        terms: Carried = (),
    ) -> None:
        """A DaemonSet's pod on each node of ``bits`` (positions in ``nodes``, the run's):
        :meth:`take_each`, and while the ledger holds DaemonSets' pods only, its layers; the
        nodes' entries are then written from its :attr:`mixes` when read."""
        if (
            self.daemons_only
            and self.mixes is not None
            and (self.mixes_of is None or self.mixes_of is nodes)
        ):
            self._giving_back(rules)
            ports = frozenset(rules.host_ports)
            requests = list(rules.requests.items())
            self.mixes = with_daemon(self.mixes, bits, requests, nonzero, ports, taker)
            self.mixes_of = nodes
            self._stale = self._stale or bool(bits)
            self._fresh.clear()
            self.rules[taker] = rules
            self.labels[taker] = labels
            if terms:
                self.terms[taker] = terms
        else:
            names = (nodes[p].name for p in set_bits(bits))
            self.take_each(names, rules, taker, nonzero, labels, terms)
        if not self.daemons_only or not bits:
            return
        pod = {r: a for r, a in rules.requests.items() if a > 0 and r != PODS}
        pod[PODS] = 1
        layers: dict[tuple[tuple[str, int], ...], int] = {}
        rest = bits
        for key, held in self.layers.items():
            if held & ~bits:
                layers[key] = layers.get(key, 0) | held & ~bits
            inside = held & bits
            if inside:
                taken = dict(key)
                for resource, amount in pod.items():
                    taken[resource] = taken.get(resource, 0) + amount
                more = tuple(sorted(taken.items()))
                layers[more] = layers.get(more, 0) | inside
                rest &= ~inside
        if rest:
            first = tuple(sorted(pod.items()))
            layers[first] = layers.get(first, 0) | rest
        self.layers = layers
        self.daemons[taker] = self.daemons.get(taker, 0) | bits

    def room_for_one(self, node: NodeView, rules: CopyRules) -> bool:
        """Whether ``node`` holds one copy under ``rules`` beside the ledger's copies, by
        its free room alone (:func:`capacity` at least 1, counted without building the
        node's view: a new DaemonSet's pods are on every node)."""
        return self.lacking(node, rules) is None

    def lacking(self, node: NodeView, rules: CopyRules) -> tuple[tuple[str, ...], bool] | None:
        """What ``node`` lacks for one copy under ``rules`` beside the ledger's copies: the
        resources short (the pod slot first, then in request order) and whether a host
        port is taken; None when it has room. Nodes that lack the same are refused alike
        by the room plugins, for a pod that fits each of them alone."""
        name = node.name
        if self._stale:
            self._look(name)
        allocatable, requested = node.allocatable, node.requested
        short: list[str] = []
        if allocatable.get(PODS, 0) - node.pod_count - self._pods.get(name, 0) < 1:
            short.append(PODS)
        taken = self._requested.get(name)
        for resource, amount in rules.requests.items():
            if amount > 0 and resource != PODS:
                free = allocatable.get(resource, 0) - requested.get(resource, 0)
                if free - (taken.get(resource, 0) if taken else 0) < amount:
                    short.append(resource)
        used = self._ports.get(name, frozenset())
        ports = bool(used) and any(port_conflicts(port, used) for port in rules.host_ports)
        return (tuple(short), ports) if short or ports else None

    def port_clashes(self, nodes: Sequence[NodeView], rules: CopyRules) -> int | None:
        """While the ledger holds DaemonSets' pods only, the nodes (a bitset over
        ``nodes``) where a host port they hold keeps a pod under ``rules`` out, as
        :meth:`lacking` finds it; None when only asking node by node tells."""
        if not rules.host_ports:
            return 0
        if not self.daemons_only or self.mixes is None or self.mixes_of is not nodes:
            return None if self.ports else 0
        clashes = 0
        for bits, mix in self.mixes:
            if mix.ports and any(port_conflicts(port, mix.ports) for port in rules.host_ports):
                clashes |= bits
        return clashes

    def holds(self, node: str) -> bool:
        """Whether earlier copies hold anything on ``node``."""
        if self._stale:
            self._look(node)
        return node in self._pods

    def view(self, node: NodeView, rules: CopyRules | None = None, copies: int = 0) -> NodeView:
        """``node`` as a filter sees it with the ledger's copies, and ``copies`` copies
        under ``rules``, bound to it (``nonzero``, which no filter reads, with the ledger's
        copies only)."""
        if self._stale:
            self._look(node.name)
        requested = dict(node.requested)
        for resource, amount in self._requested.get(node.name, {}).items():
            requested[resource] = requested.get(resource, 0) + amount
        ports = node.used_ports | self._ports.get(node.name, frozenset())
        nonzero = self.scored(node)
        if rules is not None and copies:
            for resource, amount in rules.requests.items():
                requested[resource] = requested.get(resource, 0) + amount * copies
            ports |= frozenset(rules.host_ports)
        pod_count = node.pod_count + self._pods.get(node.name, 0) + copies
        return with_pods(node, requested, pod_count, ports, nonzero)

    def scored(self, node: NodeView) -> tuple[int, int]:
        """``node``'s cpu and memory as the resource scores read them, the ledger's copies
        included (NodeView.scored_requests)."""
        if self._stale:
            self._look(node.name)
        cpu, memory = node.scored_requests
        taken = self._nonzero.get(node.name, (0, 0))
        return cpu + taken[0], memory + taken[1]


def capacity(node: NodeView, rules: CopyRules, ledger: Ledger | None = None) -> int:
    """How many copies ``node`` holds by its free room alone (0 when it holds none)."""
    return capacity_of(rules, ledger)(node)


def capacity_of(rules: CopyRules, ledger: Ledger | None = None) -> Callable[[NodeView], int]:
    """:func:`capacity` under ``rules`` beside ``ledger``'s copies, what it reads of them
    looked up once: a placement asks it of many nodes (beside the run's earlier copies most
    of those it walks hold none)."""
    wanted = per_copy(rules.requests)
    resources = [resource for resource, _ in wanted]
    ports = rules.host_ports
    at_most_one = copies_collide(ports) or one_per_node(rules.one_per_domain) or rules.disks_collide
    none: Mapping[str, int] = {}
    taken_on = ledger.requested if ledger else {}
    pods_on = ledger.pods if ledger else {}
    ports_on = ledger.ports if ledger else {}

    def of(node: NodeView) -> int:
        name = node.name
        allocatable, requested = node.allocatable, node.requested
        taken = taken_on.get(name, none)
        slots = allocatable.get(PODS, 0) - node.pod_count - pods_on.get(name, 0)
        free = [allocatable.get(r, 0) - requested.get(r, 0) - taken.get(r, 0) for r in resources]
        room = copies_in(wanted, slots, free)
        if ports:
            taken_ports = ports_on.get(name, frozenset())
            if any(port_conflicts(port, taken_ports) for port in ports):
                return 0
        return min(room, 1) if at_most_one else room

    return of


_FEW_BITS = 16
"""Up to this many set bits are taken off the integer one by one; past it, they are found
in its binary text: each step off a 5,000-node integer builds another of that size, and a
set of every node took 2.5 times as long so."""


def set_bits(bits: int) -> Iterator[int]:
    """Positions of the set bits, lowest first."""
    if bits.bit_count() <= _FEW_BITS:
        while bits:
            low = bits & -bits
            yield low.bit_length() - 1
            bits ^= low
        return
    text = format(bits, "b")  # the highest bit first
    top = len(text) - 1
    found = text.rfind("1")
    while found >= 0:
        yield top - found
        found = text.rfind("1", 0, found)


def counted_takers(rule: SpreadRule, namespace: str, ledger: Ledger) -> set[str]:
    """The earlier workloads whose copies ``rule`` counts: pods of ``namespace`` its
    selector matches (countPodsMatchSelector; an empty selector counts none)."""
    selector = rule.selector
    if selector is None or selector.empty:
        return set()
    return {
        taker
        for taker, labels in ledger.labels.items()
        if ledger.rules[taker].namespace == namespace and selector.matches(labels)
    }


def spread_counts(
    rules: CopyRules, nodes: Sequence[NodeView], ledger: Ledger | None
) -> tuple[dict[str, int], ...]:
    """Per spread constraint, the matching pods by domain with the run's earlier copies
    counted: a copy on a node whose domain takes part (PreFilter's calPreFilterState) adds
    to it, as a pod bound there would."""
    counts = tuple(dict(rule.counts) for rule in rules.spread)
    if ledger is None or not ledger.labels:
        return counts
    matched = [counted_takers(rule, rules.namespace, ledger) for rule in rules.spread]
    if not any(matched):
        return counts
    for node in nodes:
        held = ledger.takers.get(node.name)
        if not held:
            continue
        for k, rule in enumerate(rules.spread):
            copies = sum(n for taker, n in held.items() if taker in matched[k])
            land(counts[k], node.labels.get(rule.topology_key), True, copies)
    return counts


class EarlierCopies:
    """The ledger's copies as the score plugins' PreScores read pods
    (:class:`gate.scheduler.framework.scores.Earlier`): the earlier workloads whose
    labels and terms it keeps, and where their copies are on ``nodes``."""

    def __init__(self, nodes: Sequence[NodeView], ledger: Ledger) -> None:
        self.nodes = nodes
        self._ledger = ledger
        self.terms: Mapping[str, Carried] = ledger.terms
        self.workloads: dict[str, list[tuple[str, Mapping[str, str]]]] = {}
        for name, labels in ledger.labels.items():
            self.workloads.setdefault(ledger.rules[name].namespace, []).append((name, labels))
        self._positions: dict[str, int] | None = None

    def copies_of(self, names: Set[str]) -> list[tuple[int, int]]:
        if self._positions is None:
            self._positions = {node.name: p for p, node in enumerate(self.nodes)}
        found = []
        for name, held in self._ledger.takers.items():
            copies = sum(n for taker, n in held.items() if taker in names)
            position = self._positions.get(name)
            if copies and position is not None:
                found.append((position, copies))
        return found


def with_earlier_copies(
    rules: CopyRules, nodes: Sequence[NodeView], ledger: Ledger | None
) -> CopyRules:
    """``rules`` with the spread counts the run's earlier copies raise (:func:`spread_counts`)."""
    if not rules.spread or ledger is None or not ledger.labels:
        return rules
    counts = spread_counts(rules, nodes, ledger)
    spread = tuple(replace(r, counts=c) for r, c in zip(rules.spread, counts, strict=True))
    return replace(rules, spread=spread)
