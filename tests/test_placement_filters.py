"""Placement restates four filters to count copies (gate.scheduler.placement.copies): each
restatement is held equal to the filter it restates, over the fuzz shapes the class tests
use (tests/test_nodeindex.py).

* NodeResourcesFit, NodePorts and a hostname anti-affinity against the pod's own copies: a
  node that passes them for the first copy (placement asks no other) holds ``capacity``
  copies exactly when each of them, placed after the ones before it, passes the filters
  and the next one does not;
* PodTopologySpread: a copy may join a domain exactly when the spread Filter passes a node
  of that domain with the counts so far;
* InterPodAffinity, the pod's anti-affinity against its own labels: a copy may join a
  domain exactly when the anti-affinity Filter passes a node of it, the copies placed so
  far counted.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.k8s.podaffinity import AffinityTerm
from gate.k8s.selectors import LabelSelector, parse_selector
from gate.k8s.spread import SpreadConstraint
from gate.k8s.version import Dialect
from gate.model import NodeView
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.placement.classes import ScoredRun
from gate.scheduler.placement.copies import CopyRules, ScoreRules, SpreadRule, capacity, place
from gate.scheduler.plugins.interpodaffinity.filtering import AffinityState
from gate.scheduler.plugins.nodeports import node_ports
from gate.scheduler.plugins.noderesources import fit_request, node_resources_fit
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState
from tests.builders import node
from tests.test_nodeindex import nodes, specs

DIALECT = Dialect(named_taint=False)
EVERY_POD = LabelSelector(())
ZONES = ("a", "b", "c")
APP = {"app": "web"}


def _with_copies(view: NodeView, pod: PodProfile, copies: int) -> NodeView:
    """``view`` once ``copies`` copies of ``pod`` run on it."""
    requested = dict(view.requested)
    for resource, amount in pod.requests.items():
        requested[resource] = requested.get(resource, 0) + amount * copies
    return NodeView(
        name=view.name,
        labels=view.labels,
        taints=view.taints,
        unschedulable=view.unschedulable,
        allocatable=view.allocatable,
        requested=requested,
        pod_count=view.pod_count + copies,
        used_ports=view.used_ports | frozenset(pod.wanted_ports) if copies else view.used_ports,
    )


def _one_per_node(view: NodeView, copies: int) -> AffinityState:
    """InterPodAffinity's state for a pod whose anti-affinity over the hostname key matches
    its own copies, ``copies`` of which run on ``view``."""
    term = AffinityTerm(frozenset({"default"}), LabelSelector(None), EVERY_POD, HOSTNAME)
    return AffinityState(
        affinity_terms=(),
        anti_affinity_terms=(term,),
        affinity_counts={},
        anti_counts={(HOSTNAME, view.name): copies} if copies else {},
        existing_anti={},
        self_match=False,
    )


def _passes(view: NodeView, pod: PodProfile, copies: int, one_per_node: bool) -> bool:
    """The filters placement restates pass the next copy with ``copies`` already there."""
    placed = _with_copies(view, pod, copies)
    labels = {**placed.labels, HOSTNAME: placed.name}
    return (
        node_resources_fit(fit_request(pod), placed, DIALECT) is None
        and node_ports(pod, placed, DIALECT) is None
        and (not one_per_node or _one_per_node(placed, copies).filter(labels) is None)
    )


@settings(max_examples=150, deadline=None)
@given(nodes(), specs(), st.booleans())
def test_capacity_is_the_copies_the_filters_pass_one_after_another(
    found: list[NodeView], spec: dict[str, Any], one_per_node: bool
) -> None:
    pod = pod_profile(spec)
    rules = CopyRules(
        requests=pod.requests,
        host_ports=pod.wanted_ports,
        one_per_domain=(HOSTNAME,) if one_per_node else (),
    )
    candidates = [v for v in found if _passes(v, pod, 0, one_per_node)]  # capacity's askers
    for view in candidates:
        held = capacity(view, rules)
        assert [_passes(view, pod, k, one_per_node) for k in range(held + 1)] == [
            *[True] * held,
            False,
        ]


@st.composite
def spread_cases(draw: st.DrawFn) -> tuple[SpreadState, dict[str, str]]:
    """Hard constraints over one zone key with domain counts, and one node's labels."""
    constraints = tuple(
        SpreadConstraint(
            max_skew=draw(st.integers(1, 3)),
            topology_key=key,
            selector=EVERY_POD,
            min_domains=draw(st.integers(1, 4)),
        )
        for key in draw(st.lists(st.sampled_from(["zone", "rack"]), min_size=1, unique=True))
    )
    counts = tuple(
        {z: draw(st.integers(0, 5)) for z in draw(st.lists(st.sampled_from(ZONES), unique=True))}
        for _ in constraints
    )
    self_match = tuple(draw(st.booleans()) for _ in constraints)
    labels = {
        c.topology_key: draw(st.sampled_from(ZONES)) for c in constraints if draw(st.booleans())
    }
    return SpreadState(constraints, counts, self_match), labels


@settings(max_examples=300, deadline=None)
@given(spread_cases())
def test_a_copy_joins_a_spread_domain_when_the_spread_filter_passes_it(
    case: tuple[SpreadState, dict[str, str]],
) -> None:
    state, labels = case
    rules = CopyRules(
        spread=tuple(
            SpreadRule(
                topology_key=c.topology_key,
                max_skew=c.max_skew,
                counts=state.counts[i],
                min_domains=c.min_domains,
                self_match=state.self_match[i],
            )
            for i, c in enumerate(state.constraints)
        )
    )
    run = ScoredRun([node("n", labels=labels)], rules, ScoreRules(), 1, None)
    assert run.allowed(0, run.minimums()) == (state.filter(labels) is None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ZONES), unique=True),
    st.one_of(st.none(), st.sampled_from(ZONES)),
)
def test_a_copy_joins_an_anti_affinity_domain_when_the_anti_affinity_filter_passes_it(
    taken: list[str], zone: str | None
) -> None:
    term = AffinityTerm(frozenset({"default"}), LabelSelector(None), EVERY_POD, "zone")
    state = AffinityState(
        affinity_terms=(),
        anti_affinity_terms=(term,),
        affinity_counts={},
        anti_counts={("zone", z): 1 for z in taken},
        existing_anti={},
        self_match=False,
    )
    labels = {} if zone is None else {"zone": zone}
    run = ScoredRun(
        [node("n", labels=labels)], CopyRules(one_per_domain=("zone",)), ScoreRules(), 1, None
    )
    run.taken[0] = set[str | None](taken)
    assert run.allowed(0, run.minimums()) == (state.filter(labels) is None)


EMPTY_SELECTOR: list[tuple[str, dict[str, Any], int]] = [
    # podtopologyspread/common.go countPodsMatchSelector counts nothing under an empty
    # selector, so the copies bound before the next one raise no domain and the skew stays
    # selfMatch (1): the constraint never refuses; all 10 copies fit (100 + 1 room).
    ("an empty selector lets every copy in, its copies counted nowhere", {}, 10),
    # n1 (zone b) holds one copy; zone a then runs 1 ahead and refuses the next.
    ("a selector its copies match holds them within the skew", {"matchLabels": APP}, 3),
]


@pytest.mark.parametrize(
    ("selector", "fit"), [c[1:] for c in EMPTY_SELECTOR], ids=[c[0] for c in EMPTY_SELECTOR]
)
def test_the_copies_raise_a_spread_domain_when_a_selector_counts_them(
    selector: dict[str, Any], fit: int
) -> None:
    nodes = [node("n0", cpu=10000, labels={"zone": "a"}), node("n1", cpu=100, labels={"zone": "b"})]
    rule = SpreadRule("zone", 1, {"a": 0, "b": 0}, selector=parse_selector(selector))
    assert place(10, nodes, CopyRules({"cpu": 100}, spread=(rule,))).fit == fit
