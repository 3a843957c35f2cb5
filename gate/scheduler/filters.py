"""kube-scheduler's node filters, one function per plugin, in the default profile's order.

Each filter takes the pod (as a :class:`PodProfile`, parsed once per workload) and one
:class:`NodeView`, and returns ``None`` when the node passes or a :class:`Rejection`
carrying that plugin's reason strings, verbatim from upstream
``pkg/scheduler/framework/plugins/<plugin>/``. The first rejecting filter decides a
node's reasons (framework/runtime/framework.go RunFilterPlugins).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gate.k8s.matching import SelectorTerm, first_untolerated, tolerates
from gate.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from gate.k8s.version import Dialect
from gate.model import HostPort, NodeView, Taint

# nodeunschedulable/node_unschedulable.go ErrReasonUnschedulable
REASON_UNSCHEDULABLE = "node(s) were unschedulable"
# nodename/node_name.go ErrReason
REASON_NODE_NAME = "node(s) didn't match the requested node name"
# tainttoleration/taint_toleration.go: through v1.34.1 the taint is named, since v1.35 not
REASON_TAINT_NAMED = "node(s) had untolerated taint {{{key}: {value}}}"
REASON_TAINT_GENERIC = "node(s) had untolerated taint(s)"
# nodeaffinity/node_affinity.go ErrReasonPod, errReasonConflict
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_AFFINITY_CONFLICT = "pod affinity terms conflict"
# framework/types.go, schedule_one.go: nodes outside a PreFilterResult
REASON_NARROWED = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
# nodeports/node_ports.go ErrReason
REASON_PORTS = "node(s) didn't have free ports for the requested pod ports"
# noderesources/fit.go fitsRequest
REASON_TOO_MANY_PODS = "Too many pods"
# schedule_one.go ErrNoNodesAvailable
REASON_NO_NODES = "no nodes available to schedule pods"


def taint_reason(taint: Taint, dialect: Dialect) -> str:
    if dialect.named_taint:
        return REASON_TAINT_NAMED.format(key=taint.key, value=taint.value)
    return REASON_TAINT_GENERIC


UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", value="", effect="NoSchedule")


@dataclass(frozen=True, slots=True)
class PodProfile:
    """What the filters read of one pod, parsed once per workload."""

    node_name: str = ""
    tolerations: tuple[Mapping[str, Any], ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity_terms: tuple[SelectorTerm, ...] | None = None
    wanted_ports: tuple[HostPort, ...] = ()
    requests: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rejection:
    reasons: tuple[str, ...]
    taint: Taint | None = None


Filter = Callable[[PodProfile, NodeView, Dialect], "Rejection | None"]


def node_unschedulable(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """A cordoned node admits only pods tolerating unschedulable:NoSchedule."""
    if not node.unschedulable or any(tolerates(t, UNSCHEDULABLE_TAINT) for t in pod.tolerations):
        return None
    return Rejection((REASON_UNSCHEDULABLE,))


def node_name(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    if not pod.node_name or pod.node_name == node.name:
        return None
    return Rejection((REASON_NODE_NAME,))


def taint_toleration(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """The first NoSchedule/NoExecute taint, in node order, that no toleration tolerates."""
    taint = first_untolerated(node.taints, pod.tolerations)
    if taint is None:
        return None
    return Rejection((taint_reason(taint, dialect),), taint=taint)


def node_affinity(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """nodeSelector ANDed with required affinity; terms ORed, a term's requirements ANDed."""
    labels = node.labels
    selector_ok = all(labels.get(k) == v for k, v in pod.node_selector.items())
    terms = pod.affinity_terms
    if selector_ok and (terms is None or any(t.matches(labels, node.name) for t in terms)):
        return None
    return Rejection((REASON_AFFINITY,))


def _conflicts(wanted: HostPort, used: frozenset[HostPort]) -> bool:
    """HostPortInfo.CheckConflict: same protocol and port, and either IP is 0.0.0.0 or equal."""
    return any(
        port.port == wanted.port
        and port.protocol == wanted.protocol
        and ("0.0.0.0" in (wanted.ip, port.ip) or wanted.ip == port.ip)
        for port in used
    )


def node_ports(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    if any(_conflicts(p, node.used_ports) for p in pod.wanted_ports):
        return Rejection((REASON_PORTS,))
    return None


def _free(node: NodeView, resource: str) -> int:
    return node.allocatable.get(resource, 0) - node.requested.get(resource, 0)


def node_resources_fit(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """fitsRequest: pod count, then cpu, memory, ephemeral-storage, then each scalar
    resource; every shortage is reported, equality fits.

    With DRAExtendedResource (on by default from v1.36) the scheduler leaves to the DRA
    plugin a scalar the node does not offer only when a DeviceClass maps its name
    (``shouldDelegateResourceToDRA``); a snapshot holds no DeviceClasses, and no class can
    map hugepages-*, *kubernetes.io/* or attachable-volumes-*, so every scalar is checked."""
    reasons: list[str] = []
    if node.pod_count + 1 > node.allocatable.get("pods", 0):
        reasons.append(REASON_TOO_MANY_PODS)
    requests = pod.requests
    for resource in (CPU, MEMORY, EPHEMERAL_STORAGE):
        wanted = requests.get(resource, 0)
        if wanted > 0 and wanted > _free(node, resource):
            reasons.append(f"Insufficient {resource}")
    scalars = sorted(r for r in requests if r not in (CPU, MEMORY, EPHEMERAL_STORAGE, "pods"))
    for resource in scalars:
        wanted = requests[resource]
        if wanted == 0:
            continue
        if wanted > _free(node, resource):
            reasons.append(f"Insufficient {resource}")
    return Rejection(tuple(reasons)) if reasons else None


def is_room_reason(reason: str) -> bool:
    """A reason of NodePorts or NodeResourcesFit: the node is targeted but full."""
    return reason in (REASON_PORTS, REASON_TOO_MANY_PODS) or reason.startswith("Insufficient ")


FILTERS: tuple[tuple[str, Filter], ...] = (
    ("NodeUnschedulable", node_unschedulable),
    ("NodeName", node_name),
    ("TaintToleration", taint_toleration),
    ("NodeAffinity", node_affinity),
    ("NodePorts", node_ports),
    ("NodeResourcesFit", node_resources_fit),
)


def run_filters(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """The first rejection in plugin order, or None when every filter passes."""
    for _, check in FILTERS:
        rejection = check(pod, node, dialect)
        if rejection is not None:
            return rejection
    return None
