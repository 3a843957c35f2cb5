"""What stops Karpenter launching although its scheduling simulation would plan a claim:
the NodePool's ``limits.nodes`` (sigs.k8s.io/karpenter v1.8.3 provisioner.go ``Create``,
nodepool.go ``ExceededBy``), its NodeClass missing or not Ready (karpenter-provider-aws
v1.8.8 cloudprovider.go ``GetInstanceTypes``; provisioner.go ``NewScheduler``), and a
catalog whose every offering is unavailable (cloudprovider/types.go: only available
offerings are launched)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gate.inputs.catalog import parse_catalog
from gate.model.karpenter import KarpenterState, NodeClaim, NodeClass, NodePool
from gate.scheduler.autoscaling.karpenter.provisioner import EXCEEDED, FILTERED_ALL
from tests.karpenter_support import Run, karpenter_node, spec

EKS = ("karpenter.k8s.aws", "EC2NodeClass", "default")
READY = NodeClass("EC2NodeClass", "default")


def _run(
    pool: NodePool, *classes: NodeClass, nodes: int = 0, claims: int = 0, **claimed: Any
) -> Run:
    made = [karpenter_node(f"n{i}", pool.name, "zone-a") for i in range(nodes)]
    launched = {"capacity": {"cpu": 4000, "pods": 110}, **claimed}
    in_flight = tuple(NodeClaim(f"c{i}", pool.name, **launched) for i in range(claims))
    return Run((pool,), nodes=made, state=KarpenterState((pool,), in_flight, classes))


@pytest.mark.parametrize(
    ("nodes", "claims", "claimed", "limit", "placed"),
    [
        pytest.param(1, 0, {}, 0, 0, id="limits.nodes 0 with a node: creation fails"),
        pytest.param(0, 1, {}, 0, 0, id="a launched in-flight claim counts as a node"),
        pytest.param(0, 1, {"capacity": {}}, 0, 3, id="a claim not yet launched lists no capacity"),
        pytest.param(0, 1, {"deleting": True}, 0, 3, id="nor does a claim being deleted"),
        pytest.param(0, 0, {}, 0, 3, id="limits.nodes 0 with no node: usage is not above it"),
        pytest.param(2, 0, {}, 2, 3, id="at the limit, not above it: created"),
    ],
)
def test_limits_nodes_stop_creation_only_when_usage_is_above_them(
    nodes: int, claims: int, claimed: dict[str, Any], limit: int, placed: int
) -> None:
    """cluster.go ``updateNodePoolResources`` counts the usage; provisioner.go
    ``CreateNodeClaims`` wraps ``Create``'s error, nodepool.go ``ExceededBy``'s serrors."""
    pool = NodePool("default", limits={"nodes": limit}, node_class=EKS)
    decision = _run(pool, READY, nodes=nodes, claims=claims, **claimed).decide(spec(), 3)
    assert decision.placed == placed
    if not placed:
        usage = nodes + claims
        assert decision.errors == (
            (
                "default",
                EXCEEDED,
                f"creating node claim, {EXCEEDED} (limit={limit}, resource-name=nodes, "
                f"usage={usage})",
            ),
        )


def test_a_node_class_not_ready_leaves_no_pool() -> None:
    pool = NodePool("default", node_class=EKS)
    run = _run(pool, NodeClass("EC2NodeClass", "default", ready=False))
    decision = run.decide(spec(), 1)
    assert (decision.placed, decision.unjudged) == (0, "no nodepools found")
    assert "NodePool default: its EC2NodeClass default is not Ready: Karpenter ignores it" in (
        run.provisioner.notes
    )


def test_a_missing_node_class_resolves_no_instance_type() -> None:
    pool = NodePool("default", node_class=EKS)
    run = _run(pool, NodeClass("EC2NodeClass", "other"))
    decision = run.decide(spec(), 1)
    assert decision.placed == 0
    assert decision.errors == (("", FILTERED_ALL, FILTERED_ALL),)


def test_a_catalog_whose_every_offering_is_unavailable_launches_nothing() -> None:
    entry = {
        "name": "c-4x",
        "architecture": "amd64",
        "operatingSystems": ["linux"],
        "resources": {"cpu": "4", "memory": "8Gi"},
        "offerings": [
            {
                "Price": 0.2,
                "Available": False,
                "Requirements": [
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a"]},
                ],
            }
        ],
    }
    catalog = parse_catalog(json.dumps([entry]).encode(), "types.json")
    decision = Run((NodePool("default"),), catalog=catalog).decide(spec(), 1)
    assert decision.placed == 0
    assert decision.errors == (("", FILTERED_ALL, FILTERED_ALL),)
