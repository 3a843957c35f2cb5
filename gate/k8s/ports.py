"""Host ports: which container ports take a port on the node, and how they are compared.

Upstream: ``pkg/scheduler/framework/types.go`` (NodeInfo.updateUsedPorts, used ports of the
pods on a node) and ``nodeports/node_ports.go`` (getContainerPorts, the ports a pod wants):
a container port takes a host port when its ``hostPort`` is positive; an empty
``hostIP`` is ``0.0.0.0`` and an empty ``protocol`` is ``TCP``. Regular containers and
restartable init containers (sidecars) count; other init containers have exited.

Karpenter reads and compares them otherwise (sigs.k8s.io/karpenter v1.8
pkg/scheduling/hostportusage.go): ``GetHostPorts`` reads the regular containers alone
(:func:`regular_host_ports`), and ``HostPort.Matches`` matches two ports on the same
protocol and port when their addresses are equal as Go's ``net.IP.Equal`` compares them
(``1.2.3.4`` equals ``::ffff:1.2.3.4``) or either is unspecified, ``0.0.0.0`` or ``::``,
where the scheduler knows ``0.0.0.0`` alone (:func:`karpenter_matches`). An address
``net.ParseIP`` refuses is a nil IP: equal only to another such, never unspecified.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from functools import cache
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
    return _ports_of(containers)


def regular_host_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    """The host ports of a pod spec's regular containers alone, in the spec's order: what
    Karpenter reads (sigs.k8s.io/karpenter v1.8 pkg/scheduling/hostportusage.go
    ``GetHostPorts`` ranges over ``Spec.Containers``, so a sidecar's port is not seen)."""
    return _ports_of([c for c in spec.get("containers") or [] if isinstance(c, Mapping)])


def _ports_of(containers: list[Mapping[str, Any]]) -> tuple[HostPort, ...]:
    found = []
    for container in containers:
        ports = container.get("ports")
        for port in ports if isinstance(ports, list) else []:
            taken = host_port(port)
            if taken is not None:
                found.append(taken)
    return tuple(found)


_V4_IN_V6 = b"\0" * 10 + b"\xff\xff"
_UNSPECIFIED = (bytes(16), _V4_IN_V6 + bytes(4))
"""``net.IPv6unspecified`` and ``net.IPv4zero`` in their 16-byte form."""


@cache
def parsed_ip(text: str) -> bytes | None:
    """``net.ParseIP``: the address in 16 bytes (an IPv4 one mapped into IPv6), or None."""
    if "%" in text:  # a zone is Python's extension, not Go's
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if address.version == 4:
        return _V4_IN_V6 + address.packed
    return address.packed


_SLOPPY_V4 = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)")


def parsed_ip_sloppy(text: str) -> bytes | None:
    """``netutils.ParseIPSloppy``: :func:`parsed_ip`, the IPv4 octets (alone or ending an
    IPv6 address) taking leading zeros as Go's parser before 1.17 did (each a decimal
    number up to 255, however many digits)."""
    head, colon, tail = text.rpartition(":")
    octets = _SLOPPY_V4.fullmatch(tail)
    if octets is None or not all(int(o) <= 0xFF for o in octets.groups()):
        return parsed_ip(text)
    return parsed_ip(head + colon + ".".join(str(int(o)) for o in octets.groups()))


def karpenter_matches(port: HostPort, other: HostPort) -> bool:
    """Karpenter's ``HostPort.Matches`` (module doc)."""
    if port.protocol != other.protocol or port.port != other.port:
        return False
    ip, other_ip = parsed_ip(port.ip), parsed_ip(other.ip)
    return ip == other_ip or ip in _UNSPECIFIED or other_ip in _UNSPECIFIED
