"""One table per scheduler plugin, following the upstream plugin test tables.

Each row is (id, pod, node, expected reasons); an empty tuple means the node passes.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import Dialect, dialect_for
from gate.model import (
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    TAINT_TOLERATION,
    Code,
    HostPort,
    NodeView,
)
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Shortfall, run_filters
from gate.scheduler.plugins.tainttoleration import taint_toleration
from tests.builders import container, node, prepared, taint

NAMED = Dialect(named_taint=True)
GENERIC = Dialect(named_taint=False)


def reasons(
    plugin: str, pod: PodProfile, view: NodeView, dialect: Dialect = NAMED
) -> tuple[str, ...]:
    """What the named plugin alone says of the node, its rejection carrying its name."""
    found = next(p for p in prepared(pod, view) if p.plugin.name == plugin)
    rejection = found.check(view, dialect)
    assert rejection is None or rejection.plugin == plugin
    return () if rejection is None else rejection.reasons


def tol(key: str = "", operator: str = "", value: str = "", effect: str = "") -> dict[str, str]:
    t = {"key": key, "operator": operator, "value": value, "effect": effect}
    return {k: v for k, v in t.items() if v}


# pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go TestTaintTolerationFilter
TAINT_CASES = [
    (
        "no tolerations cannot land on a tainted node",
        [],
        [taint("dedicated", "user1")],
        ("node(s) had untolerated taint {dedicated: user1}",),
    ),
    (
        "an Equal toleration for the dedicated user lands",
        [tol("dedicated", "Equal", "user1", "NoSchedule")],
        [taint("dedicated", "user1")],
        (),
    ),
    (
        "a toleration for another user does not land",
        [tol("dedicated", "Equal", "user2", "NoSchedule")],
        [taint("dedicated", "user1")],
        ("node(s) had untolerated taint {dedicated: user1}",),
    ),
    (
        "Exists tolerates any value",
        [tol("foo", "Exists", effect="NoSchedule")],
        [taint("foo", "bar")],
        (),
    ),
    (
        "multiple tolerations tolerate multiple taints",
        [
            tol("dedicated", "Equal", "user2", "NoSchedule"),
            tol("foo", "Exists", effect="NoSchedule"),
        ],
        [taint("dedicated", "user2"), taint("foo", "bar")],
        (),
    ),
    (
        "a toleration with another effect does not tolerate",
        [tol("foo", "Equal", "bar", "PreferNoSchedule")],
        [taint("foo", "bar")],
        ("node(s) had untolerated taint {foo: bar}",),
    ),
    (
        "an empty toleration effect tolerates every effect",
        [tol("foo", "Equal", "bar")],
        [taint("foo", "bar")],
        (),
    ),
    (
        "PreferNoSchedule never blocks",
        [tol("dedicated", "Equal", "user2", "NoSchedule")],
        [taint("dedicated", "user1", "PreferNoSchedule")],
        (),
    ),
    (
        "no toleration and only PreferNoSchedule lands",
        [],
        [taint("dedicated", "user1", "PreferNoSchedule")],
        (),
    ),
    (
        "NoExecute blocks like NoSchedule",
        [],
        [taint("k", "v", "NoExecute")],
        ("node(s) had untolerated taint {k: v}",),
    ),
    (
        "the first untolerated taint in node order is named",
        [tol("a", "Exists")],
        [taint("a", "1"), taint("b", "2"), taint("c", "3")],
        ("node(s) had untolerated taint {b: 2}",),
    ),
    (
        "an empty key with Exists tolerates everything",
        [tol(operator="Exists")],
        [taint("a", "1"), taint("b", "2", "NoExecute")],
        (),
    ),
    (
        "an empty key with Exists and an effect tolerates that effect only",
        [tol(operator="Exists", effect="NoSchedule")],
        [taint("a", "1"), taint("b", "2", "NoExecute")],
        ("node(s) had untolerated taint {b: 2}",),
    ),
    ("Equal without a value matches a valueless taint", [tol("gpu", "Equal")], [taint("gpu")], ()),
    (
        "an empty operator means Equal",
        [tol("gpu", value="x")],
        [taint("gpu", "y")],
        ("node(s) had untolerated taint {gpu: y}",),
    ),
    (
        "keys are case-sensitive",
        [tol("Dedicated", "Exists")],
        [taint("dedicated", "x")],
        ("node(s) had untolerated taint {dedicated: x}",),
    ),
    (
        "Lt and Gt need an alpha feature gate and never match",
        [tol("n", "Gt", "1")],
        [taint("n", "5")],
        ("node(s) had untolerated taint {n: 5}",),
    ),
    (
        "tolerationSeconds does not matter for scheduling",
        [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0}],
        [taint("k", "v", "NoExecute")],
        (),
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "taints", "want"), [c[1:] for c in TAINT_CASES], ids=[c[0] for c in TAINT_CASES]
)
def test_taint_toleration(tolerations: list[Any], taints: list[Any], want: tuple[str, ...]) -> None:
    pod = PodProfile(tolerations=tuple(tolerations))
    assert reasons(TAINT_TOLERATION, pod, node(taints=tuple(taints))) == want


def test_taint_reason_is_generic_from_v1_35() -> None:
    pod = PodProfile()
    view = node(taints=(taint("CriticalAddonsOnly", "true"),))
    assert reasons(TAINT_TOLERATION, pod, view, GENERIC) == ("node(s) had untolerated taint(s)",)
    rejection = taint_toleration(pod, view, GENERIC)
    assert rejection is not None and rejection.taint == taint("CriticalAddonsOnly", "true")


# nodeunschedulable/node_unschedulable_test.go TestNodeUnschedulable
UNSCHEDULABLE_CASES = [
    ("a schedulable node admits any pod", False, [], ()),
    ("a cordoned node rejects a pod without toleration", True, [], ("node(s) were unschedulable",)),
    (
        "a cordoned node admits a pod tolerating the unschedulable taint",
        True,
        [tol("node.kubernetes.io/unschedulable", "Exists", effect="NoSchedule")],
        (),
    ),
    (
        "Equal without a value tolerates it too",
        True,
        [tol("node.kubernetes.io/unschedulable", "Equal", effect="NoSchedule")],
        (),
    ),
    (
        "a NoExecute toleration for that key does not help",
        True,
        [tol("node.kubernetes.io/unschedulable", "Exists", effect="NoExecute")],
        ("node(s) were unschedulable",),
    ),
]


@pytest.mark.parametrize(
    ("cordoned", "tolerations", "want"),
    [c[1:] for c in UNSCHEDULABLE_CASES],
    ids=[c[0] for c in UNSCHEDULABLE_CASES],
)
def test_node_unschedulable(cordoned: bool, tolerations: list[Any], want: tuple[str, ...]) -> None:
    pod = PodProfile(tolerations=tuple(tolerations))
    assert reasons(NODE_UNSCHEDULABLE, pod, node(unschedulable=cordoned)) == want


# nodename/node_name_test.go TestNodeName
@pytest.mark.parametrize(
    ("pod_node", "want"),
    [("", ()), ("node", ()), ("other", ("node(s) didn't match the requested node name",))],
    ids=["no nodeName passes", "the named node passes", "another node fails"],
)
def test_node_name(pod_node: str, want: tuple[str, ...]) -> None:
    assert reasons(NODE_NAME, PodProfile(node_name=pod_node), node("node")) == want


def _affinity(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
        }
    }


def _expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        e["values"] = list(values)
    return e


AFFINITY_MISS = ("node(s) didn't match Pod's node affinity/selector",)

# nodeaffinity/node_affinity_test.go TestNodeAffinity
AFFINITY_CASES: list[tuple[str, dict[str, Any], dict[str, str], tuple[str, ...]]] = [
    ("no selector matches any node", {}, {}, ()),
    ("a missing label fails the nodeSelector", {"nodeSelector": {"foo": "bar"}}, {}, AFFINITY_MISS),
    (
        "a matching label passes the nodeSelector",
        {"nodeSelector": {"foo": "bar"}},
        {"foo": "bar"},
        (),
    ),
    (
        "a different value fails the nodeSelector",
        {"nodeSelector": {"foo": "bar"}},
        {"foo": "baz"},
        AFFINITY_MISS,
    ),
    (
        "an empty selector value needs an empty label",
        {"nodeSelector": {"foo": ""}},
        {"foo": ""},
        (),
    ),
    (
        "In matches a listed value",
        {"affinity": _affinity({"matchExpressions": [_expr("foo", "In", "value1", "value2")]})},
        {"foo": "value2"},
        (),
    ),
    (
        "Gt compares integers",
        {"affinity": _affinity({"matchExpressions": [_expr("kernel-version", "Gt", "0204")]})},
        {"kernel-version": "0206.10"},
        AFFINITY_MISS,
    ),
    (
        "Gt accepts leading zeros",
        {"affinity": _affinity({"matchExpressions": [_expr("kernel-version", "Gt", "0204")]})},
        {"kernel-version": "0206"},
        (),
    ),
    (
        "Lt on a non-integer label does not match",
        {"affinity": _affinity({"matchExpressions": [_expr("gpus", "Lt", "3")]})},
        {"gpus": "two"},
        AFFINITY_MISS,
    ),
    (
        "NotIn matches when the label is absent",
        {"affinity": _affinity({"matchExpressions": [_expr("mem-type", "NotIn", "DDR", "DDR2")]})},
        {},
        (),
    ),
    (
        "NotIn fails on a listed value",
        {"affinity": _affinity({"matchExpressions": [_expr("mem-type", "NotIn", "DDR", "DDR2")]})},
        {"mem-type": "DDR"},
        AFFINITY_MISS,
    ),
    (
        "DoesNotExist fails when the label is there",
        {"affinity": _affinity({"matchExpressions": [_expr("GPU", "DoesNotExist")]})},
        {"GPU": "NVIDIA-GRID-K1"},
        AFFINITY_MISS,
    ),
    (
        "expressions in one term are ANDed",
        {
            "affinity": _affinity(
                {"matchExpressions": [_expr("foo", "In", "bar"), _expr("diffkey", "In", "wrong")]}
            )
        },
        {"foo": "bar"},
        AFFINITY_MISS,
    ),
    (
        "terms are ORed",
        {
            "affinity": _affinity(
                {"matchExpressions": [_expr("foo", "In", "nope")]},
                {"matchExpressions": [_expr("diffkey", "In", "yes")]},
            )
        },
        {"diffkey": "yes"},
        (),
    ),
    ("an empty term matches nothing", {"affinity": _affinity({})}, {"foo": "bar"}, AFFINITY_MISS),
    (
        "an empty matchExpressions list matches nothing",
        {"affinity": _affinity({"matchExpressions": []})},
        {"foo": "bar"},
        AFFINITY_MISS,
    ),
    (
        "an invalid value makes the term match nothing",
        {
            "affinity": _affinity(
                {"matchExpressions": [_expr("foo", "NotIn", "invalid value: ___@#$%^")]}
            )
        },
        {"foo": "bar"},
        AFFINITY_MISS,
    ),
    (
        "an invalid term is dropped, a valid one still matches",
        {
            "affinity": _affinity(
                {"matchExpressions": [_expr("foo", "In")]},
                {"matchExpressions": [_expr("foo", "Exists")]},
            )
        },
        {"foo": "bar"},
        (),
    ),
    (
        "nodeSelector and affinity are ANDed",
        {
            "nodeSelector": {"foo": "bar"},
            "affinity": _affinity({"matchExpressions": [_expr("foo", "Exists")]}),
        },
        {"foo": "baz"},
        AFFINITY_MISS,
    ),
    (
        "matchFields metadata.name In matches the named node",
        {"affinity": _affinity({"matchFields": [_expr("metadata.name", "In", "node")]})},
        {},
        (),
    ),
    (
        "matchFields metadata.name In fails another node",
        {"affinity": _affinity({"matchFields": [_expr("metadata.name", "In", "other")]})},
        {},
        AFFINITY_MISS,
    ),
    (
        "matchFields with two values is invalid",
        {"affinity": _affinity({"matchFields": [_expr("metadata.name", "In", "node", "other")]})},
        {},
        AFFINITY_MISS,
    ),
    (
        "matchFields and matchExpressions are ANDed",
        {
            "affinity": _affinity(
                {
                    "matchFields": [_expr("metadata.name", "In", "node")],
                    "matchExpressions": [_expr("foo", "In", "bar")],
                }
            )
        },
        {"foo": "baz"},
        AFFINITY_MISS,
    ),
]


@pytest.mark.parametrize(
    ("spec", "labels", "want"), [c[1:] for c in AFFINITY_CASES], ids=[c[0] for c in AFFINITY_CASES]
)
def test_node_affinity(spec: dict[str, Any], labels: dict[str, str], want: tuple[str, ...]) -> None:
    pod = pod_profile({"containers": [container()], **spec})
    assert reasons(NODE_AFFINITY, pod, node("node", labels=labels)) == want


def hp(text: str) -> HostPort:
    protocol, ip, port = text.split("/")
    return HostPort(ip=ip, protocol=protocol, port=int(port))


PORTS_MISS = ("node(s) didn't have free ports for the requested pod ports",)
# nodeports/node_ports_test.go TestNodePorts
PORT_CASES = [
    ("nothing running", ["UDP/127.0.0.1/8080"], [], ()),
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], ()),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], PORTS_MISS),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], PORTS_MISS),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], ()),
    ("different protocol", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], ()),
    (
        "second udp port conflict",
        ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"],
        ["UDP/127.0.0.1/8080"],
        PORTS_MISS,
    ),
    (
        "first tcp port conflict",
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"],
        PORTS_MISS,
    ),
    (
        "first tcp port conflict due to 0.0.0.0 hostIP",
        ["TCP/0.0.0.0/8001"],
        ["TCP/127.0.0.1/8001"],
        PORTS_MISS,
    ),
    (
        "TCP hostPort conflict due to 0.0.0.0 hostIP",
        ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
        ["TCP/127.0.0.1/8001"],
        PORTS_MISS,
    ),
    (
        "second tcp port conflict to 0.0.0.0 hostIP",
        ["TCP/127.0.0.1/8001"],
        ["TCP/0.0.0.0/8001"],
        PORTS_MISS,
    ),
    ("second different protocol", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], ()),
    (
        "UDP hostPort conflict due to 0.0.0.0 hostIP",
        ["UDP/0.0.0.0/8001"],
        ["UDP/127.0.0.1/8001"],
        PORTS_MISS,
    ),
]


@pytest.mark.parametrize(
    ("wanted", "used", "want"), [c[1:] for c in PORT_CASES], ids=[c[0] for c in PORT_CASES]
)
def test_node_ports(wanted: list[str], used: list[str], want: tuple[str, ...]) -> None:
    pod = PodProfile(wanted_ports=tuple(hp(p) for p in wanted))
    view = node(used_ports=frozenset(hp(p) for p in used))
    assert reasons(NODE_PORTS, pod, view) == want


def fit_node(**used: int) -> NodeView:
    """noderesources/fit_test.go: allocatable 10m cpu, 20 bytes memory, 32 pods, 20 storage,
    5 of example.com/aaa, 2 of hugepages-2Mi."""
    pods = used.pop("pods", 0)
    return NodeView(
        name="node",
        labels={},
        taints=(),
        unschedulable=False,
        allocatable={
            "cpu": 10,
            "memory": 20,
            "pods": 32,
            "ephemeral-storage": 20,
            "example.com/aaa": 5,
            "hugepages-2Mi": 2,
        },
        requested={
            k.replace("_", "-").replace("example-com-", "example.com/"): v for k, v in used.items()
        },
        pod_count=pods,
    )


def fit_pod(
    containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None, **spec: Any
) -> PodProfile:
    return pod_profile({"containers": containers, "initContainers": init or [], **spec})


def c(cpu: str = "0", memory: str = "0", **other: str) -> dict[str, Any]:
    requests = {
        "cpu": f"{cpu}m",
        "memory": memory,
        **{k.replace("_", "-"): v for k, v in other.items()},
    }
    return container(requests=requests)


def sidecar(cpu: str = "0", memory: str = "0") -> dict[str, Any]:
    return {**c(cpu, memory), "restartPolicy": "Always"}


# noderesources/fit_test.go TestEnoughRequests
FIT_CASES = [
    ("no resources requested always fits", fit_pod([container()]), fit_node(cpu=10, memory=20), ()),
    (
        "too many resources fails",
        fit_pod([c("1", "1")]),
        fit_node(cpu=10, memory=20),
        ("Insufficient cpu", "Insufficient memory"),
    ),
    (
        "too many resources fails due to init container cpu",
        fit_pod([c("1", "1")], [c("3", "1")]),
        fit_node(cpu=8, memory=19),
        ("Insufficient cpu",),
    ),
    (
        "too many resources fails due to highest init container cpu",
        fit_pod([c("1", "1")], [c("3", "1"), c("2", "1")]),
        fit_node(cpu=8, memory=19),
        ("Insufficient cpu",),
    ),
    (
        "too many resources fails due to init container memory",
        fit_pod([c("1", "1")], [c("1", "3")]),
        fit_node(cpu=9, memory=19),
        ("Insufficient memory",),
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        fit_pod([c("1", "1")], [c("1", "1")]),
        fit_node(cpu=9, memory=19),
        (),
    ),
    ("both resources fit", fit_pod([c("1", "1")]), fit_node(cpu=5, memory=5), ()),
    (
        "one resource memory fits",
        fit_pod([c("2", "1")]),
        fit_node(cpu=9, memory=5),
        ("Insufficient cpu",),
    ),
    (
        "one resource cpu fits",
        fit_pod([c("1", "2")]),
        fit_node(cpu=5, memory=19),
        ("Insufficient memory",),
    ),
    ("equal edge case", fit_pod([c("5", "1")]), fit_node(cpu=5, memory=19), ()),
    (
        "equal edge case for init container",
        fit_pod([c("4", "1")], [c("5", "1")]),
        fit_node(cpu=5, memory=19),
        (),
    ),
    ("extended resource fits", fit_pod([c(**{"example.com/aaa": "1"})]), fit_node(), ()),
    (
        "extended resource capacity enforced",
        fit_pod([c(**{"example.com/aaa": "10"})]),
        fit_node(),
        ("Insufficient example.com/aaa",),
    ),
    (
        "extended resource allocatable enforced",
        fit_pod([c(**{"example.com/aaa": "1"})]),
        fit_node(**{"example.com/aaa": 5}),
        ("Insufficient example.com/aaa",),
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        fit_pod([c(**{"example.com/ccc": "1"})]),
        fit_node(),
        ("Insufficient example.com/ccc",),
    ),
    ("hugepages fit", fit_pod([c(hugepages_2Mi="2")]), fit_node(), ()),
    (
        "hugepages allocatable enforced",
        fit_pod([c(hugepages_2Mi="3")]),
        fit_node(),
        ("Insufficient hugepages-2Mi",),
    ),
    (
        "ephemeral storage enforced",
        fit_pod([c(ephemeral_storage="25")]),
        fit_node(),
        ("Insufficient ephemeral-storage",),
    ),
    (
        "too many pods is reported even without requests",
        fit_pod([container()]),
        fit_node(pods=32),
        ("Too many pods",),
    ),
    (
        "too many pods comes first among several shortages",
        fit_pod([c("1", "1")]),
        fit_node(pods=32, cpu=10, memory=20),
        ("Too many pods", "Insufficient cpu", "Insufficient memory"),
    ),
]


@pytest.mark.parametrize(
    ("pod", "view", "want"), [c[1:] for c in FIT_CASES], ids=[c[0] for c in FIT_CASES]
)
def test_node_resources_fit(pod: PodProfile, view: NodeView, want: tuple[str, ...]) -> None:
    assert reasons(NODE_RESOURCES_FIT, pod, view) == want


@pytest.mark.parametrize("version", ["v1.34.1", "v1.35.0", "v1.36.0", "v1.37.2"])
def test_a_scalar_the_node_lacks_is_insufficient_in_every_version(version: str) -> None:
    """fit.go shouldDelegateResourceToDRA: with DRAExtendedResource on (v1.36+), only a name a
    DeviceClass maps is left to DRA, never hugepages-* (fit_test.go "extended resource NOT
    backed by DRA" still wants Insufficient)."""
    pod = fit_pod([c(hugepages_1Gi="1")])
    dialect = dialect_for(version)
    assert reasons(NODE_RESOURCES_FIT, pod, fit_node(), dialect) == ("Insufficient hugepages-1Gi",)


def test_first_failing_filter_decides_the_reasons() -> None:
    """framework.go RunFilterPlugins stops at the first rejecting plugin."""
    pod = fit_pod([c("100")])
    view = node(cpu=1, unschedulable=True, taints=(taint("a", "b"),))
    rejection = run_filters(prepared(pod, view), view, NAMED)
    assert rejection is not None and rejection.reasons == ("node(s) were unschedulable",)


UNSCHEDULABLE, UNRESOLVABLE = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
# Each plugin's Filter status code, as its Filter in v1.34.1 returns it (the wantStatus of
# each plugin's *_test.go); NodeResourcesFit: fit_test.go TestEnoughRequests, whose
# wantInsufficientResources mark Unresolvable a request above the node's allocatable.
STATUS_CASES = [
    (
        "a cordoned node is unresolvable for NodeUnschedulable",
        PodProfile(),
        node(unschedulable=True),
        (NODE_UNSCHEDULABLE, UNRESOLVABLE, ()),
    ),
    (
        "another node's name is unresolvable for NodeName",
        PodProfile(node_name="other"),
        node("node"),
        (NODE_NAME, UNRESOLVABLE, ()),
    ),
    (
        "an untolerated taint is unresolvable for TaintToleration",
        PodProfile(),
        node(taints=(taint("a", "b"),)),
        (TAINT_TOLERATION, UNRESOLVABLE, ()),
    ),
    (
        "an unmatched nodeSelector is unresolvable for NodeAffinity",
        PodProfile(node_selector={"zone": "a"}),
        node(),
        (NODE_AFFINITY, UNRESOLVABLE, ()),
    ),
    (
        "a host port in use is only unschedulable for NodePorts",
        PodProfile(wanted_ports=(hp("TCP/0.0.0.0/80"),)),
        node(used_ports=frozenset({hp("TCP/0.0.0.0/80")})),
        (NODE_PORTS, UNSCHEDULABLE, ()),
    ),
    (
        "cpu used by other pods is unschedulable: preemption could free it",
        fit_pod([c("1", "1")]),
        fit_node(cpu=10, memory=20),
        (NODE_RESOURCES_FIT, UNSCHEDULABLE, (Shortfall("cpu", 1), Shortfall("memory", 1))),
    ),
    (
        "a pod slot alone is unschedulable, however many pods are bound",
        fit_pod([container()]),
        fit_node(pods=32),
        (NODE_RESOURCES_FIT, UNSCHEDULABLE, (Shortfall("pods", 1),)),
    ),
    (
        "cpu above the node's allocatable is unresolvable",
        fit_pod([c("11")]),
        fit_node(),
        (NODE_RESOURCES_FIT, UNRESOLVABLE, (Shortfall("cpu", 11),)),
    ),
    (
        "one resource above allocatable makes the whole status unresolvable",
        fit_pod([c("1", "21")]),
        fit_node(cpu=10),
        (NODE_RESOURCES_FIT, UNRESOLVABLE, (Shortfall("cpu", 1), Shortfall("memory", 21))),
    ),
    (
        "a scalar the node does not offer is unresolvable",
        fit_pod([c(hugepages_1Gi="1")]),
        fit_node(),
        (NODE_RESOURCES_FIT, UNRESOLVABLE, (Shortfall("hugepages-1Gi", 1),)),
    ),
]


@pytest.mark.parametrize(
    ("pod", "view", "want"), [c[1:] for c in STATUS_CASES], ids=[c[0] for c in STATUS_CASES]
)
def test_a_rejection_carries_its_plugin_and_code(
    pod: PodProfile, view: NodeView, want: tuple[str, Code, tuple[Shortfall, ...]]
) -> None:
    rejection = run_filters(prepared(pod, view), view, NAMED)
    assert rejection is not None
    assert (rejection.plugin, rejection.code, rejection.shortfall) == want
