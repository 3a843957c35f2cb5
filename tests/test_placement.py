"""Copies placed one after another, counted and never named (gate.scheduler.placement.copies)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.model import HostPort, NodeView
from gate.scheduler.placement.copies import (
    CopyRules,
    Ledger,
    SpreadRule,
    capacity,
    place,
    set_bits,
)
from tests.builders import node

ZONE = "topology.kubernetes.io/zone"
PORT_80 = HostPort("0.0.0.0", "TCP", 80)


def _zoned(name: str, zone: str, cpu: int = 4000) -> NodeView:
    return node(name, cpu=cpu, labels={HOSTNAME: name, ZONE: zone})


CAPACITY: list[tuple[str, NodeView, CopyRules, int]] = [
    (
        "free cpu over the request, rounded down",
        node(cpu=2500, requested={"cpu": 100}),
        CopyRules({"cpu": 700}),
        3,
    ),
    (
        "the scarcest resource decides",
        node(cpu=8000, memory=2**30),
        CopyRules({"cpu": 100, "memory": 2**29}),
        2,
    ),
    ("free pod slots cap the copies", node(pods=5, pod_count=3), CopyRules({"cpu": 1}), 2),
    ("a pod without requests is capped by pod slots only", node(pods=7), CopyRules(), 7),
    ("a resource the node lacks holds none", node(), CopyRules({"nvidia.com/gpu": 1}), 0),
    (
        "a host port holds one copy per node",
        node(),
        CopyRules({"cpu": 100}, host_ports=(PORT_80,)),
        1,
    ),
    (
        "hostname anti-affinity against itself holds one copy per node",
        node(),
        CopyRules({"cpu": 100}, one_per_domain=(HOSTNAME,)),
        1,
    ),
    (
        "an overcommitted node holds none",
        node(cpu=1000, requested={"cpu": 1500}),
        CopyRules({"cpu": 100}),
        0,
    ),
]


@pytest.mark.parametrize(
    ("view", "rules", "expected"), [c[1:] for c in CAPACITY], ids=[c[0] for c in CAPACITY]
)
def test_capacity(view: NodeView, rules: CopyRules, expected: int) -> None:
    assert capacity(view, rules) == expected


def test_the_docstring_example_fits_six_of_ten_evenly() -> None:
    nodes = [node("a", cpu=2500), node("b", cpu=1500), node("c", cpu=700)]
    placement = place(10, nodes, CopyRules({"cpu": 700}))
    assert (placement.fit, placement.copies, placement.busiest) == (6, {0: 3, 1: 2, 2: 1}, 3)


def test_copies_spread_evenly_before_doubling_up() -> None:
    nodes = [node(str(i), cpu=10_000) for i in range(4)]
    assert place(6, nodes, CopyRules({"cpu": 1000})).copies == {0: 2, 1: 2, 2: 1, 3: 1}


def test_ties_go_to_the_earlier_node() -> None:
    nodes = [node(str(i)) for i in range(3)]
    assert place(1, nodes, CopyRules({"cpu": 100})).copies == {0: 1}


def test_four_replicas_with_hostname_anti_affinity_on_three_nodes_fit_three() -> None:
    nodes = [_zoned(f"user-{i}", "z1") for i in range(3)]
    placement = place(4, nodes, CopyRules({"cpu": 100}, one_per_domain=(HOSTNAME,)))
    assert (placement.fit, placement.copies) == (3, {0: 1, 1: 1, 2: 1})


def test_zone_anti_affinity_against_itself_holds_one_copy_per_zone() -> None:
    nodes = [_zoned("a", "z1"), _zoned("b", "z1"), _zoned("c", "z2")]
    placement = place(3, nodes, CopyRules({"cpu": 100}, one_per_domain=(ZONE,)))
    assert (placement.fit, placement.copies) == (2, {0: 1, 2: 1})


def test_zone_spread_stops_at_the_skew_where_one_zone_is_full() -> None:
    # z2's only node holds one copy; with maxSkew 1, z1 may run at most one ahead of it.
    nodes = [_zoned("a", "z1"), _zoned("b", "z1"), _zoned("c", "z2", cpu=100)]
    rule = SpreadRule(ZONE, max_skew=1, counts={"z1": 0, "z2": 0})
    placement = place(6, nodes, CopyRules({"cpu": 100}, spread=(rule,)))
    assert (placement.fit, placement.copies) == (3, {0: 1, 1: 1, 2: 1})


def test_spread_counts_existing_matching_pods() -> None:
    nodes = [_zoned("a", "z1"), _zoned("b", "z2")]
    rule = SpreadRule(ZONE, max_skew=1, counts={"z1": 2, "z2": 0})
    placement = place(4, nodes, CopyRules({"cpu": 100}, spread=(rule,)))
    # z2 takes copies until it is one ahead of z1's two: 3 copies, then z1 and z2 alternate.
    assert placement.fit == 4 and placement.copies == {0: 1, 1: 3}


def test_min_domains_not_met_keeps_the_global_minimum_at_zero() -> None:
    nodes = [_zoned("a", "z1"), _zoned("b", "z2")]
    rule = SpreadRule(ZONE, max_skew=1, counts={"z1": 0, "z2": 0}, min_domains=3)
    placement = place(5, nodes, CopyRules({"cpu": 100}, spread=(rule,)))
    assert (placement.fit, placement.copies) == (2, {0: 1, 1: 1})


def test_the_ledger_holds_room_taken_by_earlier_workloads() -> None:
    nodes = [node("a", cpu=2000), node("b", cpu=2000)]
    ledger = Ledger()
    first = place(3, nodes, CopyRules({"cpu": 1000}), ledger=ledger)
    for position, copies in first.copies.items():
        ledger.take(nodes[position].name, CopyRules({"cpu": 1000}), copies, "api")
    second = place(3, nodes, CopyRules({"cpu": 1000}), ledger=ledger)
    assert (first.copies, second.fit, second.copies) == ({0: 2, 1: 1}, 1, {1: 1})


def test_a_host_port_taken_by_an_earlier_workload_of_the_run_holds_no_copy() -> None:
    nodes = [node("a"), node("b")]
    ledger = Ledger()
    ledger.take("a", CopyRules(host_ports=(HostPort("10.0.0.1", "TCP", 80),)), 1, "api")
    placement = place(2, nodes, CopyRules({"cpu": 100}, host_ports=(PORT_80,)), ledger=ledger)
    assert (placement.fit, placement.copies, ledger.takers) == (1, {1: 1}, {"a": {"api": 1}})


def test_only_candidates_take_copies() -> None:
    nodes = [node(str(i)) for i in range(4)]
    placement = place(3, nodes, CopyRules({"cpu": 2000}), candidates=0b1010)
    assert (placement.fit, placement.copies) == (3, {1: 2, 3: 1})


def test_nodes_without_an_anti_affinity_key_take_copies_freely() -> None:
    # Upstream: a node without the term's topology key matches no existing pod's domain.
    nodes = [node("a", labels={ZONE: "z1"}), node("b", labels={}), node("c", labels={ZONE: "z1"})]
    placement = place(4, nodes, CopyRules({"cpu": 1000}, one_per_domain=(ZONE,)))
    assert (placement.fit, placement.copies) == (4, {0: 1, 1: 3})


def _bits_one_by_one(bits: int) -> list[int]:
    return [position for position in range(bits.bit_length()) if bits >> position & 1]


@given(st.integers(min_value=0, max_value=(1 << 6_000) - 1))
def test_set_bits_are_every_set_position_lowest_first(bits: int) -> None:
    assert list(set_bits(bits)) == _bits_one_by_one(bits)


@pytest.mark.parametrize(
    "bits",
    [
        pytest.param(0, id="none"),
        pytest.param((1 << 16) - 1, id="sixteen bits, taken one by one"),
        pytest.param((1 << 17) - 1, id="seventeen bits, read from the binary text"),
        pytest.param(1 << 4_999 | 1, id="the lowest and a 5,000th"),
        pytest.param((1 << 5_000) - 1, id="every one of 5,000 nodes"),
    ],
)
def test_set_bits_on_either_side_of_the_few(bits: int) -> None:
    assert list(set_bits(bits)) == _bits_one_by_one(bits)
