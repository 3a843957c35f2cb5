"""TaintToleration: a node's NoSchedule/NoExecute taints must all be tolerated.

Upstream ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``. The
Filter reports the first untolerated taint in the node's order; through v1.34.1 its reason
names the taint, since v1.35 it does not (the run's :class:`Dialect` says which).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from gate.k8s.matching import PREFER_NO_SCHEDULE, first_untolerated, tolerates
from gate.k8s.version import Dialect
from gate.model import TAINT_TOLERATION, Cause, Family, FieldPath, NodeView, Rule, Taint, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import taints_of
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Plugin, Rejection, the_pod
from gate.scheduler.framework.scores import ScorePlugin, Workload, reversed_normalize

# tainttoleration/taint_toleration.go Filter: through v1.34.1 the taint is named, since v1.35 not
REASON_TAINT_NAMED = "node(s) had untolerated taint {{{key}: {value}}}"
REASON_TAINT_GENERIC = "node(s) had untolerated taint(s)"

TAINTS_RULE = Rule(
    Family.TAINTS,
    "UntoleratedTaint",
    "The pod does not tolerate the taints of the nodes it could land on",
    "Add the toleration the nodes ask for, or aim the pod at nodes without the taint "
    "(a cordoned node counts as tainted).",
)
"""The rule of the taints family: NodeUnschedulable's too (a cordon is a taint to it)."""


def taint_reason(taint: Taint, dialect: Dialect) -> str:
    if dialect.named_taint:
        return REASON_TAINT_NAMED.format(key=taint.key, value=taint.value)
    return REASON_TAINT_GENERIC


def taint_toleration(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """The first NoSchedule/NoExecute taint, in node order, that no toleration tolerates."""
    taint = first_untolerated(node.taints, pod.tolerations)
    if taint is None:
        return None
    return Rejection(TAINT_TOLERATION, UNRESOLVABLE, (taint_reason(taint, dialect),), taint)


def toleration_fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """``tolerations``, or the pod spec when it has none."""
    return [("tolerations",)]


def tolerations(pod: PodProfile, cluster: Cluster | None = None) -> Hashable:
    """What the plugin reads of a pod: its tolerations (NodeUnschedulable's too)."""
    return pod.toleration_key


PLUGIN: Plugin[PodProfile] = Plugin(
    TAINT_TOLERATION,
    Family.TAINTS,
    Term.TOLERATIONS,
    TAINTS_RULE,
    key=tolerations,
    prepare=the_pod,
    check=taint_toleration,
    reasons=(REASON_TAINT_GENERIC, REASON_TAINT_NAMED),
    reads=taints_of,
    asks=tolerations,
    fields=toleration_fields,
)


# --- Score (tainttoleration/taint_toleration.go Score, NormalizeScore) -------------------


def intolerable_preferences(pod: PodProfile, node: NodeView) -> int:
    """countIntolerableTaintsPreferNoSchedule: the node's PreferNoSchedule taints that the
    pod's tolerations of that effect (or of every effect) do not tolerate. NormalizeScore
    reverses it over the feasible nodes: fewest intolerable taints, 100."""
    preferring = [t for t in pod.tolerations if (t.get("effect") or "") in ("", PREFER_NO_SCHEDULE)]
    return sum(
        1
        for taint in node.taints
        if taint.effect == PREFER_NO_SCHEDULE and not any(tolerates(t, taint) for t in preferring)
    )


NodeScore = Callable[[NodeView], int]


def _prescore(workload: Workload) -> NodeScore:
    profile = workload.profile

    def taints(node: NodeView) -> int:
        return intolerable_preferences(profile, node)

    return taints


def _raw(taints: NodeScore, node: NodeView) -> int:
    return taints(node)


SCORE: ScorePlugin[NodeScore, None] = ScorePlugin(
    TAINT_TOLERATION, 3, "taints", _prescore, normalize=reversed_normalize, node=_raw
)
"""Score (taint_toleration.go): the intolerable PreferNoSchedule taints, fewest best."""
