"""NodeResourcesFit's Filter against upstream's tables, with the status code.

Upstream ``pkg/scheduler/framework/plugins/noderesources/fit_test.go`` TestEnoughRequests,
TestNotEnoughRequests and TestStorageRequests: a node of 10m cpu, 20 bytes of memory, 32
pods, 5 of example.com/aaa, 20 of ephemeral-storage and 5 of hugepages-2Mi allocatable;
the node's pods hold ``used``. A request past what the node has left is Unschedulable,
and past its allocatable UnschedulableAndUnresolvable (fit.go InsufficientResource
.Unresolvable). The cases ``tests/test_filters.py`` already holds are not repeated.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import Dialect
from gate.model import NODE_RESOURCES_FIT, NodeView
from gate.scheduler.framework.pods import pod_profile
from tests.builders import prepared

ALLOCATABLE = {
    "cpu": 10,
    "memory": 20,
    "pods": 32,
    "example.com/aaa": 5,
    "ephemeral-storage": 20,
    "hugepages-2Mi": 5,
}
UNSCHEDULABLE, UNRESOLVABLE = "Unschedulable", "UnschedulableAndUnresolvable"


def holding(pods: int = 1, allocatable: dict[str, int] | None = None, **used: int) -> NodeView:
    """The upstream node, its pods holding ``used`` (``example_com_aaa`` for
    example.com/aaa, ``hugepages_2Mi`` for hugepages-2Mi)."""
    names = {"example_com_aaa": "example.com/aaa", "hugepages_2Mi": "hugepages-2Mi"}
    return NodeView(
        name="node",
        labels={},
        taints=(),
        unschedulable=False,
        allocatable=ALLOCATABLE if allocatable is None else allocatable,
        requested={names.get(k, k): v for k, v in used.items()},
        pod_count=pods,
    )


def asks(**amounts: str) -> dict[str, Any]:
    """A container requesting ``amounts`` (cpu in millicores, the rest in units)."""
    names = {
        "cpu": "cpu",
        "memory": "memory",
        "storage": "ephemeral-storage",
        "aaa": "example.com/aaa",
        "bbb": "example.com/bbb",
        "k8s_io": "kubernetes.io/something",
        "sub_k8s_io": "subdomain.kubernetes.io/something",
        "hugepages": "hugepages-2Mi",
    }
    requests = {names[k]: f"{v}m" if k == "cpu" else v for k, v in amounts.items()}
    return {"name": "c", "resources": {"requests": requests}}


def spec(*containers: dict[str, Any], init: tuple[dict[str, Any], ...] = (), **more: Any) -> Any:
    return {"containers": list(containers), "initContainers": list(init), **more}


def insufficient(name: str, code: str = UNSCHEDULABLE) -> tuple[str, tuple[str, ...]]:
    return code, (f"Insufficient {name}",)


CASES = [
    pytest.param(
        spec(
            asks(cpu="1", memory="1"), init=(asks(cpu="1", memory="3"), asks(cpu="1", memory="2"))
        ),
        holding(cpu=9, memory=19),
        insufficient("memory"),
        id="too many resources fails due to highest init container memory",
    ),
    pytest.param(
        spec(
            asks(cpu="1", memory="1"), init=(asks(cpu="1", memory="1"), asks(cpu="1", memory="1"))
        ),
        holding(cpu=9, memory=19),
        None,
        id="multiple init containers fit because it is the max not the sum",
    ),
    pytest.param(
        spec(asks(), init=(asks(aaa="1"),)),
        holding(),
        None,
        id="extended resource fits for init container",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1", aaa="10")),
        holding(),
        insufficient("example.com/aaa", UNRESOLVABLE),
        id="extended resource capacity enforced",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", aaa="10"),)),
        holding(),
        insufficient("example.com/aaa", UNRESOLVABLE),
        id="extended resource capacity enforced for init container",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", aaa="1"),)),
        holding(example_com_aaa=5),
        insufficient("example.com/aaa"),
        id="extended resource allocatable enforced for init container",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1", aaa="3"), asks(cpu="1", memory="1", aaa="3")),
        holding(example_com_aaa=2),
        insufficient("example.com/aaa", UNRESOLVABLE),
        id="extended resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", aaa="3"), asks(cpu="1", memory="1", aaa="3"))),
        holding(example_com_aaa=2),
        None,
        id="extended resource allocatable admits multiple init containers",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", aaa="6"), asks(cpu="1", memory="1", aaa="3"))),
        holding(example_com_aaa=2),
        insufficient("example.com/aaa", UNRESOLVABLE),
        id="extended resource allocatable enforced for multiple init containers",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", bbb="1"),)),
        holding(),
        insufficient("example.com/bbb", UNRESOLVABLE),
        id="extended resource allocatable enforced for unknown resource for init container",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1", k8s_io="10")),
        holding(),
        insufficient("kubernetes.io/something", UNRESOLVABLE),
        id="kubernetes.io resource capacity enforced",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", sub_k8s_io="10"),)),
        holding(),
        insufficient("subdomain.kubernetes.io/something", UNRESOLVABLE),
        id="kubernetes.io resource capacity enforced for init container",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1", hugepages="10")),
        holding(),
        insufficient("hugepages-2Mi", UNRESOLVABLE),
        id="hugepages resource capacity enforced",
    ),
    pytest.param(
        spec(asks(), init=(asks(cpu="1", memory="1", hugepages="10"),)),
        holding(),
        insufficient("hugepages-2Mi", UNRESOLVABLE),
        id="hugepages resource capacity enforced for init container",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1", hugepages="3"), asks(cpu="1", memory="1", hugepages="3")),
        holding(hugepages_2Mi=2),
        insufficient("hugepages-2Mi", UNRESOLVABLE),
        id="hugepages resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1"), overhead={"cpu": "3m", "memory": "13"}),
        holding(cpu=5, memory=5),
        None,
        id="resources and pod overhead fit",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1"), overhead={"cpu": "1m", "memory": "15"}),
        holding(cpu=5, memory=5),
        insufficient("memory"),
        id="requests and overhead do not fit for memory",
    ),
    pytest.param(
        spec(asks(aaa="0", memory="0")),
        holding(example_com_aaa=5, memory=20),
        None,
        id="a request of zero is not checked",
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1")),
        holding(cpu=10, memory=10),
        insufficient("cpu"),
        id="due to container scratch disk",
    ),
    pytest.param(
        spec(asks(storage="10")),
        holding(cpu=2, memory=2),
        None,
        id="an ephemeral storage request within allocatable fits",
    ),
]


def _fit(pod: Any, view: NodeView) -> tuple[str, tuple[str, ...]] | None:
    profile = pod_profile(pod)
    found = next(p for p in prepared(profile, view) if p.plugin.name == NODE_RESOURCES_FIT)
    rejection = found.check(view, Dialect())
    return None if rejection is None else (rejection.code.value, rejection.reasons)


@pytest.mark.parametrize(("pod", "view", "want"), CASES)
def test_enough_requests(
    pod: Any, view: NodeView, want: tuple[str, tuple[str, ...]] | None
) -> None:
    assert _fit(pod, view) == want


ONE_POD = {"cpu": 10, "memory": 20, "pods": 1}

# fit_test.go TestNotEnoughRequests: a node of one pod slot that already runs a pod
NOT_ENOUGH = [
    pytest.param(
        spec(), holding(cpu=10, memory=20, allocatable=ONE_POD), id="even without requests"
    ),
    pytest.param(
        spec(asks(cpu="1", memory="1")),
        holding(cpu=5, memory=5, allocatable=ONE_POD),
        id="even if both resources fit",
    ),
    pytest.param(
        spec(asks(cpu="5", memory="1")),
        holding(cpu=5, memory=19, allocatable=ONE_POD),
        id="even for the equal edge case",
    ),
    pytest.param(
        spec(asks(cpu="5", memory="1"), init=(asks(cpu="5", memory="1"),)),
        holding(cpu=5, memory=19, allocatable=ONE_POD),
        id="even for the equal edge case with an init container",
    ),
]


@pytest.mark.parametrize(("pod", "view"), NOT_ENOUGH)
def test_no_pod_slot_left_is_too_many_pods(pod: Any, view: NodeView) -> None:
    assert _fit(pod, view) == (UNSCHEDULABLE, ("Too many pods",))
