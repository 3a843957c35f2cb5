"""NodeName: a pod that names a node fits only there.

Upstream ``pkg/scheduler/framework/plugins/nodename/node_name.go``. Such a pod's answer
depends on node names, so the engine asks the nodes one by one.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from gate.k8s.version import Dialect
from gate.model import NODE_NAME, Cause, Family, FieldPath, NodeView, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import UNRESOLVABLE, Plugin, Rejection, the_pod
from gate.scheduler.plugins.nodeaffinity import SELECTOR_RULE

# nodename/node_name.go ErrReason
REASON_NODE_NAME = "node(s) didn't match the requested node name"


def node_name(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    if not pod.node_name or pod.node_name == node.name:
        return None
    return Rejection(NODE_NAME, UNRESOLVABLE, (REASON_NODE_NAME,))


def _named(pod: PodProfile, cluster: Cluster) -> Hashable:
    return pod.node_name


def _fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    return [("nodeName",)]


def _unnamed(pod: PodProfile) -> bool:
    return not pod.node_name


PLUGIN: Plugin[PodProfile] = Plugin(
    NODE_NAME,
    Family.SELECTOR,
    Term.NODE_NAME,
    SELECTOR_RULE,
    key=_named,
    prepare=the_pod,
    check=node_name,
    reasons=(REASON_NODE_NAME,),
    passes=_unnamed,
    fields=_fields,
)
