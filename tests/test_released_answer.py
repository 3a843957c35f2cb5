"""A workload's answer once its own running pods are released is the answer it gets from a
cluster that never held them: the nodes they were on give their room back, and the
inter-pod filters stop counting them, whatever else refuses those nodes: the verdict, the
scheduler's message and every node's outcome are the same."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.model import Document, Location, WorkloadResult
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"

RULES: dict[str, dict[str, Any]] = {
    "a zone spread over its own pods": {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": ZONE,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
        ]
    },
    "anti-affinity against its own pods per node": {
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOSTNAME}
                ]
            }
        }
    },
    "affinity to its own pods' zone": {
        "affinity": {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ZONE}
                ]
            }
        }
    },
    "no rule its own pods meet": {},
}


def _pod(name: str, node: int, cpu: int, labels: dict[str, str], owner: str) -> dict[str, Any]:
    pod = api_pod(
        name,
        f"n{node}",
        namespace="app",
        containers=[container(requests={"cpu": f"{cpu}m", "memory": "64Mi"})],
    )
    pod["metadata"]["labels"] = labels
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": owner}]
    return pod


def _results(
    nodes: list[dict[str, Any]], pods: list[dict[str, Any]], body: dict[str, Any]
) -> WorkloadResult:
    snapshot = build_snapshot(cluster_snapshot(nodes, pods), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), body)], snapshot, RunOptions()).results
    return result


@settings(max_examples=40, deadline=None)
@given(
    shapes=st.lists(
        st.tuples(st.sampled_from((1000, 2000)), st.sampled_from("ab"), st.booleans()),
        min_size=1,
        max_size=5,
    ),
    own=st.lists(st.tuples(st.integers(0, 4), st.sampled_from((300, 900))), max_size=6),
    others=st.lists(st.tuples(st.integers(0, 4), st.sampled_from((300, 900))), max_size=4),
    rule=st.sampled_from(sorted(RULES)),
    cpu=st.sampled_from((400, 800, 1500)),
    ssd_only=st.booleans(),
)
def test_released_pods_leave_the_answer_of_a_cluster_that_never_held_them(
    shapes: list[tuple[int, str, bool]],
    own: list[tuple[int, int]],
    others: list[tuple[int, int]],
    rule: str,
    cpu: int,
    ssd_only: bool,
) -> None:
    nodes = [
        api_node(
            f"n{i}",
            cpu=f"{room}m",
            labels={HOSTNAME: f"n{i}", ZONE: zone, **({"disk": "ssd"} if ssd else {})},
        )
        for i, (room, zone, ssd) in enumerate(shapes)
    ]
    running = [
        _pod(
            f"web-5d8f7c-{i}",
            n % len(nodes),
            c,
            {"app": "web", "pod-template-hash": "5d8f7c"},
            "web-5d8f7c",
        )
        for i, (n, c) in enumerate(own)
    ]
    rest = [
        _pod(f"db-{i}", n % len(nodes), c, {"app": "db"}, "db-7f")
        for i, (n, c) in enumerate(others)
    ]
    spec: dict[str, Any] = {
        "containers": [container(requests={"cpu": f"{cpu}m", "memory": "64Mi"})],
        **RULES[rule],
    }
    if ssd_only:
        spec["nodeSelector"] = {"disk": "ssd"}
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "app"},
        "spec": {
            "replicas": 1,
            "strategy": {"type": "Recreate"},
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec},
        },
    }
    released = _results(nodes, running + rest, body)
    never = _results(nodes, rest, body)
    # the cause's free amounts are read from the snapshot's nodes as recorded: not compared
    assert (released.verdict, released.message, released.nodes) == (
        never.verdict,
        never.message,
        never.nodes,
    )
