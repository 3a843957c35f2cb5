"""NodeUnschedulable: a cordoned node admits only pods that tolerate its cordon.

Upstream ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``: the
cordon reads as the taint ``node.kubernetes.io/unschedulable:NoSchedule``.
"""

from __future__ import annotations

from gate.k8s.labels import TAINT_UNSCHEDULABLE
from gate.k8s.matching import NO_SCHEDULE, tolerates
from gate.k8s.version import Dialect
from gate.model import NODE_UNSCHEDULABLE, Family, NodeView, Taint, Term
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Plugin, Rejection, the_pod
from gate.scheduler.plugins.tainttoleration import TAINTS_RULE, toleration_fields, tolerations

# nodeunschedulable/node_unschedulable.go ErrReasonUnschedulable
REASON_UNSCHEDULABLE = "node(s) were unschedulable"

UNSCHEDULABLE_TAINT = Taint(key=TAINT_UNSCHEDULABLE, value="", effect=NO_SCHEDULE)


def node_unschedulable(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """A cordoned node admits only pods tolerating unschedulable:NoSchedule."""
    if not node.unschedulable or any(tolerates(t, UNSCHEDULABLE_TAINT) for t in pod.tolerations):
        return None
    return Rejection(NODE_UNSCHEDULABLE, UNRESOLVABLE, (REASON_UNSCHEDULABLE,))


def _cordoned(node: NodeView) -> bool:
    return node.unschedulable


PLUGIN: Plugin[PodProfile] = Plugin(
    NODE_UNSCHEDULABLE,
    Family.TAINTS,
    Term.TOLERATIONS,
    TAINTS_RULE,
    key=tolerations,
    prepare=the_pod,
    check=node_unschedulable,
    reasons=(REASON_UNSCHEDULABLE,),
    reads=_cordoned,
    asks=tolerations,
    fields=toleration_fields,
)
