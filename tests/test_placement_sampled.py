"""Copies on clusters of more than 100 nodes, where the scheduler scores only a share of
the feasible nodes (schedule_one.go numFeasibleNodesToFind, findNodesThatPassFilters from
the rotating nextStartNodeIndex): copies coupled by zones are scored per group of nodes
sharing their domains, exactly as every node scored; a count no order changes is one
number; where the share could change it, the fit range opens."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from gate.k8s.labels import HOSTNAME
from gate.model import NodeView
from gate.scheduler.placement.classes import GroupedRun, ScoredRun
from gate.scheduler.placement.copies import (
    ANY_NODE,
    POLICIES,
    CopyRules,
    ScoreRules,
    SpreadRule,
    _placed,
    order_free,
    place_range,
)
from gate.scheduler.placement.grouped import by_domain
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring
from gate.scheduler.plugins.podtopologyspread.scoring import SoftConstraint, SpreadScoring
from tests.builders import node
from tests.test_cli import json_report

ZONE = "topology.kubernetes.io/zone"
RACK = "topology.example.com/rack"


def _nodes(
    count: int, seed: int, zones: Sequence[str] = "abc", racks: str = "xy"
) -> list[NodeView]:
    """Nodes of varied room and load over zones and racks, drawn from ``seed``."""
    draw = random.Random(seed)
    found = []
    for i in range(count):
        name = f"n{i:03d}"
        labels = {HOSTNAME: name, ZONE: draw.choice(zones), RACK: draw.choice(racks)}
        found.append(
            node(
                name,
                cpu=draw.choice((2000, 4000, 8000)),
                pods=draw.choice((2, 3, 5)),
                labels=labels,
                requested={"cpu": draw.choice((0, 500, 1000)), "memory": draw.choice((0, 2**30))},
            )
        )
    return found


# --- grouped scoring is every node scored ----------------------------------------------

SOFT_ZONE = SpreadScoring(
    constraints=(SoftConstraint(ZONE, 1, {0: 2, 3: 1}, self_match=True),),
    require_all=True,
    counted=(1 << 40) - 1,
)
INTERPOD_ZONE = AffinityScoring(keys=(ZONE,), existing=({"a": 5, "b": -3},), per_copy=(2,))


def _grouped_case(
    spread: tuple[str, ...], anti: tuple[str, ...], scores: dict[str, Any]
) -> tuple[CopyRules, ScoreRules]:
    counts = {"a": 1, "b": 0, "c": 0}
    rules = CopyRules(
        {"cpu": 300, "memory": 2**28},
        one_per_domain=anti,
        spread=tuple(
            SpreadRule(key, 1, counts if key == ZONE else {"x": 0, "y": 0}) for key in spread
        ),
    )
    base = ScoreRules.of(rules.requests)
    return rules, ScoreRules(nonzero=base.nonzero, balanced=base.balanced, **scores)


GROUPED = [
    # framework.go RunScorePlugins: every feasible node scored, normalised, weighted;
    # schedule_one.go selectHost: a node of the highest total. The grouped run must pick
    # the very nodes the run scoring every class picks, under every tie policy.
    pytest.param((ZONE,), (), {}, id="zone spread, resource scores only"),
    pytest.param((ZONE, RACK), (), {}, id="zone and rack spread"),
    pytest.param((), (ZONE,), {}, id="zone anti-affinity"),
    pytest.param((ZONE,), (), {"spread": SOFT_ZONE}, id="zone spread, soft zone spread"),
    pytest.param((ZONE,), (), {"interpod": INTERPOD_ZONE}, id="zone spread, preferred zone terms"),
    pytest.param(
        (ZONE,),
        (),
        {"taints": lambda n: int(n.name[-1]) % 2},
        id="taint scores differ: grouped by them too",
    ),
    pytest.param(
        (ZONE,),
        (),
        {"affinity": lambda n: 5 if n.labels[RACK] == "x" else 0},
        id="affinity scores differ: grouped by them too",
    ),
]


@pytest.mark.parametrize(("spread", "anti", "scores"), GROUPED)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grouped_scoring_places_as_every_node_scored(
    spread: tuple[str, ...], anti: tuple[str, ...], scores: dict[str, Any], seed: int
) -> None:
    nodes = _nodes(40, seed)
    rules, score_rules = _grouped_case(spread, anti, scores)
    every = (1 << len(nodes)) - 1
    assert GroupedRun.groupable(rules, score_rules)
    for policy in POLICIES:
        grouped = _placed(GroupedRun(nodes, rules, score_rules, every, None), 60, policy)
        scored = _placed(ScoredRun(nodes, rules, score_rules, every, None), 60, policy)
        assert grouped.copies == scored.copies, policy


# --- a count no order changes ----------------------------------------------------------

ORDER_FREE = [
    # podtopologyspread/filtering.go: skew = count + selfMatch - minMatchNum <= maxSkew.
    # One constraint: placing stops when every domain with room is at min + maxSkew, and the
    # least count is then the least of existing + room over the domains: any order.
    pytest.param(CopyRules({"cpu": 500}, spread=(SpreadRule(ZONE, 1, {}),)), id="zone spread"),
    pytest.param(CopyRules({"cpu": 500}, spread=(SpreadRule(HOSTNAME, 2, {}),)), id="hostname"),
    pytest.param(
        CopyRules({"cpu": 500}, spread=(SpreadRule(ZONE, 1, {}, min_domains=5),)),
        id="fewer domains than minDomains",
    ),
    # interpodaffinity/filtering.go: one anti-affinity key, one copy per domain with room.
    pytest.param(CopyRules({"cpu": 500}, one_per_domain=(ZONE,)), id="zone anti-affinity"),
    pytest.param(
        CopyRules({"cpu": 500}, one_per_domain=(HOSTNAME,), spread=(SpreadRule(ZONE, 1, {}),)),
        id="zone spread and hostname anti-affinity",
    ),
]


def _counted(rules: CopyRules, nodes: list[NodeView]) -> CopyRules:
    """The rules with every domain of the nodes counted, one existing pod in zone a."""
    spread = tuple(
        SpreadRule(
            r.topology_key,
            r.max_skew,
            {n.labels[r.topology_key]: 0 for n in nodes}
            | ({"a": 1} if r.topology_key == ZONE else {}),
            r.min_domains,
        )
        for r in rules.spread
    )
    return CopyRules(rules.requests, one_per_domain=rules.one_per_domain, spread=spread)


@pytest.mark.parametrize("rules", ORDER_FREE)
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_one_constraint_counts_the_same_in_any_order(rules: CopyRules, seed: int) -> None:
    nodes = _nodes(24, seed)
    rules = _counted(rules, nodes)
    assert order_free(rules)
    every = (1 << len(nodes)) - 1
    start = ScoredRun(nodes, rules, ScoreRules.of(rules.requests), every, None)
    fits = {_placed(start.fresh(), 200, policy, scored=False).fit for policy in ANY_NODE} | {
        _placed(start.fresh(), 200, policy).fit for policy in POLICIES
    }
    assert len(fits) == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_zone_spread_over_many_zones_is_placed_by_domain_as_every_node_scored(
    seed: int,
) -> None:
    """Each copy asks every group of nodes sharing a zone once, with minMatchNum asked once
    a copy (asked once a group, 500 zones and 5,000 copies took 73 s): the count is still
    the one every node scored gives."""
    nodes = _nodes(150, seed, zones=[f"z{n:02d}" for n in range(60)])
    rules = _counted(CopyRules({"cpu": 500}, spread=(SpreadRule(ZONE, 1, {}),)), nodes)
    every = (1 << len(nodes)) - 1
    start = ScoredRun(nodes, rules, ScoreRules.of(rules.requests), every, None)
    placed = by_domain(400, nodes, rules, every, None)
    assert placed.fit == _placed(start.fresh(), 400, "first").fit
    assert 60 < placed.fit < 400


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(
            CopyRules(spread=(SpreadRule(ZONE, 1, {}), SpreadRule(RACK, 1, {}))), id="two spreads"
        ),
        pytest.param(CopyRules(one_per_domain=(ZONE, RACK)), id="two anti-affinity keys"),
        pytest.param(
            CopyRules(one_per_domain=(RACK,), spread=(SpreadRule(ZONE, 1, {}),)),
            id="spread and anti-affinity",
        ),
    ],
)
def test_two_couplings_are_not_order_free(rules: CopyRules) -> None:
    assert not order_free(rules)


# --- the range a sampled share opens ---------------------------------------------------


def _racked(count: int) -> list[NodeView]:
    """Half the nodes in zone a rack x (4 cpu), a quarter in b x and a quarter in a y (8
    cpu), one pod slot each: no node is in zone b and rack y."""
    combos = [("a", "x")] * (count // 2) + [("b", "x")] * (count // 4)
    combos += [("a", "y")] * (count - len(combos))
    return [
        node(
            f"n{i:03d}",
            cpu=4000 if combo == ("a", "x") else 8000,
            pods=1,
            labels={HOSTNAME: f"n{i:03d}", ZONE: combo[0], RACK: combo[1]},
        )
        for i, combo in enumerate(combos)
    ]


RACKED = CopyRules(
    {"cpu": 100},
    spread=(SpreadRule(ZONE, 1, {"a": 0, "b": 0}), SpreadRule(RACK, 1, {"x": 0, "y": 0})),
)

SAMPLED = [
    # Scored, the first copy takes an 8-cpu node (LeastAllocated), b x or a y, and the
    # other follows; a copy that took an a x node first would leave the next one needing
    # zone b and rack y, which no node is: 1 copy. On 100 nodes every feasible node is
    # scored (numFeasibleNodesToFind = all under 100, 100 at 100): one number.
    pytest.param(_racked(100), RACKED, (51, 51), id="100 nodes: every node scored"),
    # 101 nodes: the scheduler looks for 100 feasible ones from a rotating start, and a
    # share of only a x nodes is possible: from 1 to 51.
    pytest.param(_racked(101), RACKED, (1, 51), id="101 nodes: the share opens a range"),
    pytest.param(_racked(120), RACKED, (1, 61), id="120 nodes: the share opens a range"),
    # One constraint: any order counts the same, no range: zone b's 30 nodes fill, zone a
    # takes one more (maxSkew 1).
    pytest.param(
        _racked(120),
        CopyRules({"cpu": 100}, spread=(SpreadRule(ZONE, 1, {"a": 0, "b": 0}),)),
        (61, 61),
        id="zone spread alone: exact",
    ),
    # Nothing couples the copies: they fill the nodes, exact.
    pytest.param(_racked(120), CopyRules({"cpu": 100}), (120, 120), id="uncoupled: exact"),
]


@pytest.mark.parametrize(("nodes", "rules", "expected"), SAMPLED)
def test_a_sampled_share_widens_the_fit_range(
    nodes: list[NodeView], rules: CopyRules, expected: tuple[int, int]
) -> None:
    found = place_range(200, nodes, rules)
    assert (found.least, found.most, found.placement.fit) == (*expected, expected[0])


def test_the_sampled_fit_range_fixture_reports_the_range_and_takes_the_least() -> None:
    code, report = json_report(
        "fixtures/replicas/14-sampled-range.yaml",
        "--snapshot",
        "fixtures/snapshots/racks-large.json",
    )
    [workload] = report["workloads"]
    assert (code, workload["verdict"], workload["replicas"]["fit"]) == (1, "PARTIAL", 1)
    assert workload["replicas"]["fitRange"] == {"least": 1, "most": 61}
