"""PodRequests as the scheduler computes it for a pod: upstream's table, case by case.

Upstream ``staging/src/k8s.io/component-helpers/resource/helpers_test.go``
TestPodResourceRequests, the cases v1.34.1's PodRequests answers (the cases with
``UseStatusResources: false`` are the incoming pod's, whose status is never read; a bound
pod's requests read its status as NodeInfo does, with UseStatusResources). A resource is
written in whole units, as upstream's cases write it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from gate.k8s.quantity import parse_quantity
from gate.k8s.resources import pod_requests, with_status_resources

ALWAYS = {"restartPolicy": "Always"}
INFEASIBLE = {"type": "PodResizePending", "status": "True", "reason": "Infeasible"}


def box(name: str, *, more: dict[str, Any] | None = None, **requests: str) -> dict[str, Any]:
    """A container named ``name`` requesting ``requests`` (``ephemeral_storage`` spelled
    with an underscore)."""
    wanted = {k.replace("_", "-"): v for k, v in requests.items()}
    return {"name": name, "resources": {"requests": wanted}, **(more or {})}


def reported(name: str, actual: dict[str, str] | None = None, **allocated: str) -> dict[str, Any]:
    """A container status: its actual requests (``resources``) and what is allocated."""
    entry: dict[str, Any] = {"name": name, "resources": {"requests": actual or {}}}
    if allocated:
        entry["allocatedResources"] = {k.replace("_", "-"): v for k, v in allocated.items()}
    return entry


def pod(
    containers: list[dict[str, Any]],
    init: list[dict[str, Any]] | None = None,
    *,
    overhead: dict[str, str] | None = None,
    statuses: list[dict[str, Any]] | None = None,
    init_statuses: list[dict[str, Any]] | None = None,
    conditions: list[dict[str, str]] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    spec: dict[str, Any] = {"containers": containers, "initContainers": init or []}
    if overhead is not None:
        spec["overhead"] = overhead
    status = {
        "containerStatuses": statuses or [],
        "initContainerStatuses": init_statuses or [],
        "conditions": conditions or [],
    }
    return spec, status


CASES = [
    pytest.param(
        pod([box("c", cpu="1")], [box("i", cpu="4")]),
        {"cpu": "4"},
        id="a larger init container sets the floor",
    ),
    pytest.param(
        pod([box("c1", cpu="2"), box("c2", cpu="3")], [box("i", cpu="2")]),
        {"cpu": "5"},
        id="larger containers sum past the init container",
    ),
    pytest.param(
        pod(
            [box("c1", cpu="2"), box("c2", cpu="3")],
            [box("i", cpu="2")],
            overhead={"cpu": "1", "memory": "1Gi"},
        ),
        {"cpu": "6", "memory": "1Gi"},
        id="the pod overhead is added",
    ),
    pytest.param(
        pod(
            [box("container-1", cpu="4")],
            statuses=[reported("container-1", {"cpu": "2"})],
            conditions=[INFEASIBLE],
        ),
        {"cpu": "2"},
        id="an infeasible resize counts what runs, not the spec",
    ),
    pytest.param(
        pod(
            [box("container-1", cpu="6")],
            statuses=[reported("container-1", {"cpu": "2"}, cpu="4")],
            conditions=[INFEASIBLE],
        ),
        {"cpu": "4"},
        id="an infeasible resize still in progress counts the allocation",
    ),
    pytest.param(
        pod([box("container-1", cpu="4")], statuses=[reported("container-1", {"cpu": "2"})]),
        {"cpu": "4"},
        id="a resize without a resize status counts the larger spec",
    ),
    pytest.param(
        pod(
            [box("container-1", cpu="30m", memory="20M", ephemeral_storage="10G")],
            statuses=[
                reported(
                    "container-1",
                    {"cpu": "10m", "memory": "30M", "ephemeral-storage": "20G"},
                    cpu="20m",
                    memory="10M",
                    ephemeral_storage="30G",
                )
            ],
        ),
        {"cpu": "30m", "memory": "30M", "ephemeral-storage": "30G"},
        id="a resize counts the largest of spec actual and allocated per resource",
    ),
    pytest.param(
        pod(
            [],
            [box("restartable-init-1", cpu="4", more=ALWAYS)],
            init_statuses=[reported("restartable-init-1", {"cpu": "2"})],
            conditions=[INFEASIBLE],
        ),
        {"cpu": "2"},
        id="an infeasible resize of a sidecar counts what runs",
    ),
    pytest.param(
        pod(
            [],
            [box("restartable-init-1", cpu="4", more=ALWAYS)],
            init_statuses=[reported("restartable-init-1", {"cpu": "2"})],
        ),
        {"cpu": "4"},
        id="a sidecar resize without a resize status counts the larger spec",
    ),
    pytest.param(
        pod([box("container-1", cpu="1")], [box("restartable-init-1", cpu="1", more=ALWAYS)]),
        {"cpu": "2"},
        id="a sidecar is summed with the regular container",
    ),
    pytest.param(
        pod(
            [box("container-1", cpu="1")],
            [
                box("init-1", cpu="5"),
                box("restartable-init-1", cpu="1", more=ALWAYS),
                box("restartable-init-2", cpu="2", more=ALWAYS),
                box("restartable-init-3", cpu="3", more=ALWAYS),
            ],
        ),
        {"cpu": "7"},
        id="several sidecars and a container outgrow an earlier init container",
    ),
    pytest.param(
        pod(
            [box("container-1", cpu="1")],
            [
                box("init-1", cpu="5"),
                box("restartable-init-1", cpu="1", more=ALWAYS),
                box("restartable-init-2", cpu="2", more=ALWAYS),
                box("init-2", cpu="5"),
                box("restartable-init-3", cpu="3", more=ALWAYS),
            ],
        ),
        {"cpu": "8"},
        id="an init container runs beside the sidecars started before it only",
    ),
    pytest.param(
        pod(
            [box("container-1", cpu="100")],
            [box("restartable-init-1", cpu="10", more=ALWAYS), box("init-1", cpu="200")],
        ),
        {"cpu": "210"},
        id="an init container after a sidecar adds to it",
    ),
]


@pytest.mark.parametrize(("given", "expected"), CASES)
def test_pod_requests_as_upstream_sums_them(
    given: tuple[dict[str, Any], dict[str, Any]], expected: dict[str, str]
) -> None:
    spec, status = given
    got = pod_requests(with_status_resources(spec, status))
    want: dict[str, Fraction] = {k: parse_quantity(v) for k, v in expected.items()}
    assert got == want


def test_only_the_first_resize_pending_condition_is_read() -> None:
    """helpers.go IsPodResizeInfeasible returns at the first PodResizePending condition:
    a Deferred one ahead of an Infeasible one leaves the resize feasible, so the spec
    counts."""
    deferred = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}
    spec, status = pod(
        [box("container-1", cpu="4")],
        statuses=[reported("container-1", {"cpu": "2"})],
        conditions=[deferred, INFEASIBLE],
    )
    assert pod_requests(with_status_resources(spec, status)) == {"cpu": 4}
