"""What the score plugins read of one workload's pod, worked out once (their PreScore).

The rules themselves live in the plugin modules; this gathers their inputs for
:class:`gate.scheduler.placement.copies.ScoreRules`: the non-zero and the written cpu and memory
requests (NodeResourcesFit, BalancedAllocation), the PreferNoSchedule tolerations
(TaintToleration), the preferred node affinity terms (NodeAffinity), the scoring spread
constraints with the matching pods they count (PodTopologySpread) and the preferred pod
(anti-)affinity terms with the pods they match (InterPodAffinity).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.k8s.selectors import SelectorError, parse_selector
from gate.k8s.spread import SCHEDULE_ANYWAY, hard_constraints
from gate.model import NodeView
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.placement.copies import ScoreRules
from gate.scheduler.plugins.interpodaffinity.scoring import affinity_scoring
from gate.scheduler.plugins.nodeaffinity import preferred_terms, preferred_weight
from gate.scheduler.plugins.noderesources import SCORED, nonzero_requests
from gate.scheduler.plugins.podtopologyspread import affinity_bits
from gate.scheduler.plugins.podtopologyspread.scoring import soft_scoring
from gate.scheduler.plugins.tainttoleration import intolerable_preferences

OWNED_BY_A_SELECTOR = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"}
)
"""The kinds whose pods a controller with a selector owns (helper.DefaultSelector reads
ReplicaSets, StatefulSets and ReplicationControllers; a Deployment's pods belong to its
ReplicaSet)."""


def score_rules(
    kind: str,
    spec: Mapping[str, Any],
    profile: PodProfile,
    nodes: NodeIndex,
    pods: PodIndex,
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> ScoreRules:
    """The score plugins' inputs for the pod of a workload of ``kind`` (module doc).
    Raises QuantityError on a request the scheduler cannot hold."""
    cpu, memory = (profile.requests.get(r, 0) for r in SCORED)
    terms = preferred_terms(spec)

    def affinity(node: NodeView) -> int:
        return preferred_weight(terms, node)

    def taints(node: NodeView) -> int:
        return intolerable_preferences(profile, node)

    written = spec.get("topologySpreadConstraints")
    explicit = isinstance(written, list) and bool(written)
    default = None
    if kind in OWNED_BY_A_SELECTOR and profile.labels:
        try:  # the labels the API server would have refused, read as the default selector
            default = parse_selector({"matchLabels": dict(profile.labels)})
        except SelectorError as exc:
            raise SelectorError(f"template metadata.labels: {exc}") from exc
    spread = soft_scoring(
        hard_constraints(spec, profile.labels, SCHEDULE_ANYWAY) if explicit else (),
        default,
        profile.namespace,
        profile.labels,
        pods,
        affinity_bits(profile, nodes),
        explicit,
    )
    return ScoreRules(
        nonzero=nonzero_requests(spec),
        balanced=(cpu, memory) if cpu or memory else None,
        taints=taints,
        affinity=affinity,
        spread=spread,
        interpod=affinity_scoring(spec, profile, nodes.nodes, pods, namespaces),
    )
