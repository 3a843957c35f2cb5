"""Pod (anti-)affinity terms, parsed once into hashable values.

Upstream: ``pkg/scheduler/framework/types.go`` (newAffinityTerm,
getNamespacesFromPodAffinityTerm), ``k8s.io/kube-scheduler/framework/types.go``
(AffinityTerm.Matches), ``plugins/interpodaffinity/plugin.go``
(mergeAffinityTermNamespacesIfNotEmpty) and ``pkg/registry/core/pod/strategy.go``
(matchLabelKeys / mismatchLabelKeys, merged into the selector at pod creation; GA and
locked on since v1.33).

Which namespaces a term covers:

* neither ``namespaces`` nor ``namespaceSelector``: the pod's own namespace;
* ``namespaces``: those names, plus the namespaces ``namespaceSelector`` selects;
* ``namespaceSelector: {}``: every namespace;
* a null ``labelSelector`` matches no pod, an empty one every pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gate.k8s.matching import scalar_text
from gate.k8s.selectors import (
    IN,
    NOT_IN,
    NOTHING,
    LabelSelector,
    SelectorError,
    label_key_requirements,
    parse_selector,
)

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
POD_AFFINITY, POD_ANTI_AFFINITY = "podAffinity", "podAntiAffinity"


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """fwk.AffinityTerm: the namespaces named, the namespace selector, the pod selector."""

    namespaces: frozenset[str]
    namespace_selector: LabelSelector
    selector: LabelSelector
    topology_key: str
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The hash the dataclass would give, worked out once: the pod index keys the
        # cluster's terms by it, and hashing walks every requirement of both selectors.
        fields = (self.namespaces, self.namespace_selector, self.selector, self.topology_key)
        object.__setattr__(self, "_hash", hash(fields))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(
        self,
    ) -> tuple[type[AffinityTerm], tuple[frozenset[str], LabelSelector, LabelSelector, str]]:
        # Built again where it is unpickled: a string's hash differs between interpreters.
        return AffinityTerm, (
            self.namespaces,
            self.namespace_selector,
            self.selector,
            self.topology_key,
        )

    @property
    def all_namespaces(self) -> bool:
        return self.namespace_selector.empty

    def matches(
        self,
        namespace: str,
        labels: Mapping[str, str],
        namespace_labels: Mapping[str, str] | None = None,
    ) -> bool:
        """AffinityTerm.Matches: the pod's namespace is covered, and its labels match.

        ``namespace_labels`` are the labels of the pod's namespace, None when the snapshot
        recorded no namespaces: a namespaceSelector then covers no namespace, except the
        empty one, which covers every namespace whatever its labels."""
        selector = self.namespace_selector
        covered = (
            namespace in self.namespaces
            or selector.empty
            or (namespace_labels is not None and selector.matches(namespace_labels))
        )
        return covered and self.selector.matches(labels)

    def with_namespaces_listed(
        self, namespaces: Mapping[str, Mapping[str, str]] | None
    ) -> AffinityTerm:
        """mergeAffinityTermNamespacesIfNotEmpty: the incoming pod's namespaceSelector is
        turned into the names it selects now (none when the snapshot recorded no
        namespaces); an empty selector (every namespace) is kept as it is."""
        if self.namespace_selector.empty:
            return self
        selected = {
            name
            for name, labels in (namespaces or {}).items()
            if self.namespace_selector.matches(labels)
        }
        return replace(self, namespaces=self.namespaces | selected, namespace_selector=NOTHING)


def parse_term(
    raw: object,
    pod_namespace: str,
    pod_labels: Mapping[str, str] | None,
    where: str,
) -> AffinityTerm:
    """newAffinityTerm. ``pod_labels`` is given for a pod the API server has yet to create:
    its matchLabelKeys (``key In [value]``) and mismatchLabelKeys (``key NotIn [value]``)
    are merged into a non-null selector, keys the pod lacks ignored. A pod already in the
    cluster was merged at creation, so it passes None."""
    if not isinstance(raw, Mapping):
        raise SelectorError(f"{where}: must be an object")
    raw_selector = raw.get("labelSelector")
    extra: tuple[Any, ...] = ()
    if pod_labels is not None and raw_selector is not None:
        extra = label_key_requirements(raw.get("matchLabelKeys"), IN, pod_labels)
        extra += label_key_requirements(raw.get("mismatchLabelKeys"), NOT_IN, pod_labels)
    names = raw.get("namespaces") or []
    if not isinstance(names, list):
        raise SelectorError(f"{where}.namespaces: must be a list")
    raw_namespace_selector = raw.get("namespaceSelector")
    if not names and raw_namespace_selector is None:
        namespaces = frozenset({pod_namespace})
    else:
        namespaces = frozenset(scalar_text(n) for n in names)
    return AffinityTerm(
        namespaces=namespaces,
        namespace_selector=parse_selector(raw_namespace_selector, (), f"{where}.namespaceSelector"),
        selector=parse_selector(raw_selector, extra, f"{where}.labelSelector"),
        topology_key=scalar_text(raw.get("topologyKey")),
    )


def raw_terms(spec: Mapping[str, Any], kind: str, strength: str = REQUIRED) -> list[Any]:
    """``spec.affinity.<kind>.<strength>`` as a list (empty when absent)."""
    affinity = spec.get("affinity")
    section = affinity.get(kind) if isinstance(affinity, Mapping) else None
    terms = section.get(strength) if isinstance(section, Mapping) else None
    return terms if isinstance(terms, list) else []


def pod_terms(
    spec: Mapping[str, Any],
    kind: str,
    pod_namespace: str,
    pod_labels: Mapping[str, str] | None,
) -> tuple[AffinityTerm, ...]:
    """GetAffinityTerms over the required terms of ``kind`` (podAffinity or
    podAntiAffinity). Raises :class:`SelectorError` on a term the API server refuses."""
    return tuple(
        parse_term(raw, pod_namespace, pod_labels, f"affinity.{kind}.{REQUIRED}[{i}]")
        for i, raw in enumerate(raw_terms(spec, kind))
    )


def preferred_pod_terms(
    spec: Mapping[str, Any], kind: str, namespace: str, labels: Mapping[str, str]
) -> tuple[tuple[int, AffinityTerm], ...]:
    """GetPreferredAffinityTerms over the preferred terms of ``kind``: (weight, term); a
    term of weight 0 or one the API would refuse is left out."""
    found = []
    for i, raw in enumerate(raw_terms(spec, kind, PREFERRED)):
        if not isinstance(raw, Mapping):
            continue
        weight = raw.get("weight")
        if not isinstance(weight, int) or isinstance(weight, bool) or weight == 0:
            continue
        try:
            term = parse_term(raw.get("podAffinityTerm"), namespace, labels, f"{kind}[{i}]")
        except SelectorError:
            continue
        found.append((weight, term))
    return tuple(found)


def stored_terms(
    raw: tuple[Mapping[str, Any], ...], pod_namespace: str
) -> tuple[AffinityTerm, ...]:
    """An existing pod's required terms, as NodeInfo parses them: one bad term and the pod
    carries none (GetAffinityTerms fails as a whole and the error is only logged)."""
    try:
        return tuple(parse_term(t, pod_namespace, None, "term") for t in raw)
    except SelectorError:
        return ()


def stored_weighted_terms(
    raw: tuple[tuple[int, Mapping[str, Any]], ...], pod_namespace: str
) -> tuple[tuple[int, AffinityTerm], ...]:
    """An existing pod's preferred terms of one kind as ``(weight, term)``, as NodeInfo
    parses them: one bad term and the pod carries none of that kind (getWeightedAffinityTerms
    fails as a whole; the other kinds are kept)."""
    try:
        return tuple((w, parse_term(t, pod_namespace, None, "term")) for w, t in raw)
    except SelectorError:
        return ()
