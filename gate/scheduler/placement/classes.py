"""Copies filtered, scored and selected one at a time over classes of alike nodes.

The exact path of :mod:`gate.scheduler.placement.copies` (module doc there): nodes alike in
everything the filters and scores read share a class, scored once per copy. Scoring loops
over the score plugins' records (:data:`gate.scheduler.plugins.SCORES`); the filters the
copies change are asked of their plugins (PodTopologySpread's skew rule, minimum and landing
copy, :mod:`gate.scheduler.plugins.podtopologyspread.copies`) and ``copyrules.capacity``
(copies per node).
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, cast

from gate.k8s.labels import HOSTNAME
from gate.model import NodeView
from gate.scheduler.placement.copyrules import (
    CopyRules,
    Ledger,
    ScoreRules,
    SpreadRule,
    capacity,
    set_bits,
)
from gate.scheduler.plugins import SCORES
from gate.scheduler.plugins.interpodaffinity.copies import refuses_another, wider_than_a_node
from gate.scheduler.plugins.noderesources import SCORED
from gate.scheduler.plugins.podtopologyspread.copies import admits, land, minimum_of

MIN_FEASIBLE_NODES_TO_FIND = 100  # schedule_one.go minFeasibleNodesToFind
MIN_FEASIBLE_NODES_PERCENTAGE = 5  # minFeasibleNodesPercentageToFind


def nodes_to_filter(nodes: Sequence[NodeView], rules: CopyRules) -> int:
    """How many nodes the scheduler filters a copy on (findNodesThatPassFilters'
    ``numAllNodes``): those NodeAffinity's PreFilter keeps by name (findNodesThatFitPod
    narrows ``allNodes`` to its PreFilterResult first), every node when it keeps all.
    Past :data:`MIN_FEASIBLE_NODES_TO_FIND` of them, only a share of the feasible ones is
    scored (:func:`feasible_nodes_to_find`).

    A pod pinned to three of 150 nodes is filtered and scored on those three: every draw
    among them counts, as on a small cluster."""
    if rules.names is None:
        return len(nodes)
    names = rules.names
    return sum(1 for node in nodes if node.name in names)


def partly_scored(nodes: Sequence[NodeView], rules: CopyRules) -> bool:
    """Whether the scheduler may score only a share of the copies' feasible nodes: more
    than :data:`MIN_FEASIBLE_NODES_TO_FIND` are filtered (:func:`nodes_to_filter`)."""
    return len(nodes) > MIN_FEASIBLE_NODES_TO_FIND and (
        nodes_to_filter(nodes, rules) > MIN_FEASIBLE_NODES_TO_FIND
    )


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


def _lowest(counts: Mapping[str, int]) -> tuple[int, int]:
    """The least count over the domains (0: none), and how many domains hold it."""
    least = min(counts.values(), default=0)
    return least, sum(1 for count in counts.values() if count == least)


class ScoredRun:
    """One placement: the copies so far, the nodes in classes alike in everything the
    filters and scores read (module doc), the domain counts the copies raise, and each
    score plugin's state (:data:`gate.scheduler.plugins.SCORES`)."""

    def __init__(
        self,
        nodes: Sequence[NodeView],
        rules: CopyRules,
        scores: ScoreRules,
        candidates: int,
        ledger: Ledger | None,
    ) -> None:
        self.nodes, self.rules, self.scores = nodes, rules, scores
        self.anti_keys = wider_than_a_node(rules.one_per_domain)
        self.counts = [dict(rule.counts) for rule in rules.spread]
        # Per constraint, its least count and how many domains hold it: a copy raises one
        # count by one, so the least moves only when the last domain holding it rises.
        self.lowest = [_lowest(counts) for counts in self.counts]
        self.taken: list[set[str | None]] = [set() for _ in self.anti_keys]
        self.copies: dict[int, int] = {}
        self.caps: dict[int, int] = {}
        self.base: dict[int, tuple[int, int]] = {}
        self.nonzero: dict[int, tuple[int, int]] = {}
        self.static: dict[int, tuple[object, ...]] = {}
        # By node, a number naming its static description (equal descriptions, one number):
        # a class's key hashes two ints, not the description.
        self.kind: dict[int, int] = {}
        self.kinds: dict[tuple[object, ...], int] = {}
        self.classes: dict[tuple[object, ...], set[int]] = {}
        # By class: each plugin's score of a node's own (None: not of that kind, or skipped).
        self.own_scores: dict[tuple[object, ...], int] = {}
        # By plugin: the raw scores read off the node alone, by node (the ``node`` kind).
        self.raws: list[dict[int, int]] = [{} for _ in SCORES]
        # By plugin: its PreScore (its part of ``scores``) and its state in this placement.
        self.inputs: list[Any] = [
            None if plugin.part is None else getattr(scores, plugin.part) for plugin in SCORES
        ]
        self.states: list[Any] = [
            None if plugin.start is None else plugin.start(self, self.inputs[k])
            for k, plugin in enumerate(SCORES)
        ]
        for p in set_bits(candidates):
            self._describe(p, ledger)
            self.classes.setdefault(self._key(p), set()).add(p)
        # A plugin whose raw score is one value over every candidate adds the same to every
        # total: it cannot decide a copy, and is not scored.
        self.scoring = [
            k
            for k, plugin in enumerate(SCORES)
            if plugin.node is None or len(set(self.raws[k].values())) > 1
        ]

    def _describe(self, p: int, ledger: Ledger | None) -> None:
        node = self.nodes[p]
        taken = ledger.requested.get(node.name, {}) if ledger else {}
        self.caps[p] = capacity(node, self.rules, ledger)
        self.base[p] = (
            node.requested.get(SCORED[0], 0) + taken.get(SCORED[0], 0),
            node.requested.get(SCORED[1], 0) + taken.get(SCORED[1], 0),
        )
        self.nonzero[p] = ledger.scored(node) if ledger else node.scored_requests
        allocatable = (node.allocatable.get(SCORED[0], 0), node.allocatable.get(SCORED[1], 0))
        keys = [r.topology_key for r in self.rules.spread] + self.anti_keys
        domains = tuple(node.labels.get(k) for k in keys if k != HOSTNAME)
        hard_host = tuple(
            self.counts[k].get(node.labels.get(HOSTNAME, ""), 0)
            for k, r in enumerate(self.rules.spread)
            if r.topology_key == HOSTNAME
        )
        # What each score plugin reads of the node apart from the copies it holds.
        read: list[Hashable] = []
        for k, plugin in enumerate(SCORES):
            if plugin.node is not None:
                raw = self.raws[k][p] = plugin.node(self.inputs[k], node)
                read.append(raw)
            elif plugin.reads is not None:
                read.append(plugin.reads(self, self.inputs[k], p))
            else:
                read.append(None)
        self.static[p] = (
            tuple(read),
            self.caps[p],
            self.base[p],
            self.nonzero[p],
            allocatable,
            domains,
            hard_host,
        )
        self.kind[p] = self.kinds.setdefault(self.static[p], len(self.kinds))

    def fresh(self) -> ScoredRun:
        """The same run from its start, for a run nothing has been placed in yet: the
        nodes' descriptions (the costly part) shared, every count the copies raise its
        own."""
        run = copy.copy(self)
        run.counts = [dict(counts) for counts in self.counts]
        run.lowest = list(self.lowest)
        run.taken = [set(taken) for taken in self.taken]
        run.copies = dict(self.copies)
        run.states = [copy.deepcopy(state) for state in self.states]
        run.classes = {key: set(members) for key, members in self.classes.items()}
        return run

    def _key(self, p: int) -> tuple[object, ...]:
        return (self.kind[p], self.copies.get(p, 0))

    def allowed(self, p: int, minimums: Sequence[int]) -> bool:
        """Every filter the copies change passes node ``p`` for the next copy."""
        if self.caps[p] - self.copies.get(p, 0) <= 0:
            return False
        labels = self.nodes[p].labels
        for k, rule in enumerate(self.rules.spread):
            domain = labels.get(rule.topology_key)
            if domain is None:
                return False
            if not admits(
                self.counts[k].get(domain, 0), rule.self_match, minimums[k], rule.max_skew
            ):
                return False
        for k, key in enumerate(self.anti_keys):
            if refuses_another(self.taken[k], labels.get(key)):
                return False
        return True

    def minimums(self) -> list[int]:
        return [
            minimum_of(len(counts), lowest[0], rule.min_domains)
            for counts, rule, lowest in zip(
                self.counts, self.rules.spread, self.lowest, strict=True
            )
        ]

    def anywhere(self, policy: str | int) -> list[tuple[int, set[int]]]:
        """The classes the picks that leave scores aside choose among with ``policy``
        (``placement.ANY_NODE``): every feasible one here."""
        return self.feasible()

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
        """Each feasible class's total score (RunScorePlugins, module doc): every plugin's
        raw scores, normalised over the feasible classes, weighted and summed; the scores of
        a node's own, never normalised, summed once per class (:meth:`own_part`)."""
        totals = [self.own_part(p) for p, _ in feasible]
        for k in self.scoring:
            plugin = SCORES[k]
            raw: Sequence[int | None] | None
            if plugin.own is not None:
                continue
            if plugin.node is not None:
                raw = [self.raws[k][p] for p, _ in feasible]
            else:
                assert plugin.score is not None
                raw = plugin.score(self, self.inputs[k], self.states[k], feasible)
                if raw is None:
                    continue  # the plugin skips this pod
            scored = cast(list[int], raw) if plugin.normalize is None else plugin.normalize(raw)
            weight = plugin.weight
            for i, score in enumerate(scored):
                totals[i] += weight * score
        return totals

    def own_part(self, p: int) -> int:
        """The weighted sum of the scores of node ``p``'s own for the next copy (a plugin
        answering None skips the pod): a class's, worked out once."""
        key = self._key(p)
        found = self.own_scores.get(key)
        if found is None:
            found = 0
            for k, plugin in enumerate(SCORES):
                score = None if plugin.own is None else plugin.own(self, self.inputs[k], p)
                if score is not None:
                    found += plugin.weight * score
            self.own_scores[key] = found
        return found

    def _raise(self, k: int, rule: SpreadRule, domain: str | None) -> None:
        """A copy lands in ``domain`` of constraint ``k``: its count, and the least."""
        counts = self.counts[k]
        before = None if domain is None else counts.get(domain)
        land(counts, domain, rule.raises)
        if domain is not None and before == self.lowest[k][0] and counts[domain] != before:
            least, holding = self.lowest[k]
            self.lowest[k] = _lowest(counts) if holding == 1 else (least, holding - 1)

    def take(self, p: int) -> None:
        """A copy lands on node ``p``."""
        self.classes[self._key(p)].discard(p)
        self.copies[p] = self.copies.get(p, 0) + 1
        labels = self.nodes[p].labels
        for k, rule in enumerate(self.rules.spread):
            self._raise(k, rule, labels.get(rule.topology_key))
        for k, key in enumerate(self.anti_keys):
            self.taken[k].add(labels.get(key))
        for k, plugin in enumerate(SCORES):
            if plugin.land is not None:
                plugin.land(self, self.inputs[k], self.states[k], p)
        self.classes.setdefault(self._key(p), set()).add(p)


Group = tuple[object, ...]


class GroupedRun(ScoredRun):
    """A :class:`ScoredRun` that scores only each group's best classes, for copies whose
    scores read no node's hostname, and whose filters read one only through the counts of
    DoNotSchedule spread constraints over nodes with hostnames of their own: nodes sharing
    everything the normalised scores and the filters read (their values of every key read
    by domain, their TaintToleration and NodeAffinity raw scores and, per hostname spread
    constraint, their hostname's count now) form a group. Everything but a node's own part
    (LeastAllocated, BalancedAllocation: neither normalised) then scores alike across a
    group whatever the other nodes score, and every allowed group offers its values to the
    normalisations, so a node's own part decides inside its group. Each group keeps its
    classes that hold another copy in buckets by that part, and a heap of the parts; the top
    bucket of every allowed group holds exactly the nodes of the highest total and its
    ties. A copy moves only its own node between groups. The cost per copy is the groups
    and the tied classes, not every class.

    ``grouped``: no rule reads hostnames and TaintToleration's and NodeAffinity's raw scores
    are one value over the candidates; each group then offers only its best-scored classes
    to the picks that leave scores aside (``placement.ANY_NODE``). Otherwise those pick
    among every feasible node, the lowest and the highest through each group's ends."""

    def __init__(
        self,
        nodes: Sequence[NodeView],
        rules: CopyRules,
        scores: ScoreRules,
        candidates: int,
        ledger: Ledger | None,
    ) -> None:
        super().__init__(nodes, rules, scores, candidates, ledger)
        self.host_rules = [
            k for k, rule in enumerate(rules.spread) if rule.topology_key == HOSTNAME
        ]
        self.grouped = not self.host_rules and all(SCORES[k].node is None for k in self.scoring)
        # By group: the classes holding another copy by their own part, and the parts
        # (negated) in a heap; a part whose bucket empties leaves the heap when it tops it.
        self.buckets: dict[Group, dict[int, set[tuple[object, ...]]]] = {}
        self.heaps: dict[Group, list[int]] = {}
        self.bucket_of: dict[tuple[object, ...], tuple[Group, int]] = {}
        # By group, its nodes' positions, lowest and highest first (the highest negated),
        # built for the first pick that leaves scores aside; a node belongs to the group
        # ``group_at`` names (entries elsewhere are stale, dropped when they top a heap).
        self.ends: dict[Group, tuple[list[int], list[int]]] | None = None
        self.group_at: dict[int, Group] = {}
        for key, members in self.classes.items():
            if members:
                self._add(key, next(iter(members)))

    @staticmethod
    def groupable(rules: CopyRules, scores: ScoreRules) -> bool:
        """No score the copies change reads a node's hostname (a filter may, through the
        DoNotSchedule spread counts: :func:`scored_run` asks the hostnames be unique)."""
        soft = scores.spread.constraints if scores.spread is not None else ()
        interpod = scores.interpod.keys if scores.interpod is not None else ()
        return all(key != HOSTNAME for key in (*(c.topology_key for c in soft), *interpod))

    def _group(self, p: int) -> Group:
        """Everything but node ``p``'s own part that its total and its filters read now."""
        static = self.static[p]
        host = self.nodes[p].labels.get(HOSTNAME)
        counts = tuple(
            None if host is None else self.counts[k].get(host, 0) for k in self.host_rules
        )
        return (static[0], static[5], counts)

    def _add(self, key: tuple[object, ...], p: int) -> None:
        """Class ``key`` (``p`` one of its nodes) into its group's bucket, unless full."""
        if key in self.bucket_of or self.caps[p] <= self.copies.get(p, 0):
            return
        own = self.own_part(p)
        group = self._group(p)
        buckets = self.buckets.setdefault(group, {})
        bucket = buckets.get(own)
        if bucket is None:
            bucket = buckets[own] = set()
            heapq.heappush(self.heaps.setdefault(group, []), -own)
        bucket.add(key)
        self.bucket_of[key] = (group, own)

    def _drop(self, key: tuple[object, ...]) -> None:
        """Class ``key`` out of its bucket: its last node left it."""
        group, own = self.bucket_of.pop(key)
        bucket = self.buckets[group][own]
        bucket.discard(key)
        if not bucket:
            del self.buckets[group][own]

    def _top(self, group: Group) -> set[tuple[object, ...]] | None:
        """The classes of ``group``'s highest own part (None: no node of it has room)."""
        heap, buckets = self.heaps[group], self.buckets[group]
        while heap and -heap[0] not in buckets:
            heapq.heappop(heap)
        return buckets[-heap[0]] if heap else None

    def feasible(self) -> list[tuple[int, set[int]]]:
        minimums = self.minimums()
        found = []
        for group in self.heaps:
            top = self._top(group)
            if top is None:
                continue
            if not self.allowed(next(iter(self.classes[next(iter(top))])), minimums):
                continue  # the group's domains refuse it
            for key in top:
                members = self.classes[key]
                found.append((next(iter(members)), members))
        return found

    def anywhere(self, policy: str | int) -> list[tuple[int, set[int]]]:
        if self.grouped:
            return self.feasible()
        if policy not in ("first", "last"):
            return ScoredRun.feasible(self)
        # Per allowed group, its lowest and its highest node that holds another copy: the
        # lowest and the highest feasible node are among them.
        if self.ends is None:
            self.ends = {}
            for members in self.classes.values():
                for p in members:
                    if self.caps[p] > self.copies.get(p, 0):
                        self._enter(p)
        minimums = self.minimums()
        found = []
        for group, (low, high) in self.ends.items():
            first = self._end(group, low, 1)
            if first is None or not self.allowed(first, minimums):
                continue
            last = self._end(group, high, -1)
            assert last is not None
            found += [(first, {first}), (last, {last})]
        return found

    def _enter(self, p: int) -> None:
        """Node ``p`` into its group's ends."""
        assert self.ends is not None
        group = self.group_at[p] = self._group(p)
        low, high = self.ends.setdefault(group, ([], []))
        heapq.heappush(low, p)
        heapq.heappush(high, -p)

    def _end(self, group: Group, heap: list[int], sign: int) -> int | None:
        """The group's lowest (``sign`` 1) or highest (-1) node that holds another copy."""
        while heap:
            p = sign * heap[0]
            if self.group_at.get(p) == group and self.caps[p] > self.copies.get(p, 0):
                return p
            heapq.heappop(heap)
        return None

    def take(self, p: int) -> None:
        old = self._key(p)
        super().take(p)
        if not self.classes[old] and old in self.bucket_of:
            self._drop(old)
        self._add(self._key(p), p)
        if (
            self.ends is not None
            and self.caps[p] > self.copies.get(p, 0)
            and self.group_at.get(p) != self._group(p)
        ):
            self._enter(p)

    def fresh(self) -> GroupedRun:
        run = super().fresh()
        assert isinstance(run, GroupedRun)
        run.buckets = {
            group: {own: set(keys) for own, keys in buckets.items()}
            for group, buckets in self.buckets.items()
        }
        run.heaps = {group: list(heap) for group, heap in self.heaps.items()}
        run.bucket_of = dict(self.bucket_of)
        run.ends = (
            None
            if self.ends is None
            else {group: (list(low), list(high)) for group, (low, high) in self.ends.items()}
        )
        run.group_at = dict(self.group_at)
        return run


def scored_run(
    nodes: Sequence[NodeView],
    rules: CopyRules,
    scores: ScoreRules,
    candidates: int,
    ledger: Ledger | None,
) -> ScoredRun:
    """The run for these copies: by groups where no rule over hostnames couples them but
    the spread counts of nodes with hostnames of their own."""
    kind = (
        GroupedRun
        if GroupedRun.groupable(rules, scores) and _own_hostnames(nodes, rules, candidates)
        else ScoredRun
    )
    return kind(nodes, rules, scores, candidates, ledger)


def _own_hostnames(nodes: Sequence[NodeView], rules: CopyRules, candidates: int) -> bool:
    """Whether no two candidates share a hostname a spread constraint counts by (a copy
    then raises only its own node's count)."""
    if all(rule.topology_key != HOSTNAME for rule in rules.spread):
        return True
    seen: set[str] = set()
    for p in set_bits(candidates):
        host = nodes[p].labels.get(HOSTNAME)
        if host is not None:
            if host in seen:
                return False
            seen.add(host)
    return True
