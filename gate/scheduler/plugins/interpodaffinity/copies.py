"""InterPodAffinity as the copies of one pod meet it: the pod's own required anti-affinity.

Upstream ``interpodaffinity/filtering.go`` (v1.34.1): once a copy is bound, the next
copy's PreFilter counts it among the pods its anti-affinity terms match
(``AffinityTerm.Matches``, the namespaceSelector read against the labels of the copy's
namespace), so a term the pod's own labels match keeps every later copy out of the domain
the first one took. Its required affinity to its own labels works the other way: where
no pod in the cluster matches the terms, the first copy lands on any node with the terms'
keys (satisfyPodAffinity: the first pod of a group), and once bound it is the pod every
later copy's terms count, so they must share its domain of every term's key. Placement of
copies, the cluster-autoscaler simulation and the
Karpenter simulation ask this here; none restates it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Set
from dataclasses import replace

from gate.k8s.labels import HOSTNAME
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.plugins.interpodaffinity.filtering import AffinityState


def own_anti_keys(pod: PodProfile, namespace_labels: Mapping[str, str] | None) -> tuple[str, ...]:
    """The topology keys, sorted, of the pod's required anti-affinity terms its own copies
    match: one copy at most per domain of each. ``namespace_labels``: its namespace's
    labels ({} when the snapshot lacks it, None when it recorded no namespaces)."""
    return tuple(
        sorted(
            {
                term.topology_key
                for term in pod.pod_anti_affinity
                if term.matches(pod.namespace, pod.labels, namespace_labels)
            }
        )
    )


def one_per_node(keys: Collection[str]) -> bool:
    """Whether the pod's own anti-affinity keys (:func:`own_anti_keys`) leave a node one
    copy at most: a term over hostnames, whose domain is the node."""
    return HOSTNAME in keys


def wider_than_a_node(keys: Collection[str]) -> list[str]:
    """The pod's own anti-affinity keys whose domains may hold several nodes: a copy on
    one keeps the next off them all."""
    return [key for key in keys if key != HOSTNAME]


def refuses_another(taken: Set[str | None], domain: str | None) -> bool:
    """Whether a node in ``domain`` of a key of the pod's own anti-affinity refuses the
    next copy: a copy already landed in that domain (``taken``). A node without the key
    is in no domain, and no copy's term reaches it."""
    return domain is not None and domain in taken


def cycle_anti_keys(cycle: CycleState, pod: PodProfile) -> tuple[str, ...]:
    """:func:`own_anti_keys` with the namespace labels the pod's InterPodAffinity
    PreFilter read (none asked when it was skipped: the pod has no anti-affinity)."""
    for prepared in cycle:
        if isinstance(prepared.state, AffinityState):
            return own_anti_keys(pod, prepared.state.namespace_labels)
    return ()


def follow_first_keys(state: AffinityState) -> tuple[str, ...]:
    """The topology keys, sorted, of the pod's required affinity terms when its first copy
    passes as the first pod of a group (no pod matches the terms anywhere, the pod matches
    them all): every later copy must share the first copy's value of each. () when pods
    matching the terms already hold the domains (the Filter keeps every copy there)."""
    if not state.affinity_terms or state.affinity_counts or not state.self_match:
        return ()
    return tuple(sorted({term.topology_key for term in state.affinity_terms}))


def cycle_follow_keys(cycle: CycleState) -> tuple[str, ...]:
    """:func:`follow_first_keys` of the pod's InterPodAffinity PreFilter (() when it was
    skipped)."""
    for prepared in cycle:
        if isinstance(prepared.state, AffinityState):
            return follow_first_keys(prepared.state)
    return ()


def after_first_copy(cycle: CycleState, labels: Mapping[str, str]) -> CycleState:
    """The pod's cycle once its first copy is bound on a node with these ``labels``, where
    its affinity terms let that copy land anywhere (:func:`follow_first_keys`): the terms
    now count that copy, so a node outside its domains fails them, a fresh node an
    autoscaler adds included."""
    found = []
    for prepared in cycle:
        state = prepared.state
        if isinstance(state, AffinityState) and follow_first_keys(state):
            counts = {
                (term.topology_key, labels[term.topology_key]): 1
                for term in state.affinity_terms
                if term.topology_key in labels
            }
            prepared = replace(prepared, state=replace(state, affinity_counts=counts))
        found.append(prepared)
    return tuple(found)
