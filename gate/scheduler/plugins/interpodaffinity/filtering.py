"""InterPodAffinity, the filter half: required pod affinity and anti-affinity.

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/{filtering,plugin}.go``
(v1.34.1). PreFilter counts, once per pod, topology pairs ``(key, value)``:

* ``affinity_counts``: for every existing pod matching *all* the pod's affinity terms,
  each term's pair on that pod's node;
* ``anti_counts``: for every existing pod matching one of the pod's anti-affinity terms,
  that term's pair;
* ``existing_anti``: for every existing pod with a required anti-affinity term matching
  the incoming pod (symmetry), that term's pair.

A pair is counted only when the node carries the key. Filter then, per node, in order:

1. affinity (UnschedulableAndUnresolvable): the node must carry every term's key, and
   each term's pair must be counted. Exception for the first pod of a group: when no pair
   is counted anywhere and the pod matches all its own terms, any node with the keys fits;
2. anti-affinity (Unschedulable): no term's pair of the node may be counted; a node
   without the key passes;
3. existing pods' anti-affinity (Unschedulable): no ``(key, value)`` label of the node may
   be counted.

Every existing pod counts, terminating ones included; namespaces follow
:mod:`gate.k8s.podaffinity`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gate.k8s.podaffinity import AffinityTerm
from gate.model import INTER_POD_AFFINITY, Code
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.runtime import Rejection

# interpodaffinity/filtering.go ErrReason*
REASON_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

_NAME = INTER_POD_AFFINITY
AFFINITY = Rejection(_NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_AFFINITY,))
ANTI_AFFINITY = Rejection(_NAME, Code.UNSCHEDULABLE, (REASON_ANTI_AFFINITY,))
EXISTING_ANTI_AFFINITY = Rejection(_NAME, Code.UNSCHEDULABLE, (REASON_EXISTING_ANTI_AFFINITY,))


Pairs = Mapping[tuple[str, str], int]


@dataclass(frozen=True, slots=True)
class AffinityState:
    """preFilterState of one incoming pod."""

    affinity_terms: tuple[AffinityTerm, ...]
    anti_affinity_terms: tuple[AffinityTerm, ...]
    affinity_counts: Pairs
    anti_counts: Pairs
    existing_anti: Pairs
    self_match: bool
    namespace_labels: Mapping[str, str] | None = None
    """The labels of the pod's namespace as the PreFilter read them (see
    :func:`affinity_state`), for what its copies ask (:mod:`.copies`)."""
    counted: dict[tuple[str, int], tuple[object, object, int]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """:func:`affinity_groups`' nodes of counted pairs, kept (:func:`_counted_kept`):
    the index's own states share one table, since workloads asking the same terms share
    their counts (a hostname key's are a pair per node holding a matching pod)."""

    @property
    def skip(self) -> bool:
        """PreFilter returns Skip: nothing for the Filter to check."""
        return not (self.existing_anti or self.affinity_terms or self.anti_affinity_terms)

    def filter(self, labels: Mapping[str, str]) -> Rejection | None:
        """Filter for one node, by its labels."""
        if not self._affinity_ok(labels):
            return AFFINITY
        for term in self.anti_affinity_terms:
            value = labels.get(term.topology_key)
            if value is not None and self.anti_counts.get((term.topology_key, value), 0) > 0:
                return ANTI_AFFINITY
        if any(self.existing_anti.get(pair, 0) > 0 for pair in labels.items()):
            return EXISTING_ANTI_AFFINITY
        return None

    def _affinity_ok(self, labels: Mapping[str, str]) -> bool:
        """satisfyPodAffinity."""
        pods_exist = True
        for term in self.affinity_terms:
            value = labels.get(term.topology_key)
            if value is None:
                return False
            if self.affinity_counts.get((term.topology_key, value), 0) <= 0:
                pods_exist = False
        return pods_exist or (not self.affinity_counts and self.self_match)


def _add(pairs: dict[tuple[str, str], int], labels: Mapping[str, str], key: str, n: int) -> None:
    value = labels.get(key)
    if value is not None:
        pairs[key, value] = pairs.get((key, value), 0) + n


def _tally(
    nodes: NodeIndex,
    pods: PodIndex,
    keys: tuple[str, ...],
    on: tuple[int, ...],
    kept: bool = False,
) -> Pairs:
    """Each counted pod's pair of every key in ``keys``, ``on``: the counted pods' nodes.
    Workloads that ask the same terms count the same pods, so a tally of the index itself
    is kept (:attr:`PodIndex.pair_counts`) and a view that leaves none of them out finds it
    there (``kept``: the pods are the index's own, whatever ``pods`` leaves out). Pods are
    counted per node first, first seen first, so the pairs keep the order a pod-by-pod
    count gives them."""
    found = pods.pair_counts.get((keys, on))
    if found is None:
        pairs: dict[tuple[str, str], int] = {}
        views = nodes.nodes
        for node, n in Counter(on).items():
            node_labels = views[node].labels
            for key in keys:
                _add(pairs, node_labels, key, n)
        found = pairs
        if kept or not pods.excluded:
            pods.pair_counts[keys, on] = found
    return found


def _merge(pairs: dict[tuple[str, str], int], more: Pairs) -> None:
    for pair, n in more.items():
        pairs[pair] = pairs.get(pair, 0) + n


def _namespaces(term: AffinityTerm) -> frozenset[str] | None:
    """The namespaces a term of the incoming pod covers; None for every namespace."""
    return None if term.all_namespaces else term.namespaces


def affinity_state(
    namespace: str,
    labels: Mapping[str, str],
    affinity_terms: tuple[AffinityTerm, ...],
    anti_affinity_terms: tuple[AffinityTerm, ...],
    namespace_labels: Mapping[str, str] | None,
    nodes: NodeIndex,
    pods: PodIndex,
) -> AffinityState:
    """PreFilter. The incoming pod's terms must have had their namespaceSelector listed
    (:meth:`AffinityTerm.with_namespaces_listed`); ``namespace_labels`` are the labels of
    its own namespace ({} when the snapshot lacks it, None when it recorded none)."""
    node_at = pods.node_of.__getitem__
    existing: dict[tuple[str, str], int] = {}
    for term, node_positions in pods.anti_affinity_candidates(labels):
        if term.matches(namespace, labels, namespace_labels):
            _merge(existing, _tally(nodes, pods, (term.topology_key,), node_positions))
    affinity: Pairs = {}
    if affinity_terms:
        # Workloads that ask the same terms count the same pods: the index keeps their
        # pairs, so that it neither matches the pods again nor lists their nodes (on the
        # benchmark's large case, two fifths of this PreFilter's time). A view leaves pods
        # out: it takes those it counted out of the index's pairs.
        found = pods.affinity_pairs.get(affinity_terms)
        if found is None:
            found = pods.affinity_pairs[affinity_terms] = _affinity_pairs(
                nodes, pods, affinity_terms
            )
        affinity = _without(nodes, pods, affinity_terms, *found) if pods.excluded else found[0]
    anti: dict[tuple[str, str], int] = {}
    for term in anti_affinity_terms:
        matched = tuple(map(node_at, pods.matching(_namespaces(term), term.selector)))
        _merge(anti, _tally(nodes, pods, (term.topology_key,), matched))
    return AffinityState(
        affinity_terms=affinity_terms,
        anti_affinity_terms=anti_affinity_terms,
        affinity_counts=affinity,
        anti_counts=anti,
        existing_anti=existing,
        self_match=bool(affinity_terms)
        and all(t.matches(namespace, labels) for t in affinity_terms),
        namespace_labels=namespace_labels,
        counted={} if pods.excluded else pods.counted_pairs,
    )


def _affinity_pairs(
    nodes: NodeIndex, pods: PodIndex, affinity_terms: tuple[AffinityTerm, ...]
) -> tuple[Pairs, frozenset[int]]:
    """The pairs of the index's pods (a view's left-out ones included) that match every
    one of ``affinity_terms``, over the terms' topology keys, and those pods' positions."""
    first, *more = affinity_terms
    common: Sequence[int] = pods.every_match(_namespaces(first), first.selector)
    if more:  # matching answers come in index order; an intersection is sorted again
        shared = set(common)
        for term in more:
            shared &= set(pods.every_match(_namespaces(term), term.selector))
        common = sorted(shared)
    keys = tuple(term.topology_key for term in affinity_terms)
    on = tuple(map(pods.node_of.__getitem__, common))
    return _tally(nodes, pods, keys, on, kept=True), frozenset(common)


def _without(
    nodes: NodeIndex,
    pods: PodIndex,
    affinity_terms: tuple[AffinityTerm, ...],
    pairs: Pairs,
    counted: frozenset[int],
) -> Pairs:
    """The index's ``pairs`` of the pods at ``counted`` less those of the pods the view
    ``pods`` leaves out: a pair none is left in is dropped, as a count of the view's own
    pods never holds it."""
    gone = [i for i in pods.excluded if i in counted]
    if not gone:
        return pairs
    left = dict(pairs)
    keys = tuple(term.topology_key for term in affinity_terms)
    views = nodes.nodes
    for i in gone:
        labels = views[pods.node_of[i]].labels
        for key in keys:
            value = labels.get(key)
            if value is not None:
                count = left[key, value] - 1
                if count:
                    left[key, value] = count
                else:
                    del left[key, value]
    return left


def _counted(nodes: NodeIndex, key: str, counts: Pairs) -> int:
    """The nodes whose ``key`` label forms a counted pair."""
    values = nodes.label_values(key)
    bits = 0
    if len(counts) < len(values):
        # Fewer pairs counted than values (a hostname key has one per node): walk the pairs.
        for (counted_key, value), count in counts.items():
            if count > 0 and counted_key == key:
                bits |= values.get(value, 0)
        return bits
    for value, value_bits in values.items():
        if counts.get((key, value), 0) > 0:
            bits |= value_bits
    return bits


def _counted_kept(state: AffinityState, nodes: NodeIndex, key: str) -> int:
    """:func:`_counted` of the state's affinity counts, worked out once per counts."""
    counts = state.affinity_counts
    found = state.counted.get((key, id(counts)))
    if found is None or found[0] is not counts or found[1] is not nodes:
        found = (counts, nodes, _counted(nodes, key, counts))
        state.counted[key, id(counts)] = found
    return found[2]


def affinity_groups(
    state: AffinityState, nodes: NodeIndex, among: int
) -> list[tuple[int, Rejection]]:
    """:meth:`AffinityState.filter` for every node of ``among`` at once, as disjoint bitsets."""
    groups: list[tuple[int, Rejection]] = []
    remaining = among

    def reject(bits: int, failure: Rejection) -> None:
        nonlocal remaining
        bits &= remaining
        if bits:
            groups.append((bits, failure))
            remaining &= ~bits

    if state.affinity_terms:
        with_keys = pods_exist = nodes.everyone
        for term in state.affinity_terms:
            with_keys &= nodes.with_label(term.topology_key)
            pods_exist &= _counted_kept(state, nodes, term.topology_key)
        first_pod = not state.affinity_counts and state.self_match
        reject(~(with_keys if first_pod else with_keys & pods_exist), AFFINITY)
    anti = 0
    for term in state.anti_affinity_terms:
        anti |= _counted(nodes, term.topology_key, state.anti_counts)
    reject(anti, ANTI_AFFINITY)
    existing = 0
    for key, value in state.existing_anti:
        existing |= nodes.label_values(key).get(value, 0)
    reject(existing, EXISTING_ANTI_AFFINITY)
    return groups
