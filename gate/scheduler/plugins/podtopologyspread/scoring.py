"""PodTopologySpread, the score half: ``ScheduleAnyway`` constraints, or the system default
ones.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread/scoring.go`` (v1.34.1) and
``plugin.go`` (systemDefaultConstraints). A pod with spread constraints is scored by its
ScheduleAnyway ones (none: not scored); a pod without any gets the system defaults,
``kubernetes.io/hostname`` maxSkew 3 and ``topology.kubernetes.io/zone`` maxSkew 5, over the
selector of what owns it (helper.DefaultSelector: its Service, ReplicationController,
ReplicaSet or StatefulSet; fitgate knows the workload that creates it, a Deployment's
ReplicaSet included, and reads its template labels as that selector).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.k8s.labels import HOSTNAME, ZONE
from gate.k8s.selectors import LabelSelector
from gate.k8s.spread import SpreadConstraint
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.scores import MAX_NODE_SCORE
from gate.scheduler.plugins.podtopologyspread.filtering import matching_per_node

# plugin.go systemDefaultConstraints
SYSTEM_DEFAULTS = ((HOSTNAME, 3), (ZONE, 5))


@dataclass(frozen=True, slots=True)
class SoftConstraint:
    """One scoring constraint: ``existing`` matching pods per node position (namespace,
    selector, not terminating), and whether the pod's copies match it (``self_match``)."""

    topology_key: str
    max_skew: int
    existing: Mapping[int, int]
    self_match: bool


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
) -> SpreadScoring | None:
    """The scoring constraints of a pod (module doc); None when it has none (Skip).
    ``constraints``: its ScheduleAnyway ones; ``explicit``: it has spread constraints of
    any kind; ``default_selector``: its owner's selector, for the system defaults."""
    if explicit:
        chosen = [(c.topology_key, c.max_skew, c.selector) for c in constraints]
    elif default_selector is not None and not default_selector.empty:
        chosen = [(key, skew, default_selector) for key, skew in SYSTEM_DEFAULTS]
    else:
        chosen = []
    if not chosen:
        return None
    return SpreadScoring(
        constraints=tuple(
            SoftConstraint(
                key, skew, matching_per_node(selector, namespace, pods), selector.matches(labels)
            )
            for key, skew, selector in chosen
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
