"""The pods already in the cluster, indexed for the inter-pod filters.

InterPodAffinity and PodTopologySpread ask one question many times: which existing pods
of these namespaces does this label selector match? Scanning 150,000 pods per workload
would make the gate pods x workloads, so the pods of a namespace are indexed by
``(label key, value)`` the first time a selector asks about that namespace, a selector's
candidates are the pods carrying one value its ``In`` / ``=`` requirement names (or the key
its ``Exists`` names), and each distinct question is answered once per run.

A snapshot of pods that no workload asks about costs nothing: nothing is built until asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field

from gate.k8s.podaffinity import AffinityTerm, stored_terms
from gate.k8s.selectors import EQUALS, EXISTS, IN, LabelSelector
from gate.model import ExistingPod, NodeView


@dataclass(slots=True)
class _Namespace:
    """The pods of one namespace: positions in the index, and by label."""

    pods: list[int] = field(default_factory=list)
    by_value: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    by_key: dict[str, list[int]] = field(default_factory=dict)


class PodIndex:
    """Existing pods bound to a node of the snapshot, with each pod's node position.

    ``namespaces`` of a question is a set of names, or None for every namespace."""

    def __init__(self, pods: Iterable[ExistingPod], nodes: Sequence[NodeView]) -> None:
        position = {n.name: i for i, n in enumerate(nodes)}
        self.pods: tuple[ExistingPod, ...] = tuple(p for p in pods if p.node in position)
        self.node_of: tuple[int, ...] = tuple(position[p.node] for p in self.pods)
        self.with_anti_affinity: tuple[int, ...] = tuple(
            i for i, p in enumerate(self.pods) if p.anti_affinity_terms
        )
        self._namespaces: dict[str, _Namespace] | None = None
        self._indexed: set[str] = set()
        self._answers: dict[tuple[frozenset[str] | None, LabelSelector], tuple[int, ...]] = {}
        self._anti: tuple[tuple[AffinityTerm, tuple[int, ...]], ...] | None = None
        self._excluded: frozenset[int] = frozenset()

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
        view._anti = self._anti_without(view._excluded)
        return view

    def _anti_without(
        self, excluded: frozenset[int]
    ) -> tuple[tuple[AffinityTerm, tuple[int, ...]], ...]:
        """:meth:`anti_affinity_terms` less one node occurrence per excluded carrier."""
        removed: dict[AffinityTerm, list[int]] = {}
        for i in excluded:
            pod = self.pods[i]
            for term in stored_terms(pod.anti_affinity_terms, pod.namespace):
                removed.setdefault(term, []).append(self.node_of[i])
        kept = []
        for term, nodes in self.anti_affinity_terms():
            gone = removed.get(term)
            if gone:
                remaining = list(nodes)
                for node in gone:
                    remaining.remove(node)
                nodes = tuple(remaining)
            if nodes:
                kept.append((term, nodes))
        return tuple(kept)

    def anti_affinity_terms(self) -> tuple[tuple[AffinityTerm, tuple[int, ...]], ...]:
        """Every distinct required anti-affinity term of the existing pods, with the node
        positions of the pods carrying it (once per pod). Pods of one workload share
        their terms, so a run compares each incoming pod with a few distinct terms."""
        if self._anti is None:
            found: dict[AffinityTerm, list[int]] = {}
            for i in self.with_anti_affinity:
                pod = self.pods[i]
                for term in stored_terms(pod.anti_affinity_terms, pod.namespace):
                    found.setdefault(term, []).append(self.node_of[i])
            self._anti = tuple((term, tuple(nodes)) for term, nodes in found.items())
        return self._anti

    def _namespace(self, name: str) -> _Namespace:
        if self._namespaces is None:
            self._namespaces = {}
            for i, pod in enumerate(self.pods):
                self._namespaces.setdefault(pod.namespace, _Namespace()).pods.append(i)
        found = self._namespaces.get(name)
        if found is None:
            return _Namespace()
        if name not in self._indexed:
            self._indexed.add(name)
            for i in found.pods:
                for key, value in self.pods[i].labels.items():
                    found.by_value.setdefault((key, value), []).append(i)
                    found.by_key.setdefault(key, []).append(i)
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
        key = (namespaces, selector)
        found = self._answers.get(key)
        if found is None:
            found = self._answers[key] = self._match(namespaces, selector)
        if self._excluded:
            excluded = self._excluded
            return tuple(i for i in found if i not in excluded)
        return found

    def _match(self, namespaces: frozenset[str] | None, selector: LabelSelector) -> tuple[int, ...]:
        if selector.nothing:
            return ()
        names = self._all_namespaces() if namespaces is None else sorted(namespaces)
        hits: list[int] = []
        for name in names:
            space = self._namespace(name)
            hits.extend(
                i for i in _candidates(space, selector) if selector.matches(self.pods[i].labels)
            )
        return tuple(sorted(hits))


def _candidates(space: _Namespace, selector: LabelSelector) -> Iterable[int]:
    """The narrowest list the index holds that contains every match."""
    best: Sequence[int] = space.pods
    for requirement in selector.requirements or ():
        if requirement.operator in (IN, EQUALS):
            lists = [space.by_value.get((requirement.key, v), []) for v in requirement.values]
            if sum(map(len, lists)) < len(best):
                best = sorted({i for found in lists for i in found})
        elif requirement.operator == EXISTS:
            found = space.by_key.get(requirement.key, [])
            if len(found) < len(best):
                best = found
    return best


def count_by_node(index: PodIndex, positions: Iterable[int]) -> Mapping[int, int]:
    """How many of the pods at ``positions`` each node (by position) holds."""
    counts: dict[int, int] = {}
    node_of = index.node_of
    for i in positions:
        node = node_of[i]
        counts[node] = counts.get(node, 0) + 1
    return counts
