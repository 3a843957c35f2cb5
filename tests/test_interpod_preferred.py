"""InterPodAffinity's score weighs the preferred terms of the pods already placed: each
preferred affinity term of an existing pod that the incoming pod matches adds its weight to
every node sharing the existing pod's node's value of the term's topology key, each
preferred anti-affinity term subtracts it (upstream scoring.go processExistingPod, v1.34).

``UPSTREAM`` holds TestPreferredAffinity's cases of scoring_test.go whose existing pods
carry preferred terms, with their names and expected normalised scores; the placements
below show where the copies go because of them, and a count that changes end to end."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.model import ExistingPod, NodeView, Verdict
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.placement.copies import CopyRules, ScoreRules, place
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring, affinity_scoring
from gate.scheduler.plugins.interpodaffinity.scoring import normalize as interpod_normalize
from tests.builders import existing_pod, node
from tests.test_replicas import Case, _deployment, _node, _run, _running

PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
HOSTNAME = "kubernetes.io/hostname"
S1, S2 = {"security": "S1"}, {"security": "S2"}
CHINA, INDIA = {"region": "China"}, {"region": "India"}
AZ1, AZ2 = {"az": "az1"}, {"az": "az2"}
NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def _term(value: str, key: str, **more: Any) -> dict[str, Any]:
    expression = {"key": "security", "operator": "In", "values": [value]}
    return {"labelSelector": {"matchExpressions": [expression]}, "topologyKey": key, **more}


# scoring_test.go's affinities, as (weight, term) pairs.
STAY_WITH_S1_IN_REGION = ((5, _term("S1", "region")),)
STAY_WITH_S2_IN_REGION = ((6, _term("S2", "region")),)
AWAY_FROM_S1_IN_AZ = ((5, _term("S1", "az")),)
AWAY_FROM_S2_IN_AZ = ((5, _term("S2", "az")),)
_TEAM1 = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}
NAMESPACE_SELECTOR = (
    (5, _term("S1", "region", namespaces=["subteam2.team2"], namespaceSelector=_TEAM1)),
)
STAY_IN_REGION_AWAY_IN_AZ = {"preferred": ((8, _term("S1", "region")),)} | {
    "preferred_anti": AWAY_FROM_S2_IN_AZ
}


def _spec(preferred: Any = (), preferred_anti: Any = ()) -> dict[str, Any]:
    """A pod spec with these preferred terms (the incoming pod's own)."""
    affinity: dict[str, Any] = {}
    for kind, terms in (("podAffinity", preferred), ("podAntiAffinity", preferred_anti)):
        if terms:
            items = [{"weight": w, "podAffinityTerm": t} for w, t in terms]
            affinity[kind] = {PREFERRED: items}
    return {"affinity": affinity} if affinity else {}


def _scores(scoring: AffinityScoring | None, nodes: list[NodeView]) -> list[int]:
    """Score then NormalizeScore over every node, for the first copy (Skip: 0 each)."""
    if scoring is None:
        return [0 for _ in nodes]
    raw = [
        sum(
            by_value.get(n.labels[key], 0)
            for key, by_value in zip(scoring.keys, scoring.existing, strict=True)
            if key in n.labels
        )
        for n in nodes
    ]
    return interpod_normalize(raw)


def _nodes(*labels: dict[str, str]) -> list[NodeView]:
    return [node(f"node{i + 1}", labels=found) for i, found in enumerate(labels)]


def _pod(at: int, labels: dict[str, str] | None = None, /, **terms: Any) -> ExistingPod:
    return existing_pod(f"node{at}", labels, name=f"p{at}", **terms)


UPSTREAM: list[Any] = [
    pytest.param(
        ({}, S2, "default"),
        [
            _pod(1, S1, preferred=STAY_WITH_S1_IN_REGION),
            _pod(2, S2, preferred=STAY_WITH_S2_IN_REGION),
        ],
        (CHINA, INDIA, AZ1),
        [0, 100, 0],
        id="Affinity symmetry: considered only the preferredDuringScheduling"
        "IgnoredDuringExecution in pod affinity symmetry",
    ),
    pytest.param(
        ({}, S1, "subteam1.team1"),
        [
            _pod(1, S1, preferred=NAMESPACE_SELECTOR),
            _pod(2, S2, preferred=STAY_WITH_S2_IN_REGION),
        ],
        (CHINA, INDIA, AZ1),
        [100, 0, 0],
        id="Affinity symmetry with namespace selector",
    ),
    pytest.param(
        ({}, S1, "subteam1.team1"),
        [
            _pod(1, S1, preferred_anti=NAMESPACE_SELECTOR),
            _pod(2, S2, preferred=STAY_WITH_S2_IN_REGION),
        ],
        (CHINA, INDIA, AZ1),
        [0, 100, 100],
        id="AntiAffinity symmetry with namespace selector",
    ),
    pytest.param(
        ({}, S2, "default"),
        [
            _pod(1, S1, preferred_anti=AWAY_FROM_S2_IN_AZ),
            _pod(2, S2, preferred_anti=AWAY_FROM_S1_IN_AZ),
        ],
        (AZ1, AZ2),
        [0, 100],
        id="Anti Affinity symmetry: the existing pods in node which has anti affinity match "
        "will get high score",
    ),
    pytest.param(
        (STAY_IN_REGION_AWAY_IN_AZ, S1, "default"),
        [
            _pod(1, S1),
            _pod(2, S2),
            _pod(3, **STAY_IN_REGION_AWAY_IN_AZ),
            _pod(4, preferred_anti=AWAY_FROM_S1_IN_AZ),
        ],
        (CHINA, AZ1, INDIA, AZ2),
        [100, 0, 100, 0],
        id="Affinity and Anti Affinity and symmetry: considered only preferredDuringScheduling"
        "IgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
    ),
    pytest.param(
        ({}, S1, "default"),
        [_pod(1, S1), _pod(2, **STAY_IN_REGION_AWAY_IN_AZ)],
        (CHINA, CHINA),
        [0, 0],
        id="Avoid panic when partial nodes in a topology don't have pods with affinity",
    ),
]


@pytest.mark.parametrize(("incoming", "pods", "labels", "expected"), UPSTREAM)
def test_upstream_preferred_affinity_of_existing_pods(
    incoming: tuple[dict[str, Any], dict[str, str], str],
    pods: list[ExistingPod],
    labels: tuple[dict[str, str], ...],
    expected: list[int],
) -> None:
    own, pod_labels, namespace = incoming
    nodes = _nodes(*labels)
    profile = pod_profile(_spec(**own), namespace, pod_labels)
    scoring = affinity_scoring(profile, nodes, PodIndex(pods, nodes), NAMESPACES)
    assert _scores(scoring, nodes) == expected


OURS: list[Any] = [
    pytest.param(
        [_pod(1, preferred=STAY_WITH_S1_IN_REGION), _pod(2, preferred=STAY_WITH_S1_IN_REGION)],
        ((("region",), ({"China": 10},))),
        id="carriers add up by domain",
    ),
    pytest.param(
        [_pod(1, preferred=STAY_WITH_S1_IN_REGION, preferred_anti=((5, _term("S1", "region")),))],
        ((("region",), ({"China": 0},))),
        id="a net zero keeps its key: upstream's map has it, the score is not skipped",
    ),
    pytest.param(
        [_pod(1, preferred=STAY_WITH_S2_IN_REGION)],
        None,
        id="a term the pod does not match adds nothing: skipped",
    ),
    pytest.param(
        [_pod(3, preferred=STAY_WITH_S1_IN_REGION)],
        None,
        id="a node without the key adds nothing",
    ),
    pytest.param(
        [existing_pod("node1", namespace="other", preferred=STAY_WITH_S1_IN_REGION)],
        None,
        id="a term without namespaces covers its own pod's namespace only",
    ),
    pytest.param(
        [
            existing_pod(
                "node1",
                namespace="other",
                preferred=((4, _term("S1", "region", namespaces=["default"])),),
            )
        ],
        ((("region",), ({"China": 4},))),
        id="a term naming the pod's namespace",
    ),
    pytest.param(
        [
            _pod(
                1,
                preferred=(
                    (3, _term("S1", "region")),
                    (9, {"labelSelector": {"matchLabels": {"bad key!": "x"}}}),
                ),
                preferred_anti=AWAY_FROM_S1_IN_AZ,
            )
        ],
        ((("az",), ({"az1": -5},))),
        id="a bad term drops the pod's terms of its kind only (getWeightedAffinityTerms)",
    ),
]


@pytest.mark.parametrize(("pods", "expected"), OURS)
def test_existing_pods_preferred_terms_weigh_the_domains_of_their_nodes(
    pods: list[ExistingPod], expected: tuple[Any, Any] | None
) -> None:
    nodes = [
        node("node1", labels=CHINA | AZ1),
        node("node2", labels=CHINA),
        node("node3"),
    ]
    profile = PodProfile(labels=S1)
    found = affinity_scoring(profile, nodes, PodIndex(pods, nodes), None)
    assert (found and (found.keys, found.existing)) == expected
    if found is not None:
        assert found.per_copy == (0,) * len(found.keys)


def test_a_released_pods_preferred_terms_weigh_nothing() -> None:
    # Its running pods are the version the change replaces (PodIndex.without).
    nodes = _nodes(CHINA)
    index = PodIndex([_pod(1, preferred=STAY_WITH_S1_IN_REGION)], nodes)
    profile = PodProfile(labels=S1)
    assert affinity_scoring(profile, nodes, index, None) is not None
    assert affinity_scoring(profile, nodes, index.without([0]), None) is None


def test_pods_without_preferred_terms_are_never_parsed_for_them() -> None:
    nodes = _nodes(CHINA)
    index = PodIndex([_pod(1, S1), _pod(1, preferred=STAY_WITH_S1_IN_REGION)], nodes)
    assert index._preferred is None  # found on first use only
    (weight, _, carriers), *others = index.preferred_terms()
    assert (weight, carriers, others) == (5, (0,), [])
    assert index._with_preferred == [(1,)]


def test_copies_avoid_the_nodes_whose_pods_prefer_to_be_apart_from_them() -> None:
    # Three alike empty nodes; pods on n0 and n1 prefer (weight 50) to be away from app=web
    # by hostname: raw n0 -50, n1 -50, n2 0 -> InterPodAffinity 0, 0, 100 (x2), so the
    # first copy takes n2 though n0 comes first, and so does the second: its copy costs n2
    # a point or two of LeastAllocated and BalancedAllocation, far less than 200. Without
    # the terms the copies go to n0 then n1 (ties to the first node).
    nodes = [node(f"n{i}", labels={HOSTNAME: f"n{i}"}, cpu=4000) for i in range(3)]
    apart = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOSTNAME}
    pods = [existing_pod(f"n{i}", name=f"p{i}", preferred_anti=((50, apart),)) for i in (0, 1)]
    profile = PodProfile(labels={"app": "web"})
    interpod = affinity_scoring(profile, nodes, PodIndex(pods, nodes), None)
    assert interpod is not None and interpod.existing == ({"n0": -50, "n1": -50},)
    plain = ScoreRules.of({"cpu": 100})
    rules = CopyRules({"cpu": 100})
    assert place(2, nodes, rules, scores=plain).copies == {0: 1, 1: 1}
    scored = replace(plain, interpod=interpod)
    assert place(2, nodes, rules, scores=scored).copies == {2: 2}


def _guard(at: str, apart_from_web: bool) -> dict[str, Any]:
    """A running pod of 500m, which may prefer (weight 100) a node without app=web."""
    pod = _running("ReplicaSet", "guard", at, "500m", name=f"guard-{at}", labels={"app": "g"})
    if apart_from_web:
        term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOSTNAME}
        items = [{"weight": 100, "podAffinityTerm": term}]
        pod["spec"]["affinity"] = {"podAntiAffinity": {PREFERRED: items}}
    return pod


@pytest.mark.parametrize(("apart", "together"), [(False, 0), (True, 1)])
def test_web_avoids_the_node_whose_pod_prefers_it_elsewhere_end_to_end(
    apart: bool, together: int
) -> None:
    # n0 and n1 (2 cpu) each run a 500m guard pod: equal room. web (1 cpu) comes first and,
    # every score alike, takes n0 (the first); db (1 cpu, pinned to n0) then finds 500m
    # there. When n0's guard prefers its node without app=web, web's InterPodAffinity
    # scores n0 0 and n1 100: web takes n1 and db fits beside it.
    pods = [_guard("n0", apart), _guard("n1", False)]
    db = _deployment("db", 1, "1", pod={"nodeSelector": {HOSTNAME: "n0"}})
    case = Case([_node("n0"), _node("n1")], [_deployment("web", 1, "1"), db], pods)
    web_fit, db_fit = _run(case)
    assert (web_fit.verdict, web_fit.placement and web_fit.placement.together) == (
        Verdict.YES,
        1,
    )
    assert db_fit.placement is not None and db_fit.placement.together == together
    assert db_fit.verdict == (Verdict.YES if together else Verdict.PARTIAL)


def test_nodes_alike_but_for_the_domain_an_existing_pod_prefers_are_split() -> None:
    # Four alike empty nodes, n0 and n1 in zone a, n2 and n3 in zone b; a pod on n1 prefers
    # (weight 10) its zone without app=web. Nodes alike in everything the scores read form
    # one class: the term's zone must split them, else n0 (first of the class) would take
    # the first copy. Raw a -10, b 0 -> 0 and 100 (x2): the copies take zone b (the second
    # n3, less allocated than n2), grouped by zone since no rule reads the hostname.
    zone = "topology.kubernetes.io/zone"
    nodes = [node(f"n{i}", labels={zone: "ab"[i // 2]}, cpu=4000) for i in range(4)]
    apart = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": zone}
    pods = [existing_pod("n1", preferred_anti=((10, apart),))]
    profile = PodProfile(labels={"app": "web"})
    interpod = affinity_scoring(profile, nodes, PodIndex(pods, nodes), None)
    assert interpod is not None and interpod.existing == ({"a": -10},)
    plain = ScoreRules.of({"cpu": 100})
    scored = replace(plain, interpod=interpod)
    rules = CopyRules({"cpu": 100})
    assert place(2, nodes, rules, scores=plain).copies == {0: 1, 1: 1}
    assert place(2, nodes, rules, scores=scored).copies == {2: 1, 3: 1}
