"""InterPodAffinity, the plugin: required pod affinity and anti-affinity.

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/`` (v1.34.1): its PreFilter
(the counts of :mod:`.filtering`, once per pod), Filter, the per-class split, what it
reads of a pod, and how a rejection points at the term at fault.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from msgspec.structs import replace

from gate.k8s.podaffinity import POD_AFFINITY, POD_ANTI_AFFINITY, REQUIRED
from gate.k8s.version import Dialect
from gate.model import INTER_POD_AFFINITY, Cause, Family, FieldPath, NodeView, Rule, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Explained, Parts, Plugin, Rejection, indexed
from gate.scheduler.plugins.interpodaffinity.filtering import (
    AFFINITY,
    ANTI_AFFINITY,
    REASON_AFFINITY,
    REASON_ANTI_AFFINITY,
    REASON_EXISTING_ANTI_AFFINITY,
    AffinityState,
    affinity_groups,
    affinity_state,
)

RULE = Rule(
    Family.AFFINITY,
    "PodAffinityUnsatisfied",
    "The pod's (anti-)affinity, or that of pods already running, rules the nodes out",
    "Relax the required term the message names, or its topology key.",
)


def prepare_affinity(pod: PodProfile, cluster: Cluster) -> AffinityState | None:
    """PreFilter; None for Skip."""
    others = cluster.others
    if not others.relevant(pod):
        return None
    namespaces = others.namespaces
    own = None if namespaces is None else namespaces.get(pod.namespace, {})
    state = affinity_state(
        pod.namespace,
        pod.labels,
        tuple(t.with_namespaces_listed(namespaces) for t in pod.pod_affinity),
        tuple(t.with_namespaces_listed(namespaces) for t in pod.pod_anti_affinity),
        own,
        cluster.index,
        others.pods,
    )
    return None if state.skip else state


def check_affinity(
    state: AffinityState | None, node: NodeView, dialect: Dialect
) -> Rejection | None:
    return None if state is None else state.filter(node.labels)


def split_affinity(
    index: NodeIndex, state: AffinityState | None, dialect: Dialect, among: int
) -> Parts:
    return [] if state is None else affinity_groups(state, index, among)


def _asked(pod: PodProfile, cluster: Cluster) -> Hashable:
    """What the PreFilter reads: nothing when it can reject nothing for the pod (it asks
    nothing and no existing pod has anti-affinity), else the pod's namespace, labels and
    terms."""
    if not cluster.others.relevant(pod):
        return None
    return (
        pod.namespace,
        tuple(sorted(pod.labels.items())),
        pod.pod_affinity,
        pod.pod_anti_affinity,
    )


def _skipped(state: object) -> bool:
    return state is None


def _explained(rejection: Rejection) -> list[Explained]:
    """Which of the three checks rejected the node: the pod's affinity, its anti-affinity,
    or an existing pod's anti-affinity."""
    term = (
        Term.POD_AFFINITY
        if rejection == AFFINITY
        else Term.POD_ANTI_AFFINITY
        if rejection == ANTI_AFFINITY
        else Term.EXISTING_ANTI_AFFINITY
    )
    return [(term, "", 0, rejection.reasons[0] if rejection.reasons else "")]


def _refined(cause: Cause, state: AffinityState | None, node: NodeView) -> Cause:
    if isinstance(state, AffinityState) and cause.term is not Term.EXISTING_ANTI_AFFINITY:
        return replace(cause, index=_failing_term(state, cause.term, node.labels))
    return cause


def _failing_term(state: AffinityState, term: Term, labels: Mapping[str, str]) -> int | None:
    """The first of the pod's terms that the node fails (filtering.go's order)."""
    if term is Term.POD_AFFINITY:
        for i, affinity in enumerate(state.affinity_terms):
            value = labels.get(affinity.topology_key)
            if value is None or state.affinity_counts.get((affinity.topology_key, value), 0) <= 0:
                return i
        return None
    for i, anti in enumerate(state.anti_affinity_terms):
        value = labels.get(anti.topology_key)
        if value is not None and state.anti_counts.get((anti.topology_key, value), 0) > 0:
            return i
    return None


def _fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """The pod's required term at fault, else its list of terms; for an existing pod's
    anti-affinity, the template's ``metadata.labels`` (what the other pods' terms match)."""
    if cause.term is Term.EXISTING_ANTI_AFFINITY:
        return [("..", "metadata", "labels")]
    kind = POD_AFFINITY if cause.term is Term.POD_AFFINITY else POD_ANTI_AFFINITY
    return indexed(("affinity", kind, REQUIRED), cause.index)


PLUGIN: Plugin[AffinityState | None] = Plugin(
    INTER_POD_AFFINITY,
    Family.AFFINITY,
    Term.POD_AFFINITY,
    RULE,
    key=_asked,
    prepare=prepare_affinity,
    check=check_affinity,
    room=True,
    reasons=(REASON_AFFINITY, REASON_ANTI_AFFINITY, REASON_EXISTING_ANTI_AFFINITY),
    passes=_skipped,
    split=split_affinity,
    explain=_explained,
    refine=_refined,
    fields=_fields,
)
