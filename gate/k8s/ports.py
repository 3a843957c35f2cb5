"""Host ports: which container ports take a port on the node, and how they are compared.

Upstream: ``pkg/scheduler/framework/types.go`` (NodeInfo.updateUsedPorts, used ports of the
pods on a node) and ``nodeports/node_ports.go`` (getContainerPorts, the ports a pod wants):
a container port takes a host port when its ``hostPort`` is positive; an empty
``hostIP`` is ``0.0.0.0`` and an empty ``protocol`` is ``TCP``. Regular containers and
restartable init containers (sidecars) count; other init containers have exited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.k8s.resources import is_sidecar
from gate.model import HostPort


def host_port_of(port: object, ip: object, protocol: object) -> HostPort | None:
    """The host port a container port with these fields takes, or None."""
    if not isinstance(port, int) or port <= 0:
        return None
    return HostPort(ip=str(ip or "0.0.0.0"), protocol=str(protocol or "TCP"), port=port)


def host_port(port: object) -> HostPort | None:
    """The host port a ContainerPort object takes, or None."""
    if not isinstance(port, Mapping):
        return None
    return host_port_of(port.get("hostPort"), port.get("hostIP"), port.get("protocol"))


def pod_host_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    """The host ports of a pod spec's containers and sidecars, in the spec's order."""
    containers = [c for c in spec.get("containers") or [] if isinstance(c, Mapping)]
    containers += [
        c for c in spec.get("initContainers") or [] if isinstance(c, Mapping) and is_sidecar(c)
    ]
    found = []
    for container in containers:
        ports = container.get("ports")
        for port in ports if isinstance(ports, list) else []:
            taken = host_port(port)
            if taken is not None:
                found.append(taken)
    return tuple(found)
