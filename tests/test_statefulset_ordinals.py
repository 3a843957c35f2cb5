"""A StatefulSet's copies after the first, each with its own claims
(``<template>-<statefulset>-<i>``): an existing claim is used as it is, a missing one is
created from the template, claims at or beyond ``replicas`` are ignored, and under
``OrderedReady`` the count stops at the first copy that fits no node (``Parallel`` tries
every one). A PARTIAL names that copy and its claim."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.claims import statefulset_claims
from gate.model import Document, Location, ReplicaFit, Verdict, Workload
from gate.run import RunOptions, check
from gate.scheduler.engine.claimed import Reach
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.framework.ordinals import ordinal_pod, recounted
from gate.scheduler.framework.pods import Pod, pod_profile
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot
from tests.volume_support import HOST, LOCAL_CLASS, local_volume

ZONE = "topology.kubernetes.io/zone"
WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
NOW = {"metadata": {"name": "now"}, "provisioner": "disk.csi.azure.com"}


def _volume(name: str, zone: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    return {
        "metadata": {"name": name, "labels": {ZONE: zone}},
        "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
    }


def _bound(name: str, volume: str) -> dict[str, Any]:
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    meta = {"name": name, "namespace": "db", "annotations": notes}
    return {"metadata": meta, "spec": {"volumeName": volume, "storageClassName": "wait"}}


def _statefulset(replicas: int, template_class: str = "wait", **spec: Any) -> dict[str, Any]:
    container = {"name": "pg", "image": "p", "resources": {"requests": {"cpu": "100m"}}}
    template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container]}}
    claim = {
        "metadata": {"name": "data"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": template_class,
        },
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "db"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "db"}},
            "template": template,
            "volumeClaimTemplates": [claim],
            **spec,
        },
    }


def _run(statefulset: dict[str, Any], *claims: dict[str, Any]) -> Any:
    nodes = [api_node(f"n-{z}", labels={ZONE: z}) for z in ("z1", "z2")]
    storage: dict[str, Any] = {
        "persistentVolumes": [_volume(f"pv-{z}", z) for z in ("z1", "z2", "z9")],
        "persistentVolumeClaims": list(claims),
        "storageClasses": [WAIT, NOW],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    report = check([Document(Location("db.yaml", 1), statefulset)], snapshot, RunOptions())
    (result,) = report.results
    return result


PINNED = "didn't match PersistentVolume's node affinity"
CASES = [
    pytest.param(
        _statefulset(3),
        [_bound("data-db-0", "pv-z1")],
        Verdict.YES,
        3,
        None,
        id="missing claims are created from the template and provisioned where copies land",
    ),
    pytest.param(
        _statefulset(3),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-1", "pv-z9")],
        Verdict.PARTIAL,
        1,
        "db-1 (claims data-db-1): 0/2 nodes are available: 2 node(s) " + PINNED + ".",
        id="under OrderedReady the count stops at the first copy whose volume no node reaches",
    ),
    pytest.param(
        _statefulset(3, podManagementPolicy="Parallel"),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-1", "pv-z9")],
        Verdict.PARTIAL,
        2,
        "db-1 (claims data-db-1): 0/2 nodes are available: 2 node(s) " + PINNED + ".",
        id="under Parallel every copy is tried and the first that fits nowhere is named",
    ),
    pytest.param(
        _statefulset(2),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-2", "pv-z9")],
        Verdict.YES,
        2,
        None,
        id="a claim at or beyond replicas is ignored",
    ),
    pytest.param(
        _statefulset(2, template_class="now"),
        [_bound("data-db-0", "pv-z1")],
        Verdict.PARTIAL,
        1,
        "db-1 (claims data-db-1): 0/2 nodes are available: "
        "pod has unbound immediate PersistentVolumeClaims.",
        id="a claim created of an Immediate class is unbound when its copy is scheduled",
    ),
    pytest.param(
        _statefulset(2, template_class="now"),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-1", "pv-z1")],
        Verdict.YES,
        2,
        None,
        id="an existing claim is used as it is, even of another class than the template's",
    ),
    pytest.param(
        _statefulset(2, ordinals={"start": 3}),
        [_bound("data-db-3", "pv-z1"), _bound("data-db-4", "pv-z9")],
        Verdict.PARTIAL,
        1,
        "db-4 (claims data-db-4): 0/2 nodes are available: 2 node(s) " + PINNED + ".",
        id="the copies are the ordinals from spec.ordinals.start, each with its claims",
    ),
    pytest.param(
        _statefulset(2, ordinals={"start": 3}),
        [_bound("data-db-0", "pv-z9"), _bound("data-db-1", "pv-z9"), _bound("data-db-5", "pv-z9")],
        Verdict.YES,
        2,
        None,
        id="claims of ordinals below spec.ordinals.start or past its copies are ignored",
    ),
]


@pytest.mark.parametrize(("statefulset", "claims", "verdict", "fit", "message"), CASES)
def test_each_copy_mounts_its_own_claims(
    statefulset: dict[str, Any],
    claims: list[dict[str, Any]],
    verdict: Verdict,
    fit: int,
    message: str | None,
) -> None:
    result = _run(statefulset, *claims)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.message) == (verdict, fit, message)


@pytest.mark.parametrize(
    ("spec", "created"),
    [
        pytest.param({}, ["data-db-0", "data-db-1"], id="the controller creates ordinals 0 on"),
        pytest.param(
            {"ordinals": {"start": 5}},
            ["data-db-5", "data-db-6"],
            id="from spec.ordinals.start when set",
        ),
    ],
)
def test_the_claims_the_controller_creates(spec: dict[str, Any], created: list[str]) -> None:
    made = statefulset_claims(_statefulset(2, **spec), set(), {"wait": WAIT})
    assert sorted(name for _, name in made) == created


LOCAL = LOCAL_CLASS
NOT_BOUND = "node(s) didn't find available persistent volumes to bind"
EXCEED = "node(s) exceed max volume count"


OTHER = "file.csi.azure.com"


def _csi_node(node: str, count: int, driver_name: str = "disk.csi.azure.com") -> dict[str, Any]:
    driver = {"name": driver_name, "nodeID": node, "allocatable": {"count": count}}
    return {"metadata": {"name": node}, "spec": {"drivers": [driver]}}


def _copies(statefulset: dict[str, Any], nodes: list[str], **storage: list[dict[str, Any]]) -> Any:
    recorded: dict[str, Any] = {
        "persistentVolumes": [],
        "persistentVolumeClaims": [],
        "storageClasses": [WAIT, LOCAL],
        **storage,
    }
    snapshot = cluster_snapshot([api_node(n, labels={HOST: n}) for n in nodes], **recorded)
    report = check(
        [Document(Location("db.yaml", 1), statefulset)],
        build_snapshot(snapshot, "s.json"),
        RunOptions(),
    )
    (result,) = report.results
    return result


# pkg/scheduler/framework/plugins/volumebinding/binder.go AssumePodVolumes: the volume a
# copy's new claim matched is bound to it in the scheduler's cache before the next copy
LOCAL_CASES = [
    pytest.param(
        _statefulset(3, template_class="local"),
        ["n-a", "n-b"],
        {"persistentVolumes": [local_volume("pv-a", "n-a"), local_volume("pv-b", "n-b")]},
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/2 nodes are available: 2 {NOT_BOUND}."),
        id="a local volume goes to one copy only, so the third copy finds none to bind",
    ),
    pytest.param(
        _statefulset(2, template_class="local"),
        ["n-a", "n-b"],
        {"persistentVolumes": [local_volume("pv-a", "n-a"), local_volume("pv-b", "n-b")]},
        (Verdict.YES, 2, None),
        id="as many local volumes as copies take every copy",
    ),
    pytest.param(
        _statefulset(3, template_class="local"),
        ["n-a", "n-b"],
        {"persistentVolumes": [local_volume("pv-a1", "n-a"), local_volume("pv-a2", "n-a")]},
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/2 nodes are available: 2 {NOT_BOUND}."),
        id="two local volumes on one node take two copies there and no third",
    ),
    pytest.param(
        _statefulset(3, template_class="local", podManagementPolicy="Parallel"),
        ["n-a"],
        {"persistentVolumes": [local_volume("pv-a", "n-a")]},
        (Verdict.PARTIAL, 1, f"db-1 (claims data-db-1): 0/1 nodes are available: 1 {NOT_BOUND}."),
        id="under Parallel a copy that found no volume takes none from the next",
    ),
]


def _static(ordinal: int, driver: str, claim_class: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Copy ``ordinal``'s claim bound to a volume of ``driver``, both of ``claim_class``."""
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    name, volume = f"data-db-{ordinal}", f"pv-{ordinal}"
    claim = {
        "metadata": {"name": name, "namespace": "db", "annotations": notes},
        "spec": {"volumeName": volume, "storageClassName": claim_class},
    }
    source = {"driver": driver, "volumeHandle": volume}
    spec = {"csi": source, "storageClassName": claim_class, "capacity": {"storage": "1Gi"}}
    return claim, {"metadata": {"name": volume}, "spec": spec, "status": {"phase": "Bound"}}


def _statics(driver: str, claim_class: str) -> dict[str, list[dict[str, Any]]]:
    pairs = [_static(i, driver, claim_class) for i in range(3)]
    return {
        "persistentVolumeClaims": [c for c, _ in pairs],
        "persistentVolumes": [v for _, v in pairs],
        "csiNodes": [_csi_node("n-a", 2)],
    }


# pkg/scheduler/framework/plugins/nodevolumelimits/csi.go filterAttachableVolumes: the
# pods on the node, the copies assumed there among them, count their claims, an unbound
# WaitForFirstConsumer one through its class's provisioner, a bound one through its
# volume's driver (getCSIDriverInfo), whatever its class
LIMIT_CASES = [
    pytest.param(
        _statefulset(3),
        ["n-a"],
        {"csiNodes": [_csi_node("n-a", 2)]},
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/1 nodes are available: 1 {EXCEED}."),
        id="the copies placed before count against the attach limit of their node",
    ),
    pytest.param(
        _statefulset(3),
        ["n-a", "n-b"],
        {"csiNodes": [_csi_node("n-a", 1), _csi_node("n-b", 1)]},
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/2 nodes are available: 2 {EXCEED}."),
        id="one volume a node takes one copy on each node and no third",
    ),
    pytest.param(
        _statefulset(3),
        ["n-a", "n-b"],
        {"csiNodes": [_csi_node("n-a", 2), _csi_node("n-b", 1)]},
        (Verdict.YES, 3, None),
        id="copies fill the room the attach limits leave across nodes",
    ),
    pytest.param(
        _statefulset(3),
        ["n-a"],
        _statics("disk.csi.azure.com", ""),
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/1 nodes are available: 1 {EXCEED}."),
        id="existing claims of no class count against the limit of their volumes' driver",
    ),
    pytest.param(
        _statefulset(3),
        ["n-a"],
        _statics("disk.csi.azure.com", "gone"),
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/1 nodes are available: 1 {EXCEED}."),
        id="existing claims of a class not found count as their volumes' driver",
    ),
    pytest.param(
        _statefulset(3),
        ["n-a"],
        {**_statics(OTHER, "wait"), "csiNodes": [_csi_node("n-a", 2, OTHER)]},
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/1 nodes are available: 1 {EXCEED}."),
        id="existing claims count as their volumes' driver, not their class's provisioner",
    ),
]


@pytest.mark.parametrize(("statefulset", "nodes", "storage", "expected"), LOCAL_CASES + LIMIT_CASES)
def test_copies_take_volumes_from_those_after_them(
    statefulset: dict[str, Any],
    nodes: list[str],
    storage: dict[str, list[dict[str, Any]]],
    expected: tuple[Verdict, int, str | None],
) -> None:
    result = _copies(statefulset, nodes, **storage)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.message) == expected


def _sized(cpu: str) -> list[dict[str, Any]]:
    """Node n-z1 with room for four copies of 500m, n-z2 with room for ``cpu``."""
    return [
        api_node("n-z1", cpu="2", labels={ZONE: "z1"}),
        api_node("n-z2", cpu=cpu, labels={ZONE: "z2"}),
    ]


def _pinned(replicas: int, nodes: list[dict[str, Any]], *zones: str) -> Any:
    """Copies of 500m whose claims are bound to volumes in ``zones``, one by ordinal."""
    statefulset = _statefulset(replicas)
    statefulset["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"] = {
        "cpu": "500m"
    }
    storage: dict[str, Any] = {
        "persistentVolumes": [_volume(f"pv-{i}", z) for i, z in enumerate(zones)],
        "persistentVolumeClaims": [_bound(f"data-db-{i}", f"pv-{i}") for i in range(len(zones))],
        "storageClasses": [WAIT],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    report = check([Document(Location("db.yaml", 1), statefulset)], snapshot, RunOptions())
    (result,) = report.results
    return result


ROOM = "Insufficient cpu"
# schedule_one.go assumes each copy on its node (the cache's AssumePod) before the next: a
# copy whose claim pins it to another node than the first's takes its room there
PINNED_ROOM_CASES = [
    pytest.param(
        _sized("700m"),
        ("z1", "z2", "z2"),
        (Verdict.PARTIAL, 2, f"db-2 (claims data-db-2): 0/2 nodes are available: 1 {ROOM}, 1 "),
        id="two copies pinned to a zone with room for one: the second fits no node",
    ),
    pytest.param(
        _sized("1200m"),
        ("z1", "z2", "z2"),
        (Verdict.YES, 3, None),
        id="two copies pinned to a zone with room for both: every copy fits",
    ),
    pytest.param(
        _sized("700m"),
        ("z2", "z1", "z1"),
        (Verdict.YES, 3, None),
        id="the first copy pinned alone to the small zone: the rest fit beside each other",
    ),
]


@pytest.mark.parametrize(("nodes", "zones", "expected"), PINNED_ROOM_CASES)
def test_a_copy_pinned_elsewhere_takes_its_room_there(
    nodes: list[dict[str, Any]], zones: tuple[str, ...], expected: tuple[Verdict, int, str | None]
) -> None:
    verdict, fit, message = expected
    result = _pinned(3, nodes, *zones)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit) == (verdict, fit)
    assert result.message == message or result.message.startswith(str(message))


ZONES = ("z1", "z2", "z3")
ZONE_SPREAD = {
    "maxSkew": 1,
    "topologyKey": ZONE,
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "db"}},
}
ZONE_APART = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": "db"}}}
        ]
    }
}
NODE_APART = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": HOST, "labelSelector": {"matchLabels": {"app": "db"}}}
        ]
    }
}


def _zoned(pod: dict[str, Any], zones: tuple[str, ...], cpu: str = "100m", **spec: Any) -> Any:
    """Three copies, one node in each of three zones, copy i's claim bound in ``zones[i]``."""
    statefulset = _statefulset(len(zones), **spec)
    template = statefulset["spec"]["template"]["spec"]
    template.update(pod)
    template["containers"][0]["resources"]["requests"] = {"cpu": cpu}
    nodes = [api_node(f"n-{z}", labels={ZONE: z, HOST: f"n-{z}"}) for z in ZONES]
    storage: dict[str, Any] = {
        "persistentVolumes": [_volume(f"pv-{i}", z) for i, z in enumerate(zones)],
        "persistentVolumeClaims": [_bound(f"data-db-{i}", f"pv-{i}") for i in range(len(zones))],
        "storageClasses": [WAIT],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    report = check([Document(Location("db.yaml", 1), statefulset)], snapshot, RunOptions())
    (result,) = report.results
    return result


# schedule_one.go places each copy with its own claims beside the copies assumed before it:
# PodTopologySpread's and InterPodAffinity's PreFilters count those copies, NodeResourcesFit
# their room; copies whose volumes lie in one zone each take one node in each
ZONED_CASES = [
    pytest.param(
        {"topologySpreadConstraints": [ZONE_SPREAD]},
        ZONES,
        "100m",
        {},
        (Verdict.YES, 3),
        id="copies spread by zone whose volumes lie one in each zone all fit",
    ),
    pytest.param(
        {"affinity": ZONE_APART},
        ZONES,
        "100m",
        {},
        (Verdict.YES, 3),
        id="copies kept apart by zone whose volumes lie one in each zone all fit",
    ),
    pytest.param(
        {"affinity": NODE_APART},
        ZONES,
        "100m",
        {},
        (Verdict.YES, 3),
        id="copies kept apart by node whose volumes lie one in each zone all fit",
    ),
    pytest.param(
        {},
        ZONES,
        "3",
        {},
        (Verdict.YES, 3),
        id="copies each filling a node whose volumes lie one in each zone all fit",
    ),
    pytest.param(
        {"topologySpreadConstraints": [ZONE_SPREAD]},
        ("z1", "z1", "z2"),
        "100m",
        {},
        (Verdict.PARTIAL, 1),
        id="a second copy whose volume is in the first one's zone is refused by skew",
    ),
    pytest.param(
        {"topologySpreadConstraints": [ZONE_SPREAD]},
        ("z1", "z1", "z2"),
        "100m",
        {"podManagementPolicy": "Parallel"},
        (Verdict.PARTIAL, 2),
        id="under Parallel the copy after the one refused by skew still fits",
    ),
    pytest.param(
        {"affinity": ZONE_APART},
        ("z1", "z1", "z2"),
        "100m",
        {},
        (Verdict.PARTIAL, 1),
        id="a second copy whose volume is in the first one's zone is refused by anti-affinity",
    ),
]


@pytest.mark.parametrize(("pod", "zones", "cpu", "spec", "expected"), ZONED_CASES)
def test_copies_are_placed_one_by_one_each_with_its_own_claims(
    pod: dict[str, Any],
    zones: tuple[str, ...],
    cpu: str,
    spec: dict[str, Any],
    expected: tuple[Verdict, int],
) -> None:
    result = _zoned(pod, zones, cpu, **spec)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit) == expected


ZONAL = {
    "metadata": {"name": "zonal"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
    "allowedTopologies": [{"matchLabelExpressions": [{"key": ZONE, "values": ["z1"]}]}],
}
SPREAD = {
    "maxSkew": 1,
    "topologyKey": ZONE,
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "db"}},
}
SKEWED = "node(s) didn't match pod topology spread constraints"
NO_TOPOLOGY = "node(s) didn't find available persistent volumes to bind"
# the PostFilters' part of the FitError: DynamicResources', then DefaultPreemption's (the
# node refused by skew alone has no victim; the other's reason preemption cannot help)
POST_FILTERS = (
    " no new claims to deallocate, preemption: 0/2 nodes are available: "
    "1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
)


def _spread(kind: str, replicas: int, template_class: str = "zonal") -> dict[str, Any]:
    """A workload spread by zone whose claims only zone z1 can hold: a StatefulSet's own,
    or one claim every copy of a Deployment mounts."""
    workload = _statefulset(replicas, template_class=template_class)
    pod = workload["spec"]["template"]["spec"]
    pod["topologySpreadConstraints"] = [SPREAD]
    if kind == "Deployment":
        workload["kind"] = "Deployment"
        del workload["spec"]["volumeClaimTemplates"]
        pod["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    return workload


def _zones(workload: dict[str, Any], running: int, *claims: dict[str, Any]) -> Any:
    """Nodes in zones z1 and z2, with ``running`` pods of the workload's labels in z1."""
    pods = [api_pod(f"old-{i}", "n-z1", namespace="db") for i in range(running)]
    for pod in pods:
        pod["metadata"]["labels"] = {"app": "db"}
    recorded: dict[str, Any] = {
        "persistentVolumes": [_volume("pv-z1", "z1")],
        "persistentVolumeClaims": list(claims),
        "storageClasses": [WAIT, ZONAL],
    }
    nodes = [api_node(f"n-{z}", labels={ZONE: z}) for z in ("z1", "z2")]
    snapshot = build_snapshot(cluster_snapshot(nodes, pods, **recorded), "s.json")
    report = check([Document(Location("db.yaml", 1), workload)], snapshot, RunOptions())
    (result,) = report.results
    return result


# pkg/scheduler/framework/plugins/podtopologyspread/filtering.go calPreFilterState counts
# the domains of every node nodeInclusionPolicies admit (node affinity, taints), not of the
# nodes the volume filters pass: zone z2, where no claim can bind, counts at 0 pods
SPREAD_CASES = [
    pytest.param(
        _spread("Deployment", 1),
        1,
        [{**_bound("data", "pv-z1")}],
        (Verdict.NO, 0, f"0/2 nodes are available: 1 node(s) {PINNED}, 1 {SKEWED}.{POST_FILTERS}"),
        id="a zone no node can bind the volume in still counts at 0 pods and blocks by skew",
    ),
    pytest.param(
        _spread("Deployment", 3),
        0,
        [{**_bound("data", "pv-z1")}],
        (Verdict.PARTIAL, 1, None),
        id="copies pinned to one zone by a shared claim stop at the skew the empty zone allows",
    ),
    pytest.param(
        _spread("StatefulSet", 3),
        0,
        [],
        (Verdict.PARTIAL, 1, None),
        id="copies whose new claims only one zone provisions stop at that skew too",
    ),
    pytest.param(
        _spread("StatefulSet", 3),
        1,
        [],
        (Verdict.NO, 0, f"0/2 nodes are available: 1 {NO_TOPOLOGY}, 1 {SKEWED}.{POST_FILTERS}"),
        id="a first copy whose new claim only the crowded zone provisions fits nowhere",
    ),
]


@pytest.mark.parametrize(("workload", "running", "claims", "expected"), SPREAD_CASES)
def test_volume_filters_do_not_shrink_a_spreads_domains(
    workload: dict[str, Any],
    running: int,
    claims: list[dict[str, Any]],
    expected: tuple[Verdict, int, str | None],
) -> None:
    result = _zones(workload, running, *claims)
    fit = 0 if result.placement is None else result.placement.fit
    message = result.message if expected[2] is not None else None
    assert (result.verdict, fit, message) == expected


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param({}, (Verdict.YES, 3), id="under an empty selector no copy placed counts"),
        pytest.param(
            {"matchLabels": {"app": "db"}},
            (Verdict.PARTIAL, 1),
            id="under a selector the copies match each copy placed counts",
        ),
    ],
)
def test_copies_placed_one_by_one_count_in_a_spread_only_under_a_selector_that_counts_them(
    selector: dict[str, Any], expected: tuple[Verdict, int]
) -> None:
    """podtopologyspread/common.go countPodsMatchSelector counts no pod under an empty
    selector: the copies bound before the next one raise no domain, and every copy's new
    claim, which only zone z1 provisions, lands there."""
    workload = _spread("StatefulSet", 3)
    workload["spec"]["template"]["spec"]["topologySpreadConstraints"] = [
        {**SPREAD, "labelSelector": selector}
    ]
    result = _zones(workload, 0)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit) == expected


def _none_hinted(evaluator: Evaluator, cycle: object, walk: object, hint: int) -> None:
    """No node looked for first: every copy's whole answer is worked out."""
    return None


@settings(max_examples=40, deadline=None)
@given(
    zones=st.lists(st.sampled_from(["z1", "z2", "z9", None]), min_size=1, max_size=5),
    replicas=st.integers(1, 5),
    parallel=st.booleans(),
    template_class=st.sampled_from(["wait", "now"]),
)
def test_a_later_copy_looked_for_first_where_the_first_fits_is_counted_as_its_whole_answer(
    zones: list[str | None], replicas: int, parallel: bool, template_class: str
) -> None:
    """Each copy's claim bound to a volume in a zone (None: no claim yet, one is made)."""
    policy = {"podManagementPolicy": "Parallel"} if parallel else {}
    statefulset = _statefulset(replicas, template_class, **policy)
    claims = [_bound(f"data-db-{i}", f"pv-{z}") for i, z in enumerate(zones) if z is not None]
    hinted = _run(statefulset, *claims)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Evaluator, "_hinted", _none_hinted)
        assert _run(statefulset, *claims) == hinted


@pytest.mark.parametrize(
    "volumes",
    [
        pytest.param([], id="a copy of a pod that mounts nothing but its claims"),
        pytest.param(
            [
                {"name": "data", "emptyDir": {}},
                {"name": "cache", "persistentVolumeClaim": {"claimName": "shared"}},
            ],
            id="a copy whose template volume replaces one of its name, beside a shared claim",
        ),
        pytest.param(
            [{"name": "disk", "azureDisk": {"diskName": "d", "diskURI": "u", "kind": "Managed"}}],
            id="a copy beside an inline disk",
        ),
    ],
)
def test_a_copys_profile_is_the_one_its_own_spec_gives(volumes: list[dict[str, Any]]) -> None:
    """A later copy's profile is the first copy's with its own volumes read again: what
    profiling its whole spec gives."""
    spec = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
        "volumes": volumes,
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "db"}},
            }
        ],
    }
    workload = Workload(
        kind="StatefulSet",
        namespace="app",
        name="db",
        location=Location("m.yaml", 1),
        pod_spec=spec,
        replicas=3,
        labels={"app": "db"},
        claim_templates=("data",),
    )
    first = Pod(spec, pod_profile(spec, "app", {"app": "db"}), ())
    copy = ordinal_pod(first, workload, 2)
    assert copy.profile == pod_profile(copy.spec, "app", {"app": "db"})
    assert copy.profile.claims != first.profile.claims


BINDS_FIRST = "in a live cluster the PersistentVolume controller binds it before its pod"


@pytest.mark.parametrize(
    ("template_class", "claims", "said"),
    [
        pytest.param("now", [], ["data-db-0"], id="a first copy's new Immediate claim is said"),
        pytest.param(
            "now",
            [_bound("data-db-0", "pv-z1")],
            ["data-db-1"],
            id="the new Immediate claim of the copy that does not start is said",
        ),
        pytest.param(
            "wait", [], [], id="a new WaitForFirstConsumer claim is provisioned: nothing said"
        ),
        pytest.param(
            "now",
            [
                _bound("data-db-0", "pv-z1"),
                {"metadata": {"name": "data-db-1", "namespace": "db"}, "spec": {}},
            ],
            [],
            id="a recorded unbound claim of no class is not the run's: nothing said",
        ),
    ],
)
def test_a_new_immediate_claim_is_said_to_bind_first_in_a_live_cluster(
    template_class: str, claims: list[dict[str, Any]], said: list[str]
) -> None:
    result = _run(_statefulset(2, template_class=template_class), *claims)
    found = [w.text.split('"')[1] for w in result.warnings if BINDS_FIRST in w.text]
    assert found == said


@settings(max_examples=30, deadline=None)
@given(
    limits=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    replicas=st.integers(1, 5),
    attached=st.integers(0, 3),
)
def test_copies_tracked_from_the_first_tight_node_count_as_tracked_from_the_start(
    limits: list[int], replicas: int, attached: int
) -> None:
    """Volumes the copies take are tracked once a copy lands where they can matter; tracking
    them from the first copy on counts the same."""
    nodes = [f"n-{i}" for i in range(len(limits))]
    mounted = [
        api_pod(
            f"old-{i}",
            nodes[0],
            namespace="db",
            volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": f"old-{i}"}}],
        )
        for i in range(attached)
    ]
    olds = [_static(i, "disk.csi.azure.com", "wait") for i in range(attached)]
    for claim, volume in olds:
        claim["metadata"]["name"] = claim["metadata"]["name"].replace("data-db", "old")
        volume["spec"]["csi"]["volumeHandle"] += "-old"
        volume["metadata"]["name"] += "-old"
        claim["spec"]["volumeName"] = volume["metadata"]["name"]
    recorded: dict[str, Any] = {
        "persistentVolumes": [v for _, v in olds],
        "persistentVolumeClaims": [c for c, _ in olds],
        "storageClasses": [WAIT],
        "csiNodes": [_csi_node(n, limit) for n, limit in zip(nodes, limits, strict=True)],
    }
    snapshot = build_snapshot(
        cluster_snapshot([api_node(n, labels={HOST: n}) for n in nodes], mounted, **recorded),
        "s.json",
    )
    document = Document(Location("db.yaml", 1), _statefulset(replicas))
    lazily = check([document], snapshot, RunOptions()).results
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Reach, "tight", lambda self, cluster, position: True)
        assert check([document], snapshot, RunOptions()).results == lazily


def test_the_autoscalers_plan_after_the_copies_where_they_were_placed_one_by_one() -> None:
    """Copy 0 in z1, copy 1 in z2 (its volume's zone); copy 2, pinned to z2, finds no room:
    Karpenter's zonal rules start from one copy in each of z1 and z2, not from where the
    count of copies alike put them."""
    seen: list[Mapping[str, int] | None] = []
    original = Evaluator._scaled_up

    def scaled_up(
        self: Evaluator,
        result: Any,
        pod: Pod,
        cycle: Any,
        zones: Mapping[str, int] | None = None,
        own: Sequence[int] = (),
    ) -> Any:
        seen.append(zones)
        return original(self, result, pod, cycle, zones, own)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Evaluator, "_scaled_up", scaled_up)
        result = _pinned(3, _sized("700m"), "z1", "z2", "z2")
    assert (result.verdict, dict(seen[-1] or {})) == (Verdict.PARTIAL, {"z1": 1, "z2": 1})


@pytest.mark.parametrize(
    ("alone", "together", "copies", "expected"),
    [
        pytest.param(3, None, 2, (2, None), id="fewer copies cap the count"),
        pytest.param(1, None, 3, (3, None), id="more copies raise the count alone"),
        pytest.param(1, 1, 3, (3, 3), id="beside other new workloads that took nothing, as many"),
        pytest.param(2, 1, 3, (3, 2), id="beside others that took one copy's room, one fewer"),
    ],
)
def test_the_copies_placed_one_by_one_recount_the_placement(
    alone: int, together: int | None, copies: int, expected: tuple[int, int | None]
) -> None:
    placement = ReplicaFit(wanted=3, alone=alone, together=together, most=3)
    found = recounted(placement, copies)
    assert (found.alone, found.together) == expected
    kept_alone, kept_together = expected
    assert found.fit == (kept_alone if kept_together is None else min(kept_alone, kept_together))
