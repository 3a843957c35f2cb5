"""Copies placed over classes and groups of alike nodes are placed exactly as every node
filtered and scored on its own (framework.go RunScorePlugins over each feasible node,
schedule_one.go selectHost), on random small clusters: whatever the spread, anti-affinity
and score rules, under every tie policy, and for the picks that leave scores aside."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.model import NodeView
from gate.scheduler.placement.classes import GroupedRun, ScoredRun, scored_run
from gate.scheduler.placement.copies import (
    POLICIES,
    CopyRules,
    ScoreRules,
    SpreadRule,
    _placed,
)
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring
from gate.scheduler.plugins.podtopologyspread.scoring import SoftConstraint, SpreadScoring
from tests.builders import node

ZONE = "topology.kubernetes.io/zone"
RACK = "topology.example.com/rack"


class EveryNode(ScoredRun):
    """Every node a class of its own: each feasible node filtered and scored apart."""

    def _key(self, p: int) -> tuple[object, ...]:
        return (p, self.copies.get(p, 0))


@dataclass(frozen=True, slots=True)
class Case:
    nodes: list[NodeView]
    rules: CopyRules
    scores: ScoreRules
    wanted: int


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """A few nodes of varied room over zones and racks (hostnames their own, one node
    perhaps without a rack), with spread constraints, anti-affinity and scores drawn."""
    count = draw(st.integers(min_value=1, max_value=9))
    nodes = []
    for i in range(count):
        labels = {HOSTNAME: f"n{i}", ZONE: draw(st.sampled_from("abc"))}
        if draw(st.integers(min_value=0, max_value=5)):
            labels[RACK] = draw(st.sampled_from("xy"))
        nodes.append(
            node(
                f"n{i}",
                cpu=draw(st.sampled_from((1000, 2000, 4000))),
                pods=draw(st.integers(min_value=1, max_value=4)),
                labels=labels,
                requested={"cpu": draw(st.sampled_from((0, 250, 500)))},
            )
        )
    keys = draw(st.lists(st.sampled_from((ZONE, RACK, HOSTNAME)), unique=True, max_size=3))
    spread = tuple(
        SpreadRule(
            key,
            draw(st.integers(min_value=1, max_value=2)),
            {
                value: draw(st.integers(min_value=0, max_value=2))
                for value in sorted({n.labels[key] for n in nodes if key in n.labels})
            },
            min_domains=draw(st.sampled_from((1, 1, 4))),
            self_match=draw(st.booleans()),
        )
        for key in keys
    )
    anti = tuple(draw(st.lists(st.sampled_from((ZONE, RACK, HOSTNAME)), unique=True, max_size=1)))
    rules = CopyRules({"cpu": draw(st.sampled_from((250, 500))), "memory": 2**28}, (), anti, spread)
    base = ScoreRules.of(rules.requests)
    taints = draw(st.booleans())
    preferred = draw(st.booleans())
    soft = None
    if draw(st.booleans()):
        key = draw(st.sampled_from((ZONE, HOSTNAME)))
        existing = {p: draw(st.integers(min_value=0, max_value=2)) for p in range(count)}
        soft = SpreadScoring(
            (SoftConstraint(key, draw(st.integers(1, 2)), existing, draw(st.booleans())),),
            require_all=draw(st.booleans()),
            counted=(1 << count) - 1,
        )
    interpod = None
    if draw(st.booleans()):
        interpod = AffinityScoring(
            keys=(draw(st.sampled_from((ZONE, RACK))),),
            existing=({"a": draw(st.integers(-3, 3)), "x": draw(st.integers(-3, 3))},),
            per_copy=(draw(st.sampled_from((-2, 0, 2))),),
        )
    scores = ScoreRules(
        nonzero=base.nonzero,
        balanced=base.balanced,
        taints=(lambda n: len(n.name) + int(n.name[-1]) % 2) if taints else base.taints,
        affinity=(lambda n: 3 if n.labels[ZONE] == "a" else 0) if preferred else base.affinity,
        spread=soft,
        interpod=interpod,
    )
    return Case(nodes, rules, scores, draw(st.integers(min_value=1, max_value=12)))


@settings(max_examples=300, deadline=None)
@given(case=cases())
def test_classes_and_groups_place_as_every_node_scored(case: Case) -> None:
    every = (1 << len(case.nodes)) - 1
    start = scored_run(case.nodes, case.rules, case.scores, every, None)
    alone = EveryNode(case.nodes, case.rules, case.scores, every, None)
    for policy in POLICIES:
        found = _placed(start.fresh(), case.wanted, policy)
        expected = _placed(alone.fresh(), case.wanted, policy)
        assert found.copies == expected.copies, policy
    if not (isinstance(start, GroupedRun) and start.grouped):
        # Where groups offer only their best-scored class, the unscored picks choose among
        # those by design (placement.ANY_NODE); everywhere else among every feasible node.
        for policy in ("first", "last"):
            found = _placed(start.fresh(), case.wanted, policy, scored=False)
            expected = _placed(alone.fresh(), case.wanted, policy, scored=False)
            assert found.copies == expected.copies, policy


@settings(max_examples=100, deadline=None)
@given(case=cases())
def test_hostname_spread_with_hostnames_of_their_own_is_placed_by_group(case: Case) -> None:
    """Hostname spread counts alone do not keep the copies from being grouped."""
    every = (1 << len(case.nodes)) - 1
    soft = case.scores.spread
    interpod = case.scores.interpod
    hostname_scored = (soft is not None and soft.constraints[0].topology_key == HOSTNAME) or (
        interpod is not None and HOSTNAME in interpod.keys
    )
    run = scored_run(case.nodes, case.rules, case.scores, every, None)
    assert isinstance(run, GroupedRun) == (not hostname_scored)
