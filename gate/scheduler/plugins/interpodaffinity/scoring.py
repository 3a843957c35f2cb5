"""InterPodAffinity, the score half: preferred pod (anti-)affinity.

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/scoring.go`` (v1.34.1). PreScore
walks the existing pods (every pod when the incoming pod has preferred terms, else only those
with affinity terms) and adds, to every node sharing the existing pod's node's value of a
term's topology key:

* ``+weight`` for each preferred affinity term of the incoming pod the existing pod matches,
  ``-weight`` for each preferred anti-affinity term;
* ``+hardPodAffinityWeight`` (1) for each required affinity term of the existing pod the
  incoming pod matches, and ``+/-weight`` for its preferred terms the incoming pod matches.

A node's score is the sum over the keys it carries; NormalizeScore maps ``[min, max]`` of the
feasible nodes onto ``[0, 100]`` (``int(100 * (s - min) / (max - min))``, 0 everywhere when
max = min).

What fitgate counts: the incoming pod's preferred terms against the snapshot's pods, and the
copies it places, which are pods of the same template: a copy in a domain adds ``2 * weight``
for a preferred term the pod's own labels match (its term matches the next copy, and the
next copy's term matches it) and ``1`` for a required affinity term it matches itself; and
the snapshot's pods' required and preferred terms the pod matches (found in the pod index
on first use: a snapshot whose pods carry none costs nothing more).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

from gate.k8s.podaffinity import (
    AffinityTerm,
)
from gate.model import INTER_POD_AFFINITY, NodeView
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.scores import (
    Carried,
    Earlier,
    Feasible,
    Incoming,
    Placing,
    ScorePlugin,
    Workload,
)

HARD_POD_AFFINITY_WEIGHT = 1  # InterPodAffinityArgs default hardPodAffinityWeight


@dataclass(frozen=True, slots=True)
class AffinityScoring:
    """Per counted term: its topology key, the weight the snapshot's pods add by domain
    value, and what each placed copy adds to its domain."""

    keys: tuple[str, ...]
    existing: tuple[Mapping[str, int], ...]
    per_copy: tuple[int, ...]
    preferred: tuple[tuple[int, AffinityTerm], ...] = ()
    """The pod's preferred terms as (weight, negative for anti-affinity; the term, its
    namespaces listed), the first counted terms in that order."""


def affinity_scoring(
    profile: PodProfile,
    nodes: Sequence[NodeView],
    pods: PodIndex,
    namespaces: Mapping[str, Mapping[str, str]] | None,
) -> AffinityScoring | None:
    """The counted terms of the pod (module doc); None when none can score (Skip)."""
    own_labels = None if namespaces is None else namespaces.get(profile.namespace, {})
    weighted = [
        *((weight, term) for weight, term in profile.preferred_pod_affinity),
        *((-weight, term) for weight, term in profile.preferred_pod_anti_affinity),
    ]
    keys: list[str] = []
    existing: list[Mapping[str, int]] = []
    per_copy: list[int] = []
    preferred: list[tuple[int, AffinityTerm]] = []
    for weight, term in weighted:
        listed = term.with_namespaces_listed(namespaces)
        preferred.append((weight, listed))
        self_match = listed.matches(profile.namespace, profile.labels, own_labels)
        keys.append(term.topology_key)
        existing.append(_by_domain(listed, weight, nodes, pods))
        per_copy.append(2 * weight if self_match else 0)
    for term in profile.pod_affinity:
        if term.matches(profile.namespace, profile.labels, own_labels):
            keys.append(term.topology_key)
            existing.append({})
            per_copy.append(HARD_POD_AFFINITY_WEIGHT)
    for key, by_value in _terms_of_existing(profile, nodes, pods, own_labels).items():
        keys.append(key)
        existing.append(by_value)
        per_copy.append(0)
    if not keys:
        return None
    return AffinityScoring(tuple(keys), tuple(existing), tuple(per_copy), tuple(preferred))


def carried_terms(profile: PodProfile) -> Carried:
    """The terms a copy of the pod carries that score a pod scheduled after it, as
    processExistingPod reads an existing pod's: its required affinity terms
    (``hardPodAffinityWeight``), its preferred affinity terms (their weight) and its
    preferred anti-affinity terms (minus theirs)."""
    return (
        *((HARD_POD_AFFINITY_WEIGHT, term) for term in profile.pod_affinity),
        *profile.preferred_pod_affinity,
        *((-weight, term) for weight, term in profile.preferred_pod_anti_affinity),
    )


def _terms_of_existing(
    profile: PodProfile,
    nodes: Sequence[NodeView],
    pods: PodIndex,
    own_labels: Mapping[str, str] | None,
) -> dict[str, dict[str, int]]:
    """By topology key, what the snapshot's pods' terms the pod matches add by domain
    value: ``hardPodAffinityWeight`` per carrier of a required affinity term, the weight
    of a preferred affinity term, minus that of a preferred anti-affinity term
    (processExistingPod; the term's namespaceSelector is matched against the incoming
    pod's namespace labels). A key is kept once a term adds to it, even a net zero: so
    does upstream's map, and the score is not skipped."""
    found: dict[str, dict[str, int]] = {}
    weighted = [(HARD_POD_AFFINITY_WEIGHT, t, c) for t, c in pods.affinity_terms()]
    for weight, term, carriers in (*weighted, *pods.preferred_terms()):
        if not term.matches(profile.namespace, profile.labels, own_labels):
            continue
        for position in carriers:
            value = nodes[position].labels.get(term.topology_key)
            if value is not None:  # a node without the key adds nothing (processTerm)
                by_value = found.setdefault(term.topology_key, {})
                by_value[value] = by_value.get(value, 0) + weight
    return found


def _by_domain(
    term: AffinityTerm, weight: int, nodes: Sequence[NodeView], pods: PodIndex
) -> dict[str, int]:
    """The weight the snapshot's pods matching ``term`` add, by the value of its key on
    their nodes (a node without the key adds nothing)."""
    found: dict[str, int] = {}
    scope = None if term.all_namespaces else frozenset(term.namespaces)
    for i in pods.matching(scope, term.selector):
        value = nodes[pods.node_of[i]].labels.get(term.topology_key)
        if value is not None:
            found[value] = found.get(value, 0) + weight
    return found


def normalize(scores: Sequence[int]) -> list[int]:
    """NormalizeScore: ``int(100 * (s - min) / (max - min))``, 0 everywhere when equal.

    >>> normalize([-200, 0, -100])
    [0, 100, 50]
    """
    low, high = min(scores, default=0), max(scores, default=0)
    if high == low:
        return [0 for _ in scores]
    return [int(100 * ((s - low) / (high - low))) for s in scores]


# --- as copies are placed ---------------------------------------------------------------

CopiesByDomain = list[dict[str, int]]
"""Per counted term: the copies placed so far by the value of its key."""


def _prescore(workload: Workload) -> AffinityScoring | None:
    return affinity_scoring(
        workload.profile, workload.nodes.nodes, workload.pods, workload.namespaces
    )


def _start(run: Placing, scoring: AffinityScoring | None) -> CopiesByDomain:
    return [{} for _ in (scoring.keys if scoring else ())]


def _land(run: Placing, scoring: AffinityScoring | None, copies: CopiesByDomain, p: int) -> None:
    """A copy lands on node ``p``: it counts in its domain of every term's key."""
    if scoring is None:
        return
    labels = run.nodes[p].labels
    for k, key in enumerate(scoring.keys):
        value = labels.get(key)
        if value is not None:
            copies[k][value] = copies[k].get(value, 0) + 1


def _score(
    run: Placing, scoring: AffinityScoring | None, copies: CopiesByDomain, feasible: Feasible
) -> list[int | None] | None:
    """The raw score of each feasible class: what the snapshot's pods and the placed
    copies add in its domains (module doc); None: no term counts (Skip)."""
    if scoring is None:
        return None
    raw: list[int | None] = []
    for p, _ in feasible:
        labels = run.nodes[p].labels
        score = 0
        for k, key in enumerate(scoring.keys):
            value = labels.get(key)
            if value is not None:
                score += scoring.existing[k].get(value, 0) + scoring.per_copy[k] * copies[k].get(
                    value, 0
                )
        raw.append(score)
    return raw


def _beside(
    scoring: AffinityScoring | None, incoming: Incoming, earlier: Earlier
) -> AffinityScoring | None:
    """The run's earlier copies counted as the snapshot's pods are (processExistingPod;
    they are bound before the pod is scheduled): those a preferred term of the pod
    matches add its weight by the domain of their node, and the terms they carry that the
    pod matches add theirs (:func:`_carried_beside`)."""
    scoring = _preferred_beside(scoring, earlier)
    carried = _carried_beside(incoming, earlier)
    if not carried:
        return scoring
    keys = tuple(carried)
    if scoring is None:
        return AffinityScoring(keys, tuple(carried.values()), (0,) * len(keys))
    return replace(
        scoring,
        keys=scoring.keys + keys,
        existing=scoring.existing + tuple(carried.values()),
        per_copy=scoring.per_copy + (0,) * len(keys),
    )


def _carried_beside(incoming: Incoming, earlier: Earlier) -> dict[str, dict[str, int]]:
    """By topology key, what the terms the earlier copies carry (:func:`carried_terms`)
    that the pod matches add by domain value: the term's weight per copy on a node with
    the key (as :func:`_terms_of_existing` counts the snapshot's pods'). Copies are looked
    up once per key and weight, for the workloads that carry such a term."""
    if not earlier.terms:
        return {}
    groups: dict[tuple[str, int], set[str]] = {}
    for name, terms in earlier.terms.items():
        by_key: dict[str, int] = {}  # what one copy adds by key, its terms summed
        for weight, term in terms:
            if term.matches(incoming.namespace, incoming.labels, incoming.namespace_labels):
                by_key[term.topology_key] = by_key.get(term.topology_key, 0) + weight
        for key, weight in by_key.items():
            groups.setdefault((key, weight), set()).add(name)
    found: dict[str, dict[str, int]] = {}
    for (key, weight), names in groups.items():
        for p, copies in earlier.copies_of(names):
            value = earlier.nodes[p].labels.get(key)
            if value is not None:
                by_value = found.setdefault(key, {})
                by_value[value] = by_value.get(value, 0) + weight * copies
    return found


def _preferred_beside(scoring: AffinityScoring | None, earlier: Earlier) -> AffinityScoring | None:
    """The run's earlier copies a preferred term of the pod matches add its weight by the
    domain of their node."""
    if scoring is None or not scoring.preferred:
        return scoring
    existing = list(scoring.existing)
    for k, (weight, term) in enumerate(scoring.preferred):
        spaces = earlier.workloads if term.all_namespaces else term.namespaces
        names = {
            name
            for space in spaces
            for name, labels in earlier.workloads.get(space, ())
            if term.matches(space, labels)
        }
        if not names:
            continue
        by_value = dict(existing[k])
        for p, copies in earlier.copies_of(names):
            value = earlier.nodes[p].labels.get(term.topology_key)
            if value is not None:
                by_value[value] = by_value.get(value, 0) + weight * copies
        existing[k] = by_value
    return replace(scoring, existing=tuple(existing))


def _reads(run: Placing, scoring: AffinityScoring | None, p: int) -> Hashable:
    """Node ``p``'s domain of every term's key."""
    labels = run.nodes[p].labels
    return tuple(labels.get(k) for k in scoring.keys) if scoring else ()


SCORE: ScorePlugin[AffinityScoring | None, CopiesByDomain] = ScorePlugin(
    INTER_POD_AFFINITY,
    2,
    "interpod",
    _prescore,
    normalize=normalize,
    start=_start,
    land=_land,
    score=_score,
    reads=_reads,
    beside=_beside,
)
"""Score: preferred pod (anti-)affinity, by domain (module doc)."""
