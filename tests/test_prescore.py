"""What the score plugins read of one workload's pod (gate.scheduler.placement.prescore), worked out
once: the requests NodeResourcesFit and BalancedAllocation score (noderesources/
resource_allocation.go, the non-zero defaults of util/pod_resources.go: 100m and 200Mi),
the PreferNoSchedule taints (tainttoleration/taint_toleration.go Score), the preferred node
affinity (nodeaffinity/node_affinity.go Score), PodTopologySpread's scoring constraints
(podtopologyspread/scoring.go PreScore, the system defaults of plugin.go for pods a
controller with a selector owns) and InterPodAffinity's preferred terms (kube-scheduler
v1.34)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from gate.k8s.selectors import SelectorError
from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.placement.classes import ScoredRun
from gate.scheduler.placement.copyrules import CopyRules, ScoreRules
from gate.scheduler.placement.prescore import score_rules
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring
from gate.scheduler.plugins.podtopologyspread.scoring import OWNED_BY_A_SELECTOR
from gate.scheduler.plugins.podtopologyspread.scoring import SCORE as SPREAD_SCORE
from tests.builders import container, existing_pod, node, spread, taint

MI = 2**20
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
APP = {"app": "web"}
NODES = (
    node("a", labels={HOSTNAME: "a", ZONE: "z1", "disk": "ssd"}),
    node(
        "b", labels={HOSTNAME: "b", ZONE: "z2"}, taints=(taint("spot", "yes", "PreferNoSchedule"),)
    ),
)


def _rules(
    spec: dict[str, Any],
    kind: str = "Deployment",
    labels: dict[str, str] | None = None,
    pods: Sequence[ExistingPod] = (),
    nodes: tuple[NodeView, ...] = NODES,
) -> ScoreRules:
    info = SnapshotInfo("test", None, None, None, None, len(nodes), len(pods))
    cluster = Cluster.of(Snapshot(info=info, nodes=nodes, pods=tuple(pods)))
    profile = pod_profile(spec, labels=APP if labels is None else labels)
    return score_rules(kind, profile, cluster.index, cluster.others.pods)


def _spec(requests: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {"containers": [container(requests=requests or {})], **spec}


REQUESTS: list[tuple[str, dict[str, str], tuple[int, int], tuple[int, int] | None]] = [
    (
        "a pod naming no request scores at the non-zero defaults, and is best effort",
        {},
        (100, 200 * MI),
        None,
    ),
    ("a cpu request alone keeps the memory default", {"cpu": "500m"}, (500, 200 * MI), (500, 0)),
    (
        "both requests are scored as written",
        {"cpu": "2", "memory": "1Gi"},
        (2000, 1024 * MI),
        (2000, 1024 * MI),
    ),
]


@pytest.mark.parametrize(
    ("requests", "nonzero", "balanced"), [c[1:] for c in REQUESTS], ids=[c[0] for c in REQUESTS]
)
def test_requests_as_the_resource_scores_read_them(
    requests: dict[str, str], nonzero: tuple[int, int], balanced: tuple[int, int] | None
) -> None:
    rules = _rules(_spec(requests))
    assert (rules.nonzero.incoming, rules.nonzero.bound, rules.balanced) == (
        nonzero,
        nonzero,
        balanced,
    )


def test_a_bound_copy_with_pod_level_requests_counts_no_default_its_containers_lack() -> None:
    # resource_allocation.go calculatePodResourceRequest defaults every container that
    # names no memory before the pod-level cpu replaces the sum; types.go
    # PodInfo.CalculateResource defaults only a resource the pod's requests lack: one
    # container names memory, so a bound copy counts no default for the other.
    spec = {
        "resources": {"requests": {"cpu": "1"}},
        "containers": [container(requests={"memory": "100Mi"}), container()],
    }
    rules = _rules(spec)
    assert (rules.nonzero.incoming, rules.nonzero.bound) == (
        (1000, 300 * MI),
        (1000, 100 * MI),
    )


TAINTS: list[tuple[str, list[dict[str, Any]], list[int]]] = [
    ("an untolerated PreferNoSchedule taint counts against its node", [], [0, 1]),
    (
        "a tolerated PreferNoSchedule taint counts nothing",
        [{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}],
        [0, 0],
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "expected"), [c[1:] for c in TAINTS], ids=[c[0] for c in TAINTS]
)
def test_prefer_no_schedule_taints(tolerations: list[dict[str, Any]], expected: list[int]) -> None:
    rules = _rules(_spec(tolerations=tolerations))
    assert [rules.taints(n) for n in NODES] == expected


def test_preferred_node_affinity_weights_add_up_on_the_nodes_they_match() -> None:
    def term(weight: int, key: str, value: str) -> dict[str, Any]:
        expression = {"key": key, "operator": "In", "values": [value]}
        return {"weight": weight, "preference": {"matchExpressions": [expression]}}

    preferred = [term(5, "disk", "ssd"), term(3, ZONE, "z1"), term(7, ZONE, "z2")]
    affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    rules = _rules(_spec(affinity=affinity))
    assert [rules.affinity(n) for n in NODES] == [8, 7]


Soft = tuple[list[tuple[str, int, dict[int, int], bool]], bool] | None

SPREAD: list[tuple[str, str, dict[str, str], dict[str, Any], Soft]] = [
    (
        "a StatefulSet's pod without constraints scores the system defaults with its labels",
        "StatefulSet",
        APP,
        {},
        ([(HOSTNAME, 3, {0: 1}, True), (ZONE, 5, {0: 1}, True)], False),
    ),
    (
        # helper/spread.go DefaultSelector: a Deployment's pods are selected by their
        # ReplicaSet, whose selector holds the new template's pod-template-hash, which no
        # pod of the snapshot but the workload's own (released) carries.
        "a Deployment's pod without constraints spreads from its own copies only",
        "Deployment",
        APP,
        {},
        ([(HOSTNAME, 3, {}, True), (ZONE, 5, {}, True)], False),
    ),
    (
        # An Argo Rollout's ReplicaSets select by rollouts-pod-template-hash too.
        "an Argo Rollout's pod spreads from its own copies only",
        "Rollout",
        APP,
        {},
        ([(HOSTNAME, 3, {}, True), (ZONE, 5, {}, True)], False),
    ),
    (
        # A Knative Service's pods are owned by its Revision's Deployment's ReplicaSet.
        "a Knative Service's pod spreads from its own copies only",
        "Service",
        APP,
        {},
        ([(HOSTNAME, 3, {}, True), (ZONE, 5, {}, True)], False),
    ),
    (
        "a Knative Configuration's pod spreads from its own copies only",
        "Configuration",
        APP,
        {},
        ([(HOSTNAME, 3, {}, True), (ZONE, 5, {}, True)], False),
    ),
    (
        "a CloneSet's pod is owned by no selector the defaults read",
        "CloneSet",
        APP,
        {},
        None,
    ),
    ("a bare Pod has no owner selector: no spread score", "Pod", APP, {}, None),
    ("a Job's pod is owned by no selector the defaults read", "Job", APP, {}, None),
    ("a Deployment's pod without labels has no default selector", "Deployment", {}, {}, None),
    (
        "explicit ScheduleAnyway constraints replace the defaults and require every key",
        "Deployment",
        APP,
        {"topologySpreadConstraints": [spread(2, ZONE, {"matchLabels": APP}, "ScheduleAnyway")]},
        ([(ZONE, 2, {0: 1}, True)], True),
    ),
    (
        "DoNotSchedule constraints alone turn the defaults off and score nothing",
        "Deployment",
        APP,
        {"topologySpreadConstraints": [spread(1, ZONE, {"matchLabels": APP})]},
        None,
    ),
    (
        "a constraint its own labels do not match counts the pods it selects only",
        "StatefulSet",
        APP,
        {
            "topologySpreadConstraints": [
                spread(1, HOSTNAME, {"matchLabels": {"app": "db"}}, "ScheduleAnyway")
            ]
        },
        ([(HOSTNAME, 1, {1: 1}, False)], True),
    ),
    (
        # podtopologyspread/common.go countPodsMatchSelector: an empty selector counts no
        # pod, the copies bound before the next one included.
        "an empty selector counts neither the pods running nor the copies",
        "Deployment",
        APP,
        {"topologySpreadConstraints": [spread(1, ZONE, {}, "ScheduleAnyway")]},
        ([(ZONE, 1, {}, False)], True),
    ),
]

RUNNING = [existing_pod("a", APP, name="web-1"), existing_pod("b", {"app": "db"}, name="db-1")]


@pytest.mark.parametrize(
    ("kind", "labels", "spec", "expected"), [c[1:] for c in SPREAD], ids=[c[0] for c in SPREAD]
)
def test_spread_scoring(
    kind: str, labels: dict[str, str], spec: dict[str, Any], expected: Soft
) -> None:
    scoring = _rules(_spec(**spec), kind, labels, RUNNING).spread
    got = None
    if scoring is not None:
        constraints = [
            (c.topology_key, c.max_skew, dict(c.existing), c.self_match)
            for c in scoring.constraints
        ]
        got = (constraints, scoring.require_all)
    assert got == expected


# Zone z1 holds a (disk ssd) and b (no disk, a NoSchedule taint), running the one matching
# pod; z2 holds c (disk ssd). The pod asks for disk ssd.
POLICY_NODES = (
    node("a", labels={ZONE: "z1", "disk": "ssd"}),
    node("b", labels={ZONE: "z1"}, taints=(taint("dedicated"),)),
    node("c", labels={ZONE: "z2", "disk": "ssd"}),
)
POLICIES: list[tuple[str, dict[str, Any], list[dict[str, Any]], dict[str, int]]] = [
    # podtopologyspread/scoring.go PreScore counts a node's pods only where each constraint's
    # matchNodeInclusionPolicies (common.go) admits the node: nodeAffinityPolicy Honor and
    # nodeTaintsPolicy Ignore unless the constraint says otherwise.
    ("by default the node the pod's node selector refuses counts nothing", {}, [], {}),
    (
        "nodeAffinityPolicy Ignore counts the pods of a node the selector refuses",
        {"nodeAffinityPolicy": "Ignore"},
        [],
        {"z1": 1},
    ),
    (
        "nodeTaintsPolicy Honor leaves out a node whose taint the pod does not tolerate",
        {"nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor"},
        [],
        {},
    ),
    (
        "nodeTaintsPolicy Honor counts a node whose taint the pod tolerates",
        {"nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor"},
        [{"key": "dedicated", "operator": "Exists"}],
        {"z1": 1},
    ),
]


@pytest.mark.parametrize(
    ("policies", "tolerations", "expected"),
    [c[1:] for c in POLICIES],
    ids=[c[0] for c in POLICIES],
)
def test_a_scoring_constraints_node_inclusion_policies_choose_the_pods_it_counts(
    policies: dict[str, Any], tolerations: list[dict[str, Any]], expected: dict[str, int]
) -> None:
    constraint = spread(1, ZONE, {"matchLabels": APP}, "ScheduleAnyway", **policies)
    spec = _spec(
        nodeSelector={"disk": "ssd"},
        tolerations=tolerations,
        topologySpreadConstraints=[constraint],
    )
    pods = [existing_pod("b", APP, name="web-1")]
    scoring = _rules(spec, pods=pods, nodes=POLICY_NODES).spread
    assert scoring is not None and SPREAD_SCORE.start is not None
    run = ScoredRun(POLICY_NODES, CopyRules(), ScoreRules(spread=scoring), 0b101, None)
    assert SPREAD_SCORE.start(run, scoring) == [expected]


def test_the_kinds_a_selector_owns_are_upstreams() -> None:
    assert {
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "ReplicationController",
        "Rollout",
        "Service",
        "Configuration",
    } == OWNED_BY_A_SELECTOR


def test_labels_the_api_server_would_refuse_are_said_to_be_the_templates() -> None:
    with pytest.raises(SelectorError, match=r"^template metadata\.labels: "):
        _rules(_spec(), labels={"app": "not a valid value!"})


def test_a_refused_schedule_anyway_selector_is_said_when_the_score_reads_it() -> None:
    # Only the score reads ScheduleAnyway constraints: preparing the pod does not fail.
    bad = {"matchLabels": {"app": "not a valid value!"}}
    spec = {"topologySpreadConstraints": [spread(1, ZONE, bad, when="ScheduleAnyway")]}
    profile = pod_profile(spec, labels=APP)
    assert profile.soft_spread == ()
    with pytest.raises(SelectorError, match=r"^topologySpreadConstraints\[0\]\.labelSelector"):
        _rules(spec)


def test_a_pod_without_preferred_pod_affinity_scores_no_inter_pod_affinity() -> None:
    assert _rules(_spec(), pods=RUNNING).interpod is None


def test_preferred_pod_affinity_weighs_the_domains_of_the_pods_it_prefers() -> None:
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}
    preferred = [{"weight": 10, "podAffinityTerm": term}]
    affinity = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    rules = _rules(_spec(affinity=affinity), pods=RUNNING)
    # The db pod runs in z2; the web copies do not match the term, so they add nothing.
    found = rules.interpod
    assert found is not None
    assert replace(found, preferred=()) == AffinityScoring(
        keys=(ZONE,), existing=({"z2": 10},), per_copy=(0,)
    )
    # The term kept for the run's earlier copies, its namespace the pod's.
    assert [(w, t.topology_key, t.namespaces) for w, t in found.preferred] == [
        (10, ZONE, frozenset({"default"}))
    ]
