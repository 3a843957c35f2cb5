"""Host ports (gate.k8s.ports): which container ports take a port on the node, normalised as
NodeInfo.updateUsedPorts and the NodePorts PreFilter normalise them."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec import UNSET

from gate.k8s.ports import host_port, host_port_of, pod_host_ports
from gate.model import HostPort


@pytest.mark.parametrize(
    ("port", "want"),
    [
        pytest.param({"containerPort": 80}, None, id="a container port alone takes no host port"),
        pytest.param({"hostPort": 0}, None, id="a zero host port takes none"),
        pytest.param({"hostPort": "80"}, None, id="a host port that is no number takes none"),
        pytest.param(
            {"hostPort": 80}, HostPort("0.0.0.0", "TCP", 80), id="empty IP and protocol default"
        ),
        pytest.param(
            {"hostPort": 53, "hostIP": "10.0.0.1", "protocol": "UDP"},
            HostPort("10.0.0.1", "UDP", 53),
            id="a given IP and protocol are kept",
        ),
        pytest.param("80", None, id="a port that is no mapping takes none"),
    ],
)
def test_host_port(port: object, want: HostPort | None) -> None:
    assert host_port(port) == want


def test_the_typed_reader_s_unset_fields_default_alike() -> None:
    """The snapshot's typed reader passes msgspec's UNSET (falsy) for absent fields."""
    assert host_port_of(8080, UNSET, UNSET) == HostPort("0.0.0.0", "TCP", 8080)


def test_containers_and_sidecars_take_host_ports_other_init_containers_do_not() -> None:
    def with_port(name: str, port: int, **extra: Any) -> dict[str, Any]:
        return {"name": name, "ports": [{"containerPort": port, "hostPort": port}], **extra}

    spec = {
        "containers": [with_port("app", 80)],
        "initContainers": [with_port("setup", 81), with_port("proxy", 82, restartPolicy="Always")],
    }
    assert pod_host_ports(spec) == (HostPort("0.0.0.0", "TCP", 80), HostPort("0.0.0.0", "TCP", 82))
