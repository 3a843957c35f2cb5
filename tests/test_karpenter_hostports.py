"""Host ports as Karpenter reads and compares them (sigs.k8s.io/karpenter v1.8.3
pkg/scheduling/hostportusage.go ``GetHostPorts``, ``HostPort.Matches``,
``HostPortUsage.Conflicts``; scheduler.go ``getDaemonHostPortUsage``; nodeclaim.go
``CanAdd``): the regular containers' ports alone, and ``::`` a wildcard as ``0.0.0.0`` is,
where kube-scheduler's NodePorts reads sidecars too and knows ``0.0.0.0`` alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.ports import karpenter_matches as matches
from gate.model import HostPort
from gate.model.karpenter import NodePool
from gate.scheduler.autoscaling.karpenter.provisioner import HOST_PORT
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins.nodeports import port_conflicts
from tests.builders import container
from tests.karpenter_support import MI, Run, daemon_set


def _refused(existing: str = "0.0.0.0", wanted: str = "0.0.0.0") -> tuple[tuple[str, str, str]]:
    """The pool's error as ``CanAdd`` wraps ``Conflicts``' serrors: its values by key."""
    said = (
        f"{HOST_PORT} (existing-hostport-ip={existing}, existing-hostport-port=8080, "
        f"existing-hostport-protocol=TCP, pod-hostport-ip={wanted}, pod-hostport-port=8080, "
        "pod-hostport-protocol=TCP)"
    )
    return (("default", HOST_PORT, f"checking host port usage, {said}"),)


def _port(ip: str = "0.0.0.0", port: int = 8080, protocol: str = "TCP") -> HostPort:
    return HostPort(ip=ip, protocol=protocol, port=port)


@pytest.mark.parametrize(
    ("port", "other", "matched"),
    [
        pytest.param(_port("10.0.0.1"), _port("10.0.0.1"), True, id="the same address matches"),
        pytest.param(_port("10.0.0.1"), _port("10.0.0.2"), False, id="two addresses do not"),
        pytest.param(_port(), _port("10.0.0.2"), True, id="0.0.0.0 matches any address"),
        pytest.param(_port("::"), _port("10.0.0.2"), True, id="so does the IPv6 wildcard"),
        pytest.param(_port("10.0.0.2"), _port("::"), True, id="on either side"),
        pytest.param(
            _port("0:0::0"), _port("fd00::1"), True, id="the IPv6 wildcard however written"
        ),
        pytest.param(
            _port("::ffff:0.0.0.0"), _port("fd00::1"), True, id="0.0.0.0 mapped into IPv6 too"
        ),
        pytest.param(
            _port("::ffff:10.0.0.1"), _port("10.0.0.1"), True, id="a mapped address is the same"
        ),
        pytest.param(_port("fd00::1"), _port("FD00:0::1"), True, id="IPv6 compares parsed"),
        pytest.param(
            _port("10.0.0.1", protocol="UDP"), _port("10.0.0.1"), False, id="protocols differ"
        ),
        pytest.param(_port(port=8081), _port(), False, id="ports differ"),
        pytest.param(_port("a"), _port("b"), True, id="two unparsable addresses are both nil"),
        pytest.param(_port("a"), _port("10.0.0.1"), False, id="nil matches no address"),
        pytest.param(_port("a"), _port(), True, id="but the wildcard still matches nil"),
    ],
)
def test_karpenter_matches_host_ports_as_go_compares_ips(
    port: HostPort, other: HostPort, matched: bool
) -> None:
    assert matches(port, other) is matched
    assert matches(other, port) is matched


_IPV4 = st.sampled_from(["0.0.0.0", "10.0.0.1", "10.0.0.2", "192.168.1.1"])
_PORTS = st.builds(
    _port, _IPV4, st.sampled_from([80, 8080]), st.sampled_from(["TCP", "UDP", "SCTP"])
)


@given(_PORTS, _PORTS)
def test_on_canonical_ipv4_addresses_karpenter_agrees_with_node_ports(
    port: HostPort, other: HostPort
) -> None:
    assert matches(port, other) is port_conflicts(port, frozenset({other}))


def _ported(where: str = "containers", ip: str = "", cpu: str = "1") -> dict[str, Any]:
    """A pod whose one container, or sidecar, takes host port 8080 (on ``ip``)."""
    port: dict[str, Any] = {"containerPort": 8080, "hostPort": 8080}
    if ip:
        port["hostIP"] = ip
    app = container(requests={"cpu": cpu, "memory": "100Mi"})
    if where == "containers":
        return {"containers": [{**app, "ports": [port]}]}
    sidecar = container("proxy", restartPolicy="Always", ports=[port])
    return {"containers": [app], "initContainers": [sidecar]}


def test_the_profile_keeps_the_regular_containers_ports_for_karpenter() -> None:
    profile = pod_profile(_ported("initContainers"))
    assert profile.wanted_ports == (_port(),)  # NodePorts reads the sidecar
    assert profile.regular_ports == ()


def _run(daemon_pod: dict[str, Any]) -> Run:
    return Run((NodePool("default"),), daemon_sets=(daemon_set("ds", 100, 10 * MI, **daemon_pod),))


@pytest.mark.parametrize(
    ("pod", "daemon_pod", "refused"),
    [
        pytest.param(_ported(), _ported(), _refused(), id="a container's port the DaemonSet holds"),
        pytest.param(
            _ported("initContainers"),
            _ported(),
            (),
            id="a sidecar's port is not seen, so a node is launched",
        ),
        pytest.param(
            _ported(),
            _ported("initContainers"),
            (),
            id="nor the port of the DaemonSet's sidecar",
        ),
        pytest.param(
            _ported(ip="10.0.0.1"),
            _ported(ip="::"),
            _refused("::", "10.0.0.1"),
            id="a DaemonSet on the IPv6 wildcard holds every address",
        ),
        pytest.param(
            _ported(ip="10.0.0.1"),
            _ported(ip="10.0.0.2"),
            (),
            id="a DaemonSet on another address leaves the port free",
        ),
        pytest.param(
            _ported(ip="::ffff:10.0.0.1"),
            _ported(ip="0:0::0"),
            _refused("::", "10.0.0.1"),
            id="the addresses print as Go prints the parsed IPs",
        ),
        pytest.param(
            _ported(ip="FD00:0:0::1"),
            _ported(ip="0.0.0.0"),
            _refused("0.0.0.0", "fd00::1"),
            id="an IPv6 address prints compressed in lower case",
        ),
        pytest.param(
            _ported(ip="not-an-ip"),
            _ported(),
            _refused("0.0.0.0", "<nil>"),
            id="an address Go cannot parse prints as a nil IP",
        ),
    ],
)
def test_a_pool_refuses_a_pod_whose_host_port_its_daemon_sets_hold(
    pod: dict[str, Any], daemon_pod: dict[str, Any], refused: tuple[tuple[str, str, str], ...]
) -> None:
    """hostportusage.go ``Conflicts``: serrors.Wrap's values printed sorted by key, each
    with ``%v`` (a ``net.IP`` by its ``String``)."""
    decision = _run(daemon_pod).decide(pod, 1)
    assert decision.errors == refused
    assert decision.placed == (0 if refused else 1)


def test_copies_whose_only_host_port_is_a_sidecars_share_a_claim() -> None:
    """nodeclaim.go ``CanAdd``: the claim's usage holds no port of theirs, so the second
    copy joins the first's claim (kube-scheduler would refuse it there later)."""
    decision = Run((NodePool("default"),)).decide(_ported("initContainers", cpu="100m"), 3)
    assert (decision.nodes, decision.placed) == (1, 3)
