"""Pod requests as the scheduler sums them (gate.k8s.resources) and their conversion to the
integers it compares, through NodeResourcesFit and through whole snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.errors import SnapshotError
from gate.model import NODE_RESOURCES_FIT, NodeView, Verdict
from gate.scheduler.framework.profile import PodProfile
from gate.snapshot.load import load_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.engine_support import evaluate, pod_spec
from tests.test_filters import c, fit_node, fit_pod, reasons, sidecar

# component-helpers/resource/helpers.go PodRequests, as NodeResourcesFit compares it
REQUEST_CASES = [
    (
        "sidecars are summed with the containers",
        fit_pod([c("5")], [sidecar("5")]),
        fit_node(cpu=1),
        ("Insufficient cpu",),
    ),
    (
        "pod overhead is added",
        fit_pod([c("5")], overhead={"cpu": "5m"}),
        fit_node(cpu=1),
        ("Insufficient cpu",),
    ),
    (
        "pod-level requests replace container cpu",
        fit_pod([c("9")], resources={"requests": {"cpu": "1m"}}),
        fit_node(cpu=5),
        (),
    ),
    (
        "a resource the scheduler does not track is ignored",
        fit_pod([container(requests={"storage": "100Gi"})]),
        fit_node(),
        (),
    ),
]


@pytest.mark.parametrize(
    ("pod", "view", "want"), [c[1:] for c in REQUEST_CASES], ids=[c[0] for c in REQUEST_CASES]
)
def test_pod_requests(pod: PodProfile, view: NodeView, want: tuple[str, ...]) -> None:
    assert reasons(NODE_RESOURCES_FIT, pod, view) == want


def test_a_request_past_int64_is_an_error_not_a_huge_number() -> None:
    """Resource.Add keeps int64 millicores: ``cpu: "1e30"`` has no value the scheduler can
    hold (upstream's MilliValue() overflows), so the workload is an ERROR, not a NO."""
    result = evaluate(cluster_snapshot([api_node("n")]), pod_spec("1e30"))
    assert (result.verdict, result.reason) == (
        Verdict.ERROR,
        "cpu quantity overflows the scheduler's int64",
    )


@pytest.mark.parametrize(
    ("nodes", "pods", "where"),
    [
        pytest.param(
            [api_node("n", cpu="1e30")], [], 'nodes[0] (Node "n"): status.allocatable: ', id="node"
        ),
        pytest.param(
            [api_node("n")],
            [api_pod("p", "n", containers=[container(requests={"cpu": "1e30"})])],
            'pods[0] (Pod "default/p"): ',
            id="pod",
        ),
    ],
)
def test_a_snapshot_amount_past_int64_is_a_one_line_error(
    tmp_path: Path, nodes: list[dict[str, object]], pods: list[dict[str, object]], where: str
) -> None:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(cluster_snapshot(nodes, pods)))
    with pytest.raises(SnapshotError) as caught:
        load_snapshot(str(path))
    assert str(caught.value) == f"{path}: {where}cpu quantity overflows the scheduler's int64"


def test_existing_pods_are_rounded_one_by_one() -> None:
    """NodeInfo sums each pod's rounded request: two pods of 0.5m take 2m, not 1m."""
    half = container(requests={"cpu": "0.0005"})
    snapshot = cluster_snapshot(
        [api_node("n", cpu="3m")],
        [api_pod("a", "n", containers=[half]), api_pod("b", "n", containers=[half])],
    )
    assert evaluate(snapshot, pod_spec("2m")).verdict is Verdict.NO
    assert evaluate(snapshot, pod_spec("1m")).verdict is Verdict.YES
