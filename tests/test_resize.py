"""A pod in the middle of an in-place resize counts as the scheduler counts it: per
resource, the largest of its spec's, its actual and its allocated requests (component-
helpers resource.PodRequests with UseStatusResources), in both snapshot readers and in a
recording."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from gate.k8s.version import dialect_for
from gate.live.objects import Pod
from gate.live.recorder import recorded as recorded_as
from gate.model import Location, Verdict, Workload
from gate.scheduler.engine.evaluate import Evaluator
from gate.snapshot.load import build_snapshot
from gate.snapshot.stream import read_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.engine_support import NO_VICTIMS, preempting


def resizing(
    spec_cpu: str, actual: str, allocated: str, infeasible: bool = False
) -> dict[str, Any]:
    pod = api_pod("r", "n", containers=[container("app", requests={"cpu": spec_cpu})])
    status = {
        "name": "app",
        "resources": {"requests": {"cpu": actual}},
        "allocatedResources": {"cpu": allocated},
        "containerID": "containerd://1",
    }
    pod["status"]["containerStatuses"] = [status]
    pod["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    if infeasible:
        pod["status"]["conditions"].append(
            {"type": "PodResizePending", "status": "True", "reason": "Infeasible"}
        )
    return pod


def deferred_first(pod: dict[str, Any]) -> dict[str, Any]:
    """The pod with a Deferred PodResizePending condition ahead of its others."""
    deferred = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}
    pod["status"]["conditions"].insert(0, deferred)
    return pod


CASES = {
    # A downsize in progress: the spec says 100m, the container still holds 2 cores.
    "downsizing": (resizing("100m", "2", "2"), 1000),
    # An upsize allocated but not yet actuated: the allocation counts.
    "upsizing": (resizing("2", "100m", "2"), 1000),
    # An Infeasible resize: the spec's 2 cores are not counted, the running 100m is.
    "infeasible": (resizing("2", "100m", "100m", infeasible=True), 2900),
    # Two PodResizePending conditions: the first, Deferred, decides (IsPodResizeInfeasible).
    "deferred-first": (deferred_first(resizing("2", "100m", "100m", infeasible=True)), 1000),
    "not-resizing": (api_pod("p", "n", containers=[container("app", requests={"cpu": "1"})]), 2000),
}


@pytest.mark.parametrize(("pod", "free_cpu"), CASES.values(), ids=CASES.keys())
def test_both_readers_count_what_the_scheduler_counts(pod: dict[str, Any], free_cpu: int) -> None:
    document = cluster_snapshot([api_node("n", cpu="3")], [pod], server_version="v1.35.0")
    listing = {"kind": "List", "apiVersion": "v1", "items": [*document["nodes"], pod]}
    for shape in (document, listing):
        reference = build_snapshot(shape, "s.json")
        (node,) = reference.nodes
        assert node.allocatable["cpu"] - node.requested["cpu"] == free_cpu
        typed = read_snapshot(io.BytesIO(json.dumps(shape).encode()), "s.json", lambda n: None)
        assert typed == reference


@pytest.mark.parametrize(
    ("key", "free_cpu"),
    [("resources", 2900), ("\\u0072esources", 2900), ("resourcesX", 1000)],
    ids=["spelled out", "spelled with an escape", "another key"],
)
def test_status_resources_are_found_however_the_key_is_spelled(key: str, free_cpu: int) -> None:
    """The typed reader decodes container statuses only when their text can hold a
    ``resources`` key: a JSON escape can spell one too."""
    pod = resizing("2", "100m", "100m", infeasible=True)
    document = cluster_snapshot([api_node("n", cpu="3")], [pod], server_version="v1.35.0")
    text = json.dumps(document).replace(
        '"resources": {"requests": {"cpu": "100m"}}', f'"{key}": {{"requests": {{"cpu": "100m"}}}}'
    )
    assert key in text
    reference = build_snapshot(json.loads(text), "s.json")
    (node,) = reference.nodes
    assert node.allocatable["cpu"] - node.requested["cpu"] == free_cpu
    assert read_snapshot(io.BytesIO(text.encode()), "s.json", lambda n: None) == reference


def test_a_resizing_pod_leaves_room_only_for_what_it_holds() -> None:
    document = cluster_snapshot([api_node("n", cpu="3")], [resizing("100m", "2", "2")])
    snapshot = build_snapshot(document, "s.json")
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for("v1.35.0"))
    spec = {"containers": [container("web", requests={"cpu": "2"})]}
    result = evaluator.evaluate(Workload("Pod", "default", "w", Location("w.yaml", 1), 1, spec))
    assert result.verdict is Verdict.NO
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu." + preempting(
        1, (1, NO_VICTIMS)
    )


def test_a_recording_keeps_what_a_resize_reports_and_nothing_else() -> None:
    recorded = recorded_as(Pod, resizing("100m", "2", "2", infeasible=True))
    assert recorded["status"] == {
        "phase": "Running",
        "containerStatuses": [
            {
                "name": "app",
                "resources": {"requests": {"cpu": "2"}},
                "allocatedResources": {"cpu": "2"},
            }
        ],
        "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}],
    }
    plain = recorded_as(Pod, api_pod("p", "n"))
    assert plain["status"] == {"phase": "Running"}
