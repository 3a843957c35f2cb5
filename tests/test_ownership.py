"""Which running pods a workload's change replaces (gate.scheduler.placement.ownership)."""

from __future__ import annotations

import pytest

from gate.model import ExistingPod
from gate.scheduler.placement.ownership import Ownership


def _pod(name: str, *owners: tuple[str, str], namespace: str = "web", **labels: str) -> ExistingPod:
    return ExistingPod(namespace=namespace, name=name, node="n", labels=labels, owners=owners)


PODS = (
    _pod("web-7d9f-a", ("ReplicaSet", "web-7d9f"), **{"pod-template-hash": "7d9f"}),
    _pod("web-old-b", ("ReplicaSet", "web-5c4b"), **{"pod-template-hash": "5c4b"}),
    _pod("webapp-1", ("ReplicaSet", "webapp-1a2b"), **{"pod-template-hash": "1a2b"}),
    _pod("cache-0", ("StatefulSet", "cache")),
    _pod("nightly-29012345-x", ("Job", "nightly-29012345")),
    _pod("agent-x", ("DaemonSet", "agent")),
    _pod("loner"),
    _pod(
        "web-7d9f-c", ("ReplicaSet", "web-7d9f"), namespace="other", **{"pod-template-hash": "7d9f"}
    ),
    _pod("rs-no-hash", ("ReplicaSet", "web-zzzz")),
)

CASES = [
    (
        "a Deployment owns the pods of each of its ReplicaSets",
        "Deployment",
        "web",
        "web",
        ("web-7d9f-a", "web-old-b"),
    ),
    (
        "a Deployment does not own another's whose name it prefixes",
        "Deployment",
        "web",
        "webapp",
        ("webapp-1",),
    ),
    ("a ReplicaSet owns its pods", "ReplicaSet", "web", "web-7d9f", ("web-7d9f-a",)),
    ("a StatefulSet owns its pods", "StatefulSet", "web", "cache", ("cache-0",)),
    ("a CronJob owns the pods of its Jobs", "CronJob", "web", "nightly", ("nightly-29012345-x",)),
    ("a DaemonSet owns its pods", "DaemonSet", "web", "agent", ("agent-x",)),
    ("a bare Pod replaces the pod of its name", "Pod", "web", "loner", ("loner",)),
    ("ownership stays within the namespace", "Deployment", "other", "web", ("web-7d9f-c",)),
    ("a workload with no running pods owns none", "Deployment", "web", "api", ()),
]


@pytest.mark.parametrize(
    ("kind", "namespace", "name", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_pods_of(kind: str, namespace: str, name: str, expected: tuple[str, ...]) -> None:
    ownership = Ownership.of(PODS)
    assert tuple(PODS[i].name for i in ownership.pods_of(kind, namespace, name)) == expected
