"""kube-scheduler's node filters: one Filter function per plugin, its reasons and its code.

Each Filter takes what its plugin prepared for the pod (its PreFilter state: the
:class:`PodProfile` parsed once per workload, or a state derived from it, see
:mod:`gate.scheduler.plugins`) and one :class:`NodeView`, and returns ``None`` when the node
passes or a :class:`Rejection`: the plugin's name, the status code its Filter returns and its
reason strings, verbatim from upstream ``pkg/scheduler/framework/plugins/<plugin>/``. Which
plugins run, in which order, is the one list in :mod:`gate.scheduler.plugins`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gate.k8s.matching import SelectorTerm, first_untolerated, tolerates
from gate.k8s.podaffinity import AffinityTerm
from gate.k8s.resources import NATIVE_CHECKED, PODS
from gate.k8s.spread import SpreadConstraint
from gate.k8s.version import Dialect
from gate.model import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    POD_TOPOLOGY_SPREAD,
    ROOM_PLUGINS,
    TAINT_TOLERATION,
    Code,
    HostPort,
    NodeView,
    Taint,
)

__all__ = [  # the plugin names, re-exported where the filters are
    "INTER_POD_AFFINITY",
    "NODE_AFFINITY",
    "NODE_NAME",
    "NODE_PORTS",
    "NODE_RESOURCES_FIT",
    "NODE_UNSCHEDULABLE",
    "POD_TOPOLOGY_SPREAD",
    "ROOM_PLUGINS",
    "TAINT_TOLERATION",
]


UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
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
REASON_INSUFFICIENT = "Insufficient {resource}"
# schedule_one.go ErrNoNodesAvailable
REASON_NO_NODES = "no nodes available to schedule pods"


def taint_reason(taint: Taint, dialect: Dialect) -> str:
    if dialect.named_taint:
        return REASON_TAINT_NAMED.format(key=taint.key, value=taint.value)
    return REASON_TAINT_GENERIC


UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", value="", effect="NoSchedule")


@dataclass(frozen=True, slots=True)
class Shortfall:
    """One insufficient resource of NodeResourcesFit (noderesources/fit.go
    ``InsufficientResource``): its name and the amount the pod requests, in scheduler units
    (see :class:`NodeView`; ``pods`` requests 1). The node's own amounts stay on its view."""

    resource: str
    requested: int


@dataclass(frozen=True, slots=True)
class PodProfile:
    """What the filters read of one pod, parsed once per workload.

    ``label_keys``: every label key the nodeSelector and the required affinity terms read
    (the node classes NodeAffinity splits nodes into on the fast path).

    What the inter-pod filters read: the pod's ``namespace`` and ``labels``, its
    DoNotSchedule ``spread`` constraints, its required ``pod_affinity`` and
    ``pod_anti_affinity`` terms (their namespaceSelector not yet listed), and ``pinned``:
    a DaemonSet's pod, bound by its controller to one node per node.
    """

    node_name: str = ""
    tolerations: tuple[Mapping[str, Any], ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity_terms: tuple[SelectorTerm, ...] | None = None
    wanted_ports: tuple[HostPort, ...] = ()
    requests: Mapping[str, int] = field(default_factory=dict)
    label_keys: frozenset[str] = frozenset()
    namespace: str = "default"
    labels: Mapping[str, str] = field(default_factory=dict)
    spread: tuple[SpreadConstraint, ...] = ()
    pod_affinity: tuple[AffinityTerm, ...] = ()
    pod_anti_affinity: tuple[AffinityTerm, ...] = ()
    pinned: bool = False


@dataclass(frozen=True, slots=True)
class Rejection:
    """A plugin's rejecting status (framework.Status): its plugin, code and reasons, the
    untolerated taint for TaintToleration, the insufficient resources for NodeResourcesFit."""

    plugin: str
    code: Code
    reasons: tuple[str, ...]
    taint: Taint | None = None
    shortfall: tuple[Shortfall, ...] = ()


# nodeaffinity/node_affinity.go PreFilter: required terms whose name pins exclude each other
AFFINITY_CONFLICT = Rejection(NODE_AFFINITY, UNRESOLVABLE, (REASON_AFFINITY_CONFLICT,))
# schedule_one.go findNodesThatFitPod: a node outside NodeAffinity's PreFilterResult.
# Upstream's status names no plugin; its reason and UnschedulablePlugins name NodeAffinity.
NARROWED = Rejection(NODE_AFFINITY, UNRESOLVABLE, (REASON_NARROWED,))


def node_unschedulable(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """A cordoned node admits only pods tolerating unschedulable:NoSchedule."""
    if not node.unschedulable or any(tolerates(t, UNSCHEDULABLE_TAINT) for t in pod.tolerations):
        return None
    return Rejection(NODE_UNSCHEDULABLE, UNRESOLVABLE, (REASON_UNSCHEDULABLE,))


def node_name(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    if not pod.node_name or pod.node_name == node.name:
        return None
    return Rejection(NODE_NAME, UNRESOLVABLE, (REASON_NODE_NAME,))


def taint_toleration(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """The first NoSchedule/NoExecute taint, in node order, that no toleration tolerates."""
    taint = first_untolerated(node.taints, pod.tolerations)
    if taint is None:
        return None
    return Rejection(TAINT_TOLERATION, UNRESOLVABLE, (taint_reason(taint, dialect),), taint)


def node_affinity(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """nodeSelector ANDed with required affinity; terms ORed, a term's requirements ANDed."""
    labels = node.labels
    selector_ok = all(labels.get(k) == v for k, v in pod.node_selector.items())
    terms = pod.affinity_terms
    if selector_ok and (terms is None or any(t.matches(labels, node.name) for t in terms)):
        return None
    return Rejection(NODE_AFFINITY, UNRESOLVABLE, (REASON_AFFINITY,))


def port_conflicts(wanted: HostPort, used: frozenset[HostPort]) -> bool:
    """HostPortInfo.CheckConflict: same protocol and port, and either IP is 0.0.0.0 or equal."""
    return any(
        port.port == wanted.port
        and port.protocol == wanted.protocol
        and ("0.0.0.0" in (wanted.ip, port.ip) or wanted.ip == port.ip)
        for port in used
    )


def node_ports(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    if any(port_conflicts(p, node.used_ports) for p in pod.wanted_ports):
        return Rejection(NODE_PORTS, Code.UNSCHEDULABLE, (REASON_PORTS,))
    return None


def fit_request(pod: PodProfile) -> tuple[Shortfall, ...]:
    """NodeResourcesFit's PreFilter: what fitsRequest compares, in its order. One pod slot
    first, then cpu, memory and ephemeral-storage when requested, then each scalar resource
    with a nonzero request (upstream walks a map; sorted here so reasons are deterministic).

    With DRAExtendedResource (on by default from v1.36) the scheduler leaves to the DRA
    plugin a scalar the node does not offer only when a DeviceClass maps its name
    (``shouldDelegateResourceToDRA``); a snapshot holds no DeviceClasses, and no class can
    map hugepages-*, *kubernetes.io/* or attachable-volumes-*, so every scalar is checked."""
    requests = pod.requests
    wanted = [Shortfall(PODS, 1)]
    wanted += [Shortfall(r, requests[r]) for r in NATIVE_CHECKED if requests.get(r, 0) > 0]
    scalars = sorted(r for r in requests if r not in NATIVE_CHECKED and r != PODS)
    wanted += [Shortfall(r, requests[r]) for r in scalars if requests[r] != 0]
    return tuple(wanted)


def free(node: NodeView, resource: str) -> int:
    """What the node has left of ``resource``; for ``pods``, slots left by the pods bound to
    it (fitsRequest counts pods, not their ``pods`` requests)."""
    used = node.pod_count if resource == PODS else node.requested.get(resource, 0)
    return node.allocatable.get(resource, 0) - used


def beyond_capacity(wanted: Shortfall, node: NodeView) -> bool:
    """InsufficientResource.Unresolvable: more than the node's allocatable, so evicting
    pods cannot help. Never for the pod slot."""
    return wanted.resource != PODS and wanted.requested > node.allocatable.get(wanted.resource, 0)


def fit_rejection(shortfall: tuple[Shortfall, ...], unresolvable: bool) -> Rejection:
    """fit.go Filter: every insufficient resource's reason kept, in fitsRequest's order;
    UnschedulableAndUnresolvable when one of them exceeds the node's allocatable."""
    reasons = tuple(
        REASON_TOO_MANY_PODS
        if s.resource == PODS
        else REASON_INSUFFICIENT.format(resource=s.resource)
        for s in shortfall
    )
    code = UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
    return Rejection(NODE_RESOURCES_FIT, code, reasons, shortfall=shortfall)


def node_resources_fit(
    wanted: tuple[Shortfall, ...], node: NodeView, dialect: Dialect
) -> Rejection | None:
    """fitsRequest: every shortage is reported, equality fits."""
    shortfall = tuple(w for w in wanted if w.requested > free(node, w.resource))
    if not shortfall:
        return None
    return fit_rejection(shortfall, any(beyond_capacity(s, node) for s in shortfall))
