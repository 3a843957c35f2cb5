"""NodePorts: a host port the pod wants must be free on the node.

Upstream ``pkg/scheduler/framework/plugins/nodeports/node_ports.go`` and
``framework/types.go`` ``HostPortInfo.CheckConflict``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from msgspec.structs import replace

from gate.k8s.version import Dialect
from gate.model import NODE_PORTS, Cause, Code, Family, FieldPath, HostPort, NodeView, Rule, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Plugin, Rejection, containers, the_pod

# nodeports/node_ports.go ErrReason
REASON_PORTS = "node(s) didn't have free ports for the requested pod ports"

RULE = Rule(
    Family.PORTS,
    "HostPortTaken",
    "The host port the pod asks for is taken on every node it could land on",
    "Use another host port, or none (a Service reaches the pod without one).",
)


def port_conflicts(wanted: HostPort, used: frozenset[HostPort]) -> bool:
    """HostPortInfo.CheckConflict: same protocol and port, and either IP is 0.0.0.0 or equal."""
    return any(
        port.port == wanted.port
        and port.protocol == wanted.protocol
        and ("0.0.0.0" in (wanted.ip, port.ip) or wanted.ip == port.ip)
        for port in used
    )


def copies_collide(wanted: Sequence[HostPort]) -> bool:
    """Whether two copies of the pod refuse each other on one node: each asks the same
    host ports, and a port conflicts with itself (:func:`port_conflicts`). Placement and
    both autoscalers ask this; a node then holds one copy at most."""
    return bool(wanted)


def node_ports(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    if any(port_conflicts(p, node.used_ports) for p in pod.wanted_ports):
        return Rejection(NODE_PORTS, Code.UNSCHEDULABLE, (REASON_PORTS,))
    return None


def _wanted(pod: PodProfile, cluster: Cluster | None = None) -> Hashable:
    return pod.wanted_ports


def _used(node: NodeView) -> Hashable:
    return node.used_ports


def _wants_none(pod: PodProfile) -> bool:
    return not pod.wanted_ports


def _refined(cause: Cause, pod: PodProfile, node: NodeView) -> Cause:
    """The first of the pod's host ports taken on the node."""
    port = next((p for p in pod.wanted_ports if port_conflicts(p, node.used_ports)), None)
    return replace(cause, port=port)


def _fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """The container port whose host port is taken: ``hostPort``, or ``containerPort`` when
    ``hostNetwork`` makes it the host port."""
    if cause.port is None:
        return []
    port, host_network = cause.port.port, spec.get("hostNetwork") is True
    for key, i, container in containers(spec):
        ports = container.get("ports")
        for j, item in enumerate(ports if isinstance(ports, Sequence) else []):
            if not isinstance(item, Mapping):
                continue
            if item.get("hostPort") == port:
                return [(key, i, "ports", j, "hostPort")]
            if host_network and item.get("containerPort") == port:
                return [(key, i, "ports", j, "containerPort")]
    return []


PLUGIN: Plugin[PodProfile] = Plugin(
    NODE_PORTS,
    Family.PORTS,
    Term.HOST_PORT,
    RULE,
    key=_wanted,
    prepare=the_pod,
    check=node_ports,
    room=True,
    reasons=(REASON_PORTS,),
    reads=_used,
    passes=_wants_none,
    asks=_wanted,
    refine=_refined,
    fields=_fields,
)
