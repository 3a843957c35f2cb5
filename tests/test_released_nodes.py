"""A node with a workload's own pods given back: their requests, pod slots, host ports and
non-zero requests go back, and everything else the node is stays as it was."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.model import ExistingPod, HostPort, NodeView, Taint
from gate.scheduler.framework.cluster import node_without
from gate.scheduler.placement.replicas import bitset, released_nodes

NODE = NodeView(
    name="n1",
    labels={"topology.kubernetes.io/zone": "z1"},
    taints=(Taint("spot", "true", "NoSchedule"),),
    unschedulable=True,
    allocatable={"cpu": 4000, "memory": 8 << 30, "pods": 110},
    requested={"cpu": 1500, "memory": 1 << 30, "example.com/gpu": 1},
    pod_count=3,
    used_ports=frozenset({HostPort("0.0.0.0", "TCP", 8080), HostPort("0.0.0.0", "UDP", 53)}),
    nonzero=(1600, (1 << 30) + (200 << 20)),
    capacity=(4, 8 << 30),
    scale_set="vmss-a",
)
GONE = ExistingPod(
    "app",
    "web-1",
    "n1",
    {"app": "web"},
    requests={"cpu": 500, "example.com/gpu": 1},
    ports=(HostPort("0.0.0.0", "TCP", 8080),),
    nonzero=(500, 200 << 20),
)


def test_every_field_of_a_node_view_is_set_in_the_example() -> None:
    """The example below sets each field away from its default: a field added to the view
    must be added here, so that the next test sees whether a release keeps it."""
    defaults = NodeView("", {}, (), False, {}, {}, 0)
    assert all(getattr(NODE, f.name) != getattr(defaults, f.name) for f in fields(NodeView))


def test_a_released_node_gives_back_the_pods_and_keeps_the_rest() -> None:
    released = released_nodes([NODE], [0], [GONE], [0])[0]
    assert released == replace(
        NODE,
        requested={"cpu": 1000, "memory": 1 << 30, "example.com/gpu": 0},
        pod_count=2,
        used_ports=frozenset({HostPort("0.0.0.0", "UDP", 53)}),
        nonzero=(1100, 1 << 30),
    )


def test_a_node_that_held_none_of_the_pods_is_the_node_itself() -> None:
    other = replace(NODE, name="n2")
    assert released_nodes([NODE, other], [0], [GONE], [0])[1] is other


def _pod(i: int) -> ExistingPod:
    return ExistingPod("app", f"web-{i}", "n", {}, requests={"cpu": 10 * (i + 1), "pods": 1})


@given(
    st.lists(st.integers(min_value=0, max_value=11), max_size=30),
    st.data(),
)
def test_the_released_nodes_are_those_given_back_pod_by_pod(
    node_of: list[int], data: st.DataObject
) -> None:
    """Grouping the pods by node at once (one to a node, or several) gives each node the
    pods a pod-by-pod walk gives it, in the same order, and the same set of nodes held."""
    nodes = [replace(NODE, name=f"n{i}") for i in range(12)]
    pods = [_pod(i) for i in range(len(node_of))]
    own = data.draw(st.lists(st.sampled_from(range(len(node_of))), unique=True)) if pods else []
    released = released_nodes(nodes, node_of, pods, own)
    by_node: dict[int, list[ExistingPod]] = {}
    for i in own:
        by_node.setdefault(node_of[i], []).append(pods[i])
    assert released.holding == sum(1 << position for position in by_node)
    for position, node in enumerate(nodes):
        gone = by_node.get(position)
        assert released[position] == (node if gone is None else node_without(node, gone))


@pytest.mark.parametrize(
    ("positions", "expected"),
    [
        pytest.param([], 0, id="no position is the empty set"),
        pytest.param([0], 1, id="the first position is the lowest bit"),
        pytest.param([9, 3, 9], 1 << 9 | 1 << 3, id="positions over a byte once each"),
        pytest.param([4999], 1 << 4999, id="a position of a large cluster"),
    ],
)
def test_a_bitset_holds_each_position_once(positions: list[int], expected: int) -> None:
    assert bitset(positions) == expected
