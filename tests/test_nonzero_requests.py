"""The resource scores' non-zero requests: a container naming no cpu or memory request is
counted at 100m and 200Mi by NodeResourcesFit's score (LeastAllocated reads the node's
NonZeroRequested and the pod's non-zero request), never by BalancedAllocation (which reads
the requests as written), and never by the filters. Upstream's numbers where its tests
have pods without requests, then the snapshot's totals and a placement end to end."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.k8s.resources import (
    incoming_nonzero_amounts,
    pod_nonzero_amounts,
    pod_request_amounts,
)
from gate.model import ExistingPod, ReplicaFit, Verdict
from gate.scheduler.placement.copyrules import CopyRules, Ledger
from gate.scheduler.placement.replicas import released_nodes
from gate.scheduler.plugins.balancedallocation import balanced_allocation
from gate.scheduler.plugins.noderesources import least_allocated
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container, node
from tests.test_replicas import ZONE, Case, _deployment, _run

MI = 2**20
DEFAULTS = (100, 200 * MI)


def _pod(*requests: dict[str, str]) -> dict[str, Any]:
    """st.MakePod().Req(...)...: one container per request list (none: no container)."""
    return {"containers": [container(f"c{i}", r) for i, r in enumerate(requests)]}


def _node_total(pods: list[dict[str, Any]]) -> tuple[int, int]:
    amounts = [pod_nonzero_amounts(p) for p in pods]
    return sum(a[0] for a in amounts), sum(a[1] for a in amounts)


def _least(incoming: dict[str, Any], existing: list[dict[str, Any]], cpu: str, mem: int) -> int:
    """LeastAllocated of ``incoming`` on a node of ``cpu`` cores and ``mem`` bytes running
    ``existing`` (resource_allocation.go: NonZeroRequested plus the pod's non-zero request)."""
    node_cpu, node_memory = _node_total(existing)
    pod_cpu, pod_memory = incoming_nonzero_amounts(incoming)
    return least_allocated((node_cpu + pod_cpu, node_memory + pod_memory), (int(cpu) * 1000, mem))


CPU_ZERO_MEMORY = {"cpu": "3000", "memory": "0"}
CPU_AND_MEMORY = {"cpu": "3000", "memory": "5000"}
TWO_CONTAINERS = _pod({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})

# least_allocated_test.go TestLeastAllocatedScoringStrategy, the cases whose pods lack a
# request: (name, incoming pod, node1's pods, node2's pods, capacities, expected scores)
LEAST_UPSTREAM: list[
    tuple[
        str,
        dict[str, Any],
        list[dict[str, Any]],
        list[dict[str, Any]],
        tuple[tuple[str, int], tuple[str, int]],
        tuple[int, int],
    ]
] = [
    # st.MakePod().Obj() has no container: nothing to default, 0 everywhere: 100 and 100
    (
        "no resources requested, pods scheduled",
        _pod(),
        [_pod(), _pod()],
        [_pod(), _pod()],
        (("4000", 10000), ("4000", 10000)),
        (100, 100),
    ),
    # a request written as "0" is not missing: it stays 0 (applyNonMissing). node1: cpu
    # (10000 - 6000) * 100 // 10000 = 40, memory 100: 70; node2: 40 and 75: 57
    (
        "no resources requested, pods scheduled with resources",
        _pod(),
        [_pod(CPU_ZERO_MEMORY), _pod(CPU_ZERO_MEMORY)],
        [_pod(CPU_ZERO_MEMORY), _pod(CPU_AND_MEMORY)],
        (("10000", 20000), ("10000", 20000)),
        (70, 57),
    ),
    # node1: 40 and (20000 - 5000) * 100 // 20000 = 75: 57; node2: 40 and 50: 45
    (
        "resources requested, pods scheduled with resources",
        TWO_CONTAINERS,
        [_pod(CPU_ZERO_MEMORY)],
        [_pod(CPU_AND_MEMORY)],
        (("10000", 20000), ("10000", 20000)),
        (57, 45),
    ),
    # node2 50000 memory: 40 and 80: 60
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        TWO_CONTAINERS,
        [_pod(CPU_ZERO_MEMORY)],
        [_pod(CPU_AND_MEMORY)],
        (("10000", 20000), ("10000", 50000)),
        (57, 60),
    ),
    # the incoming pod's memory "0" stays 0 too (200Mi would leave 10000 bytes at 0):
    # node1 cpu over capacity 0, memory 100: 50; node2 0 and 50: 25
    (
        "requested resources exceed node capacity",
        _pod(CPU_ZERO_MEMORY),
        [_pod(CPU_ZERO_MEMORY)],
        [_pod(CPU_AND_MEMORY)],
        (("4000", 10000), ("4000", 10000)),
        (50, 25),
    ),
]


@pytest.mark.parametrize(
    ("incoming", "node1", "node2", "capacities", "expected"),
    [c[1:] for c in LEAST_UPSTREAM],
    ids=[c[0] for c in LEAST_UPSTREAM],
)
def test_least_allocated_with_upstreams_pods(
    incoming: dict[str, Any],
    node1: list[dict[str, Any]],
    node2: list[dict[str, Any]],
    capacities: tuple[tuple[str, int], tuple[str, int]],
    expected: tuple[int, int],
) -> None:
    found = tuple(
        _least(incoming, pods, cpu, mem)
        for pods, (cpu, mem) in zip((node1, node2), capacities, strict=True)
    )
    assert found == expected


def test_balanced_allocation_reads_the_requests_as_written() -> None:
    # balanced_allocation_test.go "requested resources at node capacity" (useRequested
    # true): pod cpuOnly (1000m + 2000m, memory "0"); node1 runs cpuOnly: cpu 6000 / 6000,
    # memory 0: std .5 -> 50; node2 runs cpuAndMemory (3000m, 5000): 1 and .5 -> 75.
    cpu_only = _pod({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
    cpu_and_memory = _pod({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
    pod = pod_request_amounts(cpu_only)
    found = []
    for running in (cpu_only, cpu_and_memory):
        held = pod_request_amounts(running)
        requested = (held["cpu"] + pod["cpu"], held.get("memory", 0) + pod.get("memory", 0))
        found.append(balanced_allocation(requested, (6000, 10000)))
    assert found == [50, 75]
    # a pod naming no request adds nothing here, where LeastAllocated counts 100m / 200Mi
    assert pod_request_amounts(_pod({})) == {}


NONZERO: list[tuple[str, dict[str, Any], tuple[int, int]]] = [
    ("a container naming none: 100m and 200Mi", _pod({}), DEFAULTS),
    ("each container defaulted on its own", _pod({}, {"cpu": "1"}), (1100, 400 * MI)),
    ("a request written as 0 stays 0", _pod({"cpu": "0", "memory": "0"}), (0, 0)),
    ("no container: nothing to default", _pod(), (0, 0)),
    (
        # AggregateContainerRequests: the init container's defaulted 100m / 200Mi against
        # the container's 50m / 200Mi: the larger of each
        "an init container is defaulted before the peak is taken",
        {"containers": [container(requests={"cpu": "50m"})], "initContainers": [container()]},
        (100, 200 * MI),
    ),
    (
        # a sidecar runs beside the containers: added (100m + 100m, 200Mi + 200Mi)
        "a sidecar is defaulted and added",
        {"containers": [container()], "initContainers": [container(restartPolicy="Always")]},
        (200, 400 * MI),
    ),
    (
        # overhead is added after the defaults
        "overhead comes on top",
        {"containers": [container()], "overhead": {"cpu": "250m", "memory": "1Mi"}},
        (350, 201 * MI),
    ),
    (
        # pod-level requests set: getNonMissingContainerRequests defaults only a resource
        # the pod's requests lack altogether (memory here); cpu is the pod's 2
        "pod-level requests: only a resource missing altogether is defaulted",
        {"containers": [container()], "resources": {"requests": {"cpu": "2"}}},
        (2000, 200 * MI),
    ),
]


@pytest.mark.parametrize(
    ("spec", "expected"), [c[1:] for c in NONZERO], ids=[c[0] for c in NONZERO]
)
def test_a_bound_pods_nonzero_requests(spec: dict[str, Any], expected: tuple[int, int]) -> None:
    assert pod_nonzero_amounts(spec) == expected


def test_the_incoming_pod_defaults_every_container_even_with_pod_level_requests() -> None:
    # calculatePodResourceRequest passes NonMissingContainerRequests whatever the pod sets:
    # pod-level cpu replaces the containers' sum, memory is the defaulted 200Mi + 64Mi
    spec = {
        "containers": [container(), container("d", {"memory": "64Mi"})],
        "resources": {"requests": {"cpu": "2"}},
    }
    assert incoming_nonzero_amounts(spec) == (2000, 264 * MI)


# --- the snapshot's totals and a placement ------------------------------------------------

RACK = "rack"


def _rack_node(name: str, zone: str, rack: str, pods: str = "110") -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, ZONE: zone, RACK: rack}
    return api_node(name, cpu="2", memory="4Gi", pods=pods, labels=labels)


def _bound(name: str, node_name: str, requests: dict[str, str] | None) -> dict[str, Any]:
    return api_pod(name, node_name, namespace="ops", containers=[container(requests=requests)])


NODES = [
    _rack_node("p", "a", "x", pods="3"),  # 2 pods already: room for one copy
    _rack_node("q", "b", "x"),
    _rack_node("r", "a", "y"),
]
PODS = [
    _bound("idle-1", "p", None),
    _bound("idle-2", "p", None),
    _bound("small", "q", {"cpu": "50m", "memory": "50Mi"}),
    _bound("medium", "r", {"cpu": "200m", "memory": "200Mi"}),
]


def test_the_snapshot_sums_each_nodes_nonzero_requests() -> None:
    snapshot = build_snapshot(cluster_snapshot(NODES, PODS), "s.json")
    views = {view.name: view for view in snapshot.nodes}
    assert views["p"].requested.get("cpu", 0) == 0
    assert views["p"].nonzero == (200, 400 * MI)
    assert views["q"].nonzero == (50, 50 * MI)


def test_a_released_pod_gives_back_its_nonzero_requests() -> None:
    view = replace(node("p", pod_count=2), nonzero=DEFAULTS)
    idle = ExistingPod("ops", "idle-1", "p", {}, nonzero=DEFAULTS)
    released = released_nodes([view], [0], [idle], [0])
    assert released[0].nonzero == (0, 0)


def test_pods_without_requests_steer_the_first_copy_and_the_count() -> None:
    """Copies of 500m / 64Mi spread DoNotSchedule over zone and rack, maxSkew 1. p (a, x)
    has room for one copy, q (b, x) and r (a, y) for several. A first copy on p leaves no
    node for the second (it needs zone b and rack y: q is rack x, r zone a): 1 fits. A
    first copy on q leaves r for the second, and any node for the third: 3 fit.

    Nodes 2 cpu, 4Gi (4096Mi); TaintToleration, NodeAffinity, PodTopologySpread's score
    (no ScheduleAnyway constraint) and InterPodAffinity alike on every node.

    p runs two pods naming no request: NonZeroRequested 200m / 400Mi, requested 0.
      LeastAllocated: cpu (2000 - 700) * 100 // 2000 = 65, memory (4096 - 464) * 100 //
      4096 = 88: 76. Balanced (requested 500m / 64Mi): .25 and .015625, std .1171875: 88.
      Total 164. Counted at 0, as before, LeastAllocated was 75 and 98: 86, total 174.
    q runs 50m / 50Mi: cpu (2000 - 550) * 100 // 2000 = 72, memory (4096 - 114) * 100 //
      4096 = 97: 84. Balanced .275 and .0278, std .1236: 87. Total 171.
    r runs 200m / 200Mi: cpu 65, memory (4096 - 264) * 100 // 4096 = 93: 79. Balanced .35
      and .0645, std .1428: 85. Total 164.

    With the pods without requests counted at 100m / 200Mi q (171) takes the first copy and
    3 of 3 fit; counted at 0, p (174) would have taken it and 1 of 3 fit.
    """
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": key,
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
        for key in (ZONE, RACK)
    ]
    web = _deployment("web", 3, "500m", pod={"topologySpreadConstraints": spread})
    [result] = _run(Case(NODES, [web], PODS))
    assert (result.verdict, result.placement) == (
        Verdict.YES,
        ReplicaFit(3, alone=3, together=3),
    )


def test_the_ledger_holds_each_copys_nonzero_requests() -> None:
    # copies of a pod naming no request take no room from the filters, but a later
    # workload's LeastAllocated counts them at 100m / 200Mi each
    ledger = Ledger()
    ledger.take("n", CopyRules({}), 2, "Deployment app/idle", DEFAULTS)
    view = node("n")
    assert ledger.view(view).requested == {}
    assert ledger.scored(view) == (200, 400 * MI)
