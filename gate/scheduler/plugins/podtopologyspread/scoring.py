"""PodTopologySpread, the score half: ``ScheduleAnyway`` constraints, or the system default
ones.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread/scoring.go`` (v1.34.1) and
``plugin.go`` (systemDefaultConstraints). A pod with spread constraints is scored by its
ScheduleAnyway ones (none: not scored); a pod without any gets the system defaults,
``kubernetes.io/hostname`` maxSkew 3 and ``topology.kubernetes.io/zone`` maxSkew 5, over the
selector of what owns it (helper.DefaultSelector: its Service, ReplicationController,
ReplicaSet or StatefulSet; fitgate knows the workload that creates it, a Deployment's
ReplicaSet included, and reads its template labels as that selector; a Deployment's
ReplicaSet selects by the new template's ``pod-template-hash`` too, so only its copies
count).

Per feasible node, for each constraint whose key the node carries::

    score += matching pods in its domain * log(domains + 2) + (maxSkew - 1)

rounded half away from zero; ``domains`` is the number of distinct values among the
feasible nodes (the feasible nodes themselves for the hostname key). With explicit
constraints a feasible node lacking any key is ignored (normalised to 0); with the system
defaults it is not. NormalizeScore: ``100 * (max + min - score) // max`` (100 everywhere when
max is 0), fewest matching pods best.

Worked example (upstream TestPodTopologySpreadScore "one constraint on node, no existing
pods"): two feasible nodes, maxSkew 1, no pod: both score 0, max 0, both 100.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

from gate.k8s.labels import HOSTNAME, ZONE
from gate.k8s.selectors import LabelSelector, SelectorError, parse_selector
from gate.k8s.spread import SpreadConstraint
from gate.model import POD_TOPOLOGY_SPREAD, NodeView
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.scores import (
    MAX_NODE_SCORE,
    Earlier,
    Feasible,
    Incoming,
    Placing,
    ScorePlugin,
    Workload,
)
from gate.scheduler.plugins.podtopologyspread import _tolerated, affinity_bits
from gate.scheduler.plugins.podtopologyspread.copies import counts_copies
from gate.scheduler.plugins.podtopologyspread.filtering import matching_per_node

# plugin.go systemDefaultConstraints
SYSTEM_DEFAULTS = ((HOSTNAME, 3), (ZONE, 5))

HASHED_OWNERS = frozenset({"Deployment", "Rollout", "Service", "Configuration"})
"""The kinds whose pods a ReplicaSet owns that selects them by a hash of the template as
well: a Deployment's ReplicaSet adds ``pod-template-hash`` to its selector (deployment
controller getNewReplicaSet), an Argo Rollout's ``rollouts-pod-template-hash``, and a
Knative Service's or Configuration's pods are its Revision's Deployment's. That label only
the workload's own pods carry, and those are released, so no pod of the snapshot matches
the selector."""

OWNED_BY_A_SELECTOR = frozenset({"ReplicaSet", "StatefulSet", "ReplicationController"}) | (
    HASHED_OWNERS
)
"""The kinds whose pods a controller with a selector owns (helper.DefaultSelector reads
ReplicaSets, StatefulSets and ReplicationControllers; the pods of :data:`HASHED_OWNERS`
belong to a ReplicaSet)."""


@dataclass(frozen=True, slots=True)
class SoftConstraint:
    """One scoring constraint: ``existing`` matching pods per node position (namespace,
    selector, not terminating), and whether the pod's copies count once bound
    (``self_match``: they match a selector that is not empty)."""

    topology_key: str
    max_skew: int
    existing: Mapping[int, int]
    self_match: bool
    counted: int | None = None
    """The nodes whose pods count toward its domains as its node inclusion policies say
    (matchNodeInclusionPolicies), as a bitset; None: the scoring's ``counted``."""
    selector: LabelSelector | None = None
    """The selector the run's earlier copies are matched by; None: none can match (an
    empty selector, or a template hash no pod but the workload's own carries)."""


@dataclass(frozen=True, slots=True)
class SpreadScoring:
    """preScoreState, less what depends on the feasible nodes. ``require_all``: explicit
    constraints (a node lacking a key is ignored); ``counted``: the nodes whose pods count
    toward a domain (nodeAffinityPolicy Honor: those the pod's node affinity accepts)."""

    constraints: tuple[SoftConstraint, ...]
    require_all: bool
    counted: int


def soft_scoring(
    constraints: Sequence[SpreadConstraint],
    default_selector: LabelSelector | None,
    namespace: str,
    labels: Mapping[str, str],
    pods: PodIndex,
    counted: int,
    explicit: bool,
    *,
    everyone: int = -1,
    tolerated: int = -1,
    hashed: bool = False,
) -> SpreadScoring | None:
    """The scoring constraints of a pod (module doc); None when it has none (Skip).
    ``constraints``: its ScheduleAnyway ones; ``explicit``: it has spread constraints of
    any kind; ``default_selector``: its owner's selector, for the system defaults.
    ``counted``: the nodes the pod's node affinity accepts; ``tolerated``: those whose
    NoSchedule and NoExecute taints it tolerates; ``everyone``: every node (bitsets, -1
    for every node): a constraint counts the pods of the nodes its nodeAffinityPolicy and
    nodeTaintsPolicy admit (the system defaults: Honor and Ignore). ``hashed``: the owner's
    selector holds a template hash no pod of the snapshot carries (:data:`HASHED_OWNERS`),
    so the system defaults count the copies alone."""
    if explicit:
        chosen = [
            (c.topology_key, c.max_skew, c.selector, c.honor_node_affinity, c.honor_taints)
            for c in constraints
        ]
    elif default_selector is not None and not default_selector.empty:
        chosen = [(key, skew, default_selector, True, False) for key, skew in SYSTEM_DEFAULTS]
    else:
        chosen = []
    if not chosen:
        return None
    return SpreadScoring(
        constraints=tuple(
            SoftConstraint(
                key,
                skew,
                {} if hashed and not explicit else matching_per_node(selector, namespace, pods),
                counts_copies(selector.matches(labels), selector),
                (counted if honor_affinity else everyone)
                & (tolerated if honor_taints else everyone),
                None if selector.empty or (hashed and not explicit) else selector,
            )
            for key, skew, selector, honor_affinity, honor_taints in chosen
        ),
        require_all=explicit,
        counted=counted,
    )


def normalizing_weight(size: int) -> float:
    """topologyNormalizingWeight: ``log(size + 2)``."""
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    """scoreForCount."""
    return count * weight + (max_skew - 1)


def go_round(value: float) -> int:
    """math.Round: half away from zero (the scores are never negative)."""
    return math.floor(value + 0.5)


def normalize(scores: Sequence[int | None]) -> list[int]:
    """NormalizeScore: None marks an ignored node (0); the others ``100 * (max + min - s)
    // max``, 100 when the max is 0.

    >>> normalize([0, 1, 2, None])
    [100, 50, 0, 0]
    """
    valid = [s for s in scores if s is not None]
    low, high = min(valid, default=0), max(valid, default=0)
    return [
        0
        if s is None
        else MAX_NODE_SCORE
        if high == 0
        else MAX_NODE_SCORE * (high + low - s) // high
        for s in scores
    ]


# --- as copies are placed ---------------------------------------------------------------

ZoneCounts = list[dict[str, int]]
"""Per scoring constraint over a key other than the hostname: the matching pods by domain,
the placed copies included (none for a hostname constraint: a node's own count is read)."""


def _prescore(workload: Workload) -> SpreadScoring | None:
    """PreScore: the pod's scoring constraints, or the system defaults over the selector
    of what owns it (module doc). Raises SelectorError on template labels the API server
    would have refused, read as that selector."""
    profile = workload.profile
    default = None
    if workload.kind in OWNED_BY_A_SELECTOR and profile.labels:
        try:
            default = parse_selector({"matchLabels": dict(profile.labels)})
        except SelectorError as exc:
            raise SelectorError(f"template metadata.labels: {exc}") from exc
    if profile.soft_spread_error:
        raise SelectorError(profile.soft_spread_error)
    nodes = workload.nodes
    honours_taints = any(c.honor_taints for c in profile.soft_spread)
    return soft_scoring(
        profile.soft_spread,
        default,
        profile.namespace,
        profile.labels,
        workload.pods,
        affinity_bits(profile, nodes),
        profile.spread_listed,
        everyone=nodes.everyone,
        tolerated=_tolerated(profile, nodes) if honours_taints else nodes.everyone,
        hashed=workload.kind in HASHED_OWNERS,
    )


def _beside(
    scoring: SpreadScoring | None, incoming: Incoming, earlier: Earlier
) -> SpreadScoring | None:
    """The run's earlier copies counted on their nodes as the snapshot's pods are, by each
    constraint whose selector matches them in the pod's namespace (countPodsMatchSelector;
    they are bound before the pod is scheduled)."""
    if scoring is None:
        return None
    constraints = []
    for c in scoring.constraints:
        selector = c.selector
        names = (
            set()
            if selector is None
            else {
                name
                for name, labels in earlier.workloads.get(incoming.namespace, ())
                if selector.matches(labels)
            }
        )
        if names:
            existing = dict(c.existing)
            for p, copies in earlier.copies_of(names):
                existing[p] = existing.get(p, 0) + copies
            c = replace(c, existing=existing)
        constraints.append(c)
    return replace(scoring, constraints=tuple(constraints))


def ignored(scoring: SpreadScoring, node: NodeView) -> bool:
    """Whether explicit constraints leave ``node`` out: it lacks one of their keys."""
    return scoring.require_all and any(
        c.topology_key not in node.labels for c in scoring.constraints
    )


def _counted(scoring: SpreadScoring, c: SoftConstraint) -> int:
    """The nodes whose pods ``c`` counts, ignored nodes aside."""
    return scoring.counted if c.counted is None else c.counted


def _counts_toward(scoring: SpreadScoring, c: SoftConstraint, run: Placing, p: int) -> bool:
    """Whether the pods of node ``p`` count toward its domain of ``c`` (processAllNode)."""
    return bool(_counted(scoring, c) >> p & 1) and not ignored(scoring, run.nodes[p])


def _start(run: Placing, scoring: SpreadScoring | None) -> ZoneCounts:
    """The matching pods by domain of every constraint over a zone-like key, over the
    nodes whose pods count."""
    if scoring is None:
        return []
    found: ZoneCounts = []
    for c in scoring.constraints:
        counts: dict[str, int] = {}
        if c.topology_key != HOSTNAME:
            for p, n in c.existing.items():
                if _counts_toward(scoring, c, run, p):
                    value = run.nodes[p].labels.get(c.topology_key, "")
                    counts[value] = counts.get(value, 0) + n
        found.append(counts)
    return found


def _land(run: Placing, scoring: SpreadScoring | None, zone: ZoneCounts, p: int) -> None:
    """A copy lands on node ``p``: a constraint it matches counts it in its domain."""
    if scoring is None or ignored(scoring, run.nodes[p]):
        return
    labels = run.nodes[p].labels
    for k, c in enumerate(scoring.constraints):
        if c.topology_key != HOSTNAME and c.self_match and _counted(scoring, c) >> p & 1:
            value = labels.get(c.topology_key, "")
            zone[k][value] = zone[k].get(value, 0) + 1


def _score(
    run: Placing, scoring: SpreadScoring | None, zone: ZoneCounts, feasible: Feasible
) -> list[int | None] | None:
    """The raw score of each feasible class (None: an ignored node); None: no constraint."""
    if scoring is None:
        return None
    kept = [(p, m) for p, m in feasible if not ignored(scoring, run.nodes[p])]
    weights = []
    for c in scoring.constraints:
        if c.topology_key == HOSTNAME:
            size = sum(len(m) for _, m in kept)
        else:
            size = len({run.nodes[p].labels.get(c.topology_key, "") for p, _ in kept})
        weights.append(normalizing_weight(size))
    raw: list[int | None] = []
    for p, _ in feasible:
        node = run.nodes[p]
        if ignored(scoring, node):
            raw.append(None)
            continue
        score = 0.0
        for k, c in enumerate(scoring.constraints):
            value = node.labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == HOSTNAME:
                count = c.existing.get(p, 0) + run.copies.get(p, 0) * c.self_match
            else:
                count = zone[k].get(value, 0)
            score += score_for_count(count, c.max_skew, weights[k])
        raw.append(go_round(score))
    return raw


def _reads(run: Placing, scoring: SpreadScoring | None, p: int) -> Hashable:
    """What the score reads of node ``p`` apart from the copies: per constraint its
    matching pods (hostname) or its domain, and whether it is ignored."""
    if scoring is None:
        return ()
    node = run.nodes[p]
    return (
        *(
            c.existing.get(p, 0) if c.topology_key == HOSTNAME else node.labels.get(c.topology_key)
            for c in scoring.constraints
        ),
        ignored(scoring, node),
    )


SCORE: ScorePlugin[SpreadScoring | None, ZoneCounts] = ScorePlugin(
    POD_TOPOLOGY_SPREAD,
    2,
    "spread",
    _prescore,
    normalize=normalize,
    start=_start,
    land=_land,
    score=_score,
    reads=_reads,
    beside=_beside,
)
"""Score: the fewest matching pods in a node's domains best (module doc)."""
