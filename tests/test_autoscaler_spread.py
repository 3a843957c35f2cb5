"""Copies with topology spread constraints over per-zone groups
(gate/scheduler/autoscaling/clusterautoscaler/
spread.py), through the decision and directly, as cluster-autoscaler-1.34.5's binpacking
estimator places them one pod at a time, the last added node first
(estimator/binpacking_estimator.go ``tryToScheduleOnNewNodes``), with the scheduler's
PodTopologySpread filter (podtopologyspread/filtering.go) seeing each copy already placed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.k8s.version import Dialect
from gate.model import POD_TOPOLOGY_SPREAD as SPREAD
from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.model.autoscaling import AutoscalingConfig, ConfiguredGroup, NodeTemplate, StatusGroup
from gate.scheduler.autoscaling.clusterautoscaler import decision as decision_module
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, ScaleUp
from gate.scheduler.autoscaling.clusterautoscaler.groups import NodeGroup
from gate.scheduler.autoscaling.clusterautoscaler.spread import Filling, spread_state
from gate.scheduler.autoscaling.clusterautoscaler.templates import Template
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState
from tests.autoscaler_support import Run, spec
from tests.autoscaling_objects import autoscaler_deployment, status_configmap, status_group
from tests.builders import api_node, node, prepared

ZONE = "topology.kubernetes.io/zone"
ZONES = ("a", "b", "c")
CONFIG = AutoscalingConfig(
    groups=tuple(ConfiguredGroup(f"zone-{z}", match=("pool", z)) for z in ZONES)
)
SKEW = "node(s) didn't match pod topology spread constraints"
APP = {"app": "web"}


def _run(targets: dict[str, int]) -> Run:
    nodes = [
        api_node(f"n-{z}", labels={"pool": z, ZONE: z, "kubernetes.io/hostname": f"n-{z}"})
        for z in ZONES
    ]
    groups = [status_group(f"zone-{z}", target=1, max_size=1 + targets[z]) for z in ZONES]
    return Run(nodes, [status_configmap(*groups)], config=CONFIG)


def _spread(key: str = ZONE, **constraint: Any) -> dict[str, Any]:
    rule = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule"}
    rule["labelSelector"] = {"matchLabels": APP}
    return spec(cpu="1", topologySpreadConstraints=[{**rule, **constraint}])


@pytest.mark.parametrize(
    ("headroom", "copies", "decision"),
    [
        pytest.param(
            {"a": 9, "b": 9, "c": 9},
            6,
            Decision(
                6,
                (
                    ScaleUp("zone-a", 1, 2, 1, 10),
                    ScaleUp("zone-b", 1, 2, 1, 10),
                    ScaleUp("zone-c", 1, 2, 1, 10),
                ),
                6,
                # the expander's options as one ScaleUp weighs them: each group's estimator
                # alone stops after one copy, its zone's next one over the skew
                options=tuple(ScaleUp(f"zone-{z}", 1, 1, 1, 10) for z in ZONES),
            ),
            id="six copies go two to each zone, one fresh node each",
        ),
        pytest.param(
            {"a": 9, "b": 0, "c": 0},
            4,
            Decision(
                4, (ScaleUp("zone-a", 1, 1, 1, 10),), 1, {"max node group size reached": 2, SKEW: 1}
            ),
            id="one zone with headroom takes one copy; the skew stops the rest",
        ),
    ],
)
def test_zonal_spread_over_per_zone_groups(
    headroom: dict[str, int], copies: int, decision: Decision
) -> None:
    assert _run(headroom).decide(_spread(), copies, APP) == decision


@pytest.mark.parametrize(
    ("selector", "placed"),
    [
        pytest.param({}, 4, id="under an empty selector the fresh nodes' copies count nowhere"),
        pytest.param({"matchLabels": APP}, 1, id="under a selector they match they count"),
    ],
)
def test_the_estimators_copies_count_in_a_spread_only_under_a_selector_that_counts_them(
    selector: dict[str, Any], placed: int
) -> None:
    """podtopologyspread/common.go countPodsMatchSelector counts no pod under an empty
    selector: the copies the estimator placed on fresh nodes raise no domain, so one zone's
    group takes every copy."""
    decision = _run({"a": 9, "b": 0, "c": 0}).decide(_spread(labelSelector=selector), 4, APP)
    assert decision.placed == placed


def test_hostname_spread_takes_a_fresh_node_per_copy_within_its_skew() -> None:
    """maxSkew 1 on the hostname, with empty existing nodes: each fresh node takes one copy."""
    assert _run({"a": 9, "b": 0, "c": 0}).decide(
        _spread("kubernetes.io/hostname"), 3, APP
    ) == Decision(3, (ScaleUp("zone-a", 3, 3, 1, 10),), 3)


MAX_SIZE = "max node group size reached"
MEMBERS = [node(f"n-{z}", labels={ZONE: z, HOSTNAME: f"n-{z}"}) for z in ZONES[:2]]


def _helping(zones: tuple[str, ...]) -> list[tuple[NodeGroup, Template]]:
    """A group per zone, each with a fresh node's template of 4 cpus."""
    helping = []
    for zone in zones:
        name = f"template-node-for-zone-{zone}"
        view = node(name, labels={ZONE: zone, HOSTNAME: name})
        group = NodeGroup(StatusGroup(f"zone-{zone}", "Healthy", 1, 0, 10), (f"n-{zone}",), None)
        helping.append((group, Template(view, 4, 8 * 2**30, "test")))
    return helping


Placed = tuple[dict[str, tuple[int, int]], int, dict[str, tuple[str, ...]], list[str]]

FILLING: list[tuple[str, str, int, dict[str, int], int, Placed]] = [
    (
        "copies alternate zones, two to a fresh node, within maxSkew 1",
        ZONE,
        2,
        {"a": 9, "b": 9},
        4,
        ({"zone-a": (1, 2), "zone-b": (1, 2)}, 4, {}, ["zone-a", "zone-b"]),
    ),
    (
        "a zone out of headroom stops the copies at the skew, each group saying why",
        ZONE,
        2,
        {"a": 9, "b": 0},
        3,
        (
            {"zone-a": (1, 1), "zone-b": (0, 0)},
            1,
            {"zone-a": (SKEW,), "zone-b": (MAX_SIZE,)},
            ["zone-a"],
        ),
    ),
    (
        "a hostname spread takes a fresh node per copy, each its own domain",
        HOSTNAME,
        4,
        {"a": 9, "b": 9},
        3,
        ({"zone-a": (3, 3), "zone-b": (0, 0)}, 3, {}, ["zone-a"] * 3),
    ),
    (
        "a hostname spread stops where the headroom does",
        HOSTNAME,
        4,
        {"a": 1, "b": 1},
        3,
        (
            {"zone-a": (1, 1), "zone-b": (1, 1)},
            2,
            {"zone-a": (MAX_SIZE,), "zone-b": (MAX_SIZE,)},
            ["zone-a", "zone-b"],
        ),
    ),
]


@pytest.mark.parametrize(
    ("key", "per_node", "headroom", "copies", "expected"),
    [c[1:] for c in FILLING],
    ids=[c[0] for c in FILLING],
)
def test_filling_places_copies_one_at_a_time(
    key: str, per_node: int, headroom: dict[str, int], copies: int, expected: Placed
) -> None:
    pod = pod_profile(_spread(key), labels=APP)
    cycle = prepared(pod, *MEMBERS)
    state = spread_state(cycle)
    assert state is not None
    left = {f"zone-{z}": n for z, n in headroom.items()}
    added: list[str] = []

    def limit(group: NodeGroup, template: Template) -> tuple[int, str]:
        return left[group.id], MAX_SIZE

    def add(group: NodeGroup, template: Template) -> None:
        left[group.id] -= 1
        added.append(group.id)

    filling = Filling(cycle, pod, state, Dialect(), per_node)
    fresh, placed, why = filling.place(_helping(("a", "b")), copies, limit, add)
    got = {g: (f.nodes, f.copies) for g, f in fresh.items()}
    assert (got, placed, why, added) == expected


def test_a_pod_without_spread_constraints_has_no_spread_state() -> None:
    pod = pod_profile(spec(cpu="1"), labels=APP)
    assert spread_state(prepared(pod, *MEMBERS)) is None


@settings(max_examples=60, deadline=None)
@given(
    st.fixed_dictionaries({z: st.integers(0, 3) for z in ZONES}),
    st.sampled_from([ZONE, "kubernetes.io/hostname"]),
    st.integers(1, 2),
    st.integers(1, 4),
    st.sampled_from([APP, {"app": "other"}]),
    st.integers(1, 7),
)
def test_each_copy_lands_where_the_spread_filter_passes_it_with_the_fresh_nodes_and_copies(
    headroom: dict[str, int],
    key: str,
    max_skew: int,
    min_domains: int,
    labels: dict[str, str],
    copies: int,
) -> None:
    """Held to the real PodTopologySpread PreFilter and Filter copy by copy: each copy's
    fresh node passes them over the snapshot's nodes, the fresh nodes added so far (as CA
    adds them to its snapshot) and the copies before it bound."""
    run = _run(headroom)
    landed: list[dict[str, str]] = []
    counting, spreading = Filling._count, decision_module._spread
    placing = [False]  # the groups' own options are weighed with Filling too: not recorded

    def record(filling: Filling, node_labels: dict[str, str]) -> None:
        if placing[0]:
            landed.append(dict(node_labels))
        counting(filling, node_labels)

    def spread(*args: Any) -> Any:
        placing[0] = True
        try:
            return spreading(*args)
        finally:
            placing[0] = False

    pod_spec = _spread(key, maxSkew=max_skew, minDomains=min_domains)
    with (
        patch.object(Filling, "_count", record),
        patch.object(decision_module, "_spread", spread),
    ):
        placed = run.decide(pod_spec, copies, labels).placed
    assert placed == len(landed)
    profile = pod_profile(pod_spec, "default", labels)
    template = run.cluster.snapshot.nodes[0]
    fresh: dict[str, NodeView] = {}
    bound: list[ExistingPod] = []
    for number, node_labels in enumerate(landed):
        host = node_labels[HOSTNAME]
        fresh.setdefault(host, replace(template, name=host, labels=node_labels))
        nodes = (*run.cluster.snapshot.nodes, *fresh.values())
        info = SnapshotInfo("test", None, None, None, None, len(nodes), len(bound))
        snapshot = Snapshot(info=info, nodes=nodes, pods=tuple(bound), namespaces=None)
        state = next(
            p.state for p in prepare(profile, Cluster.of(snapshot)) if p.plugin.name == SPREAD
        )
        assert isinstance(state, SpreadState)
        assert state.filter(node_labels) is None
        bound.append(ExistingPod("default", f"copy-{number}", host, labels))


def test_each_group_s_option_for_spread_copies_is_what_its_estimator_alone_places() -> None:
    """orchestrator.go ComputeExpansionOption: each group's estimator places the copies on
    its own fresh nodes, copy by copy under the skew: one copy each here, whatever its
    template would pack. least-nodes then sees a tie (one node each), where packing the
    copies would have taken the bigger template's one node over the smaller's two."""
    sizes = {"a": 8000, "b": 1000}
    config = AutoscalingConfig(
        groups=tuple(
            ConfiguredGroup(
                f"zone-{z}",
                match=("pool", z),
                template=NodeTemplate(
                    labels={"pool": z, ZONE: z},
                    allocatable={"cpu": cpu, "memory": 8 * 2**30, "pods": 30},
                ),
            )
            for z, cpu in sizes.items()
        )
    )
    nodes = [api_node(f"n-{z}", labels={ZONE: z, HOSTNAME: f"n-{z}"}) for z in sizes]
    groups = [status_group(f"zone-{z}", target=0, max_size=5) for z in sizes]
    objects = [status_configmap(*groups), autoscaler_deployment("--expander=least-nodes")]
    decision = Run(nodes, objects, config=config).decide(_spread(), 2, APP)
    one_each = (ScaleUp("zone-a", 1, 1, 0, 5), ScaleUp("zone-b", 1, 1, 0, 5))
    assert (decision.scale_up, decision.placed, decision.options) == (one_each, 2, one_each)
