"""The cluster's cpu and memory totals count each node at its ``status.capacity``, as
cluster-autoscaler-1.34.5 counts them (core/utils/utils.go ``GetNodeCoresAndMemory``: the
capacity's cpu and memory, ``Quantity.Value`` rounded up, 0 when absent or negative;
core/scaleup/resource/manager.go: a group's ``cloudProviderTarget`` times its template's,
plus the nodes in no group), not at its allocatable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, ScaleUp
from gate.snapshot.load import build_snapshot, load_snapshot
from tests.autoscaler_support import AKS_GPU, AKS_USER, Run, aks_node, owned_pod, spec
from tests.autoscaling_objects import autoscaler_deployment, status_configmap, status_group
from tests.builders import api_node, cluster_snapshot
from tests.test_autoscaler_decision import GPU_TEMPLATE

DAEMONS = [owned_pod(f"proxy-{i}", f"user-{i}", "DaemonSet", "750m") for i in range(3)]
CPU_LIMIT = "max cluster cpu limit reached"


def _with_capacity(node: dict[str, Any], **capacity: str) -> dict[str, Any]:
    node["status"]["capacity"] = {**node["status"]["allocatable"], **capacity}
    return node


def _decide(nodes: list[dict[str, Any]], cores_total: str, copies: int) -> Decision:
    groups = [
        status_group(AKS_USER, target=3, max_size=10),
        status_group(AKS_GPU, target=0, max_size=4),
    ]
    objects = [status_configmap(*groups), autoscaler_deployment(f"--cores-total={cores_total}")]
    run = Run(nodes, objects, DAEMONS, config=GPU_TEMPLATE)
    return run.decide(spec(cpu="1"), copies)


def test_a_member_s_capacity_sizes_its_group_against_the_cores_total() -> None:
    # Fresh nodes hold 3 copies of 1 cpu (4 cpu less 750m of DaemonSets); 30 cores less
    # 3 members of 6 cores leave 12: two nodes of 6, where 4 allocatable cores would
    # have left room for the four the copies need.
    members = [_with_capacity(aks_node(f"user-{i}"), cpu="6") for i in range(3)]
    assert _decide(members, "0:30", 10) == Decision(
        10, (ScaleUp(AKS_USER, 2, 6, 3, 10),), 6, {CPU_LIMIT: 2}
    )
    plain = [aks_node(f"user-{i}") for i in range(3)]
    assert _decide(plain, "0:30", 10).scale_up == (ScaleUp(AKS_USER, 4, 10, 3, 10),)


def test_a_node_in_no_group_counts_at_its_capacity() -> None:
    taint = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    infra = _with_capacity(api_node("infra-0", taints=taint), cpu="16")
    members = [aks_node(f"user-{i}") for i in range(3)]
    # 36 cores less 3 x 4 for the group and 16 for the node in no group leave 8: two nodes.
    decided = _decide([*members, infra], "0:36", 10)
    assert decided.scale_up == (ScaleUp(AKS_USER, 2, 6, 3, 10),)
    assert CPU_LIMIT in decided.reasons


@pytest.mark.parametrize(
    ("capacity", "counted"),
    [
        ({"cpu": "7820m", "memory": "32Gi", "pods": "110"}, (8, 32 * 2**30)),
        ({"cpu": "4", "memory": "1.5Ki"}, (4, 1536)),
        ({"memory": "1000001m"}, (0, 1001)),
        ({"pods": "110"}, (0, 0)),
    ],
    ids=["cores rounded up", "whole units", "memory rounded up", "neither listed: 0"],
)
def test_the_reader_keeps_capacity_in_cores_and_bytes(
    tmp_path: Path, capacity: dict[str, str], counted: tuple[int, int]
) -> None:
    node = api_node("n1")
    node["status"]["capacity"] = capacity
    document = cluster_snapshot([node, api_node("n2")])
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    for snapshot in (load_snapshot(str(path)), build_snapshot(document, "s.json")):
        first, second = snapshot.nodes
        assert first.capacity == counted
        assert second.capacity is None  # no capacity listed: its allocatable stands for it


def test_a_capacity_that_is_no_quantity_is_a_snapshot_error(tmp_path: Path) -> None:
    node = api_node("n1")
    node["status"]["capacity"] = {"cpu": "four"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(cluster_snapshot([node])))
    with pytest.raises(SnapshotError, match=r"status\.capacity"):
        load_snapshot(str(path))
