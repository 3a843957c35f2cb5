"""NodeUnschedulable (gate.scheduler.plugins.nodeunschedulable): a cordoned node admits only
pods that tolerate ``node.kubernetes.io/unschedulable:NoSchedule``.

The first three cases are upstream's ``TestNodeUnschedulable``
(pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go, kube-scheduler
v1.34), with their expected statuses; the rest hold the toleration rule
(component-helpers ``ToleratesTaint``) on the cordon's taint.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.version import Dialect
from gate.model import Code
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.nodeunschedulable import (
    PLUGIN,
    REASON_UNSCHEDULABLE,
    UNSCHEDULABLE_TAINT,
    node_unschedulable,
)
from tests.builders import cluster, node

DIALECT = Dialect()
UNSCHEDULABLE = Rejection(
    "NodeUnschedulable", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",)
)
CORDON_KEY = "node.kubernetes.io/unschedulable"

CASES: list[tuple[str, list[dict[str, Any]], bool, Rejection | None]] = [
    (
        "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
        [],
        True,
        UNSCHEDULABLE,
    ),
    ("Schedule pod to normal node", [], False, None),
    (
        "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
        [{"key": CORDON_KEY, "effect": "NoSchedule"}],
        True,
        None,
    ),
    (
        "a toleration of every taint admits the pod to a cordoned node",
        [{"operator": "Exists"}],
        True,
        None,
    ),
    (
        "a toleration of the cordon key for any effect admits the pod",
        [{"key": CORDON_KEY, "operator": "Exists"}],
        True,
        None,
    ),
    (
        "a toleration of the cordon key for NoExecute only does not admit the pod",
        [{"key": CORDON_KEY, "operator": "Exists", "effect": "NoExecute"}],
        True,
        UNSCHEDULABLE,
    ),
    (
        "a toleration of the cordon key with a value the cordon lacks does not admit the pod",
        [{"key": CORDON_KEY, "value": "yes", "effect": "NoSchedule"}],
        True,
        UNSCHEDULABLE,
    ),
    (
        "a toleration of another key does not admit the pod",
        [{"key": "dedicated", "operator": "Exists"}],
        True,
        UNSCHEDULABLE,
    ),
    (
        "a node that is not cordoned admits a pod without tolerations whatever it tolerates",
        [{"key": "dedicated", "operator": "Exists"}],
        False,
        None,
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "unschedulable", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_node_unschedulable(
    tolerations: list[dict[str, Any]], unschedulable: bool, expected: Rejection | None
) -> None:
    pod = pod_profile({"containers": [], "tolerations": tolerations})
    view = node(unschedulable=unschedulable)
    assert node_unschedulable(pod, view, DIALECT) == expected
    assert PLUGIN.check(PLUGIN.prepare(pod, cluster(view)), view, DIALECT) == expected


def test_the_cordon_reads_as_upstreams_taint_and_reason() -> None:
    # node_unschedulable.go ErrReasonUnschedulable; v1.TaintNodeUnschedulable.
    assert REASON_UNSCHEDULABLE == "node(s) were unschedulable"
    assert (UNSCHEDULABLE_TAINT.key, UNSCHEDULABLE_TAINT.value, UNSCHEDULABLE_TAINT.effect) == (
        CORDON_KEY,
        "",
        "NoSchedule",
    )
    assert PLUGIN.reasons == (REASON_UNSCHEDULABLE,)


def test_the_per_class_path_tells_nodes_apart_by_their_cordon_only() -> None:
    reads = PLUGIN.reads
    assert reads is not None
    cordoned = [node("a", unschedulable=True), node("b", cpu=1, unschedulable=True)]
    assert reads(cordoned[0]) == reads(cordoned[1]) != reads(node("c"))
