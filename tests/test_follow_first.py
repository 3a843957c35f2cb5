"""Copies held to the first one's domain: a template's required pod affinity to its own
labels lets the first copy land anywhere while no pod matches the terms (satisfyPodAffinity,
the first pod of a group), and every later copy must share its domain."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.k8s.version import Dialect, dialect_for
from gate.model import ExistingPod, Location, NodeView, Snapshot, SnapshotInfo, Verdict, Workload
from gate.model.autoscaling import AutoscalingConfig, ConfiguredGroup
from gate.scheduler.autoscaling.clusterautoscaler.decision import decide
from gate.scheduler.autoscaling.clusterautoscaler.limits import Headroom
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.placement.copies import CopyRules, place, place_range
from gate.scheduler.plugins import prepare
from gate.scheduler.plugins.interpodaffinity.copies import after_first_copy
from gate.snapshot.load import build_snapshot
from tests.autoscaler_support import VERSION, Run
from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node, cluster_snapshot, container, existing_pod, node, pod_term

TOGETHER = {
    "affinity": {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [pod_term("app", "In", ["db"])]
        }
    }
}


def zones(*free: int) -> list[NodeView]:
    """Two nodes per zone, zone i's with ``free[i]`` CPUs each."""
    return [
        node(
            f"n{z}{k}",
            cpu=cpus * 1000,
            labels={"kubernetes.io/hostname": f"n{z}{k}", "zone": f"z{z}"},
        )
        for z, cpus in enumerate(free)
        for k in range(2)
    ]


def evaluate(nodes: list[NodeView], pods: list[ExistingPod], replicas: int) -> Any:
    info = SnapshotInfo("s.json", None, None, None, "v1.34.1", len(nodes), len(pods))
    snap = Snapshot(info=info, nodes=tuple(nodes), pods=tuple(pods), namespaces=None)
    work = Workload(
        kind="Deployment",
        namespace="default",
        name="db",
        location=Location("w.yaml", 1),
        replicas=replicas,
        pod_spec={"containers": [container(requests={"cpu": "1"})], **TOGETHER},
        labels={"app": "db"},
    )
    return Evaluator.for_snapshot(snap, Dialect(named_taint=True)).evaluate(work)


@pytest.mark.parametrize(
    ("free", "fit", "most"),
    [
        pytest.param((4, 4, 4), 8, None, id="twenty copies on three zones of eight fit eight"),
        # schedule_one.go prioritizeNodes: the first copy scores highest on the emptiest
        # nodes (LeastAllocated, BalancedAllocation), so it takes z0, and no draw can
        # take another zone.
        pytest.param((4, 2, 3), 8, None, id="the first copy takes the best scored zone"),
        pytest.param((2, 4), 8, None, id="the best scored zone need not come first"),
    ],
)
def test_later_copies_stay_in_the_first_copys_zone(
    free: tuple[int, ...], fit: int, most: int | None
) -> None:
    result = evaluate(zones(*free), [], 20)
    assert result.verdict is Verdict.PARTIAL
    assert (result.placement.fit, result.placement.most) == (fit, most)
    assert "didn't match pod affinity rules" in (result.message or "")


def test_a_tie_for_the_first_copy_between_zones_of_unequal_room_gives_a_range() -> None:
    # selectHost draws among n00, n01 and n10, alike for the first copy: z0 holds 8 copies,
    # z1 4.
    nodes = zones(4, 4)[:3]
    result = evaluate(nodes, [], 20)
    assert (result.placement.fit, result.placement.most) == (4, 8)


def test_copies_that_fit_in_one_zone_all_fit() -> None:
    result = evaluate(zones(4, 4, 4), [], 8)
    assert result.verdict is Verdict.YES
    assert result.placement.fit == 8


def test_a_template_whose_affinity_matches_existing_pods_keeps_to_their_zones() -> None:
    pods = [
        existing_pod("n00", {"app": "db"}, name="a"),
        existing_pod("n20", {"app": "db"}, name="b"),
    ]
    result = evaluate(zones(4, 4, 4), pods, 20)
    assert result.placement.fit == 16
    assert result.placement.most is None


def test_copies_held_to_the_first_domain_ignore_nodes_without_its_key() -> None:
    nodes = [*zones(4, 4), node("bare", cpu=40_000, labels={"kubernetes.io/hostname": "bare"})]
    rules = CopyRules(requests={"cpu": 1000}, follow_first=("zone",))
    assert place_range(20, nodes, rules).least == 8
    assert place(20, nodes, rules).fit == 8
    assert place_range(20, nodes, replace(rules, follow_first=())).least == 20


def test_past_a_hundred_nodes_the_copies_still_follow_the_first() -> None:
    nodes = [
        node(f"n{i}", cpu=1000, labels={"kubernetes.io/hostname": f"n{i}", "zone": f"z{i % 3}"})
        for i in range(600)
    ]
    result = evaluate(nodes, [], 300)
    assert result.verdict is Verdict.PARTIAL
    assert result.placement.fit == 200


def test_cluster_autoscaler_adds_nodes_only_in_the_first_copys_zone() -> None:
    nodes = [
        api_node(f"n-{z}", labels={"pool": z, "zone": z, "kubernetes.io/hostname": f"n-{z}"})
        for z in "abc"
    ]
    groups = [status_group(f"zone-{z}", target=1, max_size=10) for z in "abc"]
    config = AutoscalingConfig(
        groups=tuple(ConfiguredGroup(f"zone-{z}", match=("pool", z)) for z in "abc")
    )
    run = Run(nodes, [status_configmap(*groups)], config=config)
    wanted = {"containers": [container(requests={"cpu": "1"})], **TOGETHER}
    profile = pod_profile(wanted, "default", {"app": "db"})
    cycle = prepare(profile, run.cluster)
    spread_out = decide(cycle, profile, 6, run.groups, run.used, run.dialect)
    assert {up.group for up in spread_out.scale_up} != {"zone-b"}
    followed = after_first_copy(cycle, {"zone": "b"})
    kept = decide(followed, profile, 6, run.groups, Headroom(), run.dialect)
    assert {up.group for up in kept.scale_up} == {"zone-b"}


def test_copies_the_first_ones_zone_cannot_grow_into_do_not_scale_elsewhere() -> None:
    """Zone a, where the verdict's first copy lands, has no headroom; b and c have: the
    rest cannot follow it, so the answer stays PARTIAL (it was SCALES)."""
    nodes = [
        api_node(f"n-{z}", labels={"pool": z, "zone": z, "kubernetes.io/hostname": f"n-{z}"})
        for z in "abc"
    ]
    groups = [status_group(f"zone-{z}", target=1, max_size=1 if z == "a" else 10) for z in "abc"]
    config = AutoscalingConfig(
        groups=tuple(ConfiguredGroup(f"zone-{z}", match=("pool", z)) for z in "abc")
    )
    objects = cluster_snapshot(
        nodes, None, server_version=VERSION, configMaps=[status_configmap(*groups)]
    )
    snap = build_snapshot(objects, "s.json")
    work = Workload(
        kind="Deployment",
        namespace="default",
        name="db",
        location=Location("w.yaml", 1),
        replicas=20,
        pod_spec={"containers": [container(requests={"cpu": "1"})], **TOGETHER},
        labels={"app": "db"},
    )
    result = Evaluator.for_snapshot(snap, dialect_for(VERSION), config).evaluate(work)
    assert result.verdict is Verdict.PARTIAL
    assert result.placement is not None
    assert result.placement.fit == 4
