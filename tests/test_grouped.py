"""Copies placed without scores where the scheduler scores only a share of the feasible
nodes (gate.scheduler.placement.grouped): uncoupled copies fill the nodes evenly in node order,
copies under one zone-wide rule go by groups of nodes sharing their domains.

The zone rules are PodTopologySpread's skew (podtopologyspread/filtering.go, kube-scheduler
v1.34: ``count + selfMatch - min > maxSkew`` refuses, the minimum 0 below ``minDomains``)
and a required anti-affinity against the copies' own labels (interpodaffinity/filtering.go:
a node without the term's key is in no domain).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME, ZONE
from gate.model import HostPort, NodeView
from gate.scheduler.placement.copyrules import CopyRules, Ledger, Placement, SpreadRule
from gate.scheduler.placement.grouped import by_domain, fill_order, filled
from tests.builders import node

CPU = {"cpu": 1000}


def _at(name: str, zone: str | None, cpu: int = 4000) -> NodeView:
    labels = {HOSTNAME: name} | ({ZONE: zone} if zone else {})
    return node(name, cpu=cpu, labels=labels)


def _zone_spread(
    counts: Mapping[str, int], max_skew: int = 1, min_domains: int = 1, self_match: bool = True
) -> CopyRules:
    rule = SpreadRule(ZONE, max_skew, counts, min_domains=min_domains, self_match=self_match)
    return CopyRules(CPU, spread=(rule,))


FILL_ORDER: list[tuple[str, list[int], dict[int, int], list[int]]] = [
    (
        "one copy each in node order, then a second each to the nodes holding two",
        [0, 1, 2],
        {0: 3, 1: 1, 2: 2},
        [0, 1, 2, 0, 2, 0],
    ),
    ("a node holding no copy is passed over", [0, 1, 2], {0: 1, 1: 0, 2: 2}, [0, 2, 2]),
    ("the candidates' own order is kept", [2, 0], {0: 1, 2: 2}, [2, 0, 2]),
    ("no candidate gives no copy", [], {}, []),
]


@pytest.mark.parametrize(
    ("candidates", "caps", "expected"),
    [c[1:] for c in FILL_ORDER],
    ids=[c[0] for c in FILL_ORDER],
)
def test_fill_order(candidates: list[int], caps: dict[int, int], expected: list[int]) -> None:
    assert list(fill_order(candidates, caps.__getitem__)) == expected


def test_fill_order_asks_only_the_nodes_the_copies_reach() -> None:
    asked: list[int] = []

    def capacity_of(position: int) -> int:
        asked.append(position)
        return 1

    assert list(islice(fill_order(range(5000), capacity_of), 3)) == [0, 1, 2]
    assert asked == [0, 1, 2]


FILLED: list[tuple[str, int, list[NodeView], int, Placement]] = [
    (
        "copies fill the nodes evenly in node order",
        4,
        [_at("a", None), _at("b", None, cpu=1000), _at("c", None)],
        0b111,
        Placement(wanted=4, fit=4, copies={0: 2, 1: 1, 2: 1}),
    ),
    (
        "more copies than room fit as many as the room holds",
        9,
        [_at("a", None, cpu=2000), _at("b", None, cpu=1000)],
        0b11,
        Placement(wanted=9, fit=3, copies={0: 2, 1: 1}),
    ),
    (
        "a node that is not a candidate takes none",
        2,
        [_at("a", None), _at("b", None)],
        0b10,
        Placement(wanted=2, fit=2, copies={1: 2}),
    ),
]


@pytest.mark.parametrize(
    ("wanted", "nodes", "fitting", "expected"),
    [c[1:] for c in FILLED],
    ids=[c[0] for c in FILLED],
)
def test_filled(wanted: int, nodes: list[NodeView], fitting: int, expected: Placement) -> None:
    assert filled(wanted, nodes, CopyRules(CPU), fitting, None) == expected


def test_filled_leaves_the_room_earlier_copies_took() -> None:
    ledger = Ledger()
    ledger.take("a", CopyRules(CPU), 3, "Deployment default/earlier")
    placement = filled(5, [_at("a", None), _at("b", None)], CopyRules(CPU), 0b11, ledger)
    assert placement == Placement(wanted=5, fit=5, copies={0: 1, 1: 4})


Z1Z1Z2 = [_at("a", "z1"), _at("b", "z1"), _at("c", "z2", cpu=1000)]
THREE_ZONES = [_at("a", "z1"), _at("b", "z2"), _at("c", "z3")]

BY_DOMAIN: list[tuple[str, int, list[NodeView], CopyRules, Placement]] = [
    (
        "a zone spread stops at the skew where one zone is full",
        6,
        Z1Z1Z2,
        _zone_spread({"z1": 0, "z2": 0}),
        Placement(wanted=6, fit=3, copies={0: 1, 1: 1, 2: 1}),
    ),
    (
        "existing matching pods count: the empty zone catches up first",
        4,
        [_at("a", "z1"), _at("b", "z2")],
        _zone_spread({"z1": 2, "z2": 0}),
        Placement(wanted=4, fit=4, copies={0: 1, 1: 3}),
    ),
    (
        "below minDomains the global minimum is 0: one copy a zone under maxSkew 1",
        5,
        [_at("a", "z1"), _at("b", "z2")],
        _zone_spread({"z1": 0, "z2": 0}, min_domains=3),
        Placement(wanted=5, fit=2, copies={0: 1, 1: 1}),
    ),
    (
        "each copy goes to the zone holding the fewest matching pods",
        2,
        THREE_ZONES,
        _zone_spread({"z1": 1, "z2": 0, "z3": 0}, max_skew=5),
        Placement(wanted=2, fit=2, copies={1: 1, 2: 1}),
    ),
    (
        "copies the selector does not count leave the counts as they are",
        3,
        THREE_ZONES,
        _zone_spread({"z1": 0, "z2": 1, "z3": 1}, self_match=False),
        Placement(wanted=3, fit=3, copies={0: 3}),
    ),
    (
        "a node without the spread's key takes no copy",
        3,
        [_at("a", None), _at("b", "z1")],
        _zone_spread({"z1": 0}, max_skew=5),
        Placement(wanted=3, fit=3, copies={1: 3}),
    ),
    (
        "zone anti-affinity against its own copies holds one copy a zone",
        5,
        [_at("a", "z1"), _at("b", "z1"), _at("c", "z2")],
        CopyRules(CPU, one_per_domain=(ZONE,)),
        Placement(wanted=5, fit=2, copies={0: 1, 2: 1}),
    ),
    (
        "zone anti-affinity does not reach a node without the zone label",
        5,
        [_at("a", None, cpu=3000), _at("b", "z1")],
        CopyRules(CPU, one_per_domain=(ZONE,)),
        Placement(wanted=5, fit=4, copies={0: 3, 1: 1}),
    ),
    (
        "a hostname anti-affinity beside a zone spread holds one copy a node",
        4,
        [_at("a", "z1"), _at("b", "z1"), _at("c", "z2")],
        CopyRules(
            CPU,
            one_per_domain=(HOSTNAME,),
            spread=(SpreadRule(ZONE, max_skew=2, counts={"z1": 0, "z2": 0}),),
        ),
        Placement(wanted=4, fit=3, copies={0: 1, 1: 1, 2: 1}),
    ),
]


@pytest.mark.parametrize(
    ("wanted", "nodes", "rules", "expected"),
    [c[1:] for c in BY_DOMAIN],
    ids=[c[0] for c in BY_DOMAIN],
)
def test_by_domain(
    wanted: int, nodes: list[NodeView], rules: CopyRules, expected: Placement
) -> None:
    fitting = (1 << len(nodes)) - 1
    assert by_domain(wanted, nodes, rules, fitting, None) == expected


def test_by_domain_reads_the_label_bits_it_is_given() -> None:
    # The given bits put node c in z1 beside a and b, whatever its labels say.
    def label_bits(key: str) -> Mapping[str, int]:
        return {"z1": 0b111} if key == ZONE else {}

    rules = _zone_spread({"z1": 0, "z2": 0})
    placement = by_domain(6, Z1Z1Z2, rules, 0b111, None, label_bits)
    assert placement == Placement(wanted=6, fit=1, copies={0: 1})


def test_by_domain_leaves_the_room_earlier_copies_took() -> None:
    ledger = Ledger()
    ledger.take("a", CopyRules(CPU), 4, "Deployment default/earlier")
    rules = _zone_spread({"z1": 0, "z2": 0})
    placement = by_domain(4, [_at("a", "z1"), _at("b", "z2")], rules, 0b11, ledger)
    assert placement == Placement(wanted=4, fit=1, copies={1: 1})


# --- the nodes the ledger knows full ---------------------------------------------------

_REQUESTS = st.fixed_dictionaries(
    {"cpu": st.sampled_from((0, 250, 500, 1000, 1500))},
    optional={"memory": st.sampled_from((2**28, 2**30, 3 * 2**30)), "pods": st.just(1)},
)
_WORKLOADS = st.lists(
    st.tuples(_REQUESTS, st.integers(1, 12), st.booleans()), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    workloads=_WORKLOADS,
)
def test_skipping_the_nodes_the_ledger_knows_full_places_every_copy_as_asking_them(
    seed: int, workloads: list[tuple[dict[str, int], int, bool]]
) -> None:
    """Workloads filled one after another beside the run's ledger, each taking its copies
    there: the nodes a placement found full are skipped by the next (Ledger.full), and
    every placement is the one asking every node again gives."""
    draw = random.Random(seed)
    nodes = tuple(
        node(
            f"n{i}",
            cpu=draw.choice((1000, 2000, 4000)),
            memory=draw.choice((2**30, 4 * 2**30)),
            pods=draw.choice((1, 3, 8)),
            requested={"cpu": draw.choice((0, 500))},
        )
        for i in range(draw.randint(1, 24))
    )
    fitting = (1 << len(nodes)) - 1
    remembering, forgetting = Ledger(), Ledger()
    for k, (requests, wanted, ports) in enumerate(workloads):
        rules = CopyRules(requests, host_ports=(HostPort("0.0.0.0", "TCP", 80),) if ports else ())
        found = filled(wanted, nodes, rules, fitting, remembering)
        forgetting.full.clear()
        assert found == filled(wanted, nodes, rules, fitting, forgetting)
        for ledger in (remembering, forgetting):
            for position, copies in found.copies.items():
                ledger.take(nodes[position].name, rules, copies, f"w{k}")
