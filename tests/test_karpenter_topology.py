"""The topology rules Karpenter applies to a new NodeClaim
(gate.scheduler.autoscaling.karpenter.topology),
as Karpenter v1.8 states them: pkg/controllers/provisioning/scheduling/topologygroup.go
(``nextDomainTopologySpread``, ``nextDomainAffinity``, ``nextDomainAntiAffinity``) and
topology.go (``Record``, ``topologyError.Error``, its counts shown by ``pretty.Map`` up to
25 domains)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter.requirements import Req
from gate.scheduler.autoscaling.karpenter.topology import (
    TOPOLOGY,
    AffinityZone,
    AntiZone,
    HostAffinity,
    PoolZones,
    Spread,
    Zonal,
    held_zonal,
    preference_caps,
    soft_zonal,
    topology_error,
    zonal_rules,
)
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.plugins import prepare
from tests.builders import container, existing_pod, node, spread

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
APP = {"app": "web"}
ANY_ZONE = Req(ZONE, True)
Z1_Z2 = Req.new(ZONE, "In", ["z1", "z2"])


def test_the_error_reads_as_upstreams_topology_error() -> None:
    text = topology_error("topology spread", {"z2": 1, "z1": 0}, Z1_Z2, Req.new(ZONE, "In", ["z3"]))
    assert text == (
        "unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone "
        "(counts = z1: 0, z2: 1, podDomains = topology.kubernetes.io/zone In [z1 z2], "
        "nodeDomains = topology.kubernetes.io/zone In [z3]"
    )
    assert text.startswith(TOPOLOGY)


def test_the_error_shows_25_domains_then_how_many_others() -> None:
    counts = {f"z{i:02}": i for i in range(30)}
    shown = ", ".join(f"z{i:02}: {i}" for i in range(25))
    text = topology_error("pod anti-affinity", counts, ANY_ZONE, ANY_ZONE)
    assert f"(counts = {shown} and 5 other(s), podDomains" in text


def test_the_error_names_the_hostname_key_for_hostname_affinity() -> None:
    error = HostAffinity({"n1": 2}, self_match=True).error(Req.new(HOSTNAME, "In", ["n2"]))
    assert error == (
        "unsatisfiable topology constraint for pod affinity, key=kubernetes.io/hostname "
        "(counts = n1: 2, podDomains = kubernetes.io/hostname Exists, "
        "nodeDomains = kubernetes.io/hostname In [n2]"
    )


MINIMUM: list[tuple[str, dict[str, int], int, Req, int]] = [
    ("the fewest matching pods over the zones the pod may use", {"z1": 3, "z2": 1}, 1, ANY_ZONE, 1),
    ("a zone the pod may not use is not counted", {"z1": 3, "z2": 1, "z3": 0}, 1, Z1_Z2, 1),
    ("as many zones as minDomains count their fewest", {"z1": 3, "z2": 1}, 2, ANY_ZONE, 1),
    ("fewer zones than minDomains count as zero", {"z1": 3, "z2": 1}, 3, ANY_ZONE, 0),
    ("no zone at all counts as zero", {}, 1, ANY_ZONE, 0),
]


@pytest.mark.parametrize(
    ("counts", "min_domains", "pod", "expected"),
    [c[1:] for c in MINIMUM],
    ids=[c[0] for c in MINIMUM],
)
def test_spread_minimum(counts: dict[str, int], min_domains: int, pod: Req, expected: int) -> None:
    rule = Spread(counts, self_match=True, max_skew=1, min_domains=min_domains)
    assert rule.minimum(pod) == expected


NEXT_SPREAD: list[tuple[str, dict[str, int], bool, int, Req, list[str], str]] = [
    (
        "the zone with the fewest matching pods within the skew",
        {"z1": 1, "z2": 0, "z3": 1},
        True,
        1,
        ANY_ZONE,
        ["z1", "z2", "z3"],
        "z2",
    ),
    (
        "ties go to the first zone in the order given (the caller's: served zones first)",
        {"z1": 0, "z2": 0},
        True,
        1,
        ANY_ZONE,
        ["z2", "z1"],
        "z2",
    ),
    (
        "no zone within the skew gives none",
        {"z1": 2, "z2": 0},
        True,
        1,
        Z1_Z2,
        ["z1"],
        "",
    ),
    (
        "a copy its selector does not match does not count itself",
        {"z1": 1, "z2": 0},
        False,
        1,
        Z1_Z2,
        ["z1"],
        "z1",
    ),
    (
        "the minimum is over the pod's zones, not the claim's",
        {"z1": 1, "z2": 0, "z3": 5},
        True,
        1,
        Req.new(ZONE, "In", ["z1", "z3"]),
        ["z1", "z3"],
        "z1",
    ),
]


@pytest.mark.parametrize(
    ("counts", "self_match", "max_skew", "pod", "zones", "expected"),
    [c[1:] for c in NEXT_SPREAD],
    ids=[c[0] for c in NEXT_SPREAD],
)
def test_spread_next_zone(
    counts: dict[str, int],
    self_match: bool,
    max_skew: int,
    pod: Req,
    zones: list[str],
    expected: str,
) -> None:
    rule = Spread(counts, self_match=self_match, max_skew=max_skew, min_domains=1)
    assert rule.next_zone(pod, zones) == expected


RECORD: list[tuple[str, Zonal, dict[str, int]]] = [
    (
        "landing copies its spread matches raise their zones' counts",
        Spread({"z1": 1}, self_match=True, max_skew=1, min_domains=1),
        {"z1": 2, "z2": 1},
    ),
    (
        "landing copies its spread does not match leave the counts",
        Spread({"z1": 1}, self_match=False, max_skew=1, min_domains=1),
        {"z1": 1},
    ),
    (
        "copies their own anti-affinity matches block the zones they land in",
        AntiZone({"z1": 0}, True),
        {"z1": 1, "z2": 1},
    ),
]


@pytest.mark.parametrize(("rule", "expected"), [c[1:] for c in RECORD], ids=[c[0] for c in RECORD])
def test_record(rule: Zonal, expected: dict[str, int]) -> None:
    rule.record("z1")
    rule.record("z2")
    assert rule.counts == expected


ALLOWS: list[tuple[str, Zonal, list[bool]]] = [
    ("a spread leaves every zone to next_zone", Spread({"z1": 9}, True, 1, 1), [True, True, True]),
    (
        "anti-affinity allows only the zones without the pods it avoids",
        AntiZone({"z1": 1}, True),
        [False, True, True],
    ),
    (
        "affinity allows only the zones running the pods it wants",
        AffinityZone({"z2": 1, "z3": 0}, True),
        [False, True, False],
    ),
    (
        "affinity matching itself with none running may start anywhere",
        AffinityZone({}, True),
        [True, True, True],
    ),
    (
        "affinity not matching itself with none running may start nowhere",
        AffinityZone({}, False),
        [False, False, False],
    ),
]


@pytest.mark.parametrize(("rule", "expected"), [c[1:] for c in ALLOWS], ids=[c[0] for c in ALLOWS])
def test_allows(rule: Zonal, expected: list[bool]) -> None:
    assert [rule.allows(z, ANY_ZONE) for z in ("z1", "z2", "z3")] == expected


NEXT_ZONE: list[tuple[str, Zonal, Req, str]] = [
    (
        "anti-affinity takes the first empty zone in the order given (served zones first)",
        AntiZone({"z1": 1, "z3": 0, "z2": 0}, True),
        ANY_ZONE,
        "z3",
    ),
    (
        "anti-affinity takes only a zone the pod may use",
        AntiZone({"z1": 1}, True),
        Req.new(ZONE, "In", ["z1", "z3"]),
        "z3",
    ),
    (
        "anti-affinity with every zone taken gives none",
        AntiZone({"z1": 1, "z2": 1, "z3": 1}, True),
        ANY_ZONE,
        "",
    ),
    (
        "affinity takes the first zone running the pods it wants",
        AffinityZone({"z3": 2}, False),
        ANY_ZONE,
        "z3",
    ),
]


@pytest.mark.parametrize(
    ("rule", "pod", "expected"), [c[1:] for c in NEXT_ZONE], ids=[c[0] for c in NEXT_ZONE]
)
def test_next_zone(rule: Zonal, pod: Req, expected: str) -> None:
    assert rule.next_zone(pod, ["z3", "z1", "z2"]) == expected


ERRORS: list[tuple[str, Zonal, str]] = [
    ("a spread says topology spread", Spread({"z1": 1}, True, 1, 1), "topology spread"),
    ("anti-affinity says pod anti-affinity", AntiZone({"z1": 1}, True), "pod anti-affinity"),
    ("affinity says pod affinity", AffinityZone({"z1": 1}, True), "pod affinity"),
]


@pytest.mark.parametrize(("rule", "kind"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_error(rule: Zonal, kind: str) -> None:
    assert rule.error(Z1_Z2, ANY_ZONE) == (
        f"unsatisfiable topology constraint for {kind}, key=topology.kubernetes.io/zone "
        "(counts = z1: 1, podDomains = topology.kubernetes.io/zone In [z1 z2], "
        "nodeDomains = topology.kubernetes.io/zone Exists"
    )


HOST: list[tuple[str, HostAffinity, int, bool]] = [
    (
        "pods it wants already running refuse every new claim",
        HostAffinity({"n1": 1}, True),
        0,
        True,
    ),
    ("a pod matching itself with none running starts one claim", HostAffinity({}, True), 0, False),
    ("the copies after the first join its claim, no second one", HostAffinity({}, True), 1, True),
    ("a pod not matching itself with none running starts none", HostAffinity({}, False), 0, True),
    ("hostnames counted at zero are none running", HostAffinity({"n1": 0}, True), 0, False),
]


@pytest.mark.parametrize(
    ("rule", "claims", "refused"), [c[1:] for c in HOST], ids=[c[0] for c in HOST]
)
def test_host_affinity_refuses(rule: HostAffinity, claims: int, refused: bool) -> None:
    assert rule.refuses(claims) is refused


def _cluster(
    pods: Sequence[ExistingPod] = (),
    zones: Sequence[str] = ("z1", "z2"),
    taints: tuple[Taint, ...] = (),
) -> Cluster:
    """A node a zone, n0 in the first and tainted ``taints``, and ``pods``."""
    nodes: list[NodeView] = [
        node(f"n{i}", labels={ZONE: z, HOSTNAME: f"n{i}"}, taints=() if i else taints)
        for i, z in enumerate(zones)
    ]
    info = SnapshotInfo("test", None, None, None, None, len(nodes), len(pods))
    return Cluster.of(Snapshot(info=info, nodes=tuple(nodes), pods=tuple(pods)))


def _cycle(spec: dict[str, Any], pods: Sequence[ExistingPod] = ()) -> CycleState:
    return prepare(pod_profile(spec, labels=APP), _cluster(pods))


def _pools(zones: Sequence[str], taints: tuple[Taint, ...] = ()) -> PoolZones:
    """One NodePool reaching ``zones``, tainted ``taints``."""
    return PoolZones.of([(zones, taints)])


def _spec(**spec: Any) -> dict[str, Any]:
    return {"containers": [container(requests={"cpu": "1"})], **spec}


def _required(kind: str, key: str, labels: dict[str, str]) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": key}
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _preferred(kind: str, key: str, labels: dict[str, str]) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": key}
    return {
        kind: {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "podAffinityTerm": term}
            ]
        }
    }


ZONES = ["z1", "z2", "z3"]
WEB_IN_Z1 = [existing_pod("n0", APP, name="w1"), existing_pod("n0", APP, name="w2")]

ZONAL: list[
    tuple[
        str, dict[str, Any], list[ExistingPod], tuple[list[Zonal], int | None, HostAffinity | None]
    ]
] = [
    ("a pod with no topology rule has none", _spec(), [], ([], None, None)),
    (
        "a zone spread counts every zone, existing matching pods included",
        _spec(topologySpreadConstraints=[spread(1, ZONE, {"matchLabels": APP}, minDomains=2)]),
        WEB_IN_Z1,
        ([Spread({"z1": 2, "z2": 0, "z3": 0}, True, 1, 2)], None, None),
    ),
    (
        "a hostname spread matching the pod caps a claim at its maxSkew",
        _spec(topologySpreadConstraints=[spread(3, HOSTNAME, {"matchLabels": APP})]),
        [],
        ([], 3, None),
    ),
    (
        "a hostname spread not matching the pod caps nothing",
        _spec(topologySpreadConstraints=[spread(3, HOSTNAME, {"matchLabels": {"app": "db"}})]),
        [],
        ([], None, None),
    ),
    (
        "a zone anti-affinity matching the pod holds one copy a claim and counts the zones taken",
        _spec(affinity=_required("podAntiAffinity", ZONE, APP)),
        WEB_IN_Z1,
        ([AntiZone({"z1": 2, "z2": 0, "z3": 0}, True)], 1, None),
    ),
    (
        "a zone affinity counts the zones running the pods it wants",
        _spec(affinity=_required("podAffinity", ZONE, APP)),
        WEB_IN_Z1,
        ([AffinityZone({"z1": 2}, True)], None, None),
    ),
    # topology.go newForTopologies / newForAffinities: under PreferencePolicy Respect the
    # pod's preferences are topology groups until preferences.go Relax drops them
    (
        "a preferred hostname anti-affinity matching the pod holds one copy a claim",
        _spec(affinity=_preferred("podAntiAffinity", HOSTNAME, APP)),
        [],
        ([], 1, None),
    ),
    (
        "a preferred hostname anti-affinity not matching the pod caps nothing",
        _spec(affinity=_preferred("podAntiAffinity", HOSTNAME, {"app": "db"})),
        [],
        ([], None, None),
    ),
    (
        "a ScheduleAnyway hostname spread matching the pod caps a claim at its maxSkew",
        _spec(
            topologySpreadConstraints=[
                spread(2, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(3, HOSTNAME, {"matchLabels": APP}),
            ]
        ),
        [],
        ([], 2, None),
    ),
    (
        "a ScheduleAnyway hostname spread not matching the pod caps nothing",
        _spec(
            topologySpreadConstraints=[
                spread(2, HOSTNAME, {"matchLabels": {"app": "db"}}, "ScheduleAnyway")
            ]
        ),
        [],
        ([], None, None),
    ),
    (
        "a hostname affinity counts the nodes running the pods it wants",
        _spec(affinity=_required("podAffinity", HOSTNAME, {"app": "db"})),
        [existing_pod("n1", {"app": "db"})],
        ([], None, HostAffinity({"n1": 1}, False)),
    ),
]


@pytest.mark.parametrize(
    ("spec", "pods", "expected"), [c[1:] for c in ZONAL], ids=[c[0] for c in ZONAL]
)
def test_zonal_rules(
    spec: dict[str, Any],
    pods: list[ExistingPod],
    expected: tuple[list[Zonal], int | None, HostAffinity | None],
) -> None:
    profile = pod_profile(spec, labels=APP)
    cluster = _cluster(pods)
    found = zonal_rules(prepare(profile, cluster), _pools(ZONES), profile, cluster)
    assert found == expected


def _anti(*terms: tuple[int, str, dict[str, str]]) -> dict[str, Any]:
    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": w,
                    "podAffinityTerm": {"labelSelector": {"matchLabels": m}, "topologyKey": k},
                }
                for w, k, m in terms
            ]
        }
    }


PREFERENCE_CAPS: list[tuple[str, dict[str, Any], tuple[tuple[int | None, ...], ...]]] = [
    ("a pod with no preference has no cap", _spec(), ((None,), (None,))),
    (
        "the heaviest anti-affinity term goes first, so a lighter one of the pod's own holds on",
        _spec(affinity=_anti((10, ZONE, APP), (5, HOSTNAME, APP))),
        ((1, 1, None), (None,)),
    ),
    (
        "the pod's own term dropped first frees the claims at once",
        _spec(affinity=_anti((10, HOSTNAME, APP), (5, HOSTNAME, {"app": "db"}))),
        ((1, None, None), (None,)),
    ),
    (
        "the first ScheduleAnyway spread is swapped with the last and dropped",
        _spec(
            topologySpreadConstraints=[
                spread(2, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(1, ZONE, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(3, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
            ]
        ),
        ((None,), (2, 3, None, None)),
    ),
    (
        "a DoNotSchedule constraint listed last is what the first soft one is swapped with",
        _spec(
            topologySpreadConstraints=[
                spread(1, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(3, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(2, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(5, ZONE, {"matchLabels": APP}, "DoNotSchedule"),
            ]
        ),
        # [1, 3, 2, D] -> [D, 3, 2] -> [D, 2] -> [D]: the skew-3 spread goes second
        ((None,), (1, 2, 2, None)),
    ),
]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [c[1:] for c in PREFERENCE_CAPS],
    ids=[c[0] for c in PREFERENCE_CAPS],
)
def test_preference_caps_as_relax_drops_them(
    spec: dict[str, Any], expected: tuple[tuple[int | None, ...], ...]
) -> None:
    """preferences.go ``removePreferredPodAntiAffinityTerm`` (stable by weight, heaviest
    first) and ``removeTopologySpreadScheduleAnyway`` (swap with the last, drop)."""
    profile = pod_profile(spec, labels=APP)
    assert preference_caps(_cycle(spec, []), profile) == expected


SOFT_ZONAL: list[
    tuple[str, dict[str, Any], dict[str, int], list[list[tuple[int, dict[str, int]]]]]
] = [
    ("a pod with no ScheduleAnyway spread holds none", _spec(), {}, [[]]),
    (
        "a ScheduleAnyway zone spread is held until its one relaxation",
        _spec(topologySpreadConstraints=[spread(1, ZONE, {"matchLabels": APP}, "ScheduleAnyway")]),
        {},
        [[(1, {"z1": 0, "z2": 0})], []],
    ),
    (
        "the copies existing nodes took count where the spread selects them",
        _spec(topologySpreadConstraints=[spread(1, ZONE, {"matchLabels": APP}, "ScheduleAnyway")]),
        {"z1": 2},
        [[(1, {"z1": 2, "z2": 0})], []],
    ),
    (
        "a zone spread not selecting the pod counts none of its copies",
        _spec(
            topologySpreadConstraints=[
                spread(1, ZONE, {"matchLabels": {"app": "db"}}, "ScheduleAnyway")
            ]
        ),
        {"z1": 2},
        [[(1, {"z1": 0, "z2": 0})], []],
    ),
    (
        "the first ScheduleAnyway spread is swapped with the last and dropped, zones kept",
        _spec(
            topologySpreadConstraints=[
                spread(2, ZONE, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(1, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
                spread(3, ZONE, {"matchLabels": APP}, "ScheduleAnyway"),
            ]
        ),
        {},
        [
            [(2, {"z1": 0, "z2": 0}), (3, {"z1": 0, "z2": 0})],
            [(3, {"z1": 0, "z2": 0})],
            [],
            [],
        ],
    ),
]


@pytest.mark.parametrize(
    ("spec", "placed", "expected"),
    [c[1:] for c in SOFT_ZONAL],
    ids=[c[0] for c in SOFT_ZONAL],
)
def test_soft_zonal_spreads_as_relax_drops_them(
    spec: dict[str, Any], placed: dict[str, int], expected: list[list[tuple[int, dict[str, int]]]]
) -> None:
    """topology.go ``newForTopologies`` (ScheduleAnyway held under PreferencePolicy Respect)
    and preferences.go ``removeTopologySpreadScheduleAnyway`` (swap with the last, drop)."""
    steps = soft_zonal(pod_profile(spec, labels=APP), _cluster(), _pools(["z1", "z2"]), placed)
    assert [[(s.max_skew, s.counts) for s in step] for step in steps] == expected


def test_a_soft_zonal_spread_is_one_object_through_its_steps() -> None:
    """topology.go ``Update`` keeps a relaxed spread's group, so copies landing after the
    relaxation still count in it (``Record``)."""
    spec = _spec(
        topologySpreadConstraints=[
            spread(1, HOSTNAME, {"matchLabels": APP}, "ScheduleAnyway"),
            spread(1, ZONE, {"matchLabels": APP}, "ScheduleAnyway"),
        ]
    )
    profile = pod_profile(spec, labels=APP)
    first, second, _ = soft_zonal(profile, _cluster(zones=["z1"]), _pools(["z1"]))
    first[0].record("z1")
    assert second[0] is first[0]
    assert second[0].counts == {"z1": 1}


SOFT = spread(1, ZONE, {"matchLabels": APP}, "ScheduleAnyway")
TAINTED = (Taint("dedicated", "x", "NoSchedule"),)
RUNNING = [existing_pod("n0", APP, name="a"), existing_pod("n0", APP, name="b")]
"""Two pods the spread selects, on n0 in z1."""

SOFT_COUNTED: list[
    tuple[str, dict[str, Any], list[ExistingPod], tuple[Taint, ...], dict[str, int]]
] = [
    (
        "the running pods its selector matches count in their zone",
        _spec(),
        RUNNING,
        (),
        {"z1": 2, "z2": 0},
    ),
    (
        "a pod of another namespace is not counted",
        _spec(),
        [existing_pod("n0", APP, namespace="other")],
        (),
        {"z1": 0, "z2": 0},
    ),
    (
        "a terminating pod is not counted",
        _spec(),
        [existing_pod("n0", APP, terminating=True)],
        (),
        {"z1": 0, "z2": 0},
    ),
    (
        "nodeAffinityPolicy Honor leaves out the nodes the pod's nodeSelector refuses",
        _spec(nodeSelector={HOSTNAME: "n1"}),
        RUNNING,
        (),
        {"z1": 0, "z2": 0},
    ),
    (
        "nodeAffinityPolicy Ignore counts them",
        _spec(nodeSelector={HOSTNAME: "n1"}, policy={"nodeAffinityPolicy": "Ignore"}),
        RUNNING,
        (),
        {"z1": 2, "z2": 0},
    ),
    (
        "a tainted node's pods count under the default nodeTaintsPolicy Ignore",
        _spec(),
        RUNNING,
        TAINTED,
        {"z1": 2, "z2": 0},
    ),
    (
        "nodeTaintsPolicy Honor leaves out a node whose taint the pod does not tolerate",
        _spec(policy={"nodeTaintsPolicy": "Honor"}),
        RUNNING,
        TAINTED,
        {"z1": 0, "z2": 0},
    ),
]


@pytest.mark.parametrize(
    ("spec", "pods", "taints", "expected"),
    [c[1:] for c in SOFT_COUNTED],
    ids=[c[0] for c in SOFT_COUNTED],
)
def test_a_held_scheduleanyway_zone_spread_counts_the_cluster(
    spec: dict[str, Any],
    pods: list[ExistingPod],
    taints: tuple[Taint, ...],
    expected: dict[str, int],
) -> None:
    """topology.go ``countDomains``: every scheduled pod of the pod's namespace the
    constraint's selector matches, by its node's zone, on the nodes its nodeAffinityPolicy
    and nodeTaintsPolicy admit (topologynodefilter.go), as a DoNotSchedule spread counts."""
    policy = spec.pop("policy", {})
    spec["topologySpreadConstraints"] = [{**SOFT, **policy}]
    profile = pod_profile(spec, labels=APP)
    ((counted,), _) = soft_zonal(profile, _cluster(pods, taints=taints), _pools(["z1", "z2"]))
    assert counted.counts == expected


def _preferred_terms(kind: str, *terms: tuple[int, dict[str, str]]) -> dict[str, Any]:
    return {
        kind: {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": w,
                    "podAffinityTerm": {"labelSelector": {"matchLabels": m}, "topologyKey": ZONE},
                }
                for w, m in terms
            ]
        }
    }


DB = {"app": "db"}
HELD: list[tuple[str, dict[str, Any], list[ExistingPod], dict[str, int], Any, Any]] = [
    (
        "a preferred affinity over zones counts the pods it names, held until its relaxation",
        _preferred_terms("podAffinity", (10, DB)),
        [existing_pod("n1", DB)],
        {},
        [[({"z2": 1}, False)], []],
        [[]],
    ),
    (
        "preferred affinity terms go heaviest first, each counted alone",
        _preferred_terms("podAffinity", (1, DB), (10, APP)),
        [existing_pod("n1", DB), existing_pod("n0", APP)],
        {"z1": 2},
        [[({"z1": 3}, True), ({"z2": 1}, False)], [({"z2": 1}, False)], []],
        [[]],
    ),
    (
        "a preferred term over hostnames holds nothing over zones, its step still taken",
        _preferred_terms("podAffinity", (10, DB)) | _anti((5, HOSTNAME, APP)),
        [],
        {},
        [[({}, False)], []],
        [[], []],
    ),
    (
        "a preferred anti-affinity over zones counts the pods it avoids and its own copies",
        _preferred_terms("podAntiAffinity", (10, APP)),
        [existing_pod("n1", APP)],
        {"z1": 1},
        [[]],
        [[({"z1": 1, "z2": 1}, True)], []],
    ),
]


@pytest.mark.parametrize(
    ("affinity", "pods", "placed", "affinity_steps", "anti_steps"),
    [c[1:] for c in HELD],
    ids=[c[0] for c in HELD],
)
def test_preferred_zonal_terms_are_held_as_relax_drops_them(
    affinity: dict[str, Any],
    pods: list[ExistingPod],
    placed: dict[str, int],
    affinity_steps: list[list[tuple[dict[str, int], bool]]],
    anti_steps: list[list[tuple[dict[str, int], bool]]],
) -> None:
    """topology.go ``newForAffinities`` (preferred terms held under PreferencePolicy
    Respect) and ``countDomains`` (the pods a term names, in its namespaces, by zone);
    preferences.go ``removePreferredPodAffinityTerm`` and
    ``removePreferredPodAntiAffinityTerm`` (by weight, heaviest first)."""
    profile = pod_profile(_spec(affinity=affinity), labels=APP)
    held = held_zonal(profile, _cluster(pods), _pools(["z1", "z2"]), placed)
    assert [[(g.counts, g.self_match) for g in step] for step in held.affinity] == affinity_steps
    assert [[(g.counts, g.self_match) for g in step] for step in held.anti] == anti_steps


Z3 = ["z1", "z2", "z3"]
DOMAINS: list[tuple[str, Zonal, list[str]]] = [
    (
        "a required anti-affinity its copies match pins the first empty zone",
        AntiZone({"z1": 1, "z2": 0, "z3": 0}, True),
        ["z2"],
    ),
    (
        "a required anti-affinity its copies do not match leaves every empty zone",
        AntiZone({"z1": 1, "z2": 0, "z3": 0}, False),
        ["z2", "z3"],
    ),
    (
        "a held anti-affinity leaves every empty zone",
        AntiZone({"z1": 1, "z2": 0, "z3": 0}, True, held=True),
        ["z2", "z3"],
    ),
    (
        "an affinity leaves every zone running the pods it wants",
        AffinityZone({"z2": 1, "z3": 2}, False),
        ["z2", "z3"],
    ),
    (
        "an affinity's first pod starts in one zone",
        AffinityZone({}, True),
        ["z1"],
    ),
    (
        "a spread pins the zone with the fewest",
        Spread({"z1": 1, "z2": 0, "z3": 0}, True, max_skew=1, min_domains=1),
        ["z2"],
    ),
]


@pytest.mark.parametrize(
    ("rule", "expected"), [c[1:] for c in DOMAINS], ids=[c[0] for c in DOMAINS]
)
def test_the_zones_a_rule_leaves_a_new_claim(rule: Zonal, expected: list[str]) -> None:
    """topology.go ``AddRequirements``: the claim takes what topologygroup.go's
    ``nextDomainAffinity`` and ``nextDomainAntiAffinity`` return (every zone allowed); a
    required anti-affinity its copies match is pinned to one zone, its later copies taking
    others in later loops."""
    assert rule.domains(ANY_ZONE, Z3) == expected


def test_a_self_matching_anti_affinity_records_every_zone_the_claim_may_take() -> None:
    """topology.go ``Record``: anti-affinity blocks every zone of the claim's requirement,
    an affinity or a spread only a known one."""
    anti = AntiZone({"z1": 0, "z2": 0}, True, held=True)
    affinity = AffinityZone({}, True)
    for rule in (anti, affinity):
        rule.record_all(["z1", "z2"])
    assert (anti.counts, affinity.counts) == ({"z1": 1, "z2": 1}, {})


SOFT_TAINT = Taint("spot", "yes", "PreferNoSchedule")
HARD_TAINT = Taint("dedicated", "x", "NoSchedule")
TOLERATE_HARD = {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}
POOL_ZONES: list[tuple[str, PoolZones, list[dict[str, Any]], list[str]]] = [
    (
        "an untainted pool's zones are all kept",
        _pools(["z1", "z2"]),
        [],
        ["z1", "z2"],
    ),
    (
        "a pool's untolerated NoSchedule taint drops its zones",
        PoolZones.of([(["z1"], ()), (["z2"], (HARD_TAINT,))]),
        [],
        ["z1"],
    ),
    (
        "a pool's untolerated PreferNoSchedule taint drops its zones too",
        PoolZones.of([(["z1"], ()), (["z2"], (SOFT_TAINT,))]),
        [],
        ["z1"],
    ),
    (
        "a tolerated taint keeps them",
        PoolZones.of([(["z1"], ()), (["z2"], (HARD_TAINT,))]),
        [TOLERATE_HARD],
        ["z1", "z2"],
    ),
    (
        "a zone another pool the pod tolerates reaches is kept",
        PoolZones.of([(["z1", "z2"], (HARD_TAINT,)), (["z2"], ())]),
        [],
        ["z2"],
    ),
]


@pytest.mark.parametrize(
    ("pools", "tolerations", "expected"),
    [c[1:] for c in POOL_ZONES],
    ids=[c[0] for c in POOL_ZONES],
)
def test_the_pool_zones_a_spread_honouring_taints_registers(
    pools: PoolZones, tolerations: list[dict[str, Any]], expected: list[str]
) -> None:
    """topologydomaingroup.go ``ForEachDomain`` under ``nodeTaintsPolicy: Honor``: a zone
    one of whose taint sets (one a pool, ``Insert``) the pod tolerates whole
    (pkg/scheduling/taints.go ``ToleratesPod``, every effect)."""
    assert pools.tolerated(tolerations) == expected
