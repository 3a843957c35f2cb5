"""The first copy that does not fit (gate.scheduler.placement.unfit): every node's first rejection
for the copy after a placement's last, and the earlier workloads holding what refused it.

The rules are the scheduler's filters run again with the copies bound (kube-scheduler
v1.34: noderesources/fit.go, nodeports/node_ports.go, podtopologyspread/filtering.go,
interpodaffinity/filtering.go); each case asserts the whole set of rejections, reasons
and shortfalls included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.version import Dialect
from gate.model import Code, HostPort, NodeView
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Groups, Rejection, Shortfall, run_filters
from gate.scheduler.placement.copyrules import CopyRules, Ledger, Placement
from gate.scheduler.placement.replicas import copy_rules
from gate.scheduler.placement.unfit import Refused, consumers, refusals
from tests.builders import container, node, prepared, spread, taint

DIALECT = Dialect()
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
APP = {"app": "web"}

NO_CPU = Rejection(
    "NodeResourcesFit",
    Code.UNSCHEDULABLE,
    ("Insufficient cpu",),
    shortfall=(Shortfall("cpu", 1000),),
)
NO_SLOT = Rejection(
    "NodeResourcesFit", Code.UNSCHEDULABLE, ("Too many pods",), shortfall=(Shortfall("pods", 1),)
)
NO_PORT = Rejection(
    "NodePorts", Code.UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",)
)
SKEWED = Rejection(
    "PodTopologySpread",
    Code.UNSCHEDULABLE,
    ("node(s) didn't match pod topology spread constraints",),
)
ANTI = Rejection(
    "InterPodAffinity", Code.UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",)
)
TAINTED = Rejection(
    "TaintToleration",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ("node(s) had untolerated taint {dedicated: db}",),
    taint=taint("dedicated", "db"),
)


def _at(name: str, zone: str | None = None, **more: Any) -> NodeView:
    labels = {HOSTNAME: name} | ({ZONE: zone} if zone else {})
    return node(name, labels=labels, **more)


def _spec(cpu: str = "1", **spec: Any) -> dict[str, Any]:
    return {"containers": [container(requests={"cpu": cpu})], **spec}


def _anti(key: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": APP}, "topologyKey": key}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _zone_spread() -> list[dict[str, Any]]:
    return [spread(1, ZONE, {"matchLabels": APP})]


def _refused(
    spec: Mapping[str, Any],
    nodes: Sequence[NodeView],
    copies: Mapping[int, int],
    ledger: Ledger | None = None,
) -> Refused:
    """What the next copy meets once ``copies`` are placed, the first copy's rejections
    worked out by the filters themselves."""
    profile = pod_profile(spec, labels=APP)
    cycle = prepared(profile, *nodes)
    base: Groups = {}
    candidates = 0
    for position, view in enumerate(nodes):
        rejection = run_filters(cycle, view, DIALECT)
        if rejection is None:
            candidates |= 1 << position
        else:
            base[rejection] = base.get(rejection, 0) | 1 << position
    rules = copy_rules(profile, cycle, None)
    fit = sum(copies.values())
    placement = Placement(wanted=fit + 1, fit=fit, copies=copies)
    return refusals(base, cycle, nodes, rules, placement, candidates, ledger, DIALECT)


REFUSALS: list[tuple[str, dict[str, Any], list[NodeView], dict[int, int], Groups]] = [
    (
        "a node the copies filled refuses the next copy for cpu, with its shortfall",
        _spec(),
        [_at("a", cpu=2000), _at("b", cpu=4000)],
        {0: 2, 1: 3},
        {NO_CPU: 0b01},
    ),
    (
        "a node with room left refuses nothing",
        _spec(),
        [_at("a", cpu=3000)],
        {0: 2},
        {},
    ),
    (
        "a node the copies left without pod slots refuses with Too many pods",
        _spec(),
        [_at("a", pods=2)],
        {0: 2},
        {NO_SLOT: 0b1},
    ),
    (
        "a node no copy could take keeps the rejection it gave the first copy",
        _spec(),
        [_at("a", cpu=1000), _at("b", taints=(taint("dedicated", "db"),))],
        {0: 1},
        {NO_CPU: 0b01, TAINTED: 0b10},
    ),
    (
        "a node holding a copy refuses the next for its host port",
        _spec(
            containers=[
                container(requests={"cpu": "1"}, ports=[{"containerPort": 80, "hostPort": 80}])
            ]
        ),
        [_at("a"), _at("b")],
        {0: 1},
        {NO_PORT: 0b01},
    ),
    (
        "hostname anti-affinity against its own copies refuses the nodes holding one",
        _spec(affinity=_anti(HOSTNAME)),
        [_at("a"), _at("b"), _at("c")],
        {0: 1, 2: 1},
        {ANTI: 0b101},
    ),
    (
        "zone anti-affinity refuses a taken zone's nodes, not a node without the zone label",
        _spec(affinity=_anti(ZONE)),
        [_at("a", "z1"), _at("b", "z1"), _at("c", "z2"), _at("d")],
        {0: 1},
        {ANTI: 0b011},
    ),
    (
        "a copy on a node without the zone label takes no zone from the others",
        _spec(affinity=_anti(ZONE)),
        [_at("a", "z1"), _at("d"), _at("e")],
        {1: 1},
        {},
    ),
    (
        "a zone one copy ahead refuses the next under maxSkew 1",
        _spec(topologySpreadConstraints=_zone_spread()),
        [_at("a", "z1"), _at("b", "z1"), _at("c", "z2")],
        {0: 1},
        {SKEWED: 0b011},
    ),
    (
        "zones even after the copies refuse nothing under maxSkew 1",
        _spec(topologySpreadConstraints=_zone_spread()),
        [_at("a", "z1"), _at("c", "z2")],
        {0: 2, 1: 2},
        {},
    ),
]


@pytest.mark.parametrize(
    ("spec", "nodes", "copies", "expected"),
    [c[1:] for c in REFUSALS],
    ids=[c[0] for c in REFUSALS],
)
def test_refusals(
    spec: dict[str, Any], nodes: list[NodeView], copies: dict[int, int], expected: Groups
) -> None:
    assert _refused(spec, nodes, copies).groups == expected


def test_earlier_copies_in_the_ledger_count_against_a_node_this_workload_left_empty() -> None:
    nodes = [_at("a", cpu=2000), _at("b", cpu=2000)]
    ledger = Ledger()
    ledger.take("b", CopyRules({"cpu": 1500}), 1, "Deployment default/earlier")
    assert _refused(_spec(), nodes, {0: 2}, ledger).groups == {NO_CPU: 0b11}


def test_the_nodes_after_the_copies_are_the_ones_holding_copies() -> None:
    refused = _refused(_spec(), [_at("a", cpu=2000), _at("b", cpu=4000)], {0: 2})
    assert {p: (v.requested, v.pod_count) for p, v in refused.after.items()} == {
        0: ({"cpu": 2000}, 2)
    }


LARGEST_FREE: list[tuple[str, str, int, int | None]] = [
    ("a filled node counts its room after the copies", "cpu", 0b01, 0),
    ("the largest free amount among the nodes asked wins", "cpu", 0b11, 4000),
    ("a resource neither node has is free at zero", "nvidia.com/gpu", 0b11, 0),
    ("no node asked has no free amount", "cpu", 0, None),
]


@pytest.mark.parametrize(
    ("resource", "among", "expected"),
    [c[1:] for c in LARGEST_FREE],
    ids=[c[0] for c in LARGEST_FREE],
)
def test_largest_free(resource: str, among: int, expected: int | None) -> None:
    refused = _refused(_spec(), [_at("a", cpu=2000), _at("b", cpu=4000)], {0: 2})
    assert refused.largest_free(resource, among) == expected


PORT_80 = HostPort("0.0.0.0", "TCP", 80)
CPU = CopyRules({"cpu": 500}, namespace="default")
MEMORY_ONLY = CopyRules({"memory": 2**20}, namespace="default")
PORTED = CopyRules({"cpu": 100}, host_ports=(PORT_80,), namespace="default")
NODES = [_at("a", "z1"), _at("b", "z1"), _at("c", "z2")]

Taken = list[tuple[str, str, CopyRules, int]]

CONSUMERS: list[tuple[str, Groups, Taken, tuple[str, ...]]] = [
    (
        "the workload holding the most copies on the refusing nodes comes first",
        {NO_CPU: 0b011},
        [("a", "one", CPU, 1), ("b", "three", CPU, 3)],
        ("three", "one"),
    ),
    (
        "copies held on several refusing nodes add up",
        {NO_CPU: 0b011},
        [("a", "one", CPU, 2), ("b", "one", CPU, 1), ("a", "two", CPU, 2)],
        ("one", "two"),
    ),
    (
        "a tie goes to the workload placed earlier",
        {NO_CPU: 0b001},
        [("a", "first", CPU, 2), ("a", "second", CPU, 2)],
        ("first", "second"),
    ),
    (
        "a workload requesting none of the resource that ran short is not one of them",
        {NO_CPU: 0b001},
        [("a", "memory", MEMORY_ONLY, 5), ("a", "cpu", CPU, 1)],
        ("cpu",),
    ),
    (
        "every workload holds pod slots",
        {NO_SLOT: 0b001},
        [("a", "memory", MEMORY_ONLY, 5), ("a", "cpu", CPU, 1)],
        ("memory", "cpu"),
    ),
    (
        "a host port refusal names only the workloads holding host ports",
        {NO_PORT: 0b001},
        [("a", "cpu", CPU, 3), ("a", "ported", PORTED, 1)],
        ("ported",),
    ),
    (
        "copies on a node that did not refuse are not counted",
        {NO_CPU: 0b001},
        [("b", "elsewhere", CPU, 4), ("a", "here", CPU, 1)],
        ("here",),
    ),
    (
        "a rejection that is not about room names nobody",
        {ANTI: 0b111, TAINTED: 0b001},
        [("a", "cpu", CPU, 3)],
        (),
    ),
]


@pytest.mark.parametrize(
    ("refused", "taken", "expected"),
    [c[1:] for c in CONSUMERS],
    ids=[c[0] for c in CONSUMERS],
)
def test_consumers_of_room(refused: Groups, taken: Taken, expected: tuple[str, ...]) -> None:
    ledger = Ledger()
    for where, taker, rules, copies in taken:
        ledger.take(where, rules, copies, taker)
    assert consumers(refused, NODES, ledger, CopyRules({"cpu": 1000})) == expected


SPREAD_CONSUMERS: list[tuple[str, list[tuple[str, str, dict[str, str], str]], tuple[str, ...]]] = [
    (
        "an earlier workload the selector matches in the skewed zone is named",
        [("a", "web", APP, "default")],
        ("web",),
    ),
    (
        "an earlier workload the selector does not match is not named",
        [("a", "api", {"app": "api"}, "default")],
        (),
    ),
    (
        "an earlier workload of another namespace is not counted",
        [("a", "web", APP, "other")],
        (),
    ),
    (
        "an earlier workload only in a zone that did not refuse is not named",
        [("c", "web", APP, "default")],
        (),
    ),
    (
        "copies in both nodes of the skewed zone add up, the most first",
        [
            ("a", "few", APP, "default"),
            ("b", "many", APP, "default"),
            ("a", "many", APP, "default"),
        ],
        ("many", "few"),
    ),
]


@pytest.mark.parametrize(
    ("taken", "expected"),
    [c[1:] for c in SPREAD_CONSUMERS],
    ids=[c[0] for c in SPREAD_CONSUMERS],
)
def test_consumers_of_a_spread(
    taken: list[tuple[str, str, dict[str, str], str]], expected: tuple[str, ...]
) -> None:
    profile = pod_profile(_spec(topologySpreadConstraints=_zone_spread()), labels=APP)
    rules = copy_rules(profile, prepared(profile, *NODES), None)
    ledger = Ledger()
    for where, taker, labels, namespace in taken:
        ledger.take(where, CopyRules({"cpu": 100}, namespace=namespace), 1, taker, labels=labels)
    assert consumers({SKEWED: 0b011}, NODES, ledger, rules) == expected


@settings(max_examples=60, deadline=None)
@given(
    shapes=st.lists(
        st.tuples(st.sampled_from((2000, 3000, 4000)), st.sampled_from((1, 2, 110))),
        min_size=1,
        max_size=8,
    ),
    earlier=st.lists(
        st.tuples(st.integers(0, 7), st.sampled_from((500, 1000, 2500)), st.booleans()),
        max_size=8,
    ),
    cpu=st.sampled_from(("500m", "1", "2")),
    port=st.booleans(),
    copies=st.dictionaries(st.integers(0, 7), st.integers(1, 2), max_size=3),
)
def test_nodes_lacking_alike_beside_the_ledger_are_refused_as_each_asked_alone(
    shapes: list[tuple[int, int]],
    earlier: list[tuple[int, int, bool]],
    cpu: str,
    port: bool,
    copies: dict[int, int],
) -> None:
    """The room plugins are asked once per kind of lack beside the ledger's copies; every
    node gets the rejection the filters give its own view (the ledger's and the copies'
    room taken)."""
    nodes = [_at(f"n{i}", cpu=room, pods=pods) for i, (room, pods) in enumerate(shapes)]
    ports = [{"containerPort": 80, "hostPort": 80}] if port else []
    spec = _spec(cpu, containers=[container(requests={"cpu": cpu}, ports=ports)])
    ledger = Ledger()
    for k, (n, taken, with_port) in enumerate(earlier):
        held = (HostPort("0.0.0.0", "TCP", 80),) if with_port else ()
        taker = CopyRules({"cpu": taken}, host_ports=held)
        ledger.take(nodes[n % len(nodes)].name, taker, 1, f"Deployment default/w{k}")
    copies = {p % len(nodes): n for p, n in copies.items()}
    refused = _refused(spec, nodes, copies, ledger)
    profile = pod_profile(spec, labels=APP)
    cycle = prepared(profile, *nodes)
    rules = copy_rules(profile, cycle, None)
    expected: Groups = {}
    for position, view in enumerate(nodes):
        rejection = run_filters(cycle, view, DIALECT)
        if rejection is None:
            bound = ledger.view(view, rules, copies.get(position, 0))
            rejection = run_filters(cycle, bound, DIALECT)
        if rejection is not None:
            expected[rejection] = expected.get(rejection, 0) | 1 << position
    assert refused.groups == expected
