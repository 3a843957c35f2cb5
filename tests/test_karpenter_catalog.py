"""The instance-type catalog read from the nodes running in the cluster, when a run is given
none (gate/scheduler/autoscaling/karpenter/catalog.py: a node's allocatable
stands for its type, as pkg/cloudprovider/types.go ``InstanceType`` holds capacity less
overhead)."""

from __future__ import annotations

import pytest

from gate.model import NodeView
from gate.model.karpenter import InstanceType, Offering
from gate.scheduler.autoscaling.karpenter.catalog import capacity_of, running_catalog

GI = 2**30
TYPE = "node.kubernetes.io/instance-type"
ZONE = "topology.kubernetes.io/zone"
CAPACITY_TYPE = "karpenter.sh/capacity-type"


def _node(
    name: str,
    kind: str,
    zone: str | None = "zone-a",
    capacity_type: str | None = None,
    capacity: tuple[int, int] | None = (4, 8 * GI),
) -> NodeView:
    labels = {TYPE: kind, "kubernetes.io/arch": "arm64", "kubernetes.io/os": "linux"}
    if zone:
        labels[ZONE] = zone
    if capacity_type:
        labels[CAPACITY_TYPE] = capacity_type
    allocatable = {"cpu": 3900, "memory": 7 * GI, "pods": 58}
    return NodeView(name, labels, (), False, allocatable, {}, 0, capacity=capacity)


def _type(offerings: tuple[Offering, ...], overhead: dict[str, int]) -> InstanceType:
    capacity = {"cpu": 4000, "memory": 8 * GI, "pods": 58} if overhead else {}
    return InstanceType(
        "m-4x",
        {TYPE: "m-4x", "kubernetes.io/arch": "arm64"},
        ("linux",),
        capacity or {"cpu": 3900, "memory": 7 * GI, "pods": 58},
        overhead,
        offerings,
    )


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        pytest.param(
            [_node("n1", "m-4x")],
            _type((Offering("zone-a", "on-demand"),), {"cpu": 100, "memory": GI}),
            id="capacity less allocatable is the overhead; no capacity type label: on-demand",
        ),
        pytest.param(
            [
                _node("n2", "m-4x", "zone-b", "spot"),
                _node("n1", "m-4x", "zone-a"),
                _node("n3", "m-4x", "zone-b", "spot"),
            ],
            _type(
                (Offering("zone-a", "on-demand"), Offering("zone-b", "spot")),
                {"cpu": 100, "memory": GI},
            ),
            id="offerings: the zones and capacity types its nodes run in",
        ),
        pytest.param(
            [_node("n1", "m-4x", zone=None, capacity=None)],
            _type((Offering("", "on-demand"),), {}),
            id="no capacity recorded: no overhead; no zone: an offering in none",
        ),
    ],
)
def test_running_catalog(nodes: list[NodeView], expected: InstanceType) -> None:
    catalog = running_catalog(nodes)
    assert catalog.from_cluster
    assert catalog.types == (expected,)


def test_nodes_without_an_instance_type_are_left_out() -> None:
    bare = NodeView("bare", {}, (), False, {"cpu": 1000}, {}, 0)
    assert running_catalog([bare, _node("n1", "m-4x")]).types[0].name == "m-4x"
    assert len(running_catalog([bare]).types) == 0


CAPACITY: list[tuple[str, NodeView, dict[str, int]]] = [
    (
        "recorded capacity stands for cpu and memory, allocatable for the rest",
        NodeView(
            "n",
            {},
            (),
            False,
            {"cpu": 3900, "memory": 15 * GI, "pods": 58},
            {},
            0,
            capacity=(4, 16 * GI),
        ),
        {"cpu": 4000, "memory": 16 * GI, "pods": 58},
    ),
    (
        "no capacity recorded: the allocatable",
        NodeView("n", {}, (), False, {"cpu": 3900, "memory": 15 * GI}, {}, 0),
        {"cpu": 3900, "memory": 15 * GI},
    ),
    (
        "a capacity below the allocatable never shrinks it",
        NodeView("n", {}, (), False, {"cpu": 3900, "memory": 15 * GI}, {}, 0, capacity=(3, GI)),
        {"cpu": 3900, "memory": 15 * GI},
    ),
]


@pytest.mark.parametrize(
    ("node", "expected"), [c[1:] for c in CAPACITY], ids=[c[0] for c in CAPACITY]
)
def test_capacity_of(node: NodeView, expected: dict[str, int]) -> None:
    assert capacity_of(node) == expected
