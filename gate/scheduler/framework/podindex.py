"""The pods already in the cluster, indexed for the inter-pod filters.

InterPodAffinity and PodTopologySpread ask one question many times: which existing pods
of these namespaces does this label selector match? Scanning 150,000 pods per workload
would make the gate pods x workloads, so the pods of a namespace are indexed by a label
key's values the first time a selector asks about that key there, a selector's candidates
are the pods carrying one value its ``In`` / ``=`` requirement names (or the key its
``Exists`` names), and each distinct question is answered once per run. The existing
pods' anti-affinity terms are indexed by the label value each requires, so an incoming pod
is compared only with the terms it could match.

A snapshot of pods that no workload asks about costs nothing: nothing is built until asked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field
from itertools import compress

from gate.k8s.podaffinity import AffinityTerm, stored_terms, stored_weighted_terms
from gate.k8s.selectors import EQUALS, EXISTS, IN, LabelSelector
from gate.model import ExistingPod, NodeView, PreferringPod


@dataclass(slots=True)
class _Namespace:
    """The pods of one namespace (positions in the index) and, for each label key some
    selector asked about, the pods by their value of it (absent: no such label)."""

    pods: list[int] = field(default_factory=list)
    by_key: dict[str, dict[str, list[int]]] = field(default_factory=dict)


def _necessary(term: AffinityTerm) -> tuple[str, frozenset[str]] | None:
    """A label a pod must carry, with one of these values, to match ``term``: its first
    ``In`` / ``=`` requirement; None when the selector has none."""
    for requirement in term.selector.requirements or ():
        if requirement.operator in (IN, EQUALS):
            return requirement.key, requirement.values
    return None


class PodIndex:
    """Existing pods bound to a node of the snapshot, with each pod's node position.

    ``namespaces`` of a question is a set of names, or None for every namespace."""

    def __init__(self, pods: Iterable[ExistingPod], nodes: Sequence[NodeView]) -> None:
        position = {n.name: i for i, n in enumerate(nodes)}
        given = pods if isinstance(pods, tuple) else tuple(pods)
        at = [position.get(p.node, -1) for p in given]
        if -1 in at:  # a pod bound to no node of the snapshot meets no pod
            given = tuple(compress(given, [a >= 0 for a in at]))
            at = [a for a in at if a >= 0]
        self.pods: tuple[ExistingPod, ...] = given
        self.node_of: tuple[int, ...] = tuple(at)
        self.with_anti_affinity: tuple[int, ...] = tuple(
            i for i, p in enumerate(given) if p.anti_affinity_terms
        )
        self._namespaces: dict[str, _Namespace] | None = None
        self._answers: dict[tuple[frozenset[str] | None, LabelSelector], tuple[int, ...]] = {}
        self._anti: tuple[tuple[AffinityTerm, tuple[int, ...]], ...] | None = None
        self._excluded: frozenset[int] = frozenset()
        # Shared with every view (filled in place): the distinct terms by a label value a
        # pod must carry to match them, those that require none, and the pods' terms parsed.
        self._anti_by_label: dict[tuple[str, str], list[AffinityTerm]] = {}
        self._anti_always: list[AffinityTerm] = []
        self._parsed_terms: dict[tuple[int, str], tuple[AffinityTerm, ...]] = {}
        self._anti_nodes: dict[AffinityTerm, tuple[int, ...]] | None = None
        # Shared with every view: InterPodAffinity's topology pairs tallied over the nodes of
        # counted pods, by the topology keys and those nodes (filled by its PreFilter).
        self.pair_counts: dict[
            tuple[tuple[str, ...], tuple[int, ...]], Mapping[tuple[str, str], int]
        ] = {}
        # Shared with every view: those pairs for a pod's whole set of required affinity
        # terms over the index's own pods, by the terms, with the positions of the pods
        # counted (a view takes its own out of them).
        self.affinity_pairs: dict[
            tuple[AffinityTerm, ...], tuple[Mapping[tuple[str, str], int], frozenset[int]]
        ] = {}
        # Shared with every view, filled by the Filter of the index's own PreFilter states:
        # the nodes whose label of a key forms a pair of those counts, by the key and the
        # counts' identity (the counts and the node index kept beside them, so it stays).
        self.counted_pairs: dict[tuple[str, int], tuple[object, object, int]] = {}
        # Shared with every view, filled on first use (scored pods only): the pods carrying
        # required affinity terms, and those carrying preferred terms.
        self._with_affinity: list[tuple[int, ...]] = []
        self._affinity: tuple[tuple[AffinityTerm, tuple[int, ...]], ...] | None = None
        self._parsed_affinity: dict[tuple[int, str], tuple[AffinityTerm, ...]] = {}
        self._with_preferred: list[tuple[int, ...]] = []
        self._preferred: tuple[tuple[int, AffinityTerm, tuple[int, ...]], ...] | None = None
        self._parsed_preferred: dict[tuple[int, str], tuple[tuple[int, AffinityTerm], ...]] = {}

    @property
    def excluded(self) -> frozenset[int]:
        """The positions this view leaves out (none for the index itself)."""
        return self._excluded

    def without(self, excluded: Iterable[int]) -> PodIndex:
        """This index with the pods at ``excluded`` left out: the running pods a workload's
        change replaces, which its new pods will not meet. Every index built so far and
        every answer found are shared with this one (answers are filtered on the way out)."""
        excluded = frozenset(excluded)
        if not excluded:
            return self
        self._namespace("")  # build the shared map of namespaces before sharing it
        view = copy(self)
        view._excluded = self._excluded | excluded
        view._anti_nodes = None
        view._anti = self._anti_without(view._excluded)
        view._affinity = None
        view._preferred = None
        return view

    def _anti_without(
        self, excluded: frozenset[int]
    ) -> tuple[tuple[AffinityTerm, tuple[int, ...]], ...]:
        """:meth:`anti_affinity_terms` less one node occurrence per excluded carrier."""
        removed: dict[AffinityTerm, Counter[int]] = {}
        for i in excluded:
            pod = self.pods[i]
            if pod.anti_affinity_terms:
                for term in self._parsed(pod):
                    removed.setdefault(term, Counter())[self.node_of[i]] += 1
        if not removed:
            return self.anti_affinity_terms()
        kept = []
        for term, nodes in self.anti_affinity_terms():
            gone = removed.get(term)
            if gone:
                remaining = []
                for node in nodes:
                    if gone[node] > 0:
                        gone[node] -= 1
                    else:
                        remaining.append(node)
                nodes = tuple(remaining)
            if nodes:
                kept.append((term, nodes))
        return tuple(kept)

    def _parsed(self, pod: ExistingPod) -> tuple[AffinityTerm, ...]:
        """The pod's required anti-affinity terms, parsed. The snapshot readers share one
        tuple of terms among the pods of a workload: each is parsed once per namespace (the
        pods hold the tuples, so ids stay)."""
        shared = (id(pod.anti_affinity_terms), pod.namespace)
        terms = self._parsed_terms.get(shared)
        if terms is None:
            terms = stored_terms(pod.anti_affinity_terms, pod.namespace)
            self._parsed_terms[shared] = terms
        return terms

    def anti_affinity_terms(self) -> tuple[tuple[AffinityTerm, tuple[int, ...]], ...]:
        """Every distinct required anti-affinity term of the existing pods, with the node
        positions of the pods carrying it (once per pod). Pods of one workload share
        their terms, so a run compares each incoming pod with a few distinct terms."""
        if self._anti is None:
            # The carriers grouped by their shared tuple of terms first, each tuple parsed
            # and its terms hashed once: a term's pods are those of its groups, in index
            # order, and the terms come in the order the pods first carry them.
            pods = self.pods
            shared: dict[tuple[int, str], list[int]] = {}
            for i in self.with_anti_affinity:
                pod = pods[i]
                terms = (id(pod.anti_affinity_terms), pod.namespace)
                carriers = shared.get(terms)
                if carriers is None:
                    shared[terms] = [i]
                else:
                    carriers.append(i)
            found: dict[AffinityTerm, list[int]] = {}
            merged: set[AffinityTerm] = set()
            for carriers in shared.values():
                for term in self._parsed(pods[carriers[0]]):
                    held = found.get(term)
                    if held is None:
                        found[term] = carriers
                    else:
                        found[term] = [*held, *carriers]
                        merged.add(term)
            node_of = self.node_of
            self._anti = tuple(
                (term, tuple(node_of[i] for i in (sorted(held) if term in merged else held)))
                for term, held in found.items()
            )
            for term in found:
                necessary = _necessary(term)
                if necessary is None:
                    self._anti_always.append(term)
                    continue
                key, values = necessary
                for value in values:
                    self._anti_by_label.setdefault((key, value), []).append(term)
        return self._anti

    def _find_carriers(self) -> None:
        """The pods carrying required affinity terms, and those carrying preferred terms:
        one pass for both, since the score asks for both."""
        if self._with_affinity:
            return
        required, preferred = [], []
        for i, pod in enumerate(self.pods):
            if pod.affinity_terms:
                required.append(i)
            if type(pod) is PreferringPod:  # the cheapest test: most pods have none
                preferred.append(i)
        self._with_affinity.append(tuple(required))
        self._with_preferred.append(tuple(preferred))

    def affinity_terms(self) -> tuple[tuple[AffinityTerm, tuple[int, ...]], ...]:
        """Every distinct required affinity term of the existing pods, with the node
        positions of the pods carrying it (once per pod): what InterPodAffinity's score
        weighs by hardPodAffinityWeight. Each stored tuple is parsed once per namespace."""
        if self._affinity is None:
            self._find_carriers()
            found: dict[AffinityTerm, list[int]] = {}
            for i in self._with_affinity[0]:
                if i in self._excluded:
                    continue
                pod = self.pods[i]
                shared = (id(pod.affinity_terms), pod.namespace)
                terms = self._parsed_affinity.get(shared)
                if terms is None:
                    terms = stored_terms(pod.affinity_terms, pod.namespace)
                    self._parsed_affinity[shared] = terms
                for term in terms:
                    found.setdefault(term, []).append(self.node_of[i])
            self._affinity = tuple((term, tuple(nodes)) for term, nodes in found.items())
        return self._affinity

    def preferred_terms(self) -> tuple[tuple[int, AffinityTerm, tuple[int, ...]], ...]:
        """Every distinct preferred term of the existing pods as ``(weight, term)`` (the
        weight negative for an anti-affinity term), with the node positions of the pods
        carrying it (once per pod and term): what InterPodAffinity's score adds for the
        terms the incoming pod matches. Each stored tuple is parsed once per namespace."""
        if self._preferred is None:
            self._find_carriers()
            found: dict[tuple[int, AffinityTerm], list[int]] = {}
            for i in self._with_preferred[0]:
                if i in self._excluded:
                    continue
                pod = self.pods[i]
                for raw, sign in (
                    (pod.preferred_affinity_terms, 1),
                    (pod.preferred_anti_affinity_terms, -1),
                ):
                    if not raw:
                        continue
                    for weight, term in self._parsed_weighted(raw, pod.namespace):
                        found.setdefault((sign * weight, term), []).append(self.node_of[i])
            self._preferred = tuple((w, t, tuple(nodes)) for (w, t), nodes in found.items())
        return self._preferred

    def _parsed_weighted(
        self, raw: tuple[tuple[int, Mapping[str, object]], ...], namespace: str
    ) -> tuple[tuple[int, AffinityTerm], ...]:
        shared = (id(raw), namespace)
        terms = self._parsed_preferred.get(shared)
        if terms is None:
            terms = self._parsed_preferred[shared] = stored_weighted_terms(raw, namespace)
        return terms

    def anti_affinity_candidates(
        self, labels: Mapping[str, str]
    ) -> tuple[tuple[AffinityTerm, tuple[int, ...]], ...]:
        """The distinct anti-affinity terms a pod with ``labels`` may match, with their
        nodes: those whose selector requires a label value the pod carries, and those that
        require none; the others cannot match it."""
        if self._anti_nodes is None:
            self._anti_nodes = dict(self.anti_affinity_terms())
        nodes = self._anti_nodes
        picked = dict.fromkeys(self._anti_always)
        for pair in labels.items():
            picked.update(dict.fromkeys(self._anti_by_label.get(pair, ())))
        return tuple((term, nodes[term]) for term in picked if term in nodes)

    def _namespace(self, name: str) -> _Namespace:
        if self._namespaces is None:
            positions: dict[str, list[int]] = {}
            for i, pod in enumerate(self.pods):
                found = positions.get(pod.namespace)
                if found is None:
                    positions[pod.namespace] = [i]
                else:
                    found.append(i)
            self._namespaces = {name: _Namespace(pods) for name, pods in positions.items()}
        return self._namespaces.get(name) or _Namespace()

    def _values(self, space: _Namespace, key: str) -> dict[str, list[int]]:
        """The namespace's pods by their value of ``key``, built at its first use."""
        found = space.by_key.get(key)
        if found is None:
            found = space.by_key[key] = {}
            pods = self.pods
            for i in space.pods:
                value = pods[i].labels.get(key)
                if value is not None:
                    found.setdefault(value, []).append(i)
        return found

    def _all_namespaces(self) -> list[str]:
        self._namespace("")
        assert self._namespaces is not None
        return sorted(self._namespaces)

    def matching(
        self, namespaces: frozenset[str] | None, selector: LabelSelector
    ) -> tuple[int, ...]:
        """Positions of the pods in ``namespaces`` whose labels ``selector`` matches, in
        index order. Terminating pods are included (callers that exclude them filter)."""
        found = self.every_match(namespaces, selector)
        if self._excluded:
            excluded = self._excluded
            return tuple(i for i in found if i not in excluded)
        return found

    def every_match(
        self, namespaces: frozenset[str] | None, selector: LabelSelector
    ) -> tuple[int, ...]:
        """:meth:`matching` of the index itself: the pods a view leaves out included."""
        key = (namespaces, selector)
        found = self._answers.get(key)
        if found is None:
            found = self._answers[key] = self._match(namespaces, selector)
        return found

    def _match(self, namespaces: frozenset[str] | None, selector: LabelSelector) -> tuple[int, ...]:
        if selector.nothing:
            return ()
        names = self._all_namespaces() if namespaces is None else sorted(namespaces)
        hits: list[int] = []
        for name in names:
            space = self._namespace(name)
            hits.extend(
                i
                for i in self._candidates(space, selector)
                if selector.matches(self.pods[i].labels)
            )
        return tuple(sorted(hits))

    def _candidates(self, space: _Namespace, selector: LabelSelector) -> Iterable[int]:
        """The pods carrying a value the selector's first ``In`` / ``=`` requirement names
        (or the key of its first ``Exists``): a superset of the matches."""
        requirements = selector.requirements or ()
        for requirement in requirements:
            if requirement.operator in (IN, EQUALS):
                values = self._values(space, requirement.key)
                return sorted(i for v in requirement.values for i in values.get(v, ()))
        for requirement in requirements:
            if requirement.operator == EXISTS:
                values = self._values(space, requirement.key)
                return sorted(i for found in values.values() for i in found)
        return space.pods
