"""The fit range over every way selectHost can draw among tied nodes.

Upstream ``pkg/scheduler/schedule_one.go`` selectHost picks uniformly among the nodes of the
highest total (reservoir sampling over the score heap), so each tied node has a chance for
every copy: the count of copies a spread couples can be any the draws lead to, not only the
ones the lowest, the highest or a few seeded draws reach."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.model import NodeView, Verdict
from gate.scheduler.placement import copies
from gate.scheduler.placement.classes import scored_run
from gate.scheduler.placement.copies import (
    POLICIES,
    CopyRules,
    ScoreRules,
    SpreadRule,
    every_draw,
    place,
    place_range,
)
from tests.builders import api_node, node
from tests.test_replicas import Case, _deployment, _run

ZONE = "topology.kubernetes.io/zone"
RACK = "rack"


def _racked(name: str, zone: str, rack: str, *, cpu: int = 3000, pods: int = 2) -> NodeView:
    return node(name, cpu=cpu, pods=pods, labels={HOSTNAME: name, ZONE: zone, RACK: rack})


def _zone_and_rack(nodes: list[NodeView], zone_skew: int = 1) -> CopyRules:
    zones = {n.labels[ZONE]: 0 for n in nodes}
    racks = {n.labels[RACK]: 0 for n in nodes}
    return CopyRules(
        {"cpu": 500}, spread=(SpreadRule(ZONE, zone_skew, zones), SpreadRule(RACK, 1, racks))
    )


# Three nodes alike in room score alike for the first copy. n0 (zone b, rack y) or n2
# (zone a, rack x) first leaves a node of the other zone and rack for the second copy, and
# the copies go on to 3; n1 (zone a, rack y) first leaves the second copy needing zone b
# and rack x, which no node is: 1 copy. The lowest and the highest position never draw n1.
MIDDLE = [_racked("n0", "b", "y", pods=4), _racked("n1", "a", "y"), _racked("n2", "a", "x")]
PINNED = [n.name for n in MIDDLE]

DRAWS: list[tuple[str, list[NodeView], int, int, tuple[int, int, int]]] = [
    ("the middle of three tied nodes leads to 1 copy, the ends to 3", MIDDLE, 1, 7, (1, 3, 1)),
    (
        "a zone skew of 2 lets the second copy join the middle node's zone: 5 every way",
        MIDDLE,
        2,
        7,
        (5, 5, 5),
    ),
    (
        "copies no tie can change count once",
        [_racked("n0", "a", "x"), _racked("n1", "b", "y")],
        1,
        4,
        (4, 4, 4),
    ),
]


@pytest.mark.parametrize(
    ("nodes", "zone_skew", "wanted", "expected"),
    [c[1:] for c in DRAWS],
    ids=[c[0] for c in DRAWS],
)
def test_the_range_covers_every_draw(
    nodes: list[NodeView], zone_skew: int, wanted: int, expected: tuple[int, int, int]
) -> None:
    found = place_range(wanted, nodes, _zone_and_rack(nodes, zone_skew))
    assert (found.least, found.most, found.placement.fit) == expected


def test_the_least_placement_is_one_the_draws_reach() -> None:
    found = place_range(7, MIDDLE, _zone_and_rack(MIDDLE))
    assert dict(found.placement.copies) == {1: 1}


def test_past_its_bound_the_walk_gives_up_for_the_tie_policies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No placement with a tie ahead may be walked: the policies' range stands, the
    # lowest and the highest position both reaching 3.
    monkeypatch.setattr(copies, "DRAWN_STATES", 0)
    rules = _zone_and_rack(MIDDLE)
    run = scored_run(MIDDLE, rules, ScoreRules.of(rules.requests), 0b111, None)
    assert every_draw(run, 7) is None
    found = place_range(7, MIDDLE, rules)
    assert (found.least, found.most) == (3, 3)


_NODE = st.builds(
    lambda cpu, pods, zone, rack: (cpu, pods, zone, rack),
    st.integers(1, 4),
    st.integers(1, 4),
    st.sampled_from("ab "),
    st.sampled_from("xy"),
)


@settings(max_examples=60, deadline=None)
@given(
    specs=st.lists(_NODE, min_size=2, max_size=5),
    zone_skew=st.integers(1, 2),
    wanted=st.integers(1, 8),
    seed=st.integers(0, 2**16),
)
def test_every_policy_and_draw_lands_within_the_range(
    specs: list[Any], zone_skew: int, wanted: int, seed: int
) -> None:
    nodes = [
        _racked(f"n{i}", zone, rack, cpu=1000 * cpu, pods=pods)
        for i, (cpu, pods, zone, rack) in enumerate(specs)
    ]
    rules = _zone_and_rack(nodes, zone_skew)
    found = place_range(wanted, nodes, rules)
    for policy in (*POLICIES, seed):
        assert found.least <= place(wanted, nodes, rules, policy=policy).fit <= found.most
    assert found.placement.fit == found.least


def _spread_over(*keys: str) -> dict[str, Any]:
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": key,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
            for key in keys
        ]
    }


def test_a_deployment_reports_the_range_the_middle_node_opens() -> None:
    # MIDDLE through the whole pipeline: 500m copies on three nodes of 2 cpu alike in room.
    case = Case(
        [
            api_node(name, cpu="2", labels={HOSTNAME: name, ZONE: zone, RACK: rack})
            for name, zone, rack in (("n0", "b", "y"), ("n1", "a", "y"), ("n2", "a", "x"))
        ],
        [_deployment("web", 4, "500m", pod=_spread_over(ZONE, RACK))],
    )
    [result] = _run(case)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.placement.most) == (
        Verdict.PARTIAL,
        1,
        3,
    )


# --- a pod NodeAffinity's PreFilter narrows by name ------------------------------------

# schedule_one.go findNodesThatFitPod narrows allNodes to NodeAffinity's PreFilterResult
# (its required terms' metadata.name matchFields) before findNodesThatPassFilters, whose
# numAllNodes, and so numFeasibleNodesToFind, count only those: a pod pinned to three of
# 123 nodes has every feasible node scored, and selectHost draws among the three.
ELSEWHERE = [_racked(f"o{i:03d}", "c", "z") for i in range(120)]

NARROWED: list[tuple[str, frozenset[str] | None, tuple[int, int]]] = [
    ("pinned to three of 123 nodes, every draw among them counts", frozenset(PINNED), (1, 3)),
    (
        "pinned to names no node has but the three, the same",
        frozenset({*PINNED, "gone"}),
        (1, 3),
    ),
    ("narrowed to no name at all, the share of 123 nodes stands", None, (3, 3)),
]


@pytest.mark.parametrize(
    ("names", "expected"), [c[1:] for c in NARROWED], ids=[c[0] for c in NARROWED]
)
def test_only_the_nodes_the_prefilter_keeps_count_toward_the_share(
    names: frozenset[str] | None, expected: tuple[int, int]
) -> None:
    nodes = ELSEWHERE + MIDDLE
    rules = replace(_zone_and_rack(MIDDLE), names=names)
    found = place_range(7, nodes, rules, 0b111 << len(ELSEWHERE))
    assert (found.least, found.most) == expected


def test_a_deployment_pinned_by_name_on_a_large_cluster_reports_every_draw() -> None:
    others = [
        api_node(n.name, cpu="2", labels={HOSTNAME: n.name, ZONE: "c", RACK: "z"})
        for n in ELSEWHERE
    ]
    pinned = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    # One name a term (the API server allows one value for a field
                    # selector), the terms ORed: the PreFilter keeps their union.
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [n]}]}
                        for n in PINNED
                    ]
                }
            }
        }
    }
    case = Case(
        others
        + [
            api_node(name, cpu="2", labels={HOSTNAME: name, ZONE: zone, RACK: rack})
            for name, zone, rack in (("n0", "b", "y"), ("n1", "a", "y"), ("n2", "a", "x"))
        ],
        [_deployment("web", 4, "500m", pod={**_spread_over(ZONE, RACK), **pinned})],
    )
    [result] = _run(case)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.placement.most) == (
        Verdict.PARTIAL,
        1,
        3,
    )
