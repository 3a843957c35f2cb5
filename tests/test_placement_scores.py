"""Copies placed as the scheduler places them: the score rules, one table each, with
upstream's numbers where its test has them, and the issue's examples end to end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from gate.k8s.labels import HOSTNAME
from gate.k8s.matching import preferred_node_terms
from gate.model import NodeView, ReplicaFit, Taint, Verdict
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.scores import default_normalize
from gate.scheduler.placement.copies import (
    CopyRules,
    ScoreRules,
    SpreadRule,
    feasible_nodes_to_find,
    place,
    place_range,
)
from gate.scheduler.plugins.balancedallocation import balanced_allocation
from gate.scheduler.plugins.interpodaffinity.scoring import affinity_scoring
from gate.scheduler.plugins.interpodaffinity.scoring import normalize as interpod_normalize
from gate.scheduler.plugins.nodeaffinity import preferred_weight
from gate.scheduler.plugins.noderesources import SCORE as RESOURCES_SCORE
from gate.scheduler.plugins.noderesources import Nonzero, least_allocated
from gate.scheduler.plugins.podtopologyspread import scoring as spread_scoring
from gate.scheduler.plugins.podtopologyspread.scoring import (
    SoftConstraint,
    SpreadScoring,
    go_round,
    normalize,
)
from gate.scheduler.plugins.tainttoleration import intolerable_preferences
from tests.builders import container, existing_pod, node
from tests.engine_support import NO_VICTIMS, NOT_HELPFUL, preempting
from tests.test_cli import json_report
from tests.test_replicas import ZONE, Case, _deployment, _node, _run, _running

# --- the score rules --------------------------------------------------------------------

LEAST_ALLOCATED: list[tuple[str, tuple[int, int], tuple[int, int], int]] = [
    # least_allocated_test.go "nothing scheduled, resources requested, differently sized
    # nodes": pod 3000m / 5000; node1 4000m / 10000: (25 + 50) // 2 = 37
    ("upstream: differently sized nodes, node1", (3000, 5000), (4000, 10000), 37),
    # node2 6000m / 10000: (50 + 50) // 2 = 50
    ("upstream: differently sized nodes, node2", (3000, 5000), (6000, 10000), 50),
    # "requested resources exceed node capacity": cpu over capacity scores 0: (0 + 50) // 2
    ("a resource over capacity scores 0", (5000, 5000), (4000, 10000), 25),
    ("a resource the node lacks is left out", (1000, 5000), (4000, 0), 75),
    ("no resource at all scores 0", (0, 0), (0, 0), 0),
]


@pytest.mark.parametrize(
    ("requested", "allocatable", "expected"),
    [c[1:] for c in LEAST_ALLOCATED],
    ids=[c[0] for c in LEAST_ALLOCATED],
)
def test_least_allocated(
    requested: tuple[int, int], allocatable: tuple[int, int], expected: int
) -> None:
    assert least_allocated(requested, allocatable) == expected


BALANCED: list[tuple[str, tuple[int, int], tuple[int, int], int]] = [
    # balanced_allocation_test.go "nothing scheduled, resources requested, differently sized
    # nodes": fractions .75 and .5, std .125: int(87.5) = 87; node2 .5 and .5: 100
    ("upstream: differently sized nodes, node1", (3000, 5000), (4000, 10000), 87),
    ("upstream: differently sized nodes, node2", (3000, 5000), (6000, 10000), 100),
    # "resources requested, pods scheduled with resources": a fraction over 1 is capped:
    # 1 and .5: std .25, 75
    ("a fraction over capacity counts as 1", (6000, 5000), (4000, 10000), 75),
    ("one resource alone has no deviation", (3000, 5000), (4000, 0), 100),
]


@pytest.mark.parametrize(
    ("requested", "allocatable", "expected"),
    [c[1:] for c in BALANCED],
    ids=[c[0] for c in BALANCED],
)
def test_balanced_allocation(
    requested: tuple[int, int], allocatable: tuple[int, int], expected: int
) -> None:
    assert balanced_allocation(requested, allocatable) == expected


NORMALIZE: list[tuple[str, list[int], bool, list[int]]] = [
    ("scaled to the highest, rounded down", [0, 1, 3], False, [0, 33, 100]),
    ("reversed: fewest is best", [0, 1, 3], True, [100, 67, 0]),
    ("all zero stays zero", [0, 0], False, [0, 0]),
    ("all zero reversed is 100", [0, 0], True, [100, 100]),
    # helper/normalize_score_test.go TestDefaultNormalizeScore, its rows in order
    ("upstream: one to four scale by quarters", [1, 2, 3, 4], False, [25, 50, 75, 100]),
    ("upstream: one to four reversed", [1, 2, 3, 4], True, [75, 50, 25, 0]),
    ("upstream: a far highest rounds the rest down", [1000, 10, 20, 30], False, [100, 1, 2, 3]),
    ("upstream: a far highest reversed", [1000, 10, 20, 30], True, [0, 99, 98, 97]),
    ("upstream: all equal and above 0 are all 100", [1, 1, 1, 1], False, [100, 100, 100, 100]),
    ("upstream: small scores under a far highest are 0", [1000, 1, 1, 1], False, [100, 0, 0, 0]),
    ("upstream: a lone 0 reversed is the only 100", [0, 1, 1, 1], True, [100, 0, 0, 0]),
]


@pytest.mark.parametrize(
    ("scores", "reverse", "expected"),
    [c[1:] for c in NORMALIZE],
    ids=[c[0] for c in NORMALIZE],
)
def test_default_normalize(scores: list[int], reverse: bool, expected: list[int]) -> None:
    assert default_normalize(scores, reverse) == expected


SPREAD_NORMALIZE: list[tuple[str, list[int | None], list[int]]] = [
    # scoring.go NormalizeScore: 100 * (max + min - s) // max
    ("fewest matching pods best", [0, 1, 2], [100, 50, 0]),
    ("an ignored node scores 0", [3, None, 5], [100, 0, 60]),
    ("max 0 gives 100 everywhere", [0, 0], [100, 100]),
]


@pytest.mark.parametrize(
    ("raw", "expected"), [c[1:] for c in SPREAD_NORMALIZE], ids=[c[0] for c in SPREAD_NORMALIZE]
)
def test_spread_normalize(raw: list[int | None], expected: list[int]) -> None:
    assert normalize(raw) == expected


def test_go_round_is_half_away_from_zero() -> None:
    assert [go_round(x) for x in (0.5, 1.5, 2.5, 2.49)] == [1, 2, 3, 2]


PREFER = Taint("spot", "true", "PreferNoSchedule")
TAINTS: list[tuple[str, tuple[dict[str, Any], ...], tuple[Taint, ...], int]] = [
    ("an untolerated PreferNoSchedule taint counts", (), (PREFER,), 1),
    ("a NoSchedule taint is no preference", (), (Taint("a", "", "NoSchedule"),), 0),
    (
        "a toleration of every effect tolerates it",
        ({"key": "spot", "operator": "Exists"},),
        (PREFER,),
        0,
    ),
    (
        "a NoSchedule toleration does not",
        ({"key": "spot", "operator": "Exists", "effect": "NoSchedule"},),
        (PREFER,),
        1,
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "taints", "expected"), [c[1:] for c in TAINTS], ids=[c[0] for c in TAINTS]
)
def test_intolerable_preferences(
    tolerations: tuple[dict[str, Any], ...], taints: tuple[Taint, ...], expected: int
) -> None:
    pod = PodProfile(tolerations=tolerations)
    assert intolerable_preferences(pod, node(taints=taints)) == expected


def test_a_container_without_requests_scores_as_100m_and_200mi() -> None:
    spec = {"containers": [container(), container(requests={"cpu": "1", "memory": "1Gi"})]}
    assert pod_profile(spec).nonzero == (1100, 2**30 + 200 * 2**20)


@pytest.mark.parametrize(
    ("nodes", "expected"), [(50, 50), (100, 100), (1000, 420), (5000, 500), (6000, 300)]
)
def test_feasible_nodes_to_find(nodes: int, expected: int) -> None:
    # schedule_one.go numFeasibleNodesToFind: 1000 nodes -> 50 - 8 = 42%; 5000 -> 50 - 40 =
    # 10%; 6000 -> 50 - 48 = 2%, raised to 5%: 300 (at least 100)
    assert feasible_nodes_to_find(nodes) == expected


# --- placement ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Placed:
    """Copies placed so far, as the score plugins read them."""

    nodes: Sequence[NodeView]
    copies: Mapping[int, int]
    base: Mapping[int, tuple[int, int]]
    nonzero: Mapping[int, tuple[int, int]]


LANDED: list[tuple[str, int, Nonzero, int]] = [
    # (4000 - 1000) * 100 // 4000 = 75; (4000 - 1000) * 100 // 4000 = 75
    ("a node holding no copy adds the pod's amounts", 0, Nonzero((1000, 1000), (500, 500)), 75),
    # Two copies bound count 500 each, the next adds 1000: 2000 of 4000 each, 50.
    ("copies held count as bound", 2, Nonzero((1000, 1000), (500, 500)), 50),
    ("amounts alike count alike", 2, Nonzero.alike((1000, 1000)), 25),
]


@pytest.mark.parametrize(
    ("held", "amounts", "expected"), [c[1:] for c in LANDED], ids=[c[0] for c in LANDED]
)
def test_least_allocated_counts_the_copies_a_node_holds_as_bound(
    held: int, amounts: Nonzero, expected: int
) -> None:
    # A copy bound earlier is in its node's NonZeroRequested by PodInfo.CalculateResource;
    # the next adds calculatePodResourceRequest's amounts (resource_allocation.go).
    nodes = [node("n0", cpu=4000, memory=4000)]
    run = _Placed(nodes, {0: held} if held else {}, {0: (0, 0)}, {0: (0, 0)})
    assert RESOURCES_SCORE.own is not None
    assert RESOURCES_SCORE.own(run, amounts, 0) == expected


def test_copies_go_to_the_least_allocated_node_first() -> None:
    # n0 already runs 2 cpu of 4: LeastAllocated gives it (50 + 100) // 2 = 75 for the
    # first copy against n1's (75 + 100) // 2 = 87, so n1 takes the first two copies.
    nodes = [node("n0", requested={"cpu": 2000}), node("n1")]
    assert place(2, nodes, CopyRules({"cpu": 1000})).copies == {1: 2}


def test_a_prefer_no_schedule_taint_steers_copies_away() -> None:
    # TaintToleration: raw 1 and 0, reversed: 0 and 100, weight 3.
    nodes = [node("n0", taints=(PREFER,)), node("n1")]
    scores = replace(
        ScoreRules.of({"cpu": 100}), taints=lambda n: intolerable_preferences(PodProfile(), n)
    )
    assert place(1, nodes, CopyRules({"cpu": 100}), scores=scores).copies == {1: 1}


RACK = "rack"


def _racked(name: str, zone: str, rack: str, pods: int) -> Any:
    return node(name, pods=pods, labels={HOSTNAME: name, ZONE: zone, RACK: rack})


def test_a_random_tie_between_nodes_with_different_futures_gives_a_range() -> None:
    # Spread over zone and rack, maxSkew 1. Every node scores alike for the first copy.
    # Lowest position first: n0 (a, x) -> zones a1 b0, racks x1 y0; the second copy needs
    # zone b and rack y: no node is both, so 1 fits. Highest first: n3 (a, y), then n1
    # (b, x), and the copies go on: 3 fit (n0's one slot, then the counts block).
    nodes = [
        _racked("n0", "a", "x", 1),
        _racked("n1", "b", "x", 3),
        _racked("n2", "a", "x", 3),
        _racked("n3", "a", "y", 3),
    ]
    rules = CopyRules(
        {"cpu": 100},
        spread=(
            SpreadRule(ZONE, 1, {"a": 0, "b": 0}),
            SpreadRule(RACK, 1, {"x": 0, "y": 0}),
        ),
    )
    found = place_range(9, nodes, rules)
    assert (found.least, found.most, found.placement.fit) == (1, 3, 1)


# --- the examples, end to end ---------------------------------------------------


def _zone_spread(app: str) -> dict[str, Any]:
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": ZONE,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": app}},
            }
        ]
    }


def test_a_zone_refused_for_the_first_copy_takes_later_ones() -> None:
    # n1 (zone a, 4 cpu) runs one matching pod of another owner (1 cpu): 3 cpu free;
    # n2 (zone b, 4 cpu) is empty. Counts a=1, b=0. Copy 1: n1's skew 1+1-0 = 2 > 1, so n2
    # (b=1). Then a and b even out one copy at a time: n1 takes 3 (a=4), n2 takes 4 (b=4),
    # and the 8th copy finds no room: 7 of 10.
    other = _running("ReplicaSet", "other", "n1", "1", name="other-1", labels={"app": "web"})
    case = Case(
        [_node("n1", cpu="4", zone="a"), _node("n2", cpu="4", zone="b")],
        [_deployment("web", 10, "1", pod=_zone_spread("web"))],
        [other],
    )
    [result] = _run(case)
    assert (result.verdict, result.placement) == (
        Verdict.PARTIAL,
        ReplicaFit(10, alone=7, together=7, first_fits=1),
    )
    assert result.message == "0/2 nodes are available: 2 Insufficient cpu." + preempting(
        2, (2, NO_VICTIMS)
    )


def _anti_affinity(app: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOSTNAME}
    return {
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    }


def test_the_limiting_cause_is_the_first_copy_that_does_not_fit() -> None:
    # 7 nodes, 3 tainted: copies 1-4 take the 4 untainted nodes, one each. The 5th is
    # refused by 3 taints and 4 anti-affinity: the anti-affinity rejects the most nodes.
    taint = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    nodes = [_node(f"n{i}", taints=taint if i < 3 else None) for i in range(7)]
    case = Case(nodes, [_deployment("ha", 7, "10m", pod=_anti_affinity("ha"))])
    [result] = _run(case)
    assert (result.verdict, result.placement) == (
        Verdict.PARTIAL,
        ReplicaFit(7, alone=4, together=4, first_fits=4),
    )
    assert result.message == (
        "0/7 nodes are available: 3 node(s) had untolerated taint {dedicated: gpu}, "
        "4 node(s) didn't match pod anti-affinity rules."
        + preempting(7, (3, NOT_HELPFUL), (4, NO_VICTIMS))
    )
    assert result.cause is not None and result.cause.plugin == "InterPodAffinity"


def test_beside_names_the_workloads_that_hold_the_room() -> None:
    # search takes 1500m on each node; quiet requests no cpu at all; indexer's 600m copies
    # find no room beside them: search holds it, quiet does not.
    quiet = _deployment("quiet", 3, "0")
    case = Case(
        [_node("n0"), _node("n1"), _node("n2")],
        [_deployment("search", 3, "1500m"), quiet, _deployment("indexer", 2, "600m")],
    )
    results = _run(case)
    assert results[2].placement == ReplicaFit(
        2, alone=2, together=0, beside=("app/search",), first_fits=3
    )


def _tiered(name: str, replicas: int, pod: dict[str, Any] | None = None) -> dict[str, Any]:
    body = _deployment(name, replicas, "500m", pod=pod or {})
    body["spec"]["template"]["metadata"]["labels"]["tier"] = "web"
    return body


def _tier_spread(key: str) -> dict[str, Any]:
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": key,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"tier": "web"}},
            }
        ]
    }


BESIDE_SPREAD = [
    # podtopologyspread/filtering.go calPreFilterState, common.go countPodsMatchSelector:
    # every pod of the namespace the selector matches counts in its node's domain, so the
    # run's earlier copies count as pods bound there. n1 (zone b) has no room; front's 2
    # copies take n0 and n2 (zone a): a=2, b=0. Alone, canary puts 1 copy in a and the
    # second meets skew 2; beside front, zone a is at skew 3 from the first copy: 0 fit,
    # and front, whose copies raised zone a, is named.
    pytest.param(
        ZONE, ReplicaFit(2, alone=1, together=0, beside=("app/front",), first_fits=2), id="zone"
    ),
    # Over hostnames: alone, canary takes n0 and n2 (n1 has no room, minimum 0): 2 fit.
    # Beside front, n0 and n2 each hold a front copy: 1 + 1 - 0 = 2 > 1, none fits.
    pytest.param(
        HOSTNAME,
        ReplicaFit(2, alone=2, together=0, beside=("app/front",), first_fits=2),
        id="hostname",
    ),
]


@pytest.mark.parametrize(("key", "expected"), BESIDE_SPREAD)
def test_beside_names_the_workloads_whose_copies_raised_the_spread_counts(
    key: str, expected: ReplicaFit
) -> None:
    nodes = [_node("n0", zone="a"), _node("n1", cpu="100m", zone="b"), _node("n2", zone="a")]
    case = Case(nodes, [_tiered("front", 2), _tiered("canary", 2, _tier_spread(key))])
    front, canary = _run(case)
    assert front.placement == ReplicaFit(2, alone=2, together=2)
    assert canary.placement == expected


def test_a_spread_selector_other_workloads_do_not_match_names_none_of_them() -> None:
    # The same as the zone row, but canary's selector is its own app: front's copies do
    # not count, and canary fits beside front as alone.
    nodes = [_node("n0", zone="a"), _node("n1", cpu="100m", zone="b"), _node("n2", zone="a")]
    case = Case(
        nodes, [_tiered("front", 2), _deployment("canary", 2, "500m", pod=_zone_spread("canary"))]
    )
    _, canary = _run(case)
    assert canary.placement == ReplicaFit(2, alone=1, together=1, first_fits=2)


def test_the_fit_range_fixture_reports_the_range_and_takes_the_least() -> None:
    code, report = json_report(
        "fixtures/replicas/13-fit-range.yaml", "--snapshot", "fixtures/snapshots/racks.json"
    )
    [workload] = report["workloads"]
    assert (code, workload["verdict"], workload["replicas"]["fit"]) == (1, "PARTIAL", 1)
    assert workload["replicas"]["fitRange"] == {"least": 1, "most": 3}


def test_the_system_default_spreading_evens_out_matching_pods_per_node() -> None:
    # Two alike nodes; n0 runs 3 matching pods that request nothing. Hostname constraint
    # maxSkew 3 (plugin.go systemDefaultConstraints), two feasible nodes: weight log(4).
    # Copy 1: raw n0 round(3 * 1.386 + 2) = 6, n1 2 -> normalised 100 * (6 + 2 - s) // 6:
    # n0 33, n1 100; x2 outweighs LeastAllocated's equal scores: n1. Copy 2: n1 raw 3 ->
    # n0 50, n1 100: n1. Copy 3: n1 raw 5 -> n0 83, n1 100 (x2: 34) against LeastAllocated
    # n0 97, n1 92: n1. Copy 4: n1 raw 6 = n0's: both 100, LeastAllocated n0 97, n1 90: n0.
    nodes = [node("n0", labels={HOSTNAME: "n0"}), node("n1", labels={HOSTNAME: "n1"})]
    spread = SpreadScoring(
        constraints=(SoftConstraint(HOSTNAME, 3, {0: 3}, self_match=True),),
        require_all=False,
        counted=0b11,
    )
    scores = replace(ScoreRules.of({"cpu": 100}), spread=spread)
    assert place(4, nodes, CopyRules({"cpu": 100}), scores=scores).copies == {0: 1, 1: 3}


def _preference(weight: int, key: str, operator: str, values: list[str]) -> dict[str, Any]:
    expression = {"key": key, "operator": operator, "values": values}
    return {"weight": weight, "preference": {"matchExpressions": [expression]}}


PREFERRED: list[tuple[str, dict[str, Any], dict[str, str], int]] = [
    (
        "the weights of the matching terms add up",
        {
            "affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        _preference(10, "pool", "In", ["fast"]),
                        _preference(5, "zone", "Exists", []),
                        _preference(7, "pool", "In", ["slow"]),
                    ]
                }
            }
        },
        {"pool": "fast", "zone": "a"},
        15,
    ),
    ("no preference scores 0", {}, {"pool": "fast"}, 0),
]


@pytest.mark.parametrize(
    ("spec", "labels", "expected"), [c[1:] for c in PREFERRED], ids=[c[0] for c in PREFERRED]
)
def test_preferred_node_affinity(
    spec: dict[str, Any], labels: dict[str, str], expected: int
) -> None:
    assert preferred_weight(preferred_node_terms(spec), node(labels=labels)) == expected


def test_a_zone_refused_for_the_first_copy_takes_later_ones_past_100_nodes() -> None:
    # The grouped path of clusters past 100 nodes asks every domain again per copy: zone a
    # (one matching pod already) refuses the first copy, then takes turns with zone b.
    nodes = [node(f"a{i}", labels={ZONE: "a"}) for i in range(60)]
    nodes += [node(f"b{i}", labels={ZONE: "b"}) for i in range(60)]
    rule = SpreadRule(ZONE, 1, {"a": 1, "b": 0})
    placement = place(10, nodes, CopyRules({"cpu": 100}, spread=(rule,)))
    in_a = sum(c for p, c in placement.copies.items() if p < 60)
    # Copy 1: a's skew 1 + 1 - 0 = 2 refuses it, b takes it (a 1, b 1); then the zones
    # alternate, ties to the earlier group: a 2, b 2, ..., the 10th to a (a 6, b 5).
    assert (placement.fit, in_a) == (10, 5)


def test_uncoupled_copies_past_100_nodes_count_as_their_room_allows() -> None:
    nodes = [node(f"n{i}", cpu=1000) for i in range(150)]
    placement = place(400, nodes, CopyRules({"cpu": 400}))
    assert placement.fit == 300  # two 400m copies on each 1000m node


def test_a_preferred_anti_affinity_against_itself_spreads_the_copies() -> None:
    # n0 is empty, n1 runs 1 cpu of 4. Copy 1: LeastAllocated n0 (100 + 97) // 2 = 98
    # against n1 (72 + 97) // 2 = 84: n0. Copy 2: n0 holds one copy, and the term (weight
    # 100) counts it twice (it matches the next copy, the next copy's term matches it):
    # raw n0 -200, n1 0 -> normalised 0 and 100, x2 = 200, more than LeastAllocated's lead.
    term = {
        "weight": 100,
        "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "w"}},
            "topologyKey": HOSTNAME,
        },
    }
    spec = {
        "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}
    }
    nodes = [
        node("n0", labels={HOSTNAME: "n0"}),
        node("n1", labels={HOSTNAME: "n1"}, requested={"cpu": 1000}),
    ]
    profile = pod_profile(spec, labels={"app": "w"})
    index = PodIndex((), nodes)
    interpod = affinity_scoring(profile, nodes, index, None)
    assert interpod is not None and interpod.per_copy == (-200,)
    plain = ScoreRules.of({"cpu": 100})
    rules = CopyRules({"cpu": 100})
    assert place(2, nodes, rules, scores=plain).copies == {0: 2}
    scored = replace(plain, interpod=interpod)
    assert place(2, nodes, rules, scores=scored).copies == {0: 1, 1: 1}


def _requires(app: str, key: str = ZONE, **more: Any) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key, **more}


REQUIRED_OF_EXISTING: list[Any] = [
    # interpodaffinity/scoring.go processExistingPod: for every required affinity term of an
    # existing pod that the incoming pod matches, hardPodAffinityWeight (1) is added to every
    # node sharing the existing pod's node's value of the term's key.
    pytest.param(
        [existing_pod("n0", affinity=(_requires("w"),))],
        "default",
        ((ZONE,), ({"a": 1},)),
        id="one carrier in zone a",
    ),
    pytest.param(
        [
            existing_pod("n0", affinity=(_requires("w"),), name="p0"),
            existing_pod("n1", affinity=(_requires("w"),), name="p1"),
            existing_pod("n2", affinity=(_requires("w"),), name="p2"),
        ],
        "default",
        ((ZONE,), ({"a": 2, "b": 1},)),
        id="carriers add up by domain",
    ),
    pytest.param(
        [existing_pod("n0", affinity=(_requires("other"),))],
        "default",
        None,
        id="a term the pod does not match adds nothing",
    ),
    pytest.param(
        [existing_pod("n0", affinity=(_requires("w"),), namespace="other")],
        "default",
        None,
        id="a term covers its own pod's namespace only",
    ),
    pytest.param(
        [existing_pod("n0", affinity=(_requires("w", namespaces=["default"]),), namespace="x")],
        "default",
        ((ZONE,), ({"a": 1},)),
        id="a term naming the pod's namespace",
    ),
    pytest.param(
        [existing_pod("n3", affinity=(_requires("w"),))],
        "default",
        None,
        id="a node without the key adds nothing",
    ),
]


@pytest.mark.parametrize(("pods", "namespace", "expected"), REQUIRED_OF_EXISTING)
def test_existing_pods_required_affinity_weighs_the_domains_of_their_nodes(
    pods: list[Any], namespace: str, expected: tuple[Any, Any] | None
) -> None:
    nodes = [
        node("n0", labels={ZONE: "a"}),
        node("n1", labels={ZONE: "a"}),
        node("n2", labels={ZONE: "b"}),
        node("n3"),
    ]
    profile = PodProfile(labels={"app": "w"}, namespace=namespace)
    found = affinity_scoring(profile, nodes, PodIndex(pods, nodes), None)
    assert (found and (found.keys, found.existing)) == expected
    if found is not None:
        assert found.per_copy == (0,)


def test_a_workloads_own_released_pods_terms_weigh_nothing() -> None:
    # Its running pods are the version the change replaces (PodIndex.without).
    nodes = [node("n0", labels={ZONE: "a"})]
    index = PodIndex([existing_pod("n0", affinity=(_requires("w"),))], nodes)
    profile = PodProfile(labels={"app": "w"})
    assert affinity_scoring(profile, nodes, index, None) is not None
    assert affinity_scoring(profile, nodes, index.without([0]), None) is None


def test_copies_go_where_an_existing_pod_requires_them() -> None:
    # Two alike empty nodes; a pod on n1 (zone b) requires app=w in its zone: raw n0 0,
    # n1 1 -> InterPodAffinity n0 0, n1 100 (x2), so the copy takes n1 though n0 comes
    # first; without the term the tie goes to n0.
    nodes = [node("n0", labels={ZONE: "a"}), node("n1", labels={ZONE: "b"})]
    pods = [existing_pod("n1", affinity=(_requires("w"),))]
    profile = PodProfile(labels={"app": "w"})
    interpod = affinity_scoring(profile, nodes, PodIndex(pods, nodes), None)
    plain = ScoreRules.of({"cpu": 100})
    rules = CopyRules({"cpu": 100})
    assert place(1, nodes, rules, scores=plain).copies == {0: 1}
    assert place(1, nodes, rules, scores=replace(plain, interpod=interpod)).copies == {1: 1}


def test_inter_pod_affinity_normalises_between_the_lowest_and_the_highest() -> None:
    # scoring.go NormalizeScore: int(100 * (s - min) / (max - min)); all equal: 0
    assert (interpod_normalize([-200, 0, -100]), interpod_normalize([5, 5])) == (
        [0, 100, 50],
        [0, 0],
    )


@dataclass(frozen=True, slots=True)
class _NothingPlaced:
    """A placement before its first copy, as the score plugins read it."""

    nodes: Sequence[NodeView]
    copies: Mapping[int, int] = field(default_factory=dict)
    base: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    nonzero: Mapping[int, tuple[int, int]] = field(default_factory=dict)


def _host(name: str, zone: str | None = None) -> NodeView:
    return node(name, labels={HOSTNAME: name} | ({} if zone is None else {"zone": zone}))


HOSTS = [_host(name) for name in ("node-a", "node-b", "node-x", "node-y")]
ZONED = [
    _host(name, f"zone{1 + i // 2}")
    for i, name in enumerate(("node-a", "node-b", "node-x", "node-y"))
]

# Per case: the nodes, the positions of the candidates (the rest failed a filter), the
# constraints (key, maxSkew, matching pods by node position) and the normalised scores.
SpreadCase = tuple[str, list[NodeView], list[int], list[tuple[str, int, dict[int, int]]], list[int]]
SPREAD_SCORES: list[SpreadCase] = [
    # podtopologyspread/scoring_test.go TestPodTopologySpreadScore, the cases named
    (
        "upstream: one constraint on node, all 4 nodes are candidates, maxSkew=3",
        [_host("node-a"), _host("node-b"), _host("node-c"), _host("node-d")],
        [0, 1, 2, 3],
        [(HOSTNAME, 3, {0: 4, 1: 3, 2: 2, 3: 1})],
        [44, 66, 77, 100],
    ),
    (
        "upstream: one constraint on node, 3 out of 4 nodes are candidates",
        HOSTS,
        [0, 1, 2],
        [(HOSTNAME, 1, {0: 4, 1: 2, 2: 1, 3: 3})],
        [33, 83, 100],
    ),
    (
        "upstream: a candidate without the topology key is ignored and scores 0",
        [HOSTS[0], node("node-b", labels={"n": "node-b"}), *HOSTS[2:]],
        [0, 1, 2],
        [(HOSTNAME, 1, {0: 4, 1: 2, 2: 1, 3: 3})],
        [16, 0, 100],
    ),
    (
        "upstream: one constraint on zone counts the failed nodes' pods in their zone",
        ZONED,
        [0, 1, 2],
        [("zone", 1, {0: 4, 1: 2, 2: 1, 3: 3})],
        [75, 75, 100],
    ),
    (
        "upstream: two constraints on zone and node, 2 out of 4 nodes are candidates",
        [ZONED[0], ZONED[2], ZONED[1], ZONED[3]],
        [0, 1],
        [("zone", 1, {0: 2, 1: 2, 2: 1, 3: 4}), (HOSTNAME, 1, {0: 2, 1: 2, 2: 1, 3: 4})],
        [100, 63],
    ),
    (
        "upstream: two constraints on zone and node, with different labelSelectors",
        ZONED,
        [0, 1, 2, 3],
        [("zone", 1, {0: 1, 1: 1, 3: 1}), (HOSTNAME, 1, {1: 1, 3: 1})],
        [60, 20, 100, 60],
    ),
    (
        "upstream: different labelSelectors, 3 out of 4 nodes are candidates",
        ZONED,
        [0, 1, 2],
        [("zone", 1, {0: 1, 1: 1, 3: 1}), (HOSTNAME, 1, {1: 1, 3: 1})],
        [50, 25, 100],
    ),
]


@pytest.mark.parametrize(
    ("nodes", "candidates", "constraints", "expected"),
    [c[1:] for c in SPREAD_SCORES],
    ids=[c[0] for c in SPREAD_SCORES],
)
def test_spread_scores_as_upstreams_table(
    nodes: list[NodeView],
    candidates: list[int],
    constraints: list[tuple[str, int, dict[int, int]]],
    expected: list[int],
) -> None:
    scoring = SpreadScoring(
        constraints=tuple(SoftConstraint(k, skew, on, True) for k, skew, on in constraints),
        require_all=True,
        counted=(1 << len(nodes)) - 1,
    )
    run = _NothingPlaced(nodes)
    plugin = spread_scoring.SCORE
    assert plugin.start is not None and plugin.score is not None
    state = plugin.start(run, scoring)
    raw = plugin.score(run, scoring, state, [(p, {p}) for p in candidates])
    assert raw is not None
    assert normalize(raw) == expected
